/**
 * @module receipts/read-line
 * Turns one parsed log line (`unknown`) into a typed {@link ReceiptLogLine}, or says which field
 * is wrong. Shapes are exactly those of `types.ts`: every member present, no extra members.
 */
import { PAUSE_INITIATORS, PAUSE_MODES, type ResumeConditions } from '../protocol/types.js';
import {
  type ParseResult,
  FieldError,
  boolean,
  describeValue,
  fail,
  integer,
  object,
  oneOf,
  onlyKeys,
  parseWith,
  string,
} from '../protocol/read.js';
import { readReceiptLineFast } from './read-line-fast.js';
import type {
  Checkpoint,
  RecordingBinding,
  ReceiptLogHeader,
  ReceiptLogLine,
  ResumptionReceipt,
  SpanRef,
  SuspensionReceipt,
} from './types.js';
import {
  CHECKPOINT_ALGS,
  RECEIPT_BINDINGS,
  RECEIPT_FORMAT,
  RECEIPT_VERSIONS,
  RESUME_CAUSES,
  RESUME_OUTCOMES,
  SUSPENSION_VIAS,
} from './types.js';

const HASH = /^sha256:[0-9a-f]{64}$/;
const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

function exactKeys(r: Record<string, unknown>, field: string, keys: readonly string[]): void {
  onlyKeys(r, field, keys);
  for (const key of keys) {
    if (!(key in r))
      throw new FieldError({
        field: field ? `${field}.${key}` : key,
        expected: 'a member (null when it does not apply)',
        got: 'nothing',
      });
  }
}

function nullable<T>(value: unknown, read: (v: unknown) => T): T | null {
  return value === null ? null : read(value);
}

function hash(value: unknown, field: string): string {
  if (typeof value !== 'string' || !HASH.test(value)) fail(field, 'sha256:<64 hex>', value);
  return value;
}

function span(value: unknown, field: string): SpanRef {
  const r = object(value, field);
  exactKeys(r, field, ['traceId', 'spanId']);
  if (typeof r.traceId !== 'string' || !HEX32.test(r.traceId))
    fail(`${field}.traceId`, '32 lower-case hex digits', r.traceId);
  if (typeof r.spanId !== 'string' || !HEX16.test(r.spanId))
    fail(`${field}.spanId`, '16 lower-case hex digits', r.spanId);
  return { traceId: r.traceId, spanId: r.spanId };
}

function entries(value: unknown, field: string): number[] {
  if (!Array.isArray(value)) fail(field, 'an array of entry seqs', value);
  let last = 0;
  value.forEach((v, i) => {
    const n = integer(v, `${field}[${i}]`, 1);
    if (n <= last) fail(`${field}[${i}]`, `a seq above ${last} (ascending, no repeats)`, v);
    last = n;
  });
  return value as number[];
}

function sig<A extends string>(
  value: unknown,
  field: string,
  algs: readonly A[],
): { alg: A; kid: string; value: string } {
  const r = object(value, field);
  exactKeys(r, field, ['alg', 'kid', 'value']);
  return {
    alg: oneOf(r.alg, `${field}.alg`, algs),
    kid: string(r.kid, `${field}.kid`),
    value: string(r.value, `${field}.value`),
  };
}

function readCheckpointPin(value: unknown): ReceiptLogHeader['checkpoint'] {
  const r = object(value, 'checkpoint');
  exactKeys(r, 'checkpoint', ['alg', 'kid']);
  return { alg: oneOf(r.alg, 'checkpoint.alg', CHECKPOINT_ALGS), kid: string(r.kid, 'checkpoint.kid') };
}

function repaired(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) fail(field, 'an array of member names', value);
  let last = '';
  value.forEach((v, i) => {
    const name = string(v, `${field}[${i}]`);
    if (name <= last) fail(`${field}[${i}]`, `a name after ${JSON.stringify(last)} (sorted, no repeats)`, v);
    last = name;
  });
  return value as string[];
}

