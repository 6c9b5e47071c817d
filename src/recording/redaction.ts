/**
 * @module recording/redaction
 * Secrets never reach a recording (docs/design.md §5): the value of a secret header (one named in
 * a redaction list, or one whose name looks secret, see {@link isSecretHeader}) is replaced by
 * `"[redacted sha256:<first 8 hex of sha256(value)>]"`, so two requests with the same secret still
 * compare equal without the secret being written. Query parameters of a recorded path are treated
 * alike ({@link redactPath}), and URLs are printed without user-info ({@link redactUrl}).
 */
import { createHash } from 'node:crypto';

/** Header names redacted by default (lower-case). */
export const DEFAULT_REDACTED_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
];

/** A header whose lower-case name contains one of these is secret, whatever the redaction list says. */
export const SECRET_HEADER_WORDS: readonly string[] = [
  'token',
  'secret',
  'password',
  'passwd',
  'api-key',
  'apikey',
  'session',
  'cookie',
  'auth',
  'credential',
  'signature',
];

/** The first `hexDigits` hex digits of SHA-256(UTF-8(value)). */
export function sha256Prefix(value: string, hexDigits: number): string {
  return createHash('sha256').update(value, 'utf8').digest('hex').slice(0, hexDigits);
}

/** First 8 hex digits of SHA-256(UTF-8(value)). */
export function shortSha256(value: string): string {
  return sha256Prefix(value, 8);
}

/** The redacted form of one secret value. */
export function redactValue(value: string): string {
  return `[redacted sha256:${shortSha256(value)}]`;
}

/**
 * True when a header called `name` carries a secret: it is in `names` (matched
 * case-insensitively), or its lower-case name contains one of {@link SECRET_HEADER_WORDS}.
 */
export function isSecretHeader(name: string, names: readonly string[] = DEFAULT_REDACTED_HEADERS): boolean {
  const lower = name.toLowerCase();
  return SECRET_HEADER_WORDS.some((word) => lower.includes(word)) || names.some((n) => n.toLowerCase() === lower);
}

/**
 * The lower-cased set of a redaction list, built once per list (a recorder passes the same one
 * for every exchange); rebuilt when the list was changed since.
 */
const secretSets = new WeakMap<readonly string[], { copy: readonly string[]; set: ReadonlySet<string> }>();
const NO_NAMES: ReadonlySet<string> = new Set();
function secretNameSet(names: readonly string[]): ReadonlySet<string> {
  if (names.length === 0) return NO_NAMES;
  const known = secretSets.get(names);
  if (known !== undefined && known.copy.length === names.length && known.copy.every((n, i) => n === names[i])) {
    return known.set;
  }
  const set = new Set(names.map((n) => n.toLowerCase()));
  secretSets.set(names, { copy: [...names], set });
  return set;
}

/**
 * A copy of `headers` (lower-case names) with every secret header redacted: those in `names`
 * (case-insensitive) and every secret-looking one ({@link isSecretHeader}).
 */
export function redactHeaders(
  headers: Readonly<Record<string, string>>,
  names: readonly string[] = DEFAULT_REDACTED_HEADERS,
): Record<string, string> {
  const secret = secretNameSet(names);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    out[name] = secret.has(lower) || SECRET_HEADER_WORDS.some((w) => lower.includes(w)) ? redactValue(value) : value;
  }
  return out;
}

/** A query parameter whose lower-case name contains one of these is secret. */
export const SECRET_QUERY_WORDS: readonly string[] = [
  'key',
  'token',
  'secret',
  'password',
  'passwd',
  'sig',
  'signature',
  'auth',
  'credential',
  'session',
];

/** `+` and percent-escapes decoded; text that does not decode is kept as it is. */
function decodeQueryPart(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/**
 * True when a query parameter called `name` (already decoded) carries a secret: its lower-case
 * name contains one of {@link SECRET_QUERY_WORDS}, or it is one of `names` (case-insensitive).
 */
export function isSecretQueryName(name: string, names: readonly string[] = []): boolean {
  const lower = name.toLowerCase();
  return SECRET_QUERY_WORDS.some((word) => lower.includes(word)) || names.some((n) => n.toLowerCase() === lower);
}

/**
 * `path` (a request target, or any URL) with the value of every secret query parameter
 * ({@link isSecretQueryName}) replaced by its redacted form, percent-encoded
 * (`?api_key=QS-1&x=2` gives `?api_key=%5Bredacted%20sha256%3A<8 hex>%5D&x=2`). Everything else,
 * the order of the parameters and their spelling included, is kept byte for byte; a path without
 * a secret parameter comes back as given. Never throws.
 */
export function redactPath(path: string, names: readonly string[] = []): string {
  const start = path.indexOf('?');
  if (start < 0) return path;
  const hash = path.indexOf('#', start);
  const end = hash < 0 ? path.length : hash;
  let changed = false;
  const parts = path
    .slice(start + 1, end)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      if (eq < 0) return part;
      const rawName = part.slice(0, eq);
      if (!isSecretQueryName(decodeQueryPart(rawName), names)) return part;
      changed = true;
      return `${rawName}=${encodeURIComponent(redactValue(decodeQueryPart(part.slice(eq + 1))))}`;
    });
  return changed ? `${path.slice(0, start + 1)}${parts.join('&')}${path.slice(end)}` : path;
}

/** `scheme://` (or `scheme:\\`, which URL parsers read alike) and a user-info part up to its last `@`. */
const USER_INFO = /^(\s*[a-z][a-z0-9+.-]*:[\\/]*)[^\\/?#]*@/i;

/**
 * `url` as it may be printed or written: without user-info (`http://admin:pw@host:8080` gives
 * `http://host:8080`) and with secret query parameters redacted ({@link redactPath}). A URL with
 * neither comes back exactly as given; text that is not a URL loses whatever stands where
 * user-info would.
 */
export function redactUrl(url: string | URL): string {
  return redactPath(withoutUserInfo(url));
}

function withoutUserInfo(url: string | URL): string {
  if (typeof url !== 'string') {
    if (url.username === '' && url.password === '') return url.href;
    const copy = new URL(url.href);
    copy.username = '';
    copy.password = '';
    return copy.href;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.replace(USER_INFO, '$1');
  }
  if (parsed.username === '' && parsed.password === '') return url;
  const href = withoutUserInfo(parsed);
  // new URL() adds a `/` to a bare origin: keep the form the caller gave.
  const bare = parsed.pathname === '/' && parsed.search === '' && parsed.hash === '' && !/[/\\]\s*$/.test(url);
  return bare ? href.replace(/\/$/, '') : href;
}
