/**
 * @module observe/rules/pending-rules
 * The rules of a pause call (docs/design.md §14.1, §14.8): `pending` (a PauseTask /
 * AwaitTaskResumption in flight, its Suspension span started) and `kept-aside` (a pause call made
 * while a pause was open, which opens nothing unless its answer shows a new pause).
 */
import type { Fact } from '../fact.js';
import { endPending, prove } from '../lifecycle.js';
import type { ObservedTask } from '../observed-task.js';
import type { PauseActions } from '../pause-actions.js';
import { tokenHashOf } from '../../recording/resume-token.js';
import type { PauseCall, SuspensionKeptAside, SuspensionPending } from '../suspension.js';
import { type Case, type InputOf, type RuleTable, rule } from './rule.js';

export interface PendingCase {
  readonly task: ObservedTask;
  readonly s: SuspensionPending;
}
export interface KeptAsideCase {
  readonly task: ObservedTask;
  readonly s: SuspensionKeptAside;
}

/**
 * Whether a pause call only found `pause` in force rather than made it: a PauseTask makes a
 * client's pause, so one initiated by the agent was not its; and a pause the peer says began
 * before a time it had already stated when the call was made cannot be that call's (an
 * AwaitTaskResumption reaching an agent that had parked on its own).
 */
export function foundOnly(call: PauseCall, pause: { initiatedBy: string; pausedAt: string }): boolean {
  if (call.method === 'PauseTask' && pause.initiatedBy !== 'PAUSE_INITIATOR_CLIENT') return true;
  const began = Date.parse(pause.pausedAt);
  return !Number.isNaN(call.peerBeforeMs) && !Number.isNaN(began) && began < call.peerBeforeMs;
}

/** The pause `fact` shows is one the task already had (live or recently ended). */
export function knownPause(acts: PauseActions, task: ObservedTask, fact: Extract<Fact, { type: 'PausedSeen' }>) {
  return acts.byToken(task, tokenHashOf(fact.pause.resumeToken));
}

/** The pause is proven (SuspensionReceipt): by `pending`'s call, or as the agent's own when undefined. */
export function proveOpen(
  acts: PauseActions,
  task: ObservedTask,
  fact: Extract<Fact, { type: 'PausedSeen' }>,
  pending: SuspensionPending | undefined,
): void {
  const { entry, pause, origin, legacy, parent } = fact;
  const view = { taskId: task.taskId, contextId: task.contextId, span: task.span };
  const proven = acts.emitStep(prove(acts.ctx, { task: view, pending, entry, pause, legacy, origin, parent }));
  if (pending) acts.dropCall(task, pending.call.xid);
  acts.setOpen(task, proven);
  acts.setLast(task, proven);
}

function endWithoutReceipt(c: Case<PendingCase>, error?: string): void {
  c.acts.dropCall(c.task, c.s.call.xid);
  const entry = c.fact.type === 'RecordingEnded' ? { seq: c.s.call.seq, at: c.fact.at } : c.fact.entry;
  const seq = c.fact.type === 'PausedSeen' ? entry.seq : c.s.call.seq;
  const contextId = c.fact.type === 'PausedSeen' ? c.task.contextId : null;
  c.acts.emit(endPending(c.acts.ctx, c.s, { at: entry.at, contextId, seq, ...(error === undefined ? {} : { error }) }));
}

export const PENDING_RULES: RuleTable<PendingCase> = {
  state: 'pending',
  subject: (x) => ({ taskId: x.task.taskId, suspension: x.s.key }),
  rows: [
    rule<PendingCase, 'PausedSeen'>(
      'pending/answered-with-proven-pause',
      'PausedSeen',
      'dropped',
      'the call is answered with a pause already proven: its span ends, no receipt',
      (c) => knownPause(c.acts, c.task, c.fact) !== undefined,
      (c) => {
        const known = knownPause(c.acts, c.task, c.fact);
        c.acts.dropCall(c.task, c.s.call.xid);
        if (known?.key !== c.s.key) endWithoutReceipt(c);
      },
    ),
    rule<PendingCase, 'PausedSeen'>(
      'pending/found-not-made',
      'PausedSeen',
      'open',
      'the pause was in force before the call (an agent pause for PauseTask, or begun earlier): proven as the agent’s',
      (c) => foundOnly(c.s.call, c.fact.pause),
      (c) => {
        endWithoutReceipt(c);
        proveOpen(c.acts, c.task, c.fact, undefined);
      },
    ),
    rule<PendingCase, 'PausedSeen'>(
      'pending/proven',
      'PausedSeen',
      'open',
      'the first PAUSED after the call proves the pause it made: via, principal and mode of the call',
      true,
      (c) => proveOpen(c.acts, c.task, c.fact, c.s),
    ),
    rule<PendingCase, 'PauseAnswered'>(
      'pending/refused',
      'PauseAnswered',
      'dropped',
      'the call was answered without a pause: the task cannot be paused in its state, the span ends in error',
      true,
      (c) => endWithoutReceipt(c, `task ${c.fact.taskId} cannot be paused in its state`),
    ),
    rule<PendingCase, 'CallFailed'>(
      'pending/call-failed',
      'CallFailed',
      'dropped',
      'the call failed or its answer could not be read: the span ends in error, no receipt',
      true,
      (c) => endWithoutReceipt(c, c.fact.why),
    ),
    rule<PendingCase, 'RecordingEnded'>(
      'pending/unanswered',
      'RecordingEnded',
      'dropped',
      'the recording ended before the call was answered: the span ends in error, no receipt',
      true,
      (c) => endWithoutReceipt(c, 'no answer to the pause call before the recording ended'),
    ),
  ],
};

type K<T extends Parameters<typeof rule>[1]> = Case<KeptAsideCase, InputOf<T>>;
const dropKept = (c: K<'PausedSeen' | 'PauseAnswered' | 'CallFailed'>): void => {
  c.acts.dropCall(c.task, c.s.xid);
};

export const KEPT_ASIDE_RULES: RuleTable<KeptAsideCase> = {
  state: 'kept-aside',
  subject: (x) => ({ taskId: x.task.taskId, suspension: undefined }),
  rows: [
    rule<KeptAsideCase, 'PausedSeen'>(
      'kept-aside/answered-with-pause-in-force',
      'PausedSeen',
      'dropped',
      'the call is answered with the pause already in force: it opens nothing',
      (c) => knownPause(c.acts, c.task, c.fact) !== undefined,
      dropKept,
    ),
    rule<KeptAsideCase, 'PausedSeen'>(
      'kept-aside/answered-with-new-pause',
      'PausedSeen',
      'pending',
      'the call is answered with a new pause: the one in force ended unseen and the call made this one (pending)',
      true,
      (c) => {
        dropKept(c);
        c.acts.pend(c.task, c.acts.requestPause(c.task, c.s.request, c.s.peerBeforeMs));
      },
    ),
    rule<KeptAsideCase, 'PauseAnswered'>(
      'kept-aside/answered-without-pause',
      'PauseAnswered',
      'dropped',
      'the call was answered without a pause: it opens nothing',
      true,
      dropKept,
    ),
    rule<KeptAsideCase, 'CallFailed'>(
      'kept-aside/call-failed',
      'CallFailed',
      'dropped',
      'the call failed: it opens nothing',
      true,
      dropKept,
    ),
  ],
};
