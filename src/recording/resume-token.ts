/**
 * @module recording/resume-token
 * Resume tokens are capabilities: whoever holds one can resume the paused task. Recordings never
 * keep them (docs/design.md §5): the recorder writes a placeholder derived from the token's hash
 * instead. The placeholder embeds exactly the hash a receipt keeps (`resumeTokenHash`), so the
 * observer derives the same receipt from a recording as from the live traffic, and replay pairs
 * placeholders with the live peer's tokens as it pairs ids.
 */
import { hashCanonical, repairLoneSurrogates } from '../canonical/canonical-json.js';

/** What every placeholder starts with; the rest is `sha256:<64 hex>`. */
export const TOKEN_PLACEHOLDER_PREFIX = 'a2a-replay:resume-token:';

const PLACEHOLDER = /^a2a-replay:resume-token:(sha256:[0-9a-f]{64})$/;

/**
 * The last tokens hashed: a token is typically hashed twice in a row (the answer that shows the
 * pause, then the ResumeTask that hands it back), so a few are kept. A pure function's memory.
 */
const RECENT_TOKENS = 64;
const recentHashes = new Map<string, string>();

/** The hash receipts keep for a token, `hashCanonical(token)`; a lone surrogate counts as U+FFFD. */
export function hashToken(token: string): string {
  let hash = recentHashes.get(token);
  if (hash === undefined) {
    hash = hashCanonical(repairLoneSurrogates(token).value);
    if (recentHashes.size >= RECENT_TOKENS) recentHashes.delete(recentHashes.keys().next().value!);
    recentHashes.set(token, hash);
  }
  return hash;
}

/** The placeholder that stands in for `token` in a recording (a placeholder stays as it is). */
export function tokenPlaceholder(token: string): string {
  return isTokenPlaceholder(token) ? token : `${TOKEN_PLACEHOLDER_PREFIX}${hashToken(token)}`;
}

/** True for a value written by {@link tokenPlaceholder}. */
export function isTokenPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value);
}

/** The receipt hash of a token or of its placeholder: both give the same value. */
export function tokenHashOf(value: string): string {
  const match = PLACEHOLDER.exec(value);
  return match ? match[1]! : hashToken(value);
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * The resume tokens a recording session has replaced so far, the latest {@link SEEN_TOKENS} of
 * them: a body kept as text (over the body cap, or not JSON) cannot be walked as JSON, so the
 * tokens it holds are found by these values ({@link redactOverCapText}).
 */
export const SEEN_TOKENS = 64;

export class SeenTokens {
  readonly #tokens = new Set<string>();

  add(token: string): void {
    this.#tokens.delete(token);
    if (this.#tokens.size >= SEEN_TOKENS) this.#tokens.delete(this.#tokens.values().next().value!);
    this.#tokens.add(token);
  }

  values(): IterableIterator<string> {
    return this.#tokens.values();
  }
}

/**
 * Calls `visit` with every resume token in a freshly parsed body, and the object and member name
 * that hold it: a string `resumeToken` member anywhere (RFC answers, ResumeTask params) and the
 * legacy `metadata.harn.pause.handle`, except an empty one. Walks with an explicit stack (any
 * depth) and only when `text` (the body's JSON text) may name such a member at all (it holds
 * `"resumeToken"`, `"handle"` or a `\u` escape: member names are compared decoded, so
 * `"resume\u0054oken"` is a `resumeToken` member too), so other bodies cost a few substring searches.
 */
function forEachResumeToken(
  body: unknown,
  text: string,
  visit: (holder: { [key: string]: Json }, name: string, token: string) => void,
): void {
  if (!text.includes('"resumeToken"') && !text.includes('"handle"') && !text.includes('\\u')) return;
  const stack: { value: Json; key: string; parentKey: string }[] = [{ value: body as Json, key: '', parentKey: '' }];
  while (stack.length > 0) {
    const { value, key, parentKey } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, key: '', parentKey: key });
      continue;
    }
    for (const [name, member] of Object.entries(value)) {
      const legacyHandle = name === 'handle' && key === 'pause' && parentKey === 'harn';
      // An empty token is no capability: it stays empty, so replay sends what the client sent.
      if ((name === 'resumeToken' || legacyHandle) && typeof member === 'string' && member !== '') {
        visit(value, name, member);
      } else {
        stack.push({ value: member, key: name, parentKey: key });
      }
    }
  }
}

/**
 * Replaces, in place, every resume token of a freshly parsed body ({@link forEachResumeToken}) by
 * its placeholder; `seen` learns each token replaced.
 */
