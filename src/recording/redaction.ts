/**
 * @module recording/redaction
 * Secrets never reach a recording (docs/design.md §5): the value of a secret header (one named in
 * a redaction list, or one whose name says secret by {@link SECRET_NAME_WORDS}, unless a keep list
 * names it: see {@link isSecretHeader}) is replaced by
 * `"[redacted sha256:<first 8 hex of sha256(value)>]"`, so two requests with the same secret still
 * compare equal without the secret being written. Query parameters of a recorded path are treated
 * alike ({@link redactPath}), and URLs are printed without user-info ({@link redactUrl}).
 */
import { createHash } from 'node:crypto';
import { BoundedMap } from '../bounded-map.js';

/** Header names redacted by default (lower-case). */
export const DEFAULT_REDACTED_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
];

/**
 * The rule for header and query names (docs/design.md §5): a name says it carries a secret when its
 * lower-case form contains one of these words anywhere: as a part of its own (`x-functions-key`,
 * `cf-access-jwt-assertion`, `x-amzn-oidc-data`) or run together with others (`apikey`,
 * `accesstoken`, `sessionid`). `oidc` counts: the `x-amzn-oidc-*` headers carry the caller's
 * signed identity token and its claims. Matching anywhere also catches a few harmless names
 * (`x-monkey`); a recording that needs one in clear names it with `--keep-header`.
 */
export const SECRET_NAME_WORDS: readonly string[] = [
  'key',
  'token',
  'secret',
  'password',
  'passwd',
  'credential',
  'assertion',
  'jwt',
  'session',
  'signature',
  'auth',
  'cookie',
  'oidc',
];

/** A header whose lower-case name contains one of these is secret (the rule of {@link SECRET_NAME_WORDS}). */
export const SECRET_HEADER_WORDS: readonly string[] = SECRET_NAME_WORDS;

/** The first `hexDigits` hex digits of SHA-256(UTF-8(value)). */
export function sha256Prefix(value: string, hexDigits: number): string {
  return createHash('sha256').update(value, 'utf8').digest('hex').slice(0, hexDigits);
}

/** First 8 hex digits of SHA-256(UTF-8(value)). */
export function shortSha256(value: string): string {
  return sha256Prefix(value, 8);
}

/**
 * The redacted forms of the last secret values seen: a client sends the same credential with
 * every request. Only short values are kept, so the memory stays small whatever comes.
 */
const RECENT_VALUE_MAX_LENGTH = 4096;
const recentRedactions = new BoundedMap<string, string>(64);

/** The redacted form of one secret value. */
export function redactValue(value: string): string {
  let redacted = recentRedactions.get(value);
  if (redacted !== undefined) return redacted;
  redacted = `[redacted sha256:${shortSha256(value)}]`;
  if (value.length <= RECENT_VALUE_MAX_LENGTH) recentRedactions.set(value, redacted);
  return redacted;
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

/** True when the lower-case `name` contains one of `words`. */
function saysSecret(lower: string, words: readonly string[]): boolean {
  return words.some((word) => lower.includes(word));
}

/**
 * True when a header called `name` carries a secret: it is in `names` (matched
 * case-insensitively), or its lower-case name contains one of {@link SECRET_HEADER_WORDS}; unless
 * `keep` names it (`record --keep-header`), which wins over both.
 */
export function isSecretHeader(
  name: string,
  names: readonly string[] = DEFAULT_REDACTED_HEADERS,
  keep: readonly string[] = [],
): boolean {
  const lower = name.toLowerCase();
  if (keep.length > 0 && secretNameSet(keep).has(lower)) return false;
  return saysSecret(lower, SECRET_HEADER_WORDS) || secretNameSet(names).has(lower);
}

/**
 * A copy of `headers` (lower-case names) with every secret header redacted: those in `names`
 * (case-insensitive) and every secret-looking one, except those `keep` names ({@link isSecretHeader}).
 */
export function redactHeaders(
  headers: Readonly<Record<string, string>>,
  names: readonly string[] = DEFAULT_REDACTED_HEADERS,
  keep: readonly string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = isSecretHeader(name, names, keep) ? redactValue(value) : value;
  }
  return out;
}

/** How many header names a {@link HeaderRedaction} remembers its answer for. */
const REMEMBERED_HEADER_NAMES = 512;

/**
 * {@link redactHeaders} for one redaction list and keep list, with the answer of
 * {@link isSecretHeader} remembered per header name: a recorder sees the same few dozen names on
 * every exchange. The lists are compared with the copies the answers were made from at each
 * call, so a list changed since is honoured as {@link redactHeaders} honours it.
 */
export class HeaderRedaction {
  readonly #names: readonly string[];
  readonly #keep: readonly string[];
  #namesSeen: readonly string[];
  #keepSeen: readonly string[];
  readonly #secret = new Map<string, boolean>();

  constructor(names: readonly string[] = DEFAULT_REDACTED_HEADERS, keep: readonly string[] = []) {
    this.#names = names;
    this.#keep = keep;
    this.#namesSeen = [...names];
    this.#keepSeen = [...keep];
  }

  /** A copy of `headers` (lower-case names) with every secret header redacted, as {@link redactHeaders}. */
  redact(headers: Readonly<Record<string, string>>): Record<string, string> {
    if (!sameList(this.#names, this.#namesSeen) || !sameList(this.#keep, this.#keepSeen)) {
      this.#namesSeen = [...this.#names];
      this.#keepSeen = [...this.#keep];
      this.#secret.clear();
    }
    const out: Record<string, string> = {};
    for (const name of Object.keys(headers)) {
      const value = headers[name] as string;
      let secret = this.#secret.get(name);
      if (secret === undefined) {
        secret = isSecretHeader(name, this.#names, this.#keep);
        if (this.#secret.size < REMEMBERED_HEADER_NAMES) this.#secret.set(name, secret);
      }
      out[name] = secret ? redactValue(value) : value;
    }
    return out;
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A query parameter whose lower-case name contains one of these is secret: the words of
 * {@link SECRET_NAME_WORDS}, and `sig` (a SAS URL's signature).
 */
export const SECRET_QUERY_WORDS: readonly string[] = [...SECRET_NAME_WORDS, 'sig'];

/**
 * Query parameters secret by their whole name (case-insensitive), too short to look for inside
 * other names: `code` (an OAuth authorization code), `pwd`, `pw` and `pass` (passwords).
 */
export const SECRET_QUERY_NAMES: readonly string[] = ['code', 'pwd', 'pw', 'pass'];

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
 * name contains one of {@link SECRET_QUERY_WORDS}, is one of {@link SECRET_QUERY_NAMES}, or is one
 * of `names` (case-insensitive).
 */
export function isSecretQueryName(name: string, names: readonly string[] = []): boolean {
  const lower = name.toLowerCase();
  return saysSecret(lower, SECRET_QUERY_WORDS) || SECRET_QUERY_NAMES.includes(lower) || secretNameSet(names).has(lower);
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
