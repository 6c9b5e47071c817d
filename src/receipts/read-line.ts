/**
 * @module receipts/read-line
 * Turns one parsed log line (`unknown`) into a typed {@link ReceiptLogLine}, or says which field
 * is wrong. The members of each kind of line are those line-fields.ts declares: every member
 * present, no extra members, each read by its shape in table order.
 */
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
import { type FieldShape, type LineKind, fieldsOf, blankLineOf } from './line-fields.js';
import { readReceiptLineFast } from './read-line-fast.js';
import type {
  InterruptionReceipt,
  OutsideSuspension,
  RecordingBinding,
  ReceiptLogHeader,
  ReceiptLogLine,
  ResumptionReceipt,
  SeriesLink,
  SeriesPrevious,
  SpanRef,
  SuspensionReceipt,
} from './types.js';
import { CHECKPOINT_ALGS, RECEIPT_FORMAT, RECEIPT_VERSIONS } from './types.js';

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

function readCarried(value: unknown, field: string): SuspensionReceipt[] {
  if (!Array.isArray(value)) fail(field, 'an array of SuspensionReceipts', value);
  return value.map((v, i) => {
    const r = object(v, `${field}[${i}]`);
    if (r.type !== 'SuspensionReceipt') fail(`${field}[${i}].type`, '"SuspensionReceipt"', r.type);
    try {
      return readKind(r, 'suspension') as SuspensionReceipt;
    } catch (error) {
      if (error instanceof FieldError) fail(`${field}[${i}]`, 'a SuspensionReceipt as sealed', v);
      throw error;
    }
  });
}

function readCarriedInterruptions(value: unknown, field: string): InterruptionReceipt[] {
  if (!Array.isArray(value) || value.length === 0) fail(field, 'a non-empty array of InterruptionReceipts', value);
  return value.map((v, i) => {
    const r = object(v, `${field}[${i}]`);
    if (r.type !== 'InterruptionReceipt') fail(`${field}[${i}].type`, '"InterruptionReceipt"', r.type);
    try {
      return readKind(r, 'interruption') as InterruptionReceipt;
    } catch (error) {
      if (error instanceof FieldError) fail(`${field}[${i}]`, 'an InterruptionReceipt as sealed', v);
      throw error;
    }
  });
}

function readSeriesPrevious(value: unknown): SeriesPrevious {
  const field = 'series.previous';
  const r = object(value, field);
  const keys = ['checkpoint', 'closed', 'head', 'header', 'lines', 'open', 'receipts', 'recording'];
  // `interruptions` only when some were open (links written before it hold none).
  exactKeys(r, field, 'interruptions' in r ? [...keys, 'interruptions'].sort() : keys);
  let checkpoint: SeriesPrevious['checkpoint'] = null;
  if (r.checkpoint !== null) {
    const c = object(r.checkpoint, `${field}.checkpoint`);
    exactKeys(c, `${field}.checkpoint`, ['note', 'root', 'size']);
    checkpoint = {
      size: integer(c.size, `${field}.checkpoint.size`, 0),
      root: hash(c.root, `${field}.checkpoint.root`),
      note: nullable(c.note, (v) => string(v, `${field}.checkpoint.note`)),
    };
  }
  return {
    recording: nullable(r.recording, (v) => string(v, `${field}.recording`)),
    header: hash(r.header, `${field}.header`),
    head: hash(r.head, `${field}.head`),
    lines: integer(r.lines, `${field}.lines`, 1),
    receipts: integer(r.receipts, `${field}.receipts`, 0),
    closed: boolean(r.closed, `${field}.closed`),
    checkpoint,
    open: readCarried(r.open, `${field}.open`),
    ...('interruptions' in r
      ? { interruptions: readCarriedInterruptions(r.interruptions, `${field}.interruptions`) }
      : {}),
  };
}

