/**
 * @module receipts/read-line-fast
 * The common case of reading a log line, a receipt or checkpoint as the writer wrote it, checked
 * in one pass over its members without the field readers' bookkeeping (read-line.ts). It either
 * gives exactly the value `readReceiptLogLine` gives (same members, same order, the same arrays
 * and `conditions` object) or null, and null only means "not decided here": the field readers
 * then read the line again and name what is wrong. It accepts a line only when every object of
 * fixed shape lists its members in canonical order (as every written line does), which lets one
 * walk over the keys check both that no member is missing and that none is extra. A property
 * test holds it to the field readers on written and mutated lines. The members and their shapes
 * are those of line-fields.ts.
 */
import { isRecord } from '../protocol/read.js';
import { type FieldShape, type LineKind, canonicalOrderOf, fieldsOf, blankLineOf } from './line-fields.js';
import type { OutsideSuspension, ReceiptLogLine, RecordingBinding, ResumptionReceipt, SpanRef } from './types.js';

/** 1 at the char codes of `0-9a-f`: a table look-up per char is cheaper here than a regex test. */
const LOWER_HEX = new Uint8Array(128);
for (const c of '0123456789abcdef') LOWER_HEX[c.charCodeAt(0)] = 1;

/** `value` is `prefix` and then `digits` lower-case hex digits (`/^prefix[0-9a-f]{digits}$/`). */
function isPrefixedHex(value: unknown, prefix: string, digits: number): value is string {
  if (typeof value !== 'string' || value.length !== prefix.length + digits || !value.startsWith(prefix)) return false;
  for (let i = prefix.length; i < value.length; i++) if (LOWER_HEX[value.charCodeAt(i)] !== 1) return false;
  return true;
}

const BINDING_ORDER = ['id', 'lastLineHash', 'lines'];
const SPAN_ORDER = ['spanId', 'traceId'];
const SIG_ORDER = ['alg', 'kid', 'value'];
const LINKS_ORDER = ['pipeline', 'suspension'];
const OUTSIDE_ORDER = ['pausedAt', 'resumeTokenHash'];

/** `r`'s enumerable keys are exactly `order`, in that order. */
function keysAre(r: Record<string, unknown>, order: readonly string[]): boolean {
  let i = 0;
  for (const key in r) if (key !== order[i++]) return false;
  return i === order.length;
}

function isOneOf<T extends string>(value: unknown, allowed: readonly T[]): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}

function isInteger(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= Number.MAX_SAFE_INTEGER;
}

function isHash(value: unknown): value is string {
  return isPrefixedHex(value, 'sha256:', 64);
}

function isEntries(value: unknown): value is number[] {
  if (!Array.isArray(value)) return false;
  let last = 0;
  for (let i = 0; i < value.length; i++) {
    const n: unknown = value[i];
    if (!isInteger(n, 1) || n <= last) return false;
    last = n;
  }
  return true;
}

function isRepaired(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  let last = '';
  for (let i = 0; i < value.length; i++) {
    const name: unknown = value[i];
    if (typeof name !== 'string' || name <= last) return false;
    last = name;
  }
  return true;
}

function spanOf(value: unknown): SpanRef | null {
  if (!isRecord(value) || !keysAre(value, SPAN_ORDER)) return null;
  const { traceId, spanId } = value;
  if (!isPrefixedHex(traceId, '', 32) || !isPrefixedHex(spanId, '', 16)) return null;
  return { traceId, spanId };
}

function sigOf<A extends string>(value: unknown, algs: readonly A[]): { alg: A; kid: string; value: string } | null {
  if (!isRecord(value) || !keysAre(value, SIG_ORDER)) return null;
  const { alg, kid, value: mac } = value;
  if (!isOneOf(alg, algs) || typeof kid !== 'string' || typeof mac !== 'string') return null;
  return { alg, kid, value: mac };
}

