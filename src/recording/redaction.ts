/**
 * @module recording/redaction
 * Secrets never reach a recording (docs/design.md §5, "Secrets by rule"): one rule
 * ({@link SecretRules}, src/recording/secret-rules.ts) decides by the name a value travels under —
 * a header, a query parameter of any URL (request targets, URL-valued headers, URL strings in
 * bodies), a JSON member at any depth — and a {@link Redactor} writes each secret value as its
 * keyed mark (src/recording/redaction-mark.ts), so equal values inside one recording compare equal
 * without the value, or a guess's hash, standing anywhere. URLs printed in messages lose their
 * user-info and secret query values ({@link redactUrl}).
 */
import { RedactionMarks, randomMarkKey } from './redaction-mark.js';
import { DEFAULT_SECRET_RULES, type SecretRules, adjustSecretRules, jsonKeyForm } from './secret-rules.js';

/** Header names redacted by default (lower-case). */
export const DEFAULT_REDACTED_HEADERS: readonly string[] = DEFAULT_SECRET_RULES.headerNames;
/** A header whose lower-case name contains one of these is secret. */
export const SECRET_NAME_WORDS: readonly string[] = DEFAULT_SECRET_RULES.headerWords;
/** A header whose lower-case name contains one of these is secret (the rule of {@link SECRET_NAME_WORDS}). */
export const SECRET_HEADER_WORDS: readonly string[] = SECRET_NAME_WORDS;
/** A query parameter whose lower-case name contains one of these is secret. */
export const SECRET_QUERY_WORDS: readonly string[] = DEFAULT_SECRET_RULES.queryWords;
/** Query parameters secret by their whole name (case-insensitive). */
export const SECRET_QUERY_NAMES: readonly string[] = DEFAULT_SECRET_RULES.queryNames;

/** What stands for a secret where no recording's key is at hand (messages, printed URLs). */
export const PLAIN_MARK = '[redacted]';

/** How many names each {@link Redactor} remembers its answer for, per kind. */
const REMEMBERED_NAMES = 1024;

/** One remembered answer per name, up to {@link REMEMBERED_NAMES}. */
class NameVerdicts {
  readonly #known = new Map<string, boolean>();
  readonly #decide: (name: string) => boolean;
  constructor(decide: (name: string) => boolean) {
    this.#decide = decide;
  }
  of(name: string): boolean {
    let verdict = this.#known.get(name);
    if (verdict === undefined) {
      verdict = this.#decide(name);
      if (this.#known.size < REMEMBERED_NAMES) this.#known.set(name, verdict);
    }
    return verdict;
  }
}

/** True when the header `name` is secret under `rules` (the keep list wins). */
function headerIsSecret(rules: SecretRules, name: string): boolean {
  const lower = name.toLowerCase();
  if (rules.keepHeaders.includes(lower)) return false;
  if (rules.headerNames.includes(lower)) return true;
  if (rules.headerWords.some((word) => lower.includes(word))) return true;
  return lower.split(/[-_.]/).some((word) => rules.headerWholeWords.includes(word));
}

/** True when the query parameter `name` (decoded) is secret under `rules` (the keep list wins). */
function queryIsSecret(rules: SecretRules, name: string): boolean {
  const lower = name.toLowerCase();
  if (rules.keepQuery.includes(lower)) return false;
  return rules.queryNames.includes(lower) || rules.queryWords.some((word) => lower.includes(word));
}

/** A last word this long is looked for at the end of a name run together (`accesstoken`); `key` is not (`monkey`). */
const RUN_TOGETHER_MIN = 5;

/** True when the JSON member `name` is secret under `rules` (the keep list wins). */
function jsonKeyIsSecret(rules: SecretRules, name: string): boolean {
  const form = jsonKeyForm(name);
  if (rules.keepJsonKeys.includes(form)) return false;
  if (rules.jsonKeyNames.includes(form)) return true;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_\-.]+/)
    .filter((w) => w !== '');
  const last = (words[words.length - 1] ?? '').toLowerCase();
  if (rules.jsonKeyLastWords.includes(last)) return true;
  return (
    words.length === 1 && rules.jsonKeyLastWords.some((word) => word.length >= RUN_TOGETHER_MIN && last.endsWith(word))
  );
}

/**
 * Whether the JSON member `name` holds a credential under the default rule (docs/design.md §5):
 * such a value is never a peer-minted id for replay to map, whatever its name ends in.
 */
export function isDefaultSecretJsonKey(name: string): boolean {
  return jsonKeyIsSecret(DEFAULT_SECRET_RULES, name);
}

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
 * `path` with the value of every query parameter `secret` names replaced by `mark(value)`,
 * percent-encoded; everything else, the order of the parameters and their spelling included, kept
 * byte for byte; a path without a secret parameter comes back as given. Never throws.
 */