/** A version-5 header's `series` (docs/design.md §6, "Series"). */
function readSeriesLink(value: unknown): SeriesLink {
  const r = object(value, 'series');
  exactKeys(r, 'series', ['id', 'position', 'previous']);
  return {
    id: string(r.id, 'series.id'),
    position: integer(r.position, 'series.position', 2),
    previous: readSeriesPrevious(r.previous),
  };
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

/** Reads the value of a member of `shape` (never null here), naming `field` when it is wrong. */
function readShape(shape: FieldShape, value: unknown, field: string): unknown {
  switch (shape.kind) {
    case 'type':
      return value;
    case 'text':
      return string(value, field);
    case 'integer':
      return integer(value, field, shape.min);
    case 'boolean':
      return boolean(value, field);
    case 'hash':
      return hash(value, field);
    case 'enum':
      return oneOf(value, field, shape.values);
    case 'object':
      return object(value, field);
    case 'entries':
      return entries(value, field);
    case 'repaired':
      return repaired(value, field);
    case 'span':
      return span(value, field);
    case 'links':
      return readLinks(value);
    case 'outside':
      return readOutside(value);
    case 'sig':
      return sig(value, field, shape.algs);
    case 'recording-binding':
      return readRecordingBinding(value);
    case 'note':
      return string(value, field);
    case 'format':
      if (value !== RECEIPT_FORMAT) fail(field, `"${RECEIPT_FORMAT}"`, value);
      return value;
    case 'version':
      if (!(RECEIPT_VERSIONS as readonly unknown[]).includes(value))
        fail(field, `${RECEIPT_VERSIONS.join(' or ')} (the versions this build reads)`, value);
      return value;
    case 'kids':
      if (!Array.isArray(value) || value.length === 0) fail(field, 'a non-empty array of kids', value);
      value.forEach((k, i) => string(k, `${field}[${i}]`));
      return value;
    case 'checkpoint-pin':
      return readCheckpointPin(value);
    case 'series-link':
      return readSeriesLink(value);
    default: {
      const never: never = shape;
      return never;
    }
  }
}

function readOutside(value: unknown): OutsideSuspension {
  const r = object(value, 'outside');
  exactKeys(r, 'outside', ['pausedAt', 'resumeTokenHash']);
  return {
    pausedAt: nullable(r.pausedAt, (v) => string(v, 'outside.pausedAt')),
    resumeTokenHash: nullable(r.resumeTokenHash, (v) => hash(v, 'outside.resumeTokenHash')),
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

function linksShape(value: unknown): Record<string, unknown> {
  const links = object(value, 'links');
  exactKeys(links, 'links', ['suspension', 'pipeline']);
  return links;
}

function readLinks(value: unknown): ResumptionReceipt['links'] {
  const links = linksShape(value);
  return {
    suspension: span(links.suspension, 'links.suspension'),
    pipeline: nullable(links.pipeline, (v) => span(v, 'links.pipeline')),
  };
}

/** A line of `kind`: its members as line-fields.ts declares them, checked and given in table order. */
function readKind(r: Record<string, unknown>, kind: LineKind): ReceiptLogLine {
  const fields = fieldsOf(kind);
  exactKeys(
    r,
    '',
    fields.map((f) => f.name),
  );
  // What says whether the line can be read at all is checked first; a resumption's links are
  // shaped before its members are read.
  for (const f of fields) {
    if (f.first) readShape(f.shape, r[f.name], f.name);
    else if (f.shape.kind === 'links') linksShape(r[f.name]);
  }
  const line: Record<string, unknown> = { ...blankLineOf(kind) };
  for (const f of fields) {
    const value = r[f.name];
    line[f.name] = f.nullable && value === null ? null : readShape(f.shape, value, f.name);
  }
  return line as unknown as ReceiptLogLine;
}

/** A version-2 checkpoint has neither `final` nor `recording`; a version-3 one has both; a version-4 one `note` too. */
function checkpointKind(r: Record<string, unknown>): LineKind {
  if ('note' in r) return 'checkpoint-v4';
  return !('final' in r) && !('recording' in r) ? 'checkpoint-v2' : 'checkpoint';
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
        return readKind(r, 'series' in r ? 'header-v5' : 'header');
      case 'SuspensionReceipt':
        return readKind(r, 'suspension');
      case 'ResumptionReceipt':
        return readKind(r, 'outside' in r ? 'resumption-v5' : 'resumption');
      case 'InterruptionReceipt':
        return readKind(r, 'interruption');
      case 'ContinuationReceipt':
        return readKind(r, 'continuation');
      case 'Checkpoint':
        return readKind(r, checkpointKind(r));
      default:
        throw new FieldError({
          field: 'type',
          expected:
            '"ReceiptLog", "SuspensionReceipt", "ResumptionReceipt", "InterruptionReceipt", ' +
            '"ContinuationReceipt" or "Checkpoint"',
          got: describeValue(r.type),
        });
    }
  });
}
