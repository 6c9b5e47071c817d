/**
 * @module receipts/scan-line
 * A receipt or checkpoint line as the writer writes it, read in one pass over its text
 * (docs/design.md §6): every member in its canonical place with the shape `readReceiptLineFast`
 * demands, and the text itself canonical (RFC 8785: no whitespace, keys in order, integers in
 * their shortest form, strings with nothing escaped). The same pass finds where the `sig` member
 * starts and ends, so the signed body's text is the two pieces around it.
 *
 * It answers only "yes, exactly this line" or null, and null means "not decided here": the caller
 * then reads the line the general way (JSON.parse, the readers, the canonical check), which says
 * what is wrong if anything is. So it may decline what it finds unusual and is then merely slower:
 * a backslash anywhere (an escape), a character outside the Basic Multilingual Plane, a number
 * that is not an integer of at most 15 digits, nesting past 64 levels, a header line. A property test holds its yes to
 * the general way's answer (same line, members and order, same body text) on written and mutated
 * texts.
 */
import { RECURSION_DEPTH } from '../canonical/depth.js';
import { PAUSE_INITIATORS, PAUSE_MODES, type ResumeConditions } from '../protocol/types.js';
import type {
  Checkpoint,
  ReceiptLogLine,
  RecordingBinding,
  ResumptionReceipt,
  SpanRef,
  SuspensionReceipt,
} from './types.js';
import { CHECKPOINT_ALGS, RECEIPT_BINDINGS, RESUME_CAUSES, RESUME_OUTCOMES, SUSPENSION_VIAS } from './types.js';

/**
 * A line read and checked: the line as the readers give it, and its signed body's canonical text
 * in pieces that are never joined (around the `sig` member; empty for a header).
 */
export interface ScannedLine {
  line: ReceiptLogLine;
  body: readonly string[];
}

const HMAC_ONLY = ['hmac-sha256'] as const;
/** 1 at the char codes of `0-9a-f`. */
const LOWER_HEX = new Uint8Array(128);
for (const c of '0123456789abcdef') LOWER_HEX[c.charCodeAt(0)] = 1;

/** Thrown (made once, so a throw captures no stack) to leave the scan from any depth: not decided here. */
const DECLINE = new Error('the line is not decided by the scan');

/** The text being scanned and the position in it; module state, as one scan runs at a time. */
let t = '';
let i = 0;

function decline(): never {
  throw DECLINE;
}

/** Whether `s` comes next. */
function at(s: string): boolean {
  return t.startsWith(s, i);
}

/** Steps over `s`, which must come next. */
function lit(s: string): void {
  if (!at(s)) decline();
  i += s.length;
}

/** Steps over `s` when it comes next. */
function maybe(s: string): boolean {
  if (!at(s)) return false;
  i += s.length;
  return true;
}

/**
 * A string whose characters need no escape in canonical JSON and are not surrogates: anything
 * else (an escape, a control character, a character outside the BMP) declines.
 */
function str(): string {
  const s = t;
  let k = i;
  if (s.charCodeAt(k) !== 34) decline();
  const start = ++k;
  for (;;) {
    const c = s.charCodeAt(k);
    if (c === 34) break;
    // NaN past the end compares false everywhere: the test below declines it.
    if (!(c >= 0x20 && c !== 0x5c && (c < 0xd800 || c > 0xdfff))) decline();
    k++;
  }
  i = k + 1;
  return s.slice(start, k);
}

/**
 * A copy of `s` that shares nothing with the line: V8 makes a slice of 13 or more characters a
 * view that keeps the whole line alive, and a verifier keeps task ids and suspension hashes (its
 * open and recently closed suspensions, up to 65,536) long after their lines.
 */
function own(s: string): string {
  return s.length < 13 ? s : Buffer.from(s, 'utf8').toString('utf8');
}

/**
 * A checkpoint note: a string whose only escape is `\n` (a note's lines); anything else that
 * needs an escape declines, as in {@link str}.
 */
function noteStr(): string {
  const s = t;
  let k = i;
  if (s.charCodeAt(k) !== 34) decline();
  let start = ++k;
  let out = '';
  for (;;) {
    const c = s.charCodeAt(k);
    if (c === 34) break;
    if (c === 0x5c) {
      if (s.charCodeAt(k + 1) !== 110) decline();
      out += `${s.slice(start, k)}\n`;
      k += 2;
      start = k;
      continue;
    }
    if (!(c >= 0x20 && (c < 0xd800 || c > 0xdfff))) decline();
    k++;
  }
  i = k + 1;
  return out + s.slice(start, k);
}

function nullOrStr(): string | null {
  return maybe('null') ? null : str();
}

/** `"` prefix, `digits` lower-case hex digits, `"`. */
function hex(prefix: string, digits: number): string {
  const s = t;
  if (s.charCodeAt(i) !== 34 || !s.startsWith(prefix, i + 1)) decline();
  const start = i + 1;
  const from = start + prefix.length;
  const end = from + digits;
  for (let k = from; k < end; k++) {
    // Past the table (a code of 128 or more, or NaN past the end) reads undefined: declined.
    if (LOWER_HEX[s.charCodeAt(k)] !== 1) decline();
  }
  if (s.charCodeAt(end) !== 34) decline();
  i = end + 1;
  return s.slice(start, end);
}

