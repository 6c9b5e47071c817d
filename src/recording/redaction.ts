/**
 * @module recording/redaction
 * Secrets never reach a recording (docs/design.md §5): the value of a secret header (one named in
 * a redaction list, or one whose name looks secret, see {@link isSecretHeader}) is replaced by
 * `"[redacted sha256:<first 8 hex of sha256(value)>]"`, so two requests with the same secret still
 * compare equal without the secret being written.
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
 * A copy of `headers` (lower-case names) with every secret header redacted: those in `names`
 * (case-insensitive) and every secret-looking one ({@link isSecretHeader}).
 */
export function redactHeaders(
  headers: Readonly<Record<string, string>>,
  names: readonly string[] = DEFAULT_REDACTED_HEADERS,
): Record<string, string> {
  const secret = new Set(names.map((n) => n.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    out[name] = secret.has(lower) || SECRET_HEADER_WORDS.some((w) => lower.includes(w)) ? redactValue(value) : value;
  }
  return out;
}

/** `scheme://` (or `scheme:\\`, which URL parsers read alike) and a user-info part up to its last `@`. */
const USER_INFO = /^(\s*[a-z][a-z0-9+.-]*:[\\/]*)[^\\/?#]*@/i;

/**
 * `url` as it may be printed or written: without user-info (`http://admin:pw@host:8080` gives
 * `http://host:8080`). A URL without user-info comes back exactly as given; text that is not a URL
 * loses whatever stands where user-info would.
 */
export function redactUrl(url: string | URL): string {
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
  const href = redactUrl(parsed);
  // new URL() adds a `/` to a bare origin: keep the form the caller gave.
  const bare = parsed.pathname === '/' && parsed.search === '' && parsed.hash === '' && !/[/\\]\s*$/.test(url);
  return bare ? href.replace(/\/$/, '') : href;
}
