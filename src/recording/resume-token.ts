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
 * Calls `visit` with every resume token in a freshly parsed body, and the object and member name
 * that hold it: a string `resumeToken` member anywhere (RFC answers, ResumeTask params) and the
 * legacy `metadata.harn.pause.handle`, except an empty one. Walks with an explicit stack (any
 * depth) and only when `text` (the body's JSON text) names such a member at all, so other bodies
 * cost one substring search.
 */
function forEachResumeToken(
  body: unknown,
  text: string,
  visit: (holder: { [key: string]: Json }, name: string, token: string) => void,
): void {
  if (!text.includes('"resumeToken"') && !text.includes('"handle"')) return;
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

/** Replaces, in place, every resume token of a freshly parsed body ({@link forEachResumeToken}) by its placeholder. */
export function replaceResumeTokens<T>(body: T, text: string): T {
  forEachResumeToken(body, text, (holder, name, token) => {
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
