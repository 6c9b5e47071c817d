/**
 * @module observe/rules/call-rules
 * The rules of resume calls (docs/design.md §14.1, §14.8): `resuming` (a pause the task left
 * while several ResumeTask calls with its token raced; their answers tell the winner) and
 * `resume-call` (a ResumeTask / CancelTask in flight: how its answer, or its failure, ends its
 * Resume span, and a `rejected` ResumptionReceipt for a refused resume).
 */
import { RULE_ERRORS } from '../fact.js';
import { closingOfCall } from '../lifecycle.js';
import type { ObservedTask } from '../observed-task.js';
import type { Closer, SuspensionResuming } from '../suspension.js';
import { closeFromSignal } from './closings.js';
import { type Case, type InputOf, type RuleTable, fire, rule } from './rule.js';

export interface ResumingCase {
  readonly task: ObservedTask;
  readonly s: SuspensionResuming;
  /** The ResumeTask call the input answers (or whose failure put it out of the race). */
  readonly closer?: Closer;
}
export interface ResumeCallCase {
  readonly task: ObservedTask;
  readonly closer: Closer;
}

const raceEntry = (s: SuspensionResuming): { seq: number; at: string } => ({ seq: s.race.seq, at: s.race.at });

function winnerOf(c: Case<ResumingCase>): Closer | undefined {
  const [xid] = c.s.race.candidates;
  return c.s.race.candidates.size === 1 && xid !== undefined ? c.task.closers.get(xid) : undefined;
}

export const RESUMING_RULES: RuleTable<ResumingCase> = {
  state: 'resuming',
  subject: (x) => ({ taskId: x.task.taskId, suspension: x.s.key }),
  rows: [
    rule<ResumingCase, 'ResumeAnswered'>(
      'resuming/answer-won',
      'ResumeAnswered',
      'ended',
      'a racing ResumeTask answered with success: that call won the race',
      (c) => c.closer !== undefined,
      (c) => {
        if (!c.closer) return;
        const closing = closingOfCall(c.closer, {
          cause: c.fact.cause,
          outcome: 'resumed',
          resumedAt: c.fact.resumedAt,
          entries: [c.closer.seq, c.s.race.seq, c.fact.entry.seq],
        });
        c.acts.closeWithCall(c.task, { suspension: c.s, call: c.closer, closing, entry: c.fact.entry });
      },
    ),
    rule<ResumingCase, 'CallFailed'>(
      'resuming/last-standing',
      'CallFailed',
      'ended',
      'a racing ResumeTask failed and one candidate is left: it won',
      (c) => winnerOf(c) !== undefined,
      (c) => {
        const winner = winnerOf(c);
        if (!winner) return;
        const closing = closingOfCall(winner, {
          cause: c.s.race.signal.cause,
          outcome: 'resumed',
          resumedAt: c.s.race.signal.resumedAt,
          entries: [winner.seq, c.s.race.seq],
        });
        c.acts.closeWithCall(c.task, { suspension: c.s, call: winner, closing, entry: raceEntry(c.s) });
      },
    ),
    rule<ResumingCase, 'CallFailed'>(
      'resuming/loser-out',
      'CallFailed',
      'resuming',
      'a racing ResumeTask failed and no single candidate with a call in flight is left: it is out, the race goes on',
      true,
      () => undefined,
    ),
    rule<ResumingCase, 'RecordingEnded'>(
      'resuming/end-announced',
      'RecordingEnded',
      'ended',
      'the recording ended before the race was told: the announced resume stands, credited to no call',
      true,
      (c) =>
        closeFromSignal(c.acts, c.task, c.s, {
          signal: c.s.race.signal,
          entry: raceEntry(c.s),
          entries: [c.s.race.seq],
        }),
    ),
  ],
};

type R<T extends Parameters<typeof rule>[1]> = Case<ResumeCallCase, InputOf<T>>;

function endSpan(c: Case<ResumeCallCase>, at: string, error: string | undefined): void {
  c.acts.endCallSpan(c.closer, at, error);
}

const what = (closer: Closer): string => (closer.kind === 'resume' ? 'ResumeTask' : 'CancelTask');

/** A ResumeTask the peer refused with -32010 / -32011: the pause it aimed at gets a `rejected` receipt. */
function rejectedTarget(c: R<'CallFailed'>) {
  const { closer, task } = c;
  const code = c.fact.code;
  const rejectable =
    closer.kind === 'resume' && (code === RULE_ERRORS.RESUME_TOKEN_MISMATCH || code === RULE_ERRORS.INVALID_TASK_STATE);
  return rejectable ? (c.acts.byToken(task, closer.tokenHash) ?? closer.target ?? task.open ?? task.last) : undefined;
}