const HEADER_KEYS = ['type', 'format', 'version', 'recording', 'kids', 'checkpoint', 'createdAt', 'tool'] as const;
const SUSPENSION_KEYS = [
  'type',
  'seq',
  'prev',
  'taskId',
  'contextId',
  'initiatedBy',
  'principal',
  'via',
  'reason',
  'mode',
  'conditions',
  'conditionsHash',
  'resumeTokenHash',
  'pausedAt',
  'pausedUntil',
  'observedAt',
  'entries',
  'span',
  'binding',
  'repaired',
  'sig',
] as const;
const RESUMPTION_KEYS = [
  'type',
  'seq',
  'prev',
  'suspension',
  'taskId',
  'cause',
  'outcome',
  'errorCode',
  'principal',
  'hadResumeInput',
  'inputHash',
  'continueTranscript',
  'resumedAt',
  'inferred',
  'observedAt',
  'entries',
  'span',
  'links',
  'binding',
  'repaired',
  'sig',
] as const;
/** A version-2 checkpoint's members, and a version-3 one's (docs/design.md §6). */
const CHECKPOINT_KEYS_V2 = ['type', 'size', 'root', 'sig'] as const;
const CHECKPOINT_KEYS = ['type', 'size', 'root', 'final', 'recording', 'sig'] as const;
const CHECKPOINT_KEYS_V4 = ['type', 'size', 'root', 'final', 'recording', 'note', 'sig'] as const;

function readHeader(r: Record<string, unknown>): ReceiptLogHeader {
  exactKeys(r, '', HEADER_KEYS);
  if (r.format !== RECEIPT_FORMAT) fail('format', `"${RECEIPT_FORMAT}"`, r.format);
  if (!(RECEIPT_VERSIONS as readonly unknown[]).includes(r.version))
    fail('version', `${RECEIPT_VERSIONS.join(' or ')} (the versions this build reads)`, r.version);
  if (!Array.isArray(r.kids) || r.kids.length === 0) fail('kids', 'a non-empty array of kids', r.kids);
  r.kids.forEach((k, i) => string(k, `kids[${i}]`));
  return {
    type: 'ReceiptLog',
    format: RECEIPT_FORMAT,
    version: r.version as ReceiptLogHeader['version'],
    recording: nullable(r.recording, (v) => string(v, 'recording')),
    kids: r.kids as string[],
    checkpoint: readCheckpointPin(r.checkpoint),
    createdAt: string(r.createdAt, 'createdAt'),
    tool: string(r.tool, 'tool'),
  };
}

function readSuspension(r: Record<string, unknown>): SuspensionReceipt {
  exactKeys(r, '', SUSPENSION_KEYS);
  return {
    type: 'SuspensionReceipt',
    seq: integer(r.seq, 'seq', 1),
    prev: hash(r.prev, 'prev'),
    taskId: string(r.taskId, 'taskId'),
    contextId: nullable(r.contextId, (v) => string(v, 'contextId')),
    initiatedBy: oneOf(r.initiatedBy, 'initiatedBy', PAUSE_INITIATORS),
    principal: nullable(r.principal, (v) => string(v, 'principal')),
    via: oneOf(r.via, 'via', SUSPENSION_VIAS),
    reason: nullable(r.reason, (v) => string(v, 'reason')),
    mode: nullable(r.mode, (v) => oneOf(v, 'mode', PAUSE_MODES)),
    // Conditions are recorded as the peer sent them; the signature, not a schema, protects them.
    conditions: nullable(r.conditions, (v) => object(v, 'conditions') as ResumeConditions),
    conditionsHash: nullable(r.conditionsHash, (v) => hash(v, 'conditionsHash')),
    resumeTokenHash: nullable(r.resumeTokenHash, (v) => hash(v, 'resumeTokenHash')),
    pausedAt: string(r.pausedAt, 'pausedAt'),
    pausedUntil: nullable(r.pausedUntil, (v) => string(v, 'pausedUntil')),
    observedAt: string(r.observedAt, 'observedAt'),
    entries: entries(r.entries, 'entries'),
    span: span(r.span, 'span'),
    binding: oneOf(r.binding, 'binding', RECEIPT_BINDINGS),
    repaired: repaired(r.repaired, 'repaired'),
    sig: sig(r.sig, 'sig', ['hmac-sha256'] as const),
  };
}

