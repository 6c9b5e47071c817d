/**
 * @module observe/rules/task-rules
 * The rules of a task with no live pause the fact is about (docs/design.md §14.1, §14.8): a pause
 * call opens a `pending` suspension, a pause never requested is the agent's own (a self-park), and
 * a resume of a pause never observed ended a pause that began outside this recording (another
 * recorder saw it begin, docs/design.md §17): it gets a ResumptionReceipt naming the pause outside.
 */
import { attributeAnnounced } from '../explanations.js';
import { closingOf } from '../lifecycle.js';
import type { ObservedTask } from '../observed-task.js';
import type { OutsideSuspension } from '../../receipts/types.js';
import { entryResume } from './closings.js';
import { type RuleTable, rule } from './rule.js';
import { authoritative } from './open-rules.js';
import { proveOpen } from './pending-rules.js';

export interface TaskCase {
  readonly taskId: string;
  /** The task, when the observer follows or remembers it. */
  readonly task: ObservedTask | undefined;
}

/** A pause seen only by its resume on a stream, a poll or a FireEvent answer: neither token nor pausedAt shown. */
const UNKNOWN_PAUSE: OutsideSuspension = { pausedAt: null, resumeTokenHash: null };

/** A pause this recording never saw, for attributing a resume to the control call that can have fired it. */
const UNSEEN = { openSeq: 0, pause: { conditions: null } } as const;

const resumeCallInFlight = (task: ObservedTask): boolean =>
  [...task.closers.values()].some((c) => c.kind === 'resume' && c.settled === undefined);

/** The outside resume receipted already stated no time, or this one. */
function sameOutsideResume(task: ObservedTask, resumedAt: string): boolean {
  const before = task.outsideResume?.resumedAt;
  return before === null || before === resumedAt;
}

export const TASK_RULES: RuleTable<TaskCase> = {
  state: 'task',
  subject: (x) => ({ taskId: x.taskId, suspension: undefined }),
  rows: [
    rule<TaskCase, 'PauseRequested'>(
      'task/pause-call-on-finished-task',
      'PauseRequested',
      'task',
      'a pause call on a finished task opens nothing: the peer refuses it',
      (c) => c.task?.terminal === true,
      () => undefined,
    ),
    rule<TaskCase, 'PauseRequested'>(
      'task/pause-call',
      'PauseRequested',
      'pending',
      'a pause call opens a pending suspension: its Suspension span starts at the call',
      (c) => c.task !== undefined,
      (c) => {
        if (c.task) c.acts.pend(c.task, c.acts.requestPause(c.task, c.fact, c.acts.peerNowMs()));
      },
    ),
    rule<TaskCase, 'PausedSeen'>(
      'task/self-park',
      'PausedSeen',
      'open',
      'PAUSED with a pause no call in flight asked for: the agent parked on its own (via statusUpdate)',
      (c) => c.task !== undefined,
      (c) => {
        if (c.task) proveOpen(c.acts, c.task, c.fact, undefined);
      },
    ),
    rule<TaskCase, 'ResumeAnnounced'>(
      'task/announce-awaits-resume-call',
      'ResumeAnnounced',
      'task',
      'a resume announced, no pause of the task observed, while a ResumeTask for it is in flight: its answer tells',
      (c) => c.task !== undefined && resumeCallInFlight(c.task),
      () => undefined,
    ),
    rule<TaskCase, 'ResumeAnnounced'>(
      'task/announce-repeated',
      'ResumeAnnounced',
      'task',
      'the resume of a pause outside this recording, receipted already, is shown again: nothing new',
      (c) => c.task?.outsideResume !== undefined && sameOutsideResume(c.task, c.fact.signal.resumedAt),
      () => undefined,
    ),
    rule<TaskCase, 'ResumeAnnounced'>(
      'task/announce-outside',
      'ResumeAnnounced',
      'ended',
      'the task announces a resume and no pause of it was observed: the pause began outside this recording',
      (c) =>
        c.task !== undefined &&
        authoritative(c.task, c.fact.origin) &&
        c.task.last === undefined &&
        c.task.resuming.length === 0,
      (c) => {
        const task = c.task;
        if (!task) return;
        const { entry, signal } = c.fact;
        const control =
          signal.cause === 'explicit_resume'
            ? undefined
            : attributeAnnounced(UNSEEN, signal.cause, c.acts.outsideEvidence(task.taskId, entry.at));
        const closing = closingOf({
          cause: signal.cause,
          outcome: 'resumed',
          principal: control?.principal ?? null,
          hadResumeInput: signal.hadResumeInput,
          continueTranscript: signal.continueTranscript,
          resumedAt: signal.resumedAt,
          entries: control ? [control.seq, entry.seq] : [entry.seq],
        });
        const resume = entryResume(c.acts, entry, task, c.fact.origin);
        c.acts.closeOutside(task, { outside: UNKNOWN_PAUSE, resume, closing, entry });
      },
    ),
    rule<TaskCase, 'ControlAnswered'>(
      'task/fire-repeated',
      'ControlAnswered',
      'task',
      'a FireEvent answer lists a task whose resume, of a pause outside this recording, was receipted since the call',
      (c) => c.task?.last === undefined && (c.task?.outsideResume?.seq ?? 0) > c.fact.call.seq,
      () => undefined,
    ),
    rule<TaskCase, 'ControlAnswered'>(
      'task/fire-outside',
      'ControlAnswered',
      'ended',
      'a FireEvent answer lists a task with no pause observed: the pause began outside this recording',
      (c) => c.task?.last === undefined,
      (c) => {
        const task = c.acts.task(c.taskId);
        const { entry, call } = c.fact;
        const closing = closingOf({
          cause: call.payloadTaskId === c.taskId ? 'external_event' : 'condition_fired',
          outcome: 'resumed',
          principal: call.principal,
          resumedAt: null,
          inferred: true,
          entries: [call.seq, entry.seq],
        });
        const resume = entryResume(c.acts, entry, task, undefined);
        c.acts.closeOutside(task, { outside: UNKNOWN_PAUSE, resume, closing, entry });
      },
    ),
  ],
};