function linksOf(value: unknown): ResumptionReceipt['links'] | null {
  if (!isRecord(value) || !keysAre(value, LINKS_ORDER)) return null;
  const suspension = spanOf(value.suspension);
  const pipeline = value.pipeline === null ? null : spanOf(value.pipeline);
  if (!suspension || (pipeline === null && value.pipeline !== null)) return null;
  return { suspension, pipeline };
}

function outsideOf(value: unknown): OutsideSuspension | null {
  if (!isRecord(value) || !keysAre(value, OUTSIDE_ORDER)) return null;
  const { pausedAt, resumeTokenHash } = value;
  if (pausedAt !== null && typeof pausedAt !== 'string') return null;
  if (resumeTokenHash !== null && !isHash(resumeTokenHash)) return null;
  return { pausedAt, resumeTokenHash };
}

function bindingOf(value: unknown): RecordingBinding | null {
  if (!isRecord(value) || !keysAre(value, BINDING_ORDER)) return null;
  const { id, lastLineHash, lines } = value;
  if (typeof id !== 'string' || !isHash(lastLineHash) || !isInteger(lines, 1)) return null;
  return { id, lastLineHash, lines };
}

/** The value of a member of `shape` (never null here) as the field readers give it, or `INVALID`. */
function shapeOf(shape: FieldShape, value: unknown): unknown {
  switch (shape.kind) {
    case 'type':
      return value;
    case 'text':
      return typeof value === 'string' ? value : INVALID;
    case 'integer':
      return isInteger(value, shape.min) ? value : INVALID;
    case 'boolean':
      return typeof value === 'boolean' ? value : INVALID;
    case 'hash':
      return isHash(value) ? value : INVALID;
    case 'enum':
      return isOneOf(value, shape.values) ? value : INVALID;
    case 'object':
      return isRecord(value) ? value : INVALID;
    case 'entries':
      return isEntries(value) ? value : INVALID;
    case 'repaired':
      return isRepaired(value) ? value : INVALID;
    case 'span':
      return spanOf(value) ?? INVALID;
    case 'links':
      return linksOf(value) ?? INVALID;
    case 'outside':
      return outsideOf(value) ?? INVALID;
    case 'sig':
      return sigOf(value, shape.algs) ?? INVALID;
    case 'recording-binding':
      return bindingOf(value) ?? INVALID;
    case 'note':
      return typeof value === 'string' ? value : INVALID;
    // Header members: a header is read the general way.
    case 'format':
    case 'version':
    case 'kids':
    case 'checkpoint-pin':
    case 'series-link':
      return INVALID;
    default: {
      const never: never = shape;
      return never;
    }
  }
}

/** A member that is not as written. */
const INVALID = Symbol('invalid');

/** A line of `kind` whose members are in canonical order and as written, in table order; else null. */
function lineOf(r: Record<string, unknown>, kind: LineKind): ReceiptLogLine | null {
  if (!keysAre(r, canonicalOrderOf(kind))) return null;
  const line: Record<string, unknown> = { ...blankLineOf(kind) };
  for (const f of fieldsOf(kind)) {
    const value = r[f.name];
    const read = f.nullable && value === null ? null : shapeOf(f.shape, value);
    if (read === INVALID) return null;
    line[f.name] = read;
  }
  return line as unknown as ReceiptLogLine;
}

/**
 * The receipt or checkpoint `value` is, as `readReceiptLogLine` reads it, when its members are
 * in canonical order and all is well; null otherwise (and for a header), to be read the slow way.
 */
export function readReceiptLineFast(value: unknown): ReceiptLogLine | null {
  if (!isRecord(value)) return null;
  switch (value.type) {
    case 'SuspensionReceipt':
      return lineOf(value, 'suspension');
    case 'ResumptionReceipt':
      return lineOf(value, 'outside' in value ? 'resumption-v5' : 'resumption');
    case 'InterruptionReceipt':
      return lineOf(value, 'interruption');
    case 'ContinuationReceipt':
      return lineOf(value, 'continuation');
    case 'Checkpoint':
      return lineOf(value, 'note' in value ? 'checkpoint-v4' : 'final' in value ? 'checkpoint' : 'checkpoint-v2');
    default:
      return null;
  }
}
