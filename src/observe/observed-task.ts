/**
 * @module observe/observed-task
 * The shapes the observer's store keeps (docs/design.md §14.8): a task it follows, a pause open on
 * it, a pause carried in from an earlier recording, and the record of a rule that fired.
 */
import type { ResumeConditions } from '../protocol/types.js';
import type { CallBinding } from './call-view.js';
import type { Fact } from './fact.js';
import type {
  Closer,
  SpanPhase,
  SuspensionIdentity,
  SuspensionKeptAside,
  SuspensionOpen,
  SuspensionPending,
  SuspensionResuming,
} from './suspension.js';

type SpanRef = SuspensionIdentity['span'];

/** A pause that was observed and has not ended. */
export interface OpenSuspension {
  key: string;
  taskId: string;
  contextId: string | null;
  resumeTokenHash: string | null;
  pausedAt: string;
  pausedUntil: string | null;
  conditions: ResumeConditions | null;
  /** Seq of the entry that proved the pause (0 for one carried in from an earlier recording). */
  provenSeq: number;
  span: SpanRef;
  /** The binding its task was last seen in. */
  binding: CallBinding;
}

/**
 * A pause an earlier recording proved and did not see end, handed to the observer of the
 * recording that continues it (docs/design.md §6, "Series"; §14.1): open from the start, proven
 * before entry 1, so that what this recording shows of its task ends it by the same rules.
 */
export type CarriedSuspension = Omit<OpenSuspension, 'provenSeq'>;

/** What the observer knows of one task it follows. */
export interface ObservedTask {
  readonly taskId: string;
  contextId: string | null;
  readonly span: SpanRef;
  spanPhase: SpanPhase;
  terminal: boolean;
  /** Open streams carrying the task. */
  readonly streams: Set<string>;
  open: SuspensionOpen | undefined;
  resuming: SuspensionResuming[];
  /** The latest pause proven, in whatever state it is now. */
  last: (SuspensionIdentity & { tokenHash: string | null }) | undefined;
  /** Pause calls in flight, by exchange id, in request order. */
  readonly pending: Map<string, SuspensionPending>;
  /** Pause calls made while a pause was open, by exchange id (state `kept-aside`). */
  readonly keptAside: Map<string, SuspensionKeptAside>;
  /** ResumeTask / CancelTask calls in flight, by exchange id. */
  readonly closers: Map<string, Closer>;
  /** The binding of the latest A2A exchange that named or showed the task: its receipts carry it. */
  binding: CallBinding;
  /**
   * The latest resume of a pause that began outside this recording, once receipted (docs/design.md
   * §17): its `resumedAt` (null when none was stated), so a later sighting of it adds nothing.
   */
  outsideResume: { resumedAt: string | null; seq: number } | undefined;
}

/** One rule that fired: its id, the fact (or the recording's end) it fired on, its entry and task. */
export interface FiredRule {
  readonly rule: string;
  readonly fact: Fact['type'] | 'RecordingEnded';
  /** Seq of the entry the fact was read from; null at the recording's end. */
  readonly seq: number | null;
  readonly taskId: string;
  /** Key of the suspension the rule decided for, when it had one. */
  readonly suspension: string | undefined;
}
