/**
 * @module observe/observer-state
 * The records the PauseObserver keeps while it follows a recording: exchanges, tasks, suspensions,
 * pause and resume calls in flight, control calls, and the facts a resumption is built from.
 * Plain data only; the PauseObserver alone creates and changes them.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import type { JsonRpcId } from '../protocol/json-rpc.js';
import type { MethodCall } from '../protocol/params.js';
import type { PauseMode, ResumeConditions, TaskState } from '../protocol/types.js';
import type { ResumeOutcome, ResumeReceiptCause, SpanRef } from '../receipts/types.js';
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

/** Where a suspension is in its life: its pause call in flight (pending), open, racing resumes (resuming), or closed. */
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
export type Origin = { kind: 'stream'; ex: Exchange } | { kind: 'snapshot'; ex: Exchange } | { kind: 'call'; ex: Exchange };

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
