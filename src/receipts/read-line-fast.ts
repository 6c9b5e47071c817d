/**
 * @module receipts/read-line-fast
 * The common case of reading a log line, a receipt or checkpoint as the writer wrote it, checked
 * in one pass over its members without the field readers' bookkeeping (read-line.ts). It either
 * gives exactly the value `readReceiptLogLine` gives (same members, same order, the same arrays
 * and `conditions` object) or null, and null only means "not decided here": the field readers
 * then read the line again and name what is wrong. It accepts a line only when every object of
 * fixed shape lists its members in canonical order (as every written line does), which lets one
 * walk over the keys check both that no member is missing and that none is extra. A property
 * test holds it to the field readers on written and mutated lines.
 */
import { isRecord } from '../protocol/read.js';
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

const HMAC_ONLY = ['hmac-sha256'] as const;
/** 1 at the char codes of `0-9a-f`: a table look-up per char is cheaper here than a regex test. */
const LOWER_HEX = new Uint8Array(128);
for (const c of '0123456789abcdef') LOWER_HEX[c.charCodeAt(0)] = 1;

/** `value` is `prefix` and then `digits` lower-case hex digits (`/^prefix[0-9a-f]{digits}$/`). */
function isPrefixedHex(value: unknown, prefix: string, digits: number): value is string {
  if (typeof value !== 'string' || value.length !== prefix.length + digits || !value.startsWith(prefix)) return false;
  for (let i = prefix.length; i < value.length; i++) if (LOWER_HEX[value.charCodeAt(i)] !== 1) return false;
  return true;
}

/** Each line type's members in canonical (RFC 8785 §3.2.3) order: the order written lines have. */
const SUSPENSION_ORDER = [
  'binding',
  'conditions',
  'conditionsHash',
  'contextId',
  'entries',
  'initiatedBy',
  'mode',
  'observedAt',
  'pausedAt',
  'pausedUntil',
  'prev',
  'principal',
  'reason',
  'repaired',
  'resumeTokenHash',
  'seq',
  'sig',
  'span',
  'taskId',
  'type',
  'via',
];
const RESUMPTION_ORDER = [
  'binding',
  'cause',
  'continueTranscript',
  'entries',
  'errorCode',
  'hadResumeInput',
  'inferred',
  'inputHash',
  'links',
  'observedAt',
  'outcome',
  'prev',
  'principal',
  'repaired',
  'resumedAt',
  'seq',
  'sig',
  'span',
  'suspension',
  'taskId',
  'type',
];
const CHECKPOINT_ORDER_V2 = ['root', 'sig', 'size', 'type'];
const CHECKPOINT_ORDER = ['final', 'recording', 'root', 'sig', 'size', 'type'];
const CHECKPOINT_ORDER_V4 = ['final', 'note', 'recording', 'root', 'sig', 'size', 'type'];
const BINDING_ORDER = ['id', 'lastLineHash', 'lines'];
const SPAN_ORDER = ['spanId', 'traceId'];
const SIG_ORDER = ['alg', 'kid', 'value'];
const LINKS_ORDER = ['pipeline', 'suspension'];

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

function isNullOrString(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
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

function suspensionOf(r: Record<string, unknown>): SuspensionReceipt | null {
  if (!keysAre(r, SUSPENSION_ORDER)) return null;
  const { seq, prev, taskId, contextId, initiatedBy, principal, via, reason, mode, conditions } = r;
  const { conditionsHash, resumeTokenHash, pausedAt, pausedUntil, observedAt, entries, binding, repaired } = r;
  if (
    !isInteger(seq, 1) ||
    !isHash(prev) ||
    typeof taskId !== 'string' ||
    !isNullOrString(contextId) ||
    !isOneOf(initiatedBy, PAUSE_INITIATORS) ||
    !isNullOrString(principal) ||
    !isOneOf(via, SUSPENSION_VIAS) ||
    !isNullOrString(reason) ||
    !(mode === null || isOneOf(mode, PAUSE_MODES)) ||
    !(conditions === null || isRecord(conditions)) ||
    !(conditionsHash === null || isHash(conditionsHash)) ||
    !(resumeTokenHash === null || isHash(resumeTokenHash)) ||
    typeof pausedAt !== 'string' ||
    !isNullOrString(pausedUntil) ||
    typeof observedAt !== 'string' ||
    !isEntries(entries) ||
    !isOneOf(binding, RECEIPT_BINDINGS) ||
    !isRepaired(repaired)
  )
    return null;
  const span = spanOf(r.span);
  const sig = sigOf(r.sig, HMAC_ONLY);
  if (!span || !sig) return null;
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
    conditions: conditions as ResumeConditions | null,
    conditionsHash,
    resumeTokenHash,
    pausedAt,
    pausedUntil,
    observedAt,
    entries,
    span,
    binding,
    repaired,
    sig,
  };
}