/** The failed call is out of every race it was in (docs/design.md §14.1 `resuming`). */
function outOfRaces(c: R<'CallFailed'>): void {
  const { task, closer } = c;
  for (const s of [...task.resuming]) {
    if (!s.race.candidates.has(closer.xid)) continue;
    const candidates = new Set([...s.race.candidates].filter((xid) => xid !== closer.xid));
    const updated: SuspensionResuming = { ...s, race: { ...s.race, candidates } };
    c.acts.narrowRace(task, updated);
    fire(c.acts, RESUMING_RULES, { task, s: updated, closer }, c.fact);
  }
}

export const RESUME_CALL_RULES: RuleTable<ResumeCallCase> = {
  state: 'resume-call',
  subject: (x) => ({ taskId: x.task.taskId, suspension: x.closer.target?.key }),
  rows: [
    rule<ResumeCallCase, 'ResumeAnswered'>(
      'resume-call/answered-outside',
      'ResumeAnswered',
      'ended',
      'a ResumeTask succeeded and its token names no pause this recording saw: the pause began outside it',
      (c) =>
        c.closer.kind === 'resume' &&
        c.closer.tokenHash !== null &&
        c.acts.byToken(c.task, c.closer.tokenHash) === undefined,
      (c) => {
        const { closer, fact } = c;
        const closing = closingOfCall(closer, {
          cause: fact.cause,
          outcome: 'resumed',
          resumedAt: fact.resumedAt,
          entries: [closer.seq, fact.entry.seq],
        });
        const outside = { pausedAt: null, resumeTokenHash: closer.tokenHash };
        c.acts.closeOutside(c.task, { outside, resume: closer.resume, closing, entry: fact.entry, call: closer });
      },
    ),
    rule<ResumeCallCase, 'ResumeAnswered'>(
      'resume-call/answered-unmatched',
      'ResumeAnswered',
      'done',
      'a ResumeTask succeeded for a pause this recording saw end already (or with no token): a finding, no receipt',
      true,
      (c) => {
        const { entry, taskId } = c.fact;
        c.acts.finding(
          'unmatched-resume',
          entry.seq,
          'body.result',
          `ResumeTask on task ${taskId} succeeded, but no open pause of it was observed`,
          taskId,
        );
        endSpan(c, entry.at, undefined);
      },
    ),
    rule<ResumeCallCase, 'CancelAnswered'>(
      'resume-call/cancel-answered',
      'CancelAnswered',
      'done',
      'a CancelTask no pause end credited was answered: its span ends, in error unless CANCELED',
      (c) => c.closer.settled === undefined,
      (c) =>
        endSpan(
          c,
          c.fact.entry.at,
          c.fact.state === 'TASK_STATE_CANCELED' ? undefined : `CancelTask answered ${c.fact.state}`,
        ),
    ),
    rule<ResumeCallCase, 'CallFailed'>(
      'resume-call/unreadable-answer',
      'CallFailed',
      'done',
      'the answer came but could not be read: the span ends in error, no receipt',
      (c) => c.fact.unreadable,
      (c) => endSpan(c, c.fact.entry.at, c.fact.why),
    ),
    rule<ResumeCallCase, 'CallFailed'>(
      'resume-call/rejected',
      'CallFailed',
      'done',
      'the peer refused the resume (-32010, -32011): a rejected ResumptionReceipt, the pause stays as it is',
      (c) => c.fact.code !== undefined && rejectedTarget(c) !== undefined,
      (c) => {
        const target = rejectedTarget(c);
        if (target && c.fact.code !== undefined) {
          const closing = closingOfCall(c.closer, {
            cause: 'explicit_resume',
            outcome: 'rejected',
            resumedAt: null,
            entries: [c.closer.seq, c.fact.entry.seq],
            errorCode: c.fact.code,
          });
          c.acts.closeWithCall(c.task, { suspension: target, call: c.closer, closing, entry: c.fact.entry });
        }
        outOfRaces(c);
      },
    ),
    rule<ResumeCallCase, 'CallFailed'>(
      'resume-call/failed',
      'CallFailed',
      'done',
      'the call failed otherwise (or got no answer): the span ends in error',
      true,
      (c) => {
        const code = c.fact.code;
        endSpan(
          c,
          c.fact.entry.at,
          code === undefined ? `${what(c.closer)} got no answer` : `${what(c.closer)} failed with ${code}`,
        );
        outOfRaces(c);
      },
    ),
    rule<ResumeCallCase, 'RecordingEnded'>(
      'resume-call/unanswered',
      'RecordingEnded',
      'done',
      'the recording ended before the call was answered: the span ends in error',
      true,
      (c) => endSpan(c, c.fact.at, `no answer to ${what(c.closer)} before the recording ended`),
    ),
  ],
};