export function replaceResumeTokens<T>(body: T, text: string, seen?: SeenTokens): T {
  forEachResumeToken(body, text, (holder, name, token) => {
    if (!isTokenPlaceholder(token)) seen?.add(token);
    holder[name] = tokenPlaceholder(token);
  });
  return body;
}

/**
 * `text`, a body's JSON text, with every resume token it holds (`body` is `text` parsed) written
 * as its placeholder, for a body kept as text (one nested too deep to be kept as a body): each
 * token's JSON string is replaced where it stands. Undefined when a token is still there after
 * that (written with other escapes than `JSON.stringify` uses), so the text cannot be kept.
 */
export function replaceResumeTokensInText(body: unknown, text: string): string | undefined {
  const tokens = new Set<string>();
  forEachResumeToken(body, text, (_holder, _name, token) => {
    if (!isTokenPlaceholder(token)) tokens.add(token);
  });
  if (tokens.size === 0) return text;
  let out = text;
  for (const token of tokens) out = out.split(JSON.stringify(token)).join(JSON.stringify(tokenPlaceholder(token)));
  let left = false;
  forEachResumeToken(JSON.parse(out), out, (_holder, _name, token) => {
    left ||= !isTokenPlaceholder(token);
  });
  return left ? undefined : out;
}

/** What stands for a token cut by the body cap: no hash of a part names the token. */
export const CUT_TOKEN_TEXT = '[resume token cut at the body cap]';

/** Every JSON string (one cut by the end of the text too), and a member whose value is a string. */
const STRINGS = /"((?:[^"\\]|\\[^])*)"(\s*:\s*)"((?:[^"\\]|\\[^])*)("?)|"(?:[^"\\]|\\[^])*"?/g;

/** A JSON string's content decoded, or `undefined` when it is not a valid one. */
function decodedString(raw: string): string | undefined {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}

/** A token shorter than this cut at the end of a text is not looked for (too likely by chance). */
const MIN_CUT_PART = 4;

/**
 * Body text as the recorder keeps it when it cannot parse it, with every resume token it can see
 * replaced (docs/design.md §5). Such text is the head of a body over the body cap (or of an SSE
 * event over it), or a body that is not JSON: the JSON walk of {@link replaceResumeTokens} cannot
 * run on it, so
 *
 * - the value of a `resumeToken` member (its name compared decoded) becomes the token's
 *   placeholder, or {@link CUT_TOKEN_TEXT} when the cap cut the value;
 * - every token the session has seen ({@link SeenTokens}), as written or JSON-escaped, becomes
 *   its placeholder, and, when `cut` (the text is the head of something longer), a start of one
 *   (at least {@link MIN_CUT_PART} characters) that ends the text becomes {@link CUT_TOKEN_TEXT}.
 *
 * Text holding none comes back as given.
 */
export function redactOverCapText(text: string, seen: SeenTokens, cut = true): string {
  let out = text.includes('resume') || text.includes('\\u') ? redactTokenMembers(text) : text;
  const forms = new Map<string, string>();
  for (const token of seen.values()) {
    const placeholder = tokenPlaceholder(token);
    for (const form of new Set([token, JSON.stringify(token).slice(1, -1)])) {
      if (out.includes(form)) forms.set(form, placeholder);
    }
  }
  if (forms.size > 0) {
    // One pass, longest first: a token is never looked for inside a placeholder already written.
    const alternatives = [...forms.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
    out = out.replace(new RegExp(alternatives.join('|'), 'g'), (form) => forms.get(form)!);
  }
  return cut ? withoutCutToken(out, seen) : out;
}

function redactTokenMembers(text: string): string {
  return text.replace(STRINGS, (whole, name: string | undefined, colon: string, value: string, closed: string) => {
    if (name === undefined || decodedString(name) !== 'resumeToken') return whole;
    if (closed === '') return `"${name}"${colon}"${CUT_TOKEN_TEXT}`;
    const token = decodedString(value);
    if (token === undefined) return `"${name}"${colon}"${CUT_TOKEN_TEXT}"`;
    if (token === '') return whole;
    return `"${name}"${colon}${JSON.stringify(tokenPlaceholder(token))}`;
  });
}

/** `text` without a start of a seen token at its very end (where the cap cut it). */
function withoutCutToken(text: string, seen: SeenTokens): string {
  let longest = 0;
  for (const token of seen.values()) {
    for (const form of [token, JSON.stringify(token).slice(1, -1)]) {
      for (let n = Math.min(form.length - 1, text.length); n >= MIN_CUT_PART && n > longest; n--) {
        if (text.endsWith(form.slice(0, n))) {
          longest = n;
          break;
        }
      }
    }
  }
  return longest === 0 ? text : `${text.slice(0, text.length - longest)}${CUT_TOKEN_TEXT}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}
