/**
 * @module replay/drift
 * Exchange drift (docs/design.md §8): what a live exchange did differently from the recorded one, in terms
 * a developer fixes — a missing or extra event, another task state, another error code, a request
 * that got no answer. Pure: compares the protocol-level shape of entries, never timestamps or ids.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { ERROR_INFO_TYPE, JSON_RPC_ERRORS, type JsonRpcErrorName } from '../protocol/errors.js';
import type { EntryKind, RecordingEntry } from '../recording/format.js';

/** What an entry says at the protocol level; two entries with equal shapes do not drift. */
export interface EntryShape {
  kind: EntryKind;
  /** HTTP status of a response head. */
  status: number | null;
  /** `result` or `error` for JSON-RPC answers. */
  outcome: 'result' | 'error' | null;
  errorCode: number | null;
  /** StreamResponse member (`task`, `statusUpdate`, ...) or `PauseResult` / `ResumeResult`. */
  member: string | null;
  /** Task state the answer reports. */
  state: string | null;
  /** Legacy `metadata.harn.pause.state` (`paused` / `resumed`). */
  legacy: string | null;
  /** Resume cause, when the answer carries one. */
  cause: string | null;
  /** The gRPC status code of a gRPC answer (`response`, `end`; docs/design.md §16). */
  grpcStatus: number | null;
}

function rec(value: JsonValue | undefined): { [key: string]: JsonValue } | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

