/**
 * @module receipts/line-form
 * Whether a log line's text is the canonical form (RFC 8785) of the line it parses to, and the
 * canonical text of its signed body (the line without `sig`), which its signature covers
 * (docs/design.md §6).
 *
 * Two ways that always agree (a property test holds them to it): `full` canonicalizes the parsed
 * line and compares; `fast` uses that a line whose every object lists its keys in canonical order
 * is canonical exactly when `JSON.stringify` of its parse gives the text back, and then cuts the
 * `"sig"` member out of the text instead of serializing the body again. The fast way only ever
 * answers "canonical" when that holds; anything it cannot decide (escapes `\u`, keys out of
 * order, an unexpected member after `sig`) goes the full way, so a non-canonical line is refused
 * all the same.
 */
import { canonicalJson } from '../canonical/canonical-json.js';
import { RECURSION_DEPTH } from '../canonical/depth.js';
import { canonicalWithSig } from './signing.js';
import type { ReceiptLogLine } from './types.js';

/**
 * `canonical`: the text is the line's canonical form; `body`: the signed body's canonical text
 * (empty for a header), in pieces that are never joined (the text before and after `sig`).
 */
export interface LineForm {
  canonical: boolean;
  body: readonly string[];
}

const NOT_CANONICAL: LineForm = { canonical: false, body: [] };
const HEADER: LineForm = { canonical: true, body: [] };

/**
 * Members that may follow `sig` in a signed line for the fast cut: their values (a span of two
 * hex ids, a hash, the task id, the type, `via`, a checkpoint's size) are a number, strings, or an
 * object of strings, so `,"sig":{` cannot occur in their text (a quote inside a string is `\"`)
 * and its last occurrence is the line's own `sig` member.
 */
const AFTER_SIG = new Set(['size', 'span', 'suspension', 'taskId', 'type', 'via']);

/** The full way: canonicalize the parsed line (and its body) and compare with the text. */
export function lineFormFull(text: string, line: ReceiptLogLine): LineForm {
  try {
    if (line.type === 'ReceiptLog') return canonicalJson(line) === text ? HEADER : NOT_CANONICAL;
    const { sig, ...body } = line;
    const bodyText = canonicalJson(body);
    return canonicalWithSig(bodyText, body, sig) === text ? { canonical: true, body: [bodyText] } : NOT_CANONICAL;
  } catch {
    return NOT_CANONICAL;
  }
}

/**
 * True when every object in `value` lists its own keys in RFC 8785 §3.2.3 order and nothing is
 * nested deeper than {@link RECURSION_DEPTH}: `JSON.stringify` recurses, so a deeper line goes the
 * full way. The walk uses an explicit stack, not the call stack, so a line of any nesting depth
 * is answered (a forged one as well).
 */
function keysInOrder(value: unknown): boolean {
  const work: [node: unknown, depth: number][] = [[value, 0]];
  while (work.length > 0) {
    const [node, depth] = work.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= RECURSION_DEPTH) return false;
    if (Array.isArray(node)) {
      for (const item of node) work.push([item, depth + 1]);
      continue;
    }
    const record = node as Record<string, unknown>;
    let last: string | undefined;
    for (const key in record) {
      if (last !== undefined && !(last < key)) return false;
      last = key;
      work.push([record[key], depth + 1]);
    }
  }
  return true;
}

/**
 * The fast way: `value` is what `JSON.parse(text)` gave, `line` the same line read and checked
 * by `readReceiptLogLine`. Same answer as {@link lineFormFull}; falls back to it when undecided.
 * `shapesInOrder`: the caller knows that every object in `value` but `conditions` lists its
 * members in canonical order (`readReceiptLineFast` accepted it), so only `conditions` is walked.
 */
export function lineForm(text: string, value: unknown, line: ReceiptLogLine, shapesInOrder = false): LineForm {
  const ordered = shapesInOrder ? keysInOrder((value as { conditions?: unknown }).conditions) : keysInOrder(value);
  // `\u` escapes may hide lone surrogates or non-canonical escapes: the full way decides those.
  if (!ordered || text.includes('\\u') || JSON.stringify(value) !== text) return lineFormFull(text, line);
  if (line.type === 'ReceiptLog') return HEADER;
  for (const key in line) if (key > 'sig' && !AFTER_SIG.has(key)) return lineFormFull(text, line);
  const at = lastIndexOf(text, ',"sig":{');
  const end = at < 0 ? -1 : sigMemberEnd(text, at, line.sig);
  if (end < 0) return lineFormFull(text, line);
  return { canonical: true, body: [text.slice(0, at), text.slice(end)] };
}

/**
 * Where the `sig` member that starts at `at` ends, in a canonical `text`, or -1. Its text is then
 * `,"sig":` and the JSON of the parsed sig, an object of three strings: when none of them holds a
 * `}`, the member ends at the first one after `at`, found without serializing the sig.
 */
function sigMemberEnd(text: string, at: number, sig: { alg: string; kid: string; value: string }): number {
  if (!sig.kid.includes('}') && !sig.value.includes('}')) return text.indexOf('}', at) + 1 || -1;
  const member = `,"sig":${JSON.stringify(sig)}`;
  return text.startsWith(member, at) ? at + member.length : -1;
}

/** `text.lastIndexOf(search)` by forward searches, which V8 makes far faster for a short `search`. */
function lastIndexOf(text: string, search: string): number {
  let at = text.indexOf(search);
  for (let next = at; next >= 0; next = text.indexOf(search, at + 1)) at = next;
  return at;
}