function redactQueryOf(path: string, secret: (name: string) => boolean, mark: (value: string) => string): string {
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
      if (eq === part.length - 1 || !secret(decodeQueryPart(rawName))) return part;
      changed = true;
      return `${rawName}=${encodeURIComponent(mark(decodeQueryPart(part.slice(eq + 1))))}`;
    });
  return changed ? `${path.slice(0, start + 1)}${parts.join('&')}${path.slice(end)}` : path;
}

/** `scheme://user-info@` anywhere in a text (the user-info up to the host). */
const USER_INFO_IN_TEXT = /([a-z][a-z0-9+.-]*:[\\/]{2})([^\s\\/?#@"'<>]+)@/gi;
/**
 * A query parameter anywhere in a text: after `?`, `&` or `;`, up to a separator or a `?` (which
 * starts the query of a URL standing as another parameter's value: `;by=https://h/p?code=C`).
 */
const PARAMETER_IN_TEXT = /([?&;])([^=&#\s"'<>;,?]+)=([^&#\s"'<>;,?]*)/g;

/** Texts that may hold a URL or query to read (a cheap test before the expressions run). */
function mayHoldUrl(text: string): boolean {
  return text.includes('://') || (text.includes('=') && (text.includes('?') || text.includes('&')));
}

/** JSON values waiting in an in-place walk: a holder and the key of the value in it. */
type Holder = Record<string, unknown> | unknown[];

/**
 * One recording's redaction: the rule in force and the recording's mark key. Every place the
 * recorder writes a value from traffic goes through one of these methods.
 */
export class Redactor {
  readonly rules: SecretRules;
  readonly #marks: RedactionMarks;
  readonly #headers: NameVerdicts;
  readonly #query: NameVerdicts;
  readonly #json: NameVerdicts;
  #marked = 0;

  constructor(marks: RedactionMarks = new RedactionMarks(randomMarkKey()), rules: SecretRules = DEFAULT_SECRET_RULES) {
    this.rules = rules;
    this.#marks = marks;
    this.#headers = new NameVerdicts((name) => headerIsSecret(rules, name));
    this.#query = new NameVerdicts((name) => queryIsSecret(rules, name));
    this.#json = new NameVerdicts((name) => jsonKeyIsSecret(rules, name));
  }

  /** The marks this redactor writes (principals are hashed under the same key). */
  get marks(): RedactionMarks {
    return this.#marks;
  }

  /**
   * How many values this redactor has marked so far: a caller that reads this before and after
   * redacting something knows whether anything in it changed (the same count: nothing did).
   */
  get markCount(): number {
    return this.#marked;
  }

  /** The mark of one secret value. */
  mark(value: string): string {
    this.#marked += 1;
    return this.#marks.mark(value);
  }

  /** True when a header called `name` carries a secret. */
  isSecretHeader(name: string): boolean {
    return this.#headers.of(name);
  }

  /** True when a query parameter called `name` (decoded) carries a secret. */
  isSecretQueryName(name: string): boolean {
    return this.#query.of(name);
  }

  /** True when a JSON member called `name` carries a secret. */
  isSecretJsonKey(name: string): boolean {
    return this.#json.of(name);
  }

  /**
   * A copy of `headers` (lower-case names): a secret header's value marked whole; a URL-valued
   * header's (or any value holding a URL or query) with its user-info and secret query values
   * marked ({@link text}).
   */
  headers(headers: Readonly<Record<string, string>>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of Object.keys(headers)) {
      const value = headers[name] as string;
      if (this.isSecretHeader(name)) out[name] = this.mark(value);
      else if (this.rules.urlHeaders.includes(name) || mayHoldUrl(value)) out[name] = this.text(value);
      else out[name] = value;
    }
    return out;
  }

  /** A request target with the user-info of its absolute form and its secret query values marked. */
  path(path: string): string {
    const target = path.includes('@') ? this.#userInfo(path) : path;
    return redactQueryOf(
      target,
      (name) => this.isSecretQueryName(name),
      (value) => this.mark(value),
    );
  }

  /**
   * Text that may hold URLs (a header value, a JSON string, a body kept as text): each URL's
   * user-info and every secret query parameter's value (after `?`, `&` or `;`) marked and
   * percent-encoded; the rest kept as it is.
   */
  text(text: string): string {
    if (!mayHoldUrl(text)) return text;
    return this.#userInfo(text).replace(PARAMETER_IN_TEXT, (whole, sep: string, rawName: string, raw: string) =>
      raw !== '' && this.isSecretQueryName(decodeQueryPart(rawName))
        ? `${sep}${rawName}=${encodeURIComponent(this.mark(decodeQueryPart(raw)))}`
        : whole,
    );
  }

  #userInfo(text: string): string {
    if (!text.includes('@')) return text;
    return text.replace(USER_INFO_IN_TEXT, (_whole, scheme: string, info: string) => {
      return `${scheme}${encodeURIComponent(this.mark(decodeQueryPart(info)))}@`;
    });
  }

  /**
   * `value` (parsed JSON) with every secret in it marked, in place where it is an object or array
   * (the caller owns it): a member whose name the rule says secret has its string or number
   * value marked (each one of an array of them; an object is walked on), and every string that
   * holds a URL is read as {@link text}. Walked with an explicit stack: any depth.
   */
  json<T>(value: T): T {
    if (typeof value === 'string') return this.text(value) as T;
    if (value === null || typeof value !== 'object') return value;
    const stack: { holder: Holder; secret: boolean }[] = [{ holder: value as Holder, secret: false }];
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      const { holder, secret } = next;
      if (Array.isArray(holder)) {
        for (let i = 0; i < holder.length; i++) this.#member(holder, i, secret, stack);
      } else {
        for (const key of Object.keys(holder)) this.#member(holder, key, this.isSecretJsonKey(key), stack);
      }
    }
    return value;
  }

  #member(holder: Holder, key: string | number, secret: boolean, stack: { holder: Holder; secret: boolean }[]): void {
    const v = (holder as Record<string | number, unknown>)[key];
    if (typeof v === 'string') {
      const out = secret ? (v === '' ? v : this.mark(v)) : this.text(v);
      if (out !== v) (holder as Record<string | number, unknown>)[key] = out;
    } else if (typeof v === 'number' && secret) {
      (holder as Record<string | number, unknown>)[key] = this.mark(String(v));
    } else if (v !== null && typeof v === 'object') {
      // An array under a secret name holds secrets; an object's members say for themselves.
      stack.push({ holder: v as Holder, secret: secret && Array.isArray(v) });
    }
  }

  /**
   * Body text that could not be parsed (over the cap, not JSON): every `"name": "value"` member
   * whose name is secret has its value marked (also one the text's end cut), then URLs as
   * {@link text}.
   */
  bodyText(text: string): string {
    const members = text.replace(JSON_MEMBER, (whole, rawName: string, colon: string, raw: string, close: string) => {
      const name = decodedJsonString(rawName);
      if (name === undefined || raw === '' || !this.isSecretJsonKey(name)) return whole;
      return `"${rawName}"${colon}"${JSON.stringify(this.mark(decodedJsonString(raw) ?? raw)).slice(1, -1)}${close}`;
    });
    return this.text(members);
  }
}

