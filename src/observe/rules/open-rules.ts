/**
 * @module observe/rules/open-rules
 * The rules of an `open` pause (docs/design.md §14.3–§14.5, §14.8): the peer showed it PAUSED and
 * nothing has ended it. Each row moves it on (seen again, a deadline reached), ends it (a
 * ResumptionReceipt) or declares it lost (a LostPause), and names the rule that did.
 */
import { atRecordingEnd, causeOfFire, explainFailure, explainUnseenResume, leasePassed } from '../explanations.js';
import { RULE_ERRORS, type Origin } from '../fact.js';
import {
  closingOf,
  closingOfCall,
  deadlineReached,
  endResumeSpan,
  race,
  seenAgain,
  streamsEnded,
} from '../lifecycle.js';
import type { ObservedTask } from '../observed-task.js';
import { tokenHashOf } from '../../recording/resume-token.js';
import type { TaskState } from '../../protocol/types.js';
import type { Closer, SuspensionOpen } from '../suspension.js';
import { closeFromSignal, closeInferred, entryResume, inferred } from './closings.js';
import { type Case, type InputOf, type RuleTable, fire, rule } from './rule.js';

export interface OpenCase {
  readonly task: ObservedTask;
  readonly s: SuspensionOpen;
  /** The ResumeTask call a `ResumeAnswered` answers (already out of the calls in flight). */
  readonly closer?: Closer;
}
type C<T extends Parameters<typeof rule>[1]> = Case<OpenCase, InputOf<T>>;

const RESUMED_STATES: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_REJECTED',
]);
const BACKWARD_STATES: ReadonlySet<TaskState> = new Set(['TASK_STATE_SUBMITTED', 'TASK_STATE_UNSPECIFIED']);

/** A snapshot decides how a pause ended only when no stream carries the task: a stream is the authority on order. */
export function authoritative(task: ObservedTask, origin: Origin): boolean {
  return origin.kind !== 'snapshot' || task.streams.size === 0;
}

/**
 * A resume call may close `s` only when its token is the pause's (or either has none): a resume is
 * paired by its token, never by order (docs/design.md §14.3).
 */
export function aimsAt(closer: Closer, s: SuspensionOpen): boolean {
  return closer.tokenHash === null || s.pause.tokenHash === null || closer.tokenHash === s.pause.tokenHash;
}

/** The origin is a stream that delivered the pause: what it shows next follows the pause in order. */
const caughtUpStream = (s: SuspensionOpen, origin: Origin): boolean =>
  origin.kind === 'stream' && s.caughtUp.has(origin.xid);
/**
 * A stream whose request reached the recorder before the entry that proved the pause: what it
 * shows may predate the pause. One opened after it can only show the task as it is since (a
 * SubscribeToTask's first event is the task now): it will never deliver the pause.
 */
const olderStream = (s: SuspensionOpen, origin: Origin): boolean =>
  origin.kind === 'stream' && origin.opened < s.provenSeq;
/** Not a stream, or a stream that delivered the pause. */
const caughtUp = (s: SuspensionOpen, origin: Origin): boolean => origin.kind !== 'stream' || s.caughtUp.has(origin.xid);
const sameToken = (c: C<'PausedSeen'>): boolean => {
  const tokenHash = tokenHashOf(c.fact.pause.resumeToken);
  return tokenHash !== null && tokenHash === c.s.pause.tokenHash;
};
const isTerminal = (state: TaskState): boolean => state === 'TASK_STATE_COMPLETED' || state === 'TASK_STATE_REJECTED';

function seenAgainNow(c: C<'PausedSeen'>): SuspensionOpen {
  return seenAgain(c.s, c.fact.origin, c.fact.entry);
}

function ignored(c: C<'StateSeen'>, message: string): void {
  c.acts.lose(c.task, c.s, { reason: 'pause_ignored', entry: c.fact.entry, at: c.fact.entry.at, message });
}

