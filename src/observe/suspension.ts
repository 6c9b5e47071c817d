/**
 * @module observe/suspension
 * The states of one suspension (docs/design.md §14.1) as a discriminated union, each state holding
 * only the fields it really has, plus the records the PauseObserver keeps beside them: the calls in
 * flight that may close a pause, and what it knows of a task. Plain data; `observe/lifecycle`
 * moves a suspension from state to state, `observe/pause-observer` stores the result.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import type { PauseMode, ResumeConditions } from '../protocol/types.js';
import type {
  ContinuationDraft,
  InterruptionDraft,
  OutsideSuspension,
  ResumptionDraft,
  SpanRef,
  SuspensionDraft,
} from '../receipts/types.js';
import type { SpanEvent } from '../tracing/span-events.js';
import type { LostInterruptionReason, LostPauseReason } from './lost-pause-reasons.js';
import type { ObserverFinding } from './findings.js';
import type { Fact, PauseOpeningMethod } from './fact.js';
import type { ResumeSignal } from './sightings.js';

/**
 * What one entry (or the end of the recording) produced, in the order to act on it. For a pause:
 * `span suspension.start` (unless emitted earlier) → `span suspension.end` → `suspension`; for a
 * resume: `span resume.start` (unless earlier) → `span resume.end` → `resumption`. The end event
 * and the draft share `key`, so a pipeline can seal the draft and put its hash on the span.
 */
export type ObserverOutput =
  /** `rule` is the id of the rule that proved the pause (docs/design.md §14.8); never in the draft. */
  | { type: 'suspension'; key: string; draft: SuspensionDraft; rule?: string }
  /**
   * `suspensionKey` is the key of the `suspension` output this resumption closes (or attempted),
   * null when the pause began outside what this observer saw: `outside` then names it
   * (docs/design.md §17); `rule` the id of the rule that decided the end.
   */
  | {
      type: 'resumption';
      key: string;
      suspensionKey: string;
      draft: ResumptionDraft;
      rule?: string;
    }
  | {
      type: 'resumption';
      key: string;
      suspensionKey: null;
      outside: OutsideSuspension;
      draft: ResumptionDraft;
      rule?: string;
    }
  /** An interruption proven (docs/design.md §14.9); `rule` as for a suspension. */
  | { type: 'interruption'; key: string; draft: InterruptionDraft; rule?: string }
  /** How an interruption ended; `interruptionKey` is the key of the `interruption` output it closes. */
  | { type: 'continuation'; key: string; interruptionKey: string; draft: ContinuationDraft; rule?: string }
  /** An interruption that can no longer be continued as observed (docs/design.md §14.9). */
  | {
      type: 'interruption-lost';
      interruptionKey: string;
      taskId: string;
      contextId: string | null;
      reason: LostInterruptionReason;
      seq: number | null;
      at: string;
      rule?: string;
    }
  | { type: 'span'; event: SpanEvent }
  | { type: 'finding'; finding: ObserverFinding };

/** What every state of a suspension has: its key, its task and its span (docs/design.md §7). */
export interface SuspensionIdentity {
  readonly key: string;
  readonly taskId: string;
  /** The entry that opened it: the pause call, or the first proof of the pause. */
  readonly openSeq: number;
  readonly openAt: string;
  readonly span: SpanRef;
  /** The caller's traceparent span, else the task's span. */
  readonly parent: SpanRef;
}

/** A PauseTask / AwaitTaskResumption request in flight. */
export interface PauseCall {
  readonly xid: string;
  readonly seq: number;
  readonly method: PauseOpeningMethod;
  readonly mode: PauseMode | null;
  readonly reason: string | null;
  readonly principal: string | null;
  /** Its body was read from bytes that are not valid UTF-8, each invalid sequence as U+FFFD. */
  readonly bodyRepaired: boolean;
  /**
   * The latest time the peer had stated when the call was made (ms; NaN before any): a pause the
   * peer says began before it was in force already, and the call only found it.
   */
  readonly peerBeforeMs: number;
}

/** `pending`: a pause call is in flight; its Suspension span has started, nothing is proven yet. */
export interface SuspensionPending extends SuspensionIdentity {
  readonly state: 'pending';
  readonly call: PauseCall;
}

/**
 * `kept-aside`: a pause call made while a pause of the task was open. It opens nothing (no span)
 * unless its answer shows a new pause: the one in force ended unseen, and the call made the new
 * one, which it then proves (it becomes `pending`, then `open`).
 */
export interface SuspensionKeptAside {
  readonly state: 'kept-aside';
  readonly taskId: string;
  readonly xid: string;
  /** The PauseTask / AwaitTaskResumption request. */
  readonly request: Extract<Fact, { type: 'PauseRequested' }>;
  /** {@link PauseCall.peerBeforeMs} of the call. */
  readonly peerBeforeMs: number;
}

