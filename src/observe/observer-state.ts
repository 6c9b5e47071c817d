/**
 * @module observe/observer-state
 * The records the PauseObserver keeps while it follows a recording: exchanges, tasks, suspensions,
 * pause and resume calls in flight, control calls, and the facts a resumption is built from.
 * Plain data and their constructors only; the PauseObserver alone changes them.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import type { JsonRpcId } from '../protocol/json-rpc.js';
import type { MethodCall } from '../protocol/params.js';
import type { PauseMode, ResumeConditions, TaskState } from '../protocol/types.js';
import type { ResumeOutcome, ResumeReceiptCause, SpanRef } from '../receipts/types.js';
import type { RecordingEntry } from '../recording/format.js';
import { childSpan, resumeKey, rootSpan, suspensionKey, taskSpanKey } from './observer-spans.js';
import type { ResumeSignal } from './sightings.js';

/** One HTTP exchange (request, its answer or stream, its end) as the observer follows it. */
export interface Exchange {
  xid: string;
  seq: number;
  at: string;
  principal: string | null;
  /** The caller's span from its `traceparent`, if any. */
  parent: SpanRef | undefined;
  control: boolean;
  /** Set for a JSON-RPC request this observer follows. */
  rpcId: JsonRpcId | undefined;
  call: MethodCall | undefined;
  streaming: boolean;
  answered: boolean;
  /** Tasks this stream carried. */
  carries: Set<string>;
  /** Last effective state per task on this stream, for transition checks. */
  lastState: Map<string, TaskState>;
}

/**
 * Where a suspension is in its life: its pause call in flight (pending), open, racing resumes
 * (resuming), or closed.
 */
export type SuspensionStatus = 'pending' | 'open' | 'resuming' | 'closed';

/** A resume proven on a stream while several ResumeTask calls race: the answers decide the winner. */
export interface AwaitingResume {
  seq: number;
  at: string;
  signal: ResumeSignal;
  /** Exchange ids of the ResumeTask calls that may have won. */
  candidates: Set<string>;
}

/** One pause of one task (one receipt), from the pause call or proof to its resume or loss. */
export interface Suspension {
  key: string;
  taskId: string;
  openSeq: number;
  openAt: string;
  span: SpanRef;
  parent: SpanRef;
  principal: string | null;
  started: boolean;
  status: SuspensionStatus;
  tokenHash: string | null;
  pausedAt: string;
  pausedUntil: string | null;
  pausedUntilMs: number | undefined;
  conditions: ResumeConditions | null;
  provenSeq: number;
  /** Streams that delivered this pause or were opened after it. */
  caughtUp: Set<string>;
  streamEnded: boolean;
  overdueSince: number | undefined;
  awaiting: AwaitingResume | undefined;
  /** Key of the resume span that closed it. */
  closedBy: string | undefined;
}

/** A PauseTask / AwaitTaskResumption call in flight, with the suspension it opened. */
export interface PendingPause {
  xid: string;
  seq: number;
  method: 'PauseTask' | 'AwaitTaskResumption';
  mode: PauseMode | null;
  reason: string | null;
  principal: string | null;
  suspension: Suspension;
}

/** A Resume span: opened by a ResumeTask / CancelTask request, or by the event that proved a resume. */
export interface ResumeSpan {
  key: string;
  seq: number;
  at: string;
  span: SpanRef;
  started: boolean;
  ended: boolean;
}

/** A ResumeTask or CancelTask call in flight: the resume span it opened and what it carried. */
export interface Closer extends ResumeSpan {
  kind: 'resume' | 'cancel';
  xid: string;
  principal: string | null;
  taskId: string;
  target: Suspension | undefined;
  tokenHash: string | null;
  input: JsonValue | undefined;
  hadInput: boolean;
  continueTranscript: boolean | null;
  /** The suspension this call closed, once it did. */
  closed: Suspension | undefined;
}

/** Everything the observer knows about one task: its span, streams, pauses and calls in flight. */
export interface TaskRecord {
  taskId: string;
  contextId: string | null;
  span: SpanRef;
  started: boolean;
  ended: boolean;
  terminal: boolean;
  /** Open streams carrying the task. */
  streams: Set<string>;
  open: Suspension | undefined;
  last: Suspension | undefined;
  byToken: Map<string, Suspension>;
  pendingPauses: Map<string, PendingPause>;
  closers: Map<string, Closer>;
}

/** An AdvanceClock / FireEvent call, kept to attribute condition-fired and timeout resumes. */
export interface ControlCall {
  seq: number;
  method: 'AdvanceClock' | 'FireEvent';
  name: string | undefined;
  principal: string | null;
}

