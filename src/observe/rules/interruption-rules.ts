/**
 * @module observe/rules/interruption-rules
 * The rules of interruptions (docs/design.md §14.8, §14.9), two tables kept apart from the pause
 * tables: `not-interrupted` (a task with no interruption the fact is about) and `interrupted`. An
 * interruption is a task the peer showed INPUT_REQUIRED or AUTH_REQUIRED; it ends in a
 * continuation (a client message sent with its id, credentials arriving out of band, the task
 * ending) or is lost (never continued, continued as a new task, bypassed, lost after a restart).
 */
import { RULE_ERRORS } from '../fact.js';
import type { Interruption, InterruptionActions } from '../interruption.js';
import { type RuleTable, rule } from './rule.js';

export interface NotInterruptedCase {
  readonly ints: InterruptionActions;
  readonly taskId: string;
}

export interface InterruptedCase {
  readonly ints: InterruptionActions;
  readonly i: Interruption;
}

export const NOT_INTERRUPTED_RULES: RuleTable<NotInterruptedCase> = {
  state: 'not-interrupted',
  subject: (x) => ({ taskId: x.taskId, suspension: undefined }),
  rows: [
    rule<NotInterruptedCase, 'InterruptedSeen'>(
      'not-interrupted/lost-seen-again',
      'InterruptedSeen',
      'not-interrupted',
      'still shows a lost interruption (same state, prompt, status timestamp): that one ask, lost already',
      (c) => c.ints.lostSeenAgain(c.fact),
      () => undefined,
    ),
    rule<NotInterruptedCase, 'InterruptedSeen'>(
      'not-interrupted/input-required',
      'InterruptedSeen',
      'interrupted',
      'INPUT_REQUIRED: the agent asks the client for input: an interruption, its receipt before the client sees it',
      (c) => c.fact.state === 'TASK_STATE_INPUT_REQUIRED',
      (c) => c.ints.open(c.fact),
    ),
    rule<NotInterruptedCase, 'InterruptedSeen'>(
      'not-interrupted/auth-required',
      'InterruptedSeen',
      'interrupted',
      'AUTH_REQUIRED: the agent needs credentials: an interruption, continued by a message or out of band',
      true,
      (c) => c.ints.open(c.fact),
    ),
  ],
};