/** A JSON member whose value is a string, also one cut by the end of the text. */
const JSON_MEMBER = /"((?:[^"\\]|\\[^]){1,256})"(\s*:\s*)"((?:[^"\\]|\\[^])*)("?)/g;

function decodedJsonString(raw: string): string | undefined {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}

/** The rule of the default set with `names` redacted and `keep` kept (the older lists' form). */
function rulesOf(names: readonly string[], keep: readonly string[], query: readonly string[] = []): SecretRules {
  return adjustSecretRules({ redact: names, keepHeaders: keep, redactQuery: query });
}

/**
 * True when a header called `name` carries a secret: `names` names it (case-insensitively), or
 * the default rule does; unless `keep` names it (`record --keep-header`), which wins.
 */
export function isSecretHeader(
  name: string,
  names: readonly string[] = DEFAULT_REDACTED_HEADERS,
  keep: readonly string[] = [],
): boolean {
  return headerIsSecret(rulesOf(names, keep), name);
}

/**
 * True when a query parameter called `name` (already decoded) carries a secret under the default
 * rule, or `names` names it (case-insensitive).
 */
export function isSecretQueryName(name: string, names: readonly string[] = []): boolean {
  return queryIsSecret(rulesOf([], [], names), name);
}

/** True when a JSON member called `name` carries a secret under the default rule. */
export function isSecretJsonKey(name: string): boolean {
  return jsonKeyIsSecret(DEFAULT_SECRET_RULES, name);
}

/**
 * `path` (a request target, or any URL) with the value of every secret query parameter
 * ({@link isSecretQueryName}, plus `names`) replaced by `[redacted]`, percent-encoded, for text
 * printed without a recording's key; the rest kept byte for byte. Never throws.
 */
export function redactPath(path: string, names: readonly string[] = []): string {
  const rules = rulesOf([], [], names);
  return redactQueryOf(
    path,
    (name) => queryIsSecret(rules, name),
    () => PLAIN_MARK,
  );
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