function hash(): string {
  return hex('sha256:', 64);
}

function nullOrHash(): string | null {
  return maybe('null') ? null : hash();
}

function oneOf<T extends string>(allowed: readonly T[]): T {
  const value = str();
  if (!(allowed as readonly string[]).includes(value)) decline();
  return value as T;
}

function bool(): boolean {
  if (maybe('true')) return true;
  if (maybe('false')) return false;
  return decline();
}

/** An integer in canonical form of at most 15 digits (so exactly a safe integer), at least `min`. */
function int(min: number): number {
  const start = i;
  if (t.charCodeAt(i) === 45) i++;
  const from = i;
  while (i < t.length) {
    const c = t.charCodeAt(i);
    if (c < 48 || c > 57) break;
    i++;
  }
  const digits = i - from;
  // No digits, a leading zero, "-0", more digits than a double holds exactly: not decided here.
  if (digits === 0 || digits > 15 || (t.charCodeAt(from) === 48 && (digits > 1 || from > start))) decline();
  // A fraction or exponent after the digits is declined by whoever reads on: every caller
  // expects `,`, `]` or `}` next.
  const n = Number(t.slice(start, i));
  if (n < min) decline();
  return n;
}

/** Strictly increasing integers of at least 1. */
function entries(): number[] {
  lit('[');
  const out: number[] = [];
  if (maybe(']')) return out;
  let last = 0;
  do {
    const n = int(1);
    if (n <= last) decline();
    out.push(n);
    last = n;
  } while (maybe(','));
  lit(']');
  return out;
}

/** Strictly increasing non-empty strings. */
function repaired(): string[] {
  lit('[');
  const out: string[] = [];
  if (maybe(']')) return out;
  let last = '';
  do {
    const name = str();
    if (name <= last) decline();
    out.push(name);
    last = name;
  } while (maybe(','));
  lit(']');
  return out;
}

function span(): SpanRef {
  lit('{"spanId":');
  const spanId = hex('', 16);
  lit(',"traceId":');
  const traceId = hex('', 32);
  lit('}');
  return { traceId, spanId };
}

function sig<A extends string>(algs: readonly A[]): { alg: A; kid: string; value: string } {
  lit('{"alg":');
  const alg = oneOf(algs);
  lit(',"kid":');
  const kid = str();
  lit(',"value":');
  const value = str();
  lit('}');
  return { alg, kid, value };
}

/**
 * Any JSON value in canonical form (keys strictly ascending by UTF-16 code units, integers only),
 * stepped over without building it.
 */
function anyValue(depth: number): void {
  if (depth > RECURSION_DEPTH) decline();
  const c = t.charCodeAt(i);
  if (c === 34) {
    str();
  } else if (c === 123) {
    anyObject(depth);
  } else if (c === 91) {
    i++;
    if (maybe(']')) return;
    do anyValue(depth + 1);
    while (maybe(','));
    lit(']');
  } else if (c === 45 || (c >= 48 && c <= 57)) {
    int(-Infinity);
  } else if (!maybe('null') && !maybe('true') && !maybe('false')) {
    decline();
  }
}

function anyObject(depth: number): void {
  lit('{');
  if (maybe('}')) return;
  let last: string | undefined;
  do {
    const key = str();
    if (last !== undefined && !(last < key)) decline();
    last = key;
    lit(':');
    anyValue(depth + 1);
  } while (maybe(','));
  lit('}');
}

/** `conditions`: null or an object, parsed from its own text once it is known canonical. */
function conditions(): ResumeConditions | null {
  if (maybe('null')) return null;
  const start = i;
  anyObject(0);
  return JSON.parse(t.slice(start, i)) as ResumeConditions;
}

/** The `sig` member, from `,"sig":` to its end: where it starts and ends, for the body pieces. */
let sigStart = 0;
let sigEnd = 0;

function sigMember<A extends string>(algs: readonly A[]): { alg: A; kid: string; value: string } {
  sigStart = i;
  lit(',"sig":');
  const value = sig(algs);
  sigEnd = i;
  return value;
}

