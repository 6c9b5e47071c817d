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
 * texts. The members, their order and their shapes are those of line-fields.ts.
 */
import { RECURSION_DEPTH } from '../canonical/depth.js';
import type { ResumeConditions } from '../protocol/types.js';
import { LINE_TYPES, type LineField, type LineKind, canonicalOrderOf, fieldsOf, blankLineOf } from './line-fields.js';
import type { ReceiptLogLine, RecordingBinding, ResumptionReceipt, SpanRef } from './types.js';

/**
 * A line read and checked: the line as the readers give it, and its signed body's canonical text
 * in pieces that are never joined (around the `sig` member; empty for a header).
 */
export interface ScannedLine {
  line: ReceiptLogLine;
  body: readonly string[];
}

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

/** `recording` of a closing checkpoint: null or `{id, lastLineHash, lines}`. */
function binding(): RecordingBinding {
  lit('{"id":');
  const id = own(str());
  lit(',"lastLineHash":');
  const lastLineHash = hash();
  lit(',"lines":');
  const lines = int(1);
  lit('}');
  return { id, lastLineHash, lines };
}

/** A resumption's `links`: `{"pipeline":…,"suspension":…}`. */
function links(): ResumptionReceipt['links'] {
  lit('{"pipeline":');
  const pipeline = maybe('null') ? null : span();
  lit(',"suspension":');
  const suspension = span();
  lit('}');
  return { suspension, pipeline };
}

/** The value of a member of `shape` (never null here) at the position. */
function value(field: LineField, plan: ScanPlan): unknown {
  const shape = field.shape;
  switch (shape.kind) {
    case 'type':
      lit(plan.type);
      return LINE_TYPES[plan.kind];
    case 'text':
      return field.held ? own(str()) : str();
    case 'integer':
      return int(shape.min);
    case 'boolean':
      return bool();
    case 'hash':
      return field.held ? own(hash()) : hash();
    case 'enum':
      return oneOf(shape.values);
    case 'object':
      return conditions();
    case 'entries':
      return entries();
    case 'repaired':
      return repaired();
    case 'span':
      return span();
    case 'links':
      return links();
    // A reference outside the log is rare: read the general way (null is read above).
    case 'outside':
      return decline();
    case 'sig':
      return sig(shape.algs);
    case 'recording-binding':
      return binding();
    case 'note':
      return noteStr();
    // A header is read the general way.
    case 'format':
    case 'version':
    case 'kids':
    case 'checkpoint-pin':
    case 'series-link':
      return decline();
    default: {
      const never: never = shape;
      return never;
    }
  }
}

/** How the scan reads a kind of line: its members in canonical order, each after its key's text. */
interface ScanPlan {
  kind: LineKind;
  /** `{"name":` for the first member, `,"name":` for the rest. */
  keys: readonly string[];
  fields: readonly LineField[];
  /** Where `sig` is in `fields`: the signed body is the text around it. */
  sigAt: number;
  /** The `type` member's text: `"SuspensionReceipt"`. */
  type: string;
}

function planOf(kind: LineKind): ScanPlan {
  const fields = fieldsOf(kind);
  const ordered = canonicalOrderOf(kind).map((name) => fields.find((f) => f.name === name) as LineField);
  const keys = ordered.map((f, n) => `${n === 0 ? '{' : ','}"${f.name}":`);
  const sigAt = ordered.findIndex((f) => f.name === 'sig');
  return { kind, keys, fields: ordered, sigAt, type: JSON.stringify(LINE_TYPES[kind]) };
}

/**
 * The kinds a scan reads (never a header), told apart by their first three members (a
 * resumption and a continuation share their first two).
 */
const PLANS: readonly ScanPlan[] = (
  [
    'checkpoint-v4',
    'checkpoint',
    'checkpoint-v2',
    'suspension',
    'resumption-v5',
    'resumption',
    'interruption',
    'continuation',
  ] as const
).map(planOf);

/** A member's value (null when it may be), or DECLINE when it is not one of `field`'s. */
function tryValue(field: LineField, plan: ScanPlan): unknown {
  try {
    return field.nullable && maybe('null') ? null : value(field, plan);
  } catch (error) {
    if (error === DECLINE) return DECLINE;
    throw error;
  }
}

/** A line of `plan`'s kind from the start of the text, or undefined when its first two keys are not that kind's. */
function lineOf(plan: ScanPlan): ReceiptLogLine | undefined {
  const { keys, fields, sigAt } = plan;
  // Members in the order readReceiptLineFast gives them, whatever order they are read in.
  const line: Record<string, unknown> = { ...blankLineOf(plan.kind) };
  for (let n = 0; n < fields.length; n++) {
    const field = fields[n] as LineField;
    const key = keys[n] as string;
    // The first three members tell the kind (a resumption's and a continuation's `cause` share
    // some values); past them, anything else declines.
    if (n < 3 && !at(key)) return undefined;
    if (n === sigAt) sigStart = i;
    lit(key);
    if (n < 3) {
      const read = tryValue(field, plan);
      if (read === DECLINE) return undefined;
      line[field.name] = read;
    } else line[field.name] = field.nullable && maybe('null') ? null : value(field, plan);
    if (n === sigAt) sigEnd = i;
  }
  lit('}');
  return line as unknown as ReceiptLogLine;
}

function scan(): ReceiptLogLine {
  for (const plan of PLANS) {
    i = 0;
    try {
      const line = lineOf(plan);
      if (line !== undefined) return line;
    } catch (error) {
      // The two resumption kinds share their first keys: a version-4 one declines at `outside`.
      if (error !== DECLINE || plan.kind !== 'resumption-v5') throw error;
    }
  }
  return decline();
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