function readResumption(r: Record<string, unknown>): ResumptionReceipt {
  exactKeys(r, '', RESUMPTION_KEYS);
  const links = object(r.links, 'links');
  exactKeys(links, 'links', ['suspension', 'pipeline']);
  return {
    type: 'ResumptionReceipt',
    seq: integer(r.seq, 'seq', 1),
    prev: hash(r.prev, 'prev'),
    suspension: hash(r.suspension, 'suspension'),
    taskId: string(r.taskId, 'taskId'),
    cause: oneOf(r.cause, 'cause', RESUME_CAUSES),
    outcome: oneOf(r.outcome, 'outcome', RESUME_OUTCOMES),
    errorCode: nullable(r.errorCode, (v) => integer(v, 'errorCode')),
    principal: nullable(r.principal, (v) => string(v, 'principal')),
    hadResumeInput: boolean(r.hadResumeInput, 'hadResumeInput'),
    inputHash: nullable(r.inputHash, (v) => hash(v, 'inputHash')),
    continueTranscript: nullable(r.continueTranscript, (v) => boolean(v, 'continueTranscript')),
    resumedAt: nullable(r.resumedAt, (v) => string(v, 'resumedAt')),
    inferred: boolean(r.inferred, 'inferred'),
    observedAt: string(r.observedAt, 'observedAt'),
    entries: entries(r.entries, 'entries'),
    span: span(r.span, 'span'),
    links: {
      suspension: span(links.suspension, 'links.suspension'),
      pipeline: nullable(links.pipeline, (v) => span(v, 'links.pipeline')),
    },
    binding: oneOf(r.binding, 'binding', RECEIPT_BINDINGS),
    repaired: repaired(r.repaired, 'repaired'),
    sig: sig(r.sig, 'sig', ['hmac-sha256'] as const),
  };
}

function readRecordingBinding(value: unknown): RecordingBinding {
  const r = object(value, 'recording');
  exactKeys(r, 'recording', ['id', 'lastLineHash', 'lines']);
  return {
    id: string(r.id, 'recording.id'),
    lastLineHash: hash(r.lastLineHash, 'recording.lastLineHash'),
    lines: integer(r.lines, 'recording.lines', 1),
  };
}

/** A version-2 checkpoint has neither `final` nor `recording`; a version-3 one has both; a version-4 one `note` too. */
function readCheckpoint(r: Record<string, unknown>): Checkpoint {
  if (!('final' in r) && !('recording' in r)) {
    exactKeys(r, '', CHECKPOINT_KEYS_V2);
    return {
      type: 'Checkpoint',
      size: integer(r.size, 'size', 0),
      root: hash(r.root, 'root'),
      sig: sig(r.sig, 'sig', CHECKPOINT_ALGS),
    };
  }
  const v4 = 'note' in r;
  exactKeys(r, '', v4 ? CHECKPOINT_KEYS_V4 : CHECKPOINT_KEYS);
  const common = {
    type: 'Checkpoint' as const,
    size: integer(r.size, 'size', 0),
    root: hash(r.root, 'root'),
    final: boolean(r.final, 'final'),
    recording: nullable(r.recording, readRecordingBinding),
  };
  return v4
    ? { ...common, note: nullable(r.note, (v) => string(v, 'note')), sig: sig(r.sig, 'sig', CHECKPOINT_ALGS) }
    : { ...common, sig: sig(r.sig, 'sig', CHECKPOINT_ALGS) };
}

/**
 * Reads one line of a receipt log, checking every member's presence and type: a line as the
 * writer writes it the fast way (read-line-fast.ts), anything else by the field readers, which
 * give the same value and say what is wrong.
 */
export function readReceiptLogLine(value: unknown): ParseResult<ReceiptLogLine> {
  const line = readReceiptLineFast(value);
  return line ? { ok: true, value: line } : readReceiptLogLineByFields(value);
}

/** {@link readReceiptLogLine} by the field readers alone. */
export function readReceiptLogLineByFields(value: unknown): ParseResult<ReceiptLogLine> {
  return parseWith(() => {
    const r = object(value, 'line');
    switch (r.type) {
      case 'ReceiptLog':
        return readHeader(r);
      case 'SuspensionReceipt':
        return readSuspension(r);
      case 'ResumptionReceipt':
        return readResumption(r);
      case 'Checkpoint':
        return readCheckpoint(r);
      default:
        throw new FieldError({
          field: 'type',
          expected: '"ReceiptLog", "SuspensionReceipt", "ResumptionReceipt" or "Checkpoint"',
          got: describeValue(r.type),
        });
    }
  });
}