export const INTERRUPTED_RULES: RuleTable<InterruptedCase> = {
  state: 'interrupted',
  subject: (x) => ({ taskId: x.i.taskId, suspension: x.i.key }),
  rows: [
    rule<InterruptedCase, 'MessageSent'>(
      'interrupted/message',
      'MessageSent',
      'interrupted',
      'a client message names the interrupted task: its answer, continuing it once the task moves on',
      (c) => c.fact.taskId === c.i.taskId,
      (c) => {
        const f = c.fact;
        c.ints.answered(c.i, {
          xid: f.xid,
          seq: f.entry.seq,
          at: f.entry.at,
          principal: f.principal,
          parts: f.parts,
          binding: f.binding,
        });
      },
    ),
    rule<InterruptedCase, 'MessageSent'>(
      'interrupted/message-elsewhere',
      'MessageSent',
      'interrupted',
      "a message in the task's context names no task or another: if a new task starts, the answer went to it",
      true,
      (c) => c.ints.strayMessage(c.i, { xid: c.fact.xid, seq: c.fact.entry.seq, principal: c.fact.principal }),
    ),
    rule<InterruptedCase, 'InterruptedSeen'>(
      'interrupted/asked-again',
      'InterruptedSeen',
      ['continued', 'interrupted'],
      'interrupted again after the client answered (another state or prompt): the answer continued it, a new one opens',
      (c) =>
        c.i.answer !== undefined &&
        c.i.answer.seq < c.fact.entry.seq &&
        !c.ints.behindOn(c.i, c.fact.origin) &&
        (c.fact.state !== c.i.state || !c.ints.samePrompt(c.i, c.fact.prompt)),
      (c) => {
        c.ints.continueByMessage(c.i, c.fact.entry);
        c.ints.open(c.fact);
      },
    ),
    rule<InterruptedCase, 'InterruptedSeen'>(
      'interrupted/seen-again',
      'InterruptedSeen',
      'interrupted',
      'still interrupted: a stream that shows it is caught up',
      true,
      (c) => c.ints.seenAgain(c.i, c.fact.origin),
    ),
    rule<InterruptedCase, 'StateSeen'>(
      'interrupted/older-news-on-stream',
      'StateSeen',
      'interrupted',
      'a stream that carried the task before the interruption and has not delivered it yet shows older news',
      (c) => c.ints.behindOn(c.i, c.fact.origin),
      () => undefined,
    ),
    rule<InterruptedCase, 'StateSeen'>(
      'interrupted/canceled',
      'StateSeen',
      'continued',
      'CANCELED: the task ended while interrupted: a continuation canceled, by the CancelTask in flight if any',
      (c) => c.fact.state === 'TASK_STATE_CANCELED',
      (c) => c.ints.continueByEnd(c.i, c.fact.entry, 'canceled'),
    ),
    rule<InterruptedCase, 'StateSeen'>(
      'interrupted/failed',
      'StateSeen',
      'continued',
      'FAILED or REJECTED: the task ended while interrupted: a continuation failed',
      (c) => c.fact.state === 'TASK_STATE_FAILED' || c.fact.state === 'TASK_STATE_REJECTED',
      (c) => c.ints.continueByEnd(c.i, c.fact.entry, 'failed'),
    ),
    rule<InterruptedCase, 'StateSeen'>(
      'interrupted/continued-by-message',
      'StateSeen',
      'continued',
      'the task moved on after a client message named it: that message continued it (its principal and input hash)',
      (c) => c.i.answer !== undefined,
      (c) => c.ints.continueByMessage(c.i, c.fact.entry),
    ),
    rule<InterruptedCase, 'StateSeen'>(
      'interrupted/auth-out-of-band',
      'StateSeen',
      'continued',
      'AUTH_REQUIRED moved on with no message: credentials came out of band (the control call naming the task, if any)',
      (c) => c.i.state === 'TASK_STATE_AUTH_REQUIRED',
      (c) => c.ints.continueOutOfBand(c.i, c.fact.entry),
    ),
    rule<InterruptedCase, 'StateSeen'>(
      'interrupted/bypassed',
      'StateSeen',
      'lost',
      'INPUT_REQUIRED moved on with no client message naming the task: the gate was bypassed',
      true,
      (c) => c.ints.lose(c.i, 'bypassed', c.fact.entry),
    ),
    rule<InterruptedCase, 'CallFailed'>(
      'interrupted/task-gone',
      'CallFailed',
      'lost',
      'a call on the interrupted task answered -32001 (task not found): the peer lost it, lost_after_restart',
      (c) => c.fact.code === RULE_ERRORS.TASK_NOT_FOUND,
      (c) => c.ints.lose(c.i, 'lost_after_restart', c.fact.entry),
    ),
    rule<InterruptedCase, 'CallFailed'>(
      'interrupted/answer-refused',
      'CallFailed',
      'interrupted',
      "the client's answer was refused: it continued nothing",
      (c) => c.fact.xid === c.i.answer?.xid,
      (c) => c.ints.answerRefused(c.i),
    ),
    rule<InterruptedCase, 'TaskSeen'>(
      'interrupted/answered-as-new-task',
      'TaskSeen',
      'lost',
      'a new task started in the context after a message that did not name the interrupted task: continued_as_new_task',
      (c) => c.i.stray !== undefined && c.i.stray.seq < c.fact.entry.seq && c.fact.task.taskId !== c.i.taskId,
      (c) => c.ints.lose(c.i, 'continued_as_new_task', c.fact.entry),
    ),
    rule<InterruptedCase, 'RecordingEnded'>(
      'interrupted/end-after-answer',
      'RecordingEnded',
      'continued',
      'the recording ends after a client message named the task and was not refused: that message continued it',
      (c) => c.i.answer !== undefined,
      (c) => c.ints.continueByMessage(c.i, { seq: null, at: c.fact.at }),
    ),
    rule<InterruptedCase, 'RecordingEnded'>(
      'interrupted/end-never-continued',
      'RecordingEnded',
      'lost',
      'the recording ends while the task was last seen interrupted and nothing continued it: never_continued',
      true,
      (c) => c.ints.lose(c.i, 'never_continued', { seq: null, at: c.fact.at }),
    ),
  ],
};