/** The pause as the peer stated it when it was proven. */
export interface ProvenPause {
  /** `tokenHashOf(resumeToken)`: the pause's identity among the task's pauses. */
  readonly tokenHash: string | null;
  readonly pausedAt: string;
  readonly pausedUntil: string | null;
  readonly pausedUntilMs: number | undefined;
  readonly conditions: ResumeConditions | null;
}

/** A peer-clock deadline of the pause that a clock report reached (docs/design.md §14.4). */
export interface DeadlineReached {
  readonly which: 'trigger' | 'timeout';
  /** The entry that reported the time (for a control answer, its request too). */
  readonly entries: readonly number[];
  /** Who moved the clock (the AdvanceClock's principal), if a control call did. */
  readonly principal: string | null;
  readonly seq: number;
  readonly at: string;
}

/** `open`: the peer showed the task PAUSED with this pause; it has not ended. */
export interface SuspensionOpen extends SuspensionIdentity {
  readonly state: 'open';
  readonly pause: ProvenPause;
  /** The entry whose receipt proved it. */
  readonly provenSeq: number;
  /** The latest entry that showed it PAUSED: evidence older than this did not end it. */
  readonly lastPausedSeq: number;
  /** Streams that delivered this pause: what they show next follows the pause in order. */
  readonly caughtUp: ReadonlySet<string>;
  /** Every stream that carried the task has ended. */
  readonly streamEnded: boolean;
  /** Deadlines the peer's clock reached while it was open. */
  readonly reached: readonly DeadlineReached[];
}

/** Several ResumeTask calls race; the peer announced a resume and their answers tell who won. */
export interface ResumeRace {
  readonly seq: number;
  readonly at: string;
  readonly signal: ResumeSignal;
  /** Exchange ids of the ResumeTask calls that may have won. */
  readonly candidates: ReadonlySet<string>;
}

/** `resuming`: it left PAUSED; which of the racing calls won is still open. */
export interface SuspensionResuming extends Omit<SuspensionOpen, 'state'> {
  readonly state: 'resuming';
  readonly race: ResumeRace;
}

/** `closed`: a ResumptionReceipt ended it (resumed, canceled or failed). */
export interface SuspensionClosed extends SuspensionIdentity {
  readonly state: 'closed';
  readonly tokenHash: string | null;
  /** Key of the resume span (and resumption) that closed it. */
  readonly closedBy: string;
}

/** `lost`: it can never come back as observed; a LostPause span said why. */
export interface SuspensionLost extends SuspensionIdentity {
  readonly state: 'lost';
  readonly tokenHash: string | null;
  readonly reason: LostPauseReason;
}

/** One pause of one task, from its request or proof to its end. */
export type Suspension =
  SuspensionKeptAside | SuspensionPending | SuspensionOpen | SuspensionResuming | SuspensionClosed | SuspensionLost;

/** A suspension that was proven and has not ended. */
export type SuspensionLive = SuspensionOpen | SuspensionResuming;
/** A suspension that ended. */
export type SuspensionEnded = SuspensionClosed | SuspensionLost;

/** Where a Resume span is: not started, started, ended. */
export type SpanPhase = 'unstarted' | 'started' | 'ended';

/** A Resume span (docs/design.md §7): opened by a ResumeTask / CancelTask request, or the entry that proved the end. */
export interface ResumeSpan {
  readonly key: string;
  readonly seq: number;
  readonly at: string;
  readonly span: SpanRef;
  readonly phase: SpanPhase;
}

/** A ResumeTask (`resume`) or CancelTask (`cancel`) request in flight. */
export interface Closer {
  readonly kind: 'resume' | 'cancel';
  readonly xid: string;
  readonly seq: number;
  readonly taskId: string;
  readonly principal: string | null;
  readonly tokenHash: string | null;
  readonly input: JsonValue | undefined;
  readonly hadInput: boolean;
  readonly continueTranscript: boolean | null;
  /** The pause it was aimed at when it was sent. */
  readonly target: SuspensionIdentity | undefined;
  resume: ResumeSpan;
  /** Key of the suspension this call closed, once it did. */
  settled: string | undefined;
}

/** What a resumption draft says about how a suspension ended. */
export interface Closing {
  readonly cause: ResumptionDraft['cause'];
  readonly outcome: ResumptionDraft['outcome'];
  readonly errorCode: number | null;
  readonly principal: string | null;
  readonly input: JsonValue | undefined;
  readonly hadResumeInput: boolean;
  readonly continueTranscript: boolean | null;
  readonly resumedAt: string | null;
  /** No A2A message of the peer stated this end: it was read from what the recording proves. */
  readonly inferred: boolean;
  readonly entries: readonly number[];
}