function leftPauseMessage(taskId: string, state: TaskState): string {
  if (state === 'TASK_STATE_WORKING') return `task ${taskId} kept working while PAUSED`;
  if (isTerminal(state)) return `task ${taskId} reached ${state} while PAUSED: the pause was ignored`;
  return `task ${taskId} moved to ${state} while PAUSED without a resume`;
}

function explainedNow(c: Case<OpenCase, InputOf<'StateSeen' | 'PausedSeen'>>): boolean {
  return explainUnseenResume(c.s, c.acts.evidence(c.task, c.s, c.fact.entry.at)) !== undefined;
}

function closeExplained(c: Case<OpenCase, InputOf<'StateSeen' | 'PausedSeen'>>): void {
  const x = explainUnseenResume(c.s, c.acts.evidence(c.task, c.s, c.fact.entry.at));
  if (x) closeInferred(c.acts, c.task, c.s, x, { entry: c.fact.entry, origin: c.fact.origin });
}

const cancelerOf = (c: C<'StateSeen'>) =>
  (c.fact.origin.kind === 'answer' ? c.task.closers.get(c.fact.origin.xid) : undefined) ??
  [...c.task.closers.values()].find((x) => x.kind === 'cancel' && x.settled === undefined);

const firstReached = (s: SuspensionOpen) => s.reached.find((r) => r.seq > s.lastPausedSeq);

