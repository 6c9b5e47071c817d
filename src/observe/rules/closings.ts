/**
 * @module observe/rules/closings
 * How the rows close a pause from what an entry proved (docs/design.md §14.3): the closing facts of
 * an inferred end, the Resume span of the entry that proved it, and a resume known only from the
 * peer's announcement. Built on the actions port alone.
 */
import { type Explanation, attributeAnnounced } from '../explanations.js';
import type { EntryRef, Origin } from '../fact.js';
import { closingOf, entryResumeSpan } from '../lifecycle.js';
import type { ObservedTask } from '../observed-task.js';
import type { PauseActions } from '../pause-actions.js';
import type { ResumeSignal } from '../sightings.js';
import type { Closing, ResumeSpan, SuspensionLive, SuspensionOpen } from '../suspension.js';

/** Closing facts of an inferred end (docs/design.md §14.3): last PAUSED sighting, proof, sighting after. */
export function inferred(
  s: SuspensionOpen,
  x: Explanation,
  args: { after: readonly number[]; resumedAt?: string | null },
): Closing {
  return closingOf({
    cause: x.cause,
    outcome: x.outcome,
    principal: x.principal,
    resumedAt: args.resumedAt ?? null,
    inferred: true,
    entries: [s.lastPausedSeq, ...x.entries, ...args.after],
  });
}

/** A resume span for the entry that proved an end; ListTasks and control answers end several pauses at once. */
export function entryResume(
  acts: PauseActions,
  entry: EntryRef,
  task: ObservedTask,
  origin: Origin | undefined,
): ResumeSpan {
  const multi = origin === undefined || (origin.kind === 'snapshot' && origin.multi);
  return entryResumeSpan(acts.ctx, entry, multi ? task.taskId : undefined);
}

/** Closes `s` by an end the entry proved, with the inferred closing of `x` (docs/design.md §14.3). */
export function closeInferred(
  acts: PauseActions,
  task: ObservedTask,
  s: SuspensionOpen,
  x: Explanation,
  proof: { entry: EntryRef; origin: Origin | undefined },
): void {
  const { entry, origin } = proof;
  acts.close(task, {
    suspension: s,
    resume: entryResume(acts, entry, task, origin),
    closing: inferred(s, x, { after: [entry.seq] }),
    entry,
  });
}

/** A resume known only from the peer's announcement (no ResumeTask of ours won it). */
export function closeFromSignal(
  acts: PauseActions,
  task: ObservedTask,
  s: SuspensionLive,
  args: { signal: ResumeSignal; entry: EntryRef; entries: number[]; origin?: Origin },
): void {
  const { signal, entry, entries, origin } = args;
  const control =
    signal.cause === 'explicit_resume'
      ? undefined
      : attributeAnnounced(s, signal.cause, acts.evidence(task, s, entry.at));
  const closing = closingOf({
    cause: signal.cause,
    outcome: 'resumed',
    principal: control?.principal ?? null,
    hadResumeInput: signal.hadResumeInput,
    continueTranscript: signal.continueTranscript,
    resumedAt: signal.resumedAt,
    entries: control ? [control.seq, ...entries] : entries,
  });
  const resume = origin ? entryResume(acts, entry, task, origin) : entryResumeSpan(acts.ctx, entry);
  acts.close(task, { suspension: s, resume, closing, entry });
}