function suspension(binding: SuspensionReceipt['binding']): SuspensionReceipt {
  const conds = conditions();
  lit(',"conditionsHash":');
  const conditionsHash = nullOrHash();
  lit(',"contextId":');
  const contextId = nullOrStr();
  lit(',"entries":');
  const ents = entries();
  lit(',"initiatedBy":');
  const initiatedBy = oneOf(PAUSE_INITIATORS);
  lit(',"mode":');
  const mode = maybe('null') ? null : oneOf(PAUSE_MODES);
  lit(',"observedAt":');
  const observedAt = str();
  lit(',"pausedAt":');
  const pausedAt = str();
  lit(',"pausedUntil":');
  const pausedUntil = nullOrStr();
  lit(',"prev":');
  const prev = hash();
  lit(',"principal":');
  const principal = nullOrStr();
  lit(',"reason":');
  const reason = nullOrStr();
  lit(',"repaired":');
  const rep = repaired();
  lit(',"resumeTokenHash":');
  const resumeTokenHash = nullOrHash();
  lit(',"seq":');
  const seq = int(1);
  const signature = sigMember(HMAC_ONLY);
  lit(',"span":');
  const sp = span();
  lit(',"taskId":');
  const taskId = own(str());
  lit(',"type":"SuspensionReceipt","via":');
  const via = oneOf(SUSPENSION_VIAS);
  lit('}');
  // Members in the order readReceiptLineFast gives them.
  return {
    type: 'SuspensionReceipt',
    seq,
    prev,
    taskId,
    contextId,
    initiatedBy,
    principal,
    via,
    reason,
    mode,
    conditions: conds,
    conditionsHash,
    resumeTokenHash,
    pausedAt,
    pausedUntil,
    observedAt,
    entries: ents,
    span: sp,
    binding,
    repaired: rep,
    sig: signature,
  };
}

function resumption(binding: ResumptionReceipt['binding']): ResumptionReceipt {
  const cause = oneOf(RESUME_CAUSES);
  lit(',"continueTranscript":');
  const continueTranscript = maybe('null') ? null : bool();
  lit(',"entries":');
  const ents = entries();
  lit(',"errorCode":');
  const errorCode = maybe('null') ? null : int(Number.MIN_SAFE_INTEGER);
  lit(',"hadResumeInput":');
  const hadResumeInput = bool();
  lit(',"inferred":');
  const inferred = bool();
  lit(',"inputHash":');
  const inputHash = nullOrHash();
  lit(',"links":{"pipeline":');
  const pipeline = maybe('null') ? null : span();
  lit(',"suspension":');
  const linked = span();
  lit('},"observedAt":');
  const observedAt = str();
  lit(',"outcome":');
  const outcome = oneOf(RESUME_OUTCOMES);
  lit(',"prev":');
  const prev = hash();
  lit(',"principal":');
  const principal = nullOrStr();
  lit(',"repaired":');
  const rep = repaired();
  lit(',"resumedAt":');
  const resumedAt = nullOrStr();
  lit(',"seq":');
  const seq = int(1);
  const signature = sigMember(HMAC_ONLY);
  lit(',"span":');
  const sp = span();
  lit(',"suspension":');
  const suspensionHash = own(hash());
  lit(',"taskId":');
  const taskId = own(str());
  lit(',"type":"ResumptionReceipt"}');
  return {
    type: 'ResumptionReceipt',
    seq,
    prev,
    suspension: suspensionHash,
    taskId,
    cause,
    outcome,
    errorCode,
    principal,
    hadResumeInput,
    inputHash,
    continueTranscript,
    resumedAt,
    inferred,
    observedAt,
    entries: ents,
    span: sp,
    links: { suspension: linked, pipeline },
    binding,
    repaired: rep,
    sig: signature,
  };
}

function binding(): RecordingBinding | null {
  if (maybe('null')) return null;
  lit('{"id":');
  const id = own(str());
  lit(',"lastLineHash":');
  const lastLineHash = hash();
  lit(',"lines":');
  const lines = int(1);
  lit('}');
  return { id, lastLineHash, lines };
}

/**
 * A version-3 or -4 checkpoint from its `final` value on (a version-4 one has a `note`), or a
 * version-2 one (`v3` false) from `root`'s.
 */
function checkpoint(v3: boolean): Checkpoint {
  let final = false;
  let recording: RecordingBinding | null = null;
  let note: string | null | undefined;
  if (v3) {
    final = bool();
    if (maybe(',"note":')) note = maybe('null') ? null : noteStr();
    lit(',"recording":');
    recording = binding();
    lit(',"root":');
  }
  const root = hash();
  const signature = sigMember(CHECKPOINT_ALGS);
  lit(',"size":');
  const size = int(0);
  lit(',"type":"Checkpoint"}');
  // Members in the order readReceiptLineFast gives them.
  if (!v3) return { type: 'Checkpoint', size, root, sig: signature };
  return note === undefined
    ? { type: 'Checkpoint', size, root, final, recording, sig: signature }
    : { type: 'Checkpoint', size, root, final, recording, note, sig: signature };
}

function scan(): ReceiptLogLine {
  if (maybe('{"final":')) return checkpoint(true);
  if (maybe('{"root":')) return checkpoint(false);
  lit('{"binding":');
  const binding = oneOf(RECEIPT_BINDINGS);
  if (maybe(',"conditions":')) return suspension(binding);
  lit(',"cause":');
  return resumption(binding);
}

/**
 * The receipt or checkpoint `text` (a line without its newline) is, with its signed body's text,
 * when the text is exactly a line as written; null when this is not decided here (see the module doc).
 */
export function scanReceiptLine(text: string): ScannedLine | null {
  t = text;
  i = 0;
  try {
    const line = scan();
    if (i !== text.length) return null;
    return { line, body: [text.slice(0, sigStart), text.slice(sigEnd)] };
  } catch (error) {
    if (error === DECLINE) return null;
    throw error;
  } finally {
    t = '';
  }
}
