/**
 * @module observe/pause-actions
 * What the pause rows read and ask for (docs/design.md §14.8): the narrow port through which a row
 * of `observe/rules` acts, as the interruption rows act through `InterruptionActions`. A row reads
 * its subject (the task, the suspension in its state) and the fact; everything it changes, it
 * changes by a call here, so the store keeps its indexes true and stamps what is emitted with the
 * rule firing. `observe/observer-store` implements it.
 */
import type { OutsideSuspension } from '../receipts/types.js';
import type { LostPauseReason } from './lost-pause-reasons.js';
import type { EntryRef, Fact } from './fact.js';
import type { FindingCode } from './findings.js';
import type { Evidence } from './explanations.js';
import type { RuleContext } from './lifecycle.js';
import type { FiredRule, ObservedTask } from './observed-task.js';
import type {
  Closer,
  Closing,
  ObserverOutput,
  ResumeSpan,
  SuspensionIdentity,
  SuspensionKeptAside,
  SuspensionLive,
  SuspensionOpen,
  SuspensionPending,
  SuspensionResuming,
} from './suspension.js';

type When = { seq: number | null; at: string };

export interface PauseActions {
  /** The recording's id, the span switch and the suspension-span mode the lifecycle steps read. */
  readonly ctx: RuleContext;

  // ---- firing ----
  /** Runs `apply` as rule `fired.rule`: what it emits names the rule; the firing is recorded. */
  firing(fired: FiredRule, apply: () => void): void;

  // ---- reads ----
  /** The peer's clock at `at`, as estimated from what the peer stated (NaN before any report). */
  nowAt(at: string): number;
  /** The latest time the peer stated, in ms (NaN before any). */
  peerNowMs(): number;
  /** The evidence of what can have resumed `s` unseen: control calls by name and task, the clock. */
  evidence(task: ObservedTask, s: SuspensionLive, at: string): Evidence;
  /** The same for a pause this recording never saw (no event name to match). */
  outsideEvidence(taskId: string, at: string): Evidence;
  /** ResumeTask calls in flight that may resume `s` (its token, or any when it has none). */
  resumeCalls(task: ObservedTask, s: SuspensionLive): Closer[];
  /** The suspension of `task` whose token hashes to `tokenHash`: live, or recently ended. */
  byToken(task: ObservedTask, tokenHash: string | null): SuspensionIdentity | undefined;
  /** The task, followed from now on (a retired one followed again). */
  task(taskId: string): ObservedTask;

  // ---- outputs ----
  emit(outputs: readonly ObserverOutput[]): void;
  emitStep<S>(step: { next: S; out: ObserverOutput[] }): S;
  finding(code: FindingCode, seq: number | null, field: string, message: string, taskId?: string): void;
  /** The receipt of the pause `task` shows past can only come with a later entry (docs/design.md §5). */
  awaitLater(task: ObservedTask): void;

  // ---- suspensions: moves between states ----
  /** `s` is open (proven, or seen again, or holding a new proof). */
  setOpen(task: ObservedTask, s: SuspensionOpen): void;
  /** The pause `task` showed last, remembered after it ends. */
  setLast(task: ObservedTask, s: SuspensionOpen): void;
  /** A pause call opens a pending suspension. */
  pend(task: ObservedTask, s: SuspensionPending): void;
  /** A pause call made while a pause is open is kept aside until its answer. */
  keepAside(task: ObservedTask, s: SuspensionKeptAside): void;
  /** A pause call is no longer pending, or kept aside: it opened something, or nothing. */
  dropCall(task: ObservedTask, xid: string): void;
  /** The pending suspension of a pause call: its Suspension span starts at the call. */
  requestPause(
    task: ObservedTask,
    fact: Extract<Fact, { type: 'PauseRequested' }>,
    peerBeforeMs: number,
  ): SuspensionPending;
  /** `s` races: it leaves `open` for `resuming`. */
  startRace(task: ObservedTask, s: SuspensionOpen, racing: SuspensionResuming): void;
  /** The race of `s` goes on with fewer candidates. */
  narrowRace(task: ObservedTask, s: SuspensionResuming): void;
  close(
    task: ObservedTask,
    args: { suspension: SuspensionIdentity; resume: ResumeSpan; closing: Closing; entry: When },
  ): ResumeSpan;
  closeWithCall(
    task: ObservedTask,
    args: { suspension: SuspensionIdentity; call: Closer; closing: Closing; entry: When },
  ): void;
  /** A resume of a pause outside this recording by the call `call` (or by no call): it settles the call. */
  closeOutside(
    task: ObservedTask,
    args: { outside: OutsideSuspension; resume: ResumeSpan; closing: Closing; entry: EntryRef; call?: Closer },
  ): void;
  lose(
    task: ObservedTask,
    s: SuspensionOpen,
    args: { reason: LostPauseReason; entry: EntryRef | null; at: string; message?: string },
  ): void;
  /** The Resume span of a call ends (in error when `error` is given), no receipt. */
  endCallSpan(call: Closer, at: string, error: string | undefined): void;
}