export const OPEN_RULES: RuleTable<OpenCase> = {
  state: 'open',
  subject: (x) => ({ taskId: x.task.taskId, suspension: x.s.key }),
  rows: [
    // ---- PausedSeen ----
    rule<OpenCase, 'PausedSeen'>(
      'open/lease-passed',
      'PausedSeen',
      'lost',
      'still PAUSED with the same token after its pausedUntil passed on the peer clock: paused_until_passed',
      (c) => sameToken(c) && leasePassed(seenAgainNow(c), c.acts.nowAt(c.fact.entry.at)),
      (c) => {
        const again = seenAgainNow(c);
        c.acts.setOpen(c.task, again);
        c.acts.lose(c.task, again, {
          reason: 'paused_until_passed',
          entry: c.fact.entry,
          at: c.fact.entry.at,
          message:
            `task ${c.task.taskId} is still PAUSED after its pausedUntil ${again.pause.pausedUntil ?? ''} ` + 'passed',
        });
      },
    ),
    rule<OpenCase, 'PausedSeen'>(
      'open/timeout-passed',
      'PausedSeen',
      'lost',
      'still PAUSED with the same token after the peer clock passed its timeout: paused_until_passed',
      (c) => sameToken(c) && c.s.reached.some((r) => r.which === 'timeout' && r.seq > c.s.lastPausedSeq),
      (c) => {
        const again = seenAgainNow(c);
        const minutes = again.pause.conditions?.timeout?.durationMinutes ?? 0;
        c.acts.setOpen(c.task, again);
        c.acts.lose(c.task, again, {
          reason: 'paused_until_passed',
          entry: c.fact.entry,
          at: c.fact.entry.at,
          message: `task ${c.task.taskId} is still PAUSED after its ${minutes}-minute timeout passed on the peer clock`,
        });
      },
    ),
    rule<OpenCase, 'PausedSeen'>(
      'open/paused-again',
      'PausedSeen',
      'open',
      'PAUSED with the same token: the pause is in force as of this entry, and a stream that shows it is caught up',
      sameToken,
      (c) => c.acts.setOpen(c.task, seenAgainNow(c)),
    ),
    rule<OpenCase, 'PausedSeen'>(
      'open/new-token-explained',
      'PausedSeen',
      'ended',
      'PAUSED with a new token (tokens are consume-once) and the recording proves how the old pause ended',
      (c) => !caughtUpStream(c.s, c.fact.origin) && explainedNow(c),
      closeExplained,
    ),
    rule<OpenCase, 'PausedSeen'>(
      'open/new-token-unexplained',
      'PausedSeen',
      'lost',
      'PAUSED with a new token and nothing in the recording ended the old pause: pause_ignored',
      true,
      (c) => {
        const { entry } = c.fact;
        c.acts.finding(
          'impossible-transition',
          entry.seq,
          'pause.resumeToken',
          `task ${c.task.taskId} is PAUSED again with a new resume token, ` +
            `but the pause ${c.s.key} was never seen to end`,
          c.task.taskId,
        );
        c.acts.lose(c.task, c.s, {
          reason: 'pause_ignored',
          entry,
          at: entry.at,
          message: `task ${c.task.taskId} left pause ${c.s.key} without an observed resume`,
        });
      },
    ),
    // ---- PauseRequested ----
    rule<OpenCase, 'PauseRequested'>(
      'open/pause-call-kept-aside',
      'PauseRequested',
      'open',
      'a pause call while a pause is open opens nothing until its answer shows a new pause',
      true,
      (c) =>
        c.acts.keepAside(c.task, {
          state: 'kept-aside',
          taskId: c.task.taskId,
          xid: c.fact.xid,
          request: c.fact,
          peerBeforeMs: c.acts.peerNowMs(),
        }),
    ),
    // ---- ResumeAnnounced ----
    rule<OpenCase, 'ResumeAnnounced'>(
      'open/announce-while-streaming',
      'ResumeAnnounced',
      'open',
      'a snapshot while a stream carries the task: the stream tells how the pause ended',
      (c) => !authoritative(c.task, c.fact.origin),
      (c) => c.acts.awaitLater(c.task),
    ),
    rule<OpenCase, 'ResumeAnnounced'>(
      'open/announce-predates-pause',
      'ResumeAnnounced',
      ['open', 'ended', 'lost'],
      'resume metadata older than the pause belongs to an earlier resume: read as WORKING',
      (c) => c.fact.origin.kind !== 'stream' && Date.parse(c.fact.signal.resumedAt) < Date.parse(c.s.pause.pausedAt),
      (c) => {
        const { entry, origin, field, task } = c.fact;
        const seen = { type: 'StateSeen', entry, task, state: 'TASK_STATE_WORKING', origin, field } as const;
        fire(c.acts, OPEN_RULES, { task: c.task, s: c.s }, { ...seen, timestamp: undefined });
      },
    ),
    rule<OpenCase, 'ResumeAnnounced'>(
      'open/announce-one-resume-call',
      'ResumeAnnounced',
      'ended',
      'explicit_resume announced with one ResumeTask in flight for the token: that call resumed it',
      (c) => c.fact.signal.cause === 'explicit_resume' && c.acts.resumeCalls(c.task, c.s).length === 1,
      (c) => {
        const [only] = c.acts.resumeCalls(c.task, c.s);
        if (!only) return;
        const { signal, entry } = c.fact;
        const closing = closingOfCall(only, {
          cause: signal.cause,
          outcome: 'resumed',
          resumedAt: signal.resumedAt,
          entries: [only.seq, entry.seq],
        });
        c.acts.closeWithCall(c.task, { suspension: c.s, call: only, closing, entry });
      },
    ),
    rule<OpenCase, 'ResumeAnnounced'>(
      'open/announce-resume-race',
      'ResumeAnnounced',
      'resuming',
      'explicit_resume announced while several ResumeTask calls race: their answers tell the winner (resuming)',
      (c) => c.fact.signal.cause === 'explicit_resume' && c.acts.resumeCalls(c.task, c.s).length > 1,
      (c) => {
        const { signal, entry } = c.fact;
        const candidates = new Set(c.acts.resumeCalls(c.task, c.s).map((x) => x.xid));
        c.acts.startRace(c.task, c.s, race(c.s, { seq: entry.seq, at: entry.at, signal, candidates }));
        c.acts.awaitLater(c.task);
      },
    ),
    rule<OpenCase, 'ResumeAnnounced'>(
      'open/announce',
      'ResumeAnnounced',
      'ended',
      'the peer stated the resume: its cause, attributed to the latest control call that can have fired it',
      true,
      (c) =>
        closeFromSignal(c.acts, c.task, c.s, {
          signal: c.fact.signal,
          entry: c.fact.entry,
          entries: [c.fact.entry.seq],
          origin: c.fact.origin,
        }),
    ),
    // ---- StateSeen ----
    rule<OpenCase, 'StateSeen'>(
      'open/state-while-streaming',
      'StateSeen',
      'open',
      'a snapshot while a stream carries the task: the stream tells how the pause ended',
      (c) => !authoritative(c.task, c.fact.origin),
      (c) => c.acts.awaitLater(c.task),
    ),
    rule<OpenCase, 'StateSeen'>(
      'open/left-pause-on-stream',
      'StateSeen',
      'lost',
      'the next state on a stream that delivered the pause is past it with no resume stated: pause_ignored',
      (c) => RESUMED_STATES.has(c.fact.state) && caughtUpStream(c.s, c.fact.origin),
      (c) => ignored(c, leftPauseMessage(c.task.taskId, c.fact.state)),
    ),
    rule<OpenCase, 'StateSeen'>(
      'open/older-news-on-stream',
      'StateSeen',
      'open',
      'a stream opened before the pause was proven that has not delivered it yet shows older news, unless the ' +
        'task ended (one opened after it shows the task as it is, as a poll does)',
      (c) => RESUMED_STATES.has(c.fact.state) && olderStream(c.s, c.fact.origin) && !isTerminal(c.fact.state),
      () => undefined,
    ),
    rule<OpenCase, 'StateSeen'>(
      'open/resume-call-decides',
      'StateSeen',
      'open',
      'the task is past its pause while a ResumeTask for it is in flight: its answer tells',
      (c) => RESUMED_STATES.has(c.fact.state) && c.acts.resumeCalls(c.task, c.s).length > 0,
      (c) => c.acts.awaitLater(c.task),
    ),
    rule<OpenCase, 'StateSeen'>(
      'open/resumed-unseen',
      'StateSeen',
      'ended',
      'the task is past its pause and the recording proves what resumed it (an event, a deadline, its conditions)',
      (c) => RESUMED_STATES.has(c.fact.state) && explainedNow(c),
      closeExplained,
    ),
    rule<OpenCase, 'StateSeen'>(
      'open/resumed-unexplained',
      'StateSeen',
      'lost',
      'the task is past its pause and nothing in the recording can have resumed it: pause_ignored',
      (c) => RESUMED_STATES.has(c.fact.state),
      (c) => {
        const how = c.fact.state === 'TASK_STATE_WORKING' ? 'is WORKING' : `is ${c.fact.state}`;
        ignored(c, `task ${c.task.taskId} ${how} and nothing in the recording can have resumed it`);
      },
    ),
    rule<OpenCase, 'StateSeen'>(
      'open/canceled-by-call',
      'StateSeen',
      'ended',
      'CANCELED with a CancelTask in flight (or answering): the call ended the pause, with its principal',
      (c) => c.fact.state === 'TASK_STATE_CANCELED' && cancelerOf(c) !== undefined,
      (c) => {
        const closer = cancelerOf(c);
        if (!closer) return;
        const { entry, origin, timestamp } = c.fact;
        const closing = closingOf({
          cause: 'canceled',
          outcome: 'canceled',
          principal: closer.principal,
          resumedAt: timestamp ?? null,
          inferred: origin.kind === 'snapshot',
          entries: [closer.seq, entry.seq],
        });
        c.acts.closeWithCall(c.task, { suspension: c.s, call: closer, closing, entry });
      },
    ),
    rule<OpenCase, 'StateSeen'>(
      'open/canceled',
      'StateSeen',
      'ended',
      'CANCELED with no CancelTask seen: canceled, principal unknown',
      (c) => c.fact.state === 'TASK_STATE_CANCELED',
      (c) => {
        const { entry, origin, timestamp } = c.fact;
        const closing = closingOf({
          cause: 'canceled',
          outcome: 'canceled',
          principal: null,
          resumedAt: timestamp ?? null,
          inferred: origin.kind === 'snapshot',
          entries: [entry.seq],
        });
        const resume = entryResume(c.acts, entry, c.task, origin);
        c.acts.close(c.task, { suspension: c.s, resume, closing, entry });
      },
    ),
    rule<OpenCase, 'StateSeen'>(
      'open/failed-stated',
      'StateSeen',
      'ended',
      'FAILED next on a stream that showed the pause, or in an answer: timeout if its deadline passed, else failure',
      (c) =>
        c.fact.state === 'TASK_STATE_FAILED' && (caughtUpStream(c.s, c.fact.origin) || c.fact.origin.kind === 'answer'),
      (c) => {
        const { entry, origin, timestamp } = c.fact;
        const x = explainFailure(c.s, { timestamp }, c.acts.evidence(c.task, c.s, entry.at));
        const closing = closingOf({
          cause: x.cause,
          outcome: x.outcome,
          principal: x.principal,
          resumedAt: timestamp ?? null,
          entries: [...x.entries, entry.seq],
        });
        c.acts.close(c.task, { suspension: c.s, resume: entryResume(c.acts, entry, c.task, origin), closing, entry });
      },
    ),
    rule<OpenCase, 'StateSeen'>(
      'open/failed-inferred',
      'StateSeen',
      'ended',
      'FAILED seen after only PAUSED: inferred, timeout when its fail deadline was reached, else failure',
      (c) => c.fact.state === 'TASK_STATE_FAILED',
      (c) => {
        const { entry, origin, timestamp } = c.fact;
        const x = explainFailure(c.s, { timestamp }, c.acts.evidence(c.task, c.s, entry.at));
        const closing = inferred(c.s, x, { after: [entry.seq], resumedAt: timestamp ?? null });
        c.acts.close(c.task, { suspension: c.s, resume: entryResume(c.acts, entry, c.task, origin), closing, entry });
      },
    ),
    rule<OpenCase, 'StateSeen'>(
      'open/went-back',
      'StateSeen',
      'lost',
      'SUBMITTED or UNSPECIFIED after the pause (a task never returns there): pause_ignored',
      (c) => BACKWARD_STATES.has(c.fact.state) && caughtUp(c.s, c.fact.origin),
      (c) => {
        const { entry, origin, state, field } = c.fact;
        if (origin.kind !== 'stream') {
          c.acts.finding(
            'impossible-transition',
            entry.seq,
            `${field}.status.state`,
            `task ${c.task.taskId} is ${state} while PAUSED: a task never returns to ${state}`,
            c.task.taskId,
          );
        }
        ignored(c, `task ${c.task.taskId} moved to ${state} while PAUSED without a resume`);
      },
    ),
    // ---- WorkSeen ----
    rule<OpenCase, 'WorkSeen'>(
      'open/work-on-caught-up-stream',
      'WorkSeen',
      'lost',
      'an artifact on a stream that delivered the pause: the task worked while PAUSED, pause_ignored',
      (c) => c.s.caughtUp.has(c.fact.stream),
      (c) =>
        c.acts.lose(c.task, c.s, {
          reason: 'pause_ignored',
          entry: c.fact.entry,
          at: c.fact.entry.at,
          message: `task ${c.task.taskId} delivered an artifact while PAUSED: the pause was ignored`,
        }),
    ),
    // ---- ResumeAnswered ----
    rule<OpenCase, 'ResumeAnswered'>(
      'open/resume-answered',
      'ResumeAnswered',
      'ended',
      'a ResumeTask with the pause’s token answered with success: that call resumed it, with its principal and input',
      true,
      (c) => {
        const { entry } = c.fact;
        const closer = c.closer;
        if (!closer) return;
        const closing = closingOfCall(closer, {
          cause: c.fact.cause,
          outcome: 'resumed',
          resumedAt: c.fact.resumedAt,
          entries: [closer.seq, entry.seq],
        });
        c.acts.closeWithCall(c.task, { suspension: c.s, call: closer, closing, entry });
      },
    ),
    // ---- CallFailed ----
    rule<OpenCase, 'CallFailed'>(
      'open/task-gone',
      'CallFailed',
      'lost',
      'a call on the task answered -32001 (task not found) while it was PAUSED: task_gone',
      (c) => c.fact.code === RULE_ERRORS.TASK_NOT_FOUND,
      (c) =>
        c.acts.lose(c.task, c.s, {
          reason: 'task_gone',
          entry: c.fact.entry,
          at: c.fact.entry.at,
          message: `${c.fact.method} on task ${c.task.taskId} answered -32001 (task not found) while it was PAUSED`,
        }),
    ),
    // ---- ControlAnswered, deadlines ----
    rule<OpenCase, 'DeadlineDue'>(
      'open/deadline-reached',
      'DeadlineDue',
      'open',
      'a control answer put the peer clock past a trigger or timeout: the pause holds that proof',
      true,
      (c) => {
        const { call, entry, which } = c.fact;
        const reached = deadlineReached(c.s, {
          which,
          entries: [call.seq, entry.seq],
          principal: call.method === 'AdvanceClock' ? call.principal : null,
          seq: entry.seq,
          at: entry.at,
        });
        c.acts.setOpen(c.task, reached);
      },
    ),
    rule<OpenCase, 'ControlAnswered'>(
      'open/fire-resumed-task',
      'ControlAnswered',
      'ended',
      'a FireEvent answer lists the task: it resumed the pause (condition_fired by onEvent, else external_event)',
      true,
      (c) =>
        closeInferred(c.acts, c.task, c.s, causeOfFire(c.s, c.fact.call), { entry: c.fact.entry, origin: undefined }),
    ),
    // ---- StreamEnded ----
    rule<OpenCase, 'StreamEnded'>(
      'open/streams-ended',
      'StreamEnded',
      'open',
      'every stream that carried the task ended: at the recording end the pause is stream_ended',
      (c) => c.task.streams.size === 0,
      (c) => {
        c.acts.setOpen(c.task, streamsEnded(c.s));
      },
    ),
    // ---- RecordingEnded ----
    rule<OpenCase, 'RecordingEnded'>(
      'open/end-deadline-reached',
      'RecordingEnded',
      'ended',
      'the recording ends after the peer clock reached a trigger (condition_fired) or a timeout (its onTimeout)',
      (c) => firstReached(c.s) !== undefined,
      (c) => {
        const verdict = atRecordingEnd(c.s, c.fact.now);
        if (verdict.kind !== 'close') return;
        const x = verdict.explanation;
        const at = c.fact.at;
        const r = endResumeSpan(c.acts.ctx, { suspension: c.s, at, seq: x.entries.at(-1) ?? c.s.lastPausedSeq });
        const closing = inferred(c.s, x, { after: [] });
        c.acts.close(c.task, { suspension: c.s, resume: r, closing, entry: { seq: null, at } });
      },
    ),
    rule<OpenCase, 'RecordingEnded'>(
      'open/end-lease-passed',
      'RecordingEnded',
      'lost',
      'the recording ends after the pause’s pausedUntil passed on the peer clock: paused_until_passed',
      (c) => leasePassed(c.s, c.fact.now),
      (c) => c.acts.lose(c.task, c.s, { reason: 'paused_until_passed', entry: null, at: c.fact.at }),
    ),
    rule<OpenCase, 'RecordingEnded'>(
      'open/end-stream-ended',
      'RecordingEnded',
      'lost',
      'the recording ends with the pause open and every stream that carried it ended: stream_ended',
      (c) => c.s.streamEnded,
      (c) => c.acts.lose(c.task, c.s, { reason: 'stream_ended', entry: null, at: c.fact.at }),
    ),
    rule<OpenCase, 'RecordingEnded'>(
      'open/end-recording-ended',
      'RecordingEnded',
      'lost',
      'the recording ends while the task was last seen PAUSED and nothing closes it: recording_ended',
      true,
      (c) => c.acts.lose(c.task, c.s, { reason: 'recording_ended', entry: null, at: c.fact.at }),
    ),
  ],
};