function linksOf(value: unknown): ResumptionReceipt['links'] | null {
  if (!isRecord(value) || !keysAre(value, LINKS_ORDER)) return null;
  const suspension = spanOf(value.suspension);
  const pipeline = value.pipeline === null ? null : spanOf(value.pipeline);
  if (!suspension || (pipeline === null && value.pipeline !== null)) return null;
  return { suspension, pipeline };
}

function resumptionOf(r: Record<string, unknown>): ResumptionReceipt | null {
  if (!keysAre(r, RESUMPTION_ORDER)) return null;
  const { seq, prev, suspension, taskId, cause, outcome, errorCode, principal, hadResumeInput, inputHash } = r;
  const { continueTranscript, resumedAt, inferred, observedAt, entries, binding, repaired } = r;
  if (
    !isInteger(seq, 1) ||
    !isHash(prev) ||
    !isHash(suspension) ||
    typeof taskId !== 'string' ||
    !isOneOf(cause, RESUME_CAUSES) ||
    !isOneOf(outcome, RESUME_OUTCOMES) ||
    !(errorCode === null || isInteger(errorCode, Number.MIN_SAFE_INTEGER)) ||
    !isNullOrString(principal) ||
    typeof hadResumeInput !== 'boolean' ||
    !(inputHash === null || isHash(inputHash)) ||
    !(continueTranscript === null || typeof continueTranscript === 'boolean') ||
    !isNullOrString(resumedAt) ||
    typeof inferred !== 'boolean' ||
    typeof observedAt !== 'string' ||
    !isEntries(entries) ||
    !isOneOf(binding, RECEIPT_BINDINGS) ||
    !isRepaired(repaired)
  )
    return null;
  const span = spanOf(r.span);
  const links = linksOf(r.links);
  const sig = sigOf(r.sig, HMAC_ONLY);
  if (!span || !links || !sig) return null;
  return {
    type: 'ResumptionReceipt',
    seq,
    prev,
    suspension,
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
    entries,
    span,
    links,
    binding,
    repaired,
    sig,
  };
}

function bindingOf(value: unknown): RecordingBinding | null {
  if (!isRecord(value) || !keysAre(value, BINDING_ORDER)) return null;
  const { id, lastLineHash, lines } = value;
  if (typeof id !== 'string' || !isHash(lastLineHash) || !isInteger(lines, 1)) return null;
  return { id, lastLineHash, lines };
}

/** A version-4 checkpoint (`note` too), a version-3 one (`final`, `recording`), or a version-2 one (neither). */
function checkpointOf(r: Record<string, unknown>): Checkpoint | null {
  if ('final' in r) {
    const v4 = 'note' in r;
    if (
      !keysAre(r, v4 ? CHECKPOINT_ORDER_V4 : CHECKPOINT_ORDER) ||
      !isInteger(r.size, 0) ||
      !isHash(r.root) ||
      typeof r.final !== 'boolean' ||
      (v4 && r.note !== null && typeof r.note !== 'string')
    )
      return null;
    const recording = r.recording === null ? null : bindingOf(r.recording);
    if (recording === null && r.recording !== null) return null;
    const sig = sigOf(r.sig, CHECKPOINT_ALGS);
    if (!sig) return null;
    return v4
      ? {
          type: 'Checkpoint',
          size: r.size,
          root: r.root,
          final: r.final,
          recording,
          note: r.note as string | null,
          sig,
        }
      : { type: 'Checkpoint', size: r.size, root: r.root, final: r.final, recording, sig };
  }
  if (!keysAre(r, CHECKPOINT_ORDER_V2) || !isInteger(r.size, 0) || !isHash(r.root)) return null;
  const sig = sigOf(r.sig, CHECKPOINT_ALGS);
  return sig && { type: 'Checkpoint', size: r.size, root: r.root, sig };
}

/**
 * The receipt or checkpoint `value` is, as `readReceiptLogLine` reads it, when its members are
 * in canonical order and all is well; null otherwise (and for a header), to be read the slow way.
 */
export function readReceiptLineFast(value: unknown): ReceiptLogLine | null {
  if (!isRecord(value)) return null;
  switch (value.type) {
    case 'SuspensionReceipt':
      return suspensionOf(value);
    case 'ResumptionReceipt':
      return resumptionOf(value);
    case 'Checkpoint':
      return checkpointOf(value);
    default:
      return null;
  }
}
