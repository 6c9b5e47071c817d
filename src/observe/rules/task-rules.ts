/**
 * @module observe/rules/task-rules
 * The rules of a task with no live pause the fact is about (docs/design.md §14.1, §14.8): a pause
 * call opens a `pending` suspension, a pause never requested is the agent's own (a self-park), and
 * resumes of pauses never observed are findings.
 */
import type { ObservedTask } from '../observer-store.js';
import { type RuleTable, rule } from './rule.js';
import { authoritative } from './open-rules.js';
import { proveOpen } from './pending-rules.js';

export interface TaskCase {
  readonly taskId: string;
  /** The task, when the observer follows or remembers it. */
  readonly task: ObservedTask | undefined;
}

export const TASK_RULES: RuleTable<TaskCase> = {
  state: 'task',
  subject: (x) => ({ taskId: x.taskId, suspension: undefined }),
  rows: [
    rule<TaskCase, 'PauseRequested'>(
      'task/pause-call-on-finished-task',
      'PauseRequested',
      'a pause call on a finished task opens nothing: the peer refuses it',
      (c) => c.task?.terminal === true,
      () => undefined,
    ),
    rule<TaskCase, 'PauseRequested'>(
      'task/pause-call',
      'PauseRequested',
      'a pause call opens a pending suspension: its Suspension span starts at the call',
      (c) => c.task !== undefined,
      (c) => {
        if (c.task) c.task.pending.set(c.fact.xid, c.store.requestPause(c.task, c.fact, c.store.clock.latestMs));
      },
    ),
    rule<TaskCase, 'PausedSeen'>(
      'task/self-park',
      'PausedSeen',
      'PAUSED with a pause no call in flight asked for: the agent parked on its own (via statusUpdate)',
      (c) => c.task !== undefined,
      (c) => {
        if (c.task) proveOpen(c.store, c.task, c.fact, undefined);
      },
    ),
    rule<TaskCase, 'ResumeAnnounced'>(
      'task/announce-unmatched',
      'ResumeAnnounced',
      'the task announces a resume but no pause of it was observed: a finding',
      (c) =>
        c.task !== undefined &&
        authoritative(c.task, c.fact.origin) &&
        c.task.last === undefined &&
        c.task.resuming.length === 0,
      (c) =>
        c.store.finding(
          'unmatched-resume',
          c.fact.entry.seq,
          `${c.fact.field}.metadata`,
          `task ${c.taskId} announces a resume, but no pause of it was observed`,
          c.taskId,
        ),
    ),
    rule<TaskCase, 'ControlAnswered'>(
      'task/fire-unmatched',
      'ControlAnswered',
      'a FireEvent answer lists a task with no pause observed: a finding',
      (c) => c.task?.last === undefined,
      (c) =>
        c.store.finding(
          'unmatched-resume',
          c.fact.entry.seq,
          'body.result.resumed',
          `FireEvent ${JSON.stringify(c.fact.call.name ?? '')} resumed task ${c.taskId}, ` +
            'but no pause of it was observed',
          c.taskId,
        ),
    ),
  ],
};