/** Where a task sighting came from: a stream event, a task snapshot, or the answer to a call on the task. */
export type Origin =
  { kind: 'stream'; ex: Exchange } | { kind: 'snapshot'; ex: Exchange } | { kind: 'call'; ex: Exchange };

/** What a resumption draft says about how a suspension ended. */
export interface ClosingFacts {
  cause: ResumeReceiptCause;
  outcome: ResumeOutcome;
  errorCode: number | null;
  principal: string | null;
  input: JsonValue | undefined;
  hadResumeInput: boolean;
  continueTranscript: boolean | null;
  resumedAt: string | null;
  entries: number[];
}

/** A task first seen now: its root span derives from the recording id (docs/design.md §7), nothing started. */
export function newTaskRecord(recordingId: string, taskId: string): TaskRecord {
  const key = taskSpanKey(taskId);
  return {
    taskId,
    contextId: null,
    span: rootSpan(recordingId, key),
    started: false,
    ended: false,
    terminal: false,
    streams: new Set(),
    open: undefined,
    last: undefined,
    byToken: new Map(),
    pendingPauses: new Map(),
    closers: new Map(),
  };
}

/**
 * A suspension opened by `entry` (a pause call, or the first proof of a pause), pending until proven.
 * Its span is a child of the caller's span `parent`, or of the task's span when the call had none.
 */
export function newSuspension(
  recordingId: string,
  task: TaskRecord,
  entry: Pick<RecordingEntry, 'seq' | 'at'>,
  parent: SpanRef | undefined,
  principal: string | null,
): Suspension {
  const key = suspensionKey(entry.seq);
  const p = parent ?? task.span;
  return {
    key,
    taskId: task.taskId,
    openSeq: entry.seq,
    openAt: entry.at,
    span: childSpan(recordingId, key, p),
    parent: p,
    principal,
    started: false,
    status: 'pending',
    tokenHash: null,
    pausedAt: '',
    pausedUntil: null,
    pausedUntilMs: undefined,
    conditions: null,
    provenSeq: entry.seq,
    caughtUp: new Set(),
    streamEnded: false,
    overdueSince: undefined,
    awaiting: undefined,
    closedBy: undefined,
  };
}

/** The record of a ResumeTask (`resume`) or CancelTask (`cancel`) request `entry` on exchange `ex`. */
export function newCloser(
  recordingId: string,
  kind: Closer['kind'],
  ex: Exchange,
  entry: Pick<RecordingEntry, 'seq' | 'at'>,
  taskId: string,
  tokenHash: string | null,
  input: JsonValue | undefined,
  hadInput: boolean,
  continueTranscript: boolean | null,
): Closer {
  const key = resumeKey(entry.seq);
  return {
    kind,
    key,
    seq: entry.seq,
    at: entry.at,
    span: rootSpan(recordingId, key),
    started: false,
    ended: false,
    xid: ex.xid,
    principal: ex.principal,
    taskId,
    target: undefined,
    tokenHash,
    input,
    hadInput,
    continueTranscript,
    closed: undefined,
  };
}

/** A Resume span opened by the entry that proved a resume (no call of ours closed the pause). */
export function eventResumeSpan(recordingId: string, entry: Pick<RecordingEntry, 'seq' | 'at'>): ResumeSpan {
  const key = resumeKey(entry.seq);
  return { key, seq: entry.seq, at: entry.at, span: rootSpan(recordingId, key), started: false, ended: false };
}

/** Closing facts of a pause ended without a call's resume input (cancel, failure). */
export function closingFacts(
  cause: ResumeReceiptCause,
  outcome: ResumeOutcome,
  principal: string | null,
  resumedAt: string | null,
  entries: number[],
): ClosingFacts {
  return {
    cause,
    outcome,
    errorCode: null,
    principal,
    input: undefined,
    hadResumeInput: false,
    continueTranscript: null,
    resumedAt,
    entries,
  };
}

/** Closing facts of a pause ended by the call `c`: its principal, input and `continueTranscript` count. */
export function closerFacts(
  c: Closer,
  cause: ResumeReceiptCause,
  outcome: ResumeOutcome,
  resumedAt: string | null,
  entries: number[],
  errorCode: number | null = null,
): ClosingFacts {
  return {
    cause,
    outcome,
    errorCode,
    principal: c.principal,
    input: c.input,
    hadResumeInput: c.hadInput,
    continueTranscript: c.continueTranscript,
    resumedAt,
    entries,
  };
}