function strOrNull(value: JsonValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

const MEMBERS = ['task', 'message', 'statusUpdate', 'artifactUpdate'] as const;

function legacyState(holder: { [key: string]: JsonValue } | undefined): string | null {
  return strOrNull(rec(rec(rec(holder?.metadata)?.harn)?.pause)?.state);
}

const CODE_BY_REASON = new Map<string, number>(
  (Object.keys(JSON_RPC_ERRORS) as JsonRpcErrorName[]).map((name) => [
    JSON_RPC_ERRORS[name].reason,
    JSON_RPC_ERRORS[name].code,
  ]),
);

/**
 * The JSON-RPC code of the error a gRPC status's details (ProtoJSON of `google.rpc.Status`) name
 * by their ErrorInfo reason, so a gRPC error compares as the JSON bindings' codes do; null when
 * no ErrorInfo names a reason of the table (src/protocol/errors.ts).
 */
function errorCodeOfDetails(details: JsonValue | undefined): number | null {
  const list = rec(details)?.details;
  if (!Array.isArray(list)) return null;
  for (const item of list) {
    const info = rec(item);
    if (info?.['@type'] !== ERROR_INFO_TYPE || typeof info.reason !== 'string') continue;
    const code = CODE_BY_REASON.get(info.reason);
    if (code !== undefined) return code;
  }
  return null;
}

/**
 * A gRPC entry's shape: the status code from its trailers (`response`, `end`), an error's code
 * read from its ErrorInfo, and the message (the result itself, or a stream event) as a result.
 */
function grpcShape(entry: Pick<RecordingEntry, 'kind' | 'body' | 'grpc'>, shape: EntryShape): EntryShape {
  const status = entry.grpc?.status;
  if (entry.kind === 'response' || entry.kind === 'end') shape.grpcStatus = status ?? null;
  if (status !== undefined && status !== 0) {
    shape.outcome = 'error';
    shape.errorCode = errorCodeOfDetails(entry.grpc?.details);
    return shape;
  }
  if (entry.kind !== 'response' && entry.kind !== 'event') return shape;
  const result = rec(entry.body);
  if (!result) return shape;
  shape.outcome = 'result';
  return resultShape(result, shape);
}

/** The protocol-level shape of a recorded or live entry. */
export function shapeOf(entry: Pick<RecordingEntry, 'kind' | 'http' | 'body' | 'grpc'>): EntryShape {
  const shape: EntryShape = {
    kind: entry.kind,
    status: entry.kind === 'response' && entry.grpc === undefined ? (entry.http.status ?? null) : null,
    outcome: null,
    errorCode: null,
    member: null,
    state: null,
    legacy: null,
    cause: null,
    grpcStatus: null,
  };
  if (entry.grpc !== undefined) return grpcShape(entry, shape);
  if (entry.kind !== 'response' && entry.kind !== 'event') return shape;
  const body = rec(entry.body);
  if (!body) return shape;
  const error = rec(body.error);
  if (error) {
    shape.outcome = 'error';
    shape.errorCode = typeof error.code === 'number' ? error.code : null;
    return shape;
  }
  if (!('result' in body)) return shape;
  shape.outcome = 'result';
  const result = rec(body.result);
  if (!result) return shape;
  return resultShape(result, shape);
}

/** What a result says: the StreamResponse member or result kind, the task state, legacy pause and cause. */
function resultShape(result: { [key: string]: JsonValue }, shape: EntryShape): EntryShape {
  const member = MEMBERS.find((m) => rec(result[m]) !== undefined);
  if (member !== undefined) {
    const inner = rec(result[member]);
    shape.member = member;
    shape.state = strOrNull(rec(inner?.status)?.state);
    shape.legacy = legacyState(inner);
    shape.cause = strOrNull(rec(inner?.metadata)?.cause);
    if (shape.cause === null) shape.cause = strOrNull(rec(rec(rec(inner?.metadata)?.harn)?.pause)?.cause);
    return shape;
  }
  if (rec(result.status)) {
    // A bare Task (GetTask, CancelTask).
    shape.member = 'task';
    shape.state = strOrNull(rec(result.status)?.state);
    shape.legacy = legacyState(result);
    return shape;
  }
  if (typeof result.state === 'string') {
    // PauseTask / AwaitTaskResumption / ResumeTask results.
    shape.member = 'previousState' in result || 'cause' in result ? 'ResumeResult' : 'PauseResult';
    shape.state = result.state;
    shape.legacy = legacyState(result);
    shape.cause = strOrNull(result.cause);
    if (shape.cause === null) shape.cause = strOrNull(rec(rec(rec(result.metadata)?.harn)?.pause)?.cause);
  }
  return shape;
}

const SHAPE_FIELDS: readonly (keyof EntryShape)[] = [
  'kind',
  'status',
  'outcome',
  'errorCode',
  'member',
  'state',
  'legacy',
  'cause',
  'grpcStatus',
];

/** `field: expected → actual` for each shape field that differs. */
export function shapeDifferences(expected: EntryShape, actual: EntryShape): string[] {
  const out: string[] = [];
  for (const f of SHAPE_FIELDS) {
    if (expected[f] === actual[f]) continue;
    out.push(`${f}: ${String(expected[f] ?? 'none')} → ${String(actual[f] ?? 'none')}`);
  }
  return out;
}

/** A one-line rendering such as `event statusUpdate TASK_STATE_PAUSED` or `response error -32011`. */
export function describeShape(shape: EntryShape): string {
  const parts: string[] = [shape.kind];
  if (shape.outcome === 'error') parts.push(`error ${shape.errorCode ?? '?'}`);
  if (shape.member) parts.push(shape.member);
  if (shape.state) parts.push(shape.state);
  if (shape.legacy) parts.push(`legacy:${shape.legacy}`);
  if (shape.cause) parts.push(`cause:${shape.cause}`);
  if (shape.grpcStatus !== null && shape.grpcStatus !== 0) parts.push(`grpc status ${shape.grpcStatus}`);
  if (shape.kind === 'response' && shape.outcome === null && shape.status !== null) parts.push(`HTTP ${shape.status}`);
  return parts.join(' ');
}

/** A recorded or live entry, as a report names it. */
export interface DriftEntryRef {
  /** Recorded seq (for live extras: the synthetic seq they were observed under). */
  seq: number;
  xid: string;
  kind: EntryKind;
  /** JSON-RPC method of the exchange. */
  method: string | null;
  /** `task:<recorded id>`, `xid:<xid>`, or null for a barrier. */
  lane: string | null;
  /** {@link describeShape} of the entry. */
  shape: string;
}

export type ExchangeDrift =
  /** A live entry answered a recorded one differently. */
  | { type: 'mismatch'; expected: DriftEntryRef; actual: DriftEntryRef; differences: string[] }
  /** A recorded entry that no live entry answered. */
  | { type: 'missing'; expected: DriftEntryRef; reason: string }
  /** A live entry with no recorded counterpart, with the closest recorded entry and how it differs. */
  | { type: 'extra'; actual: DriftEntryRef; closest: DriftEntryRef | null; differences: string[] }
  /** A request waited for a recorded entry that never came within the deadline. */
  | { type: 'timeout'; request: DriftEntryRef; waitingFor: DriftEntryRef; waitedMs: number }
  /**
   * A poll loop (docs/design.md §8) ended in another state than recorded: its bound passed before
   * the peer showed the recorded outcome, or the peer went past it. A difference of time, said as
   * one: the loop's last read, recorded and live, and how long the loop took each time.
   */
  | {
      type: 'timing';
      expected: DriftEntryRef;
      actual: DriftEntryRef;
      /** Reads the recorded client made. */
      reads: number;
      /** The state the loop ended in, recorded and on replay (`COMPLETED`, `WORKING, 2 artifacts`). */
      expectedState: string;
      actualState: string;
      /** From the loop's first request to its last answer, recorded and on replay, ms. */
      recordedMs: number;
      replayedMs: number;
      /** Whose clock `replayedMs` is on: the embedded peer's virtual one, or the wall. */
      clock: 'peer' | 'wall';
    };

/** Seq of the recorded entry a drift is about, for sorting reports. */
export function driftSeq(drift: ExchangeDrift): number {
  switch (drift.type) {
    case 'mismatch':
      return drift.expected.seq;
    case 'missing':
      return drift.expected.seq;
    case 'extra':
      return drift.closest?.seq ?? drift.actual.seq;
    case 'timeout':
      return drift.waitingFor.seq;
    case 'timing':
      return drift.expected.seq;
    default: {
      const never: never = drift;
      return never;
    }
  }
}

/** The lane a drift belongs to. */
export function driftLane(drift: ExchangeDrift): string | null {
  switch (drift.type) {
    case 'mismatch':
      return drift.expected.lane;
    case 'missing':
      return drift.expected.lane;
    case 'extra':
      return drift.actual.lane;
    case 'timeout':
      return drift.request.lane;
    case 'timing':
      return drift.expected.lane;
    default: {
      const never: never = drift;
      return never;
    }
  }
}
