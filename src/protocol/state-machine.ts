/**
 * @module protocol/state-machine
 * The task state machine as data: the transitions A2A v1.0 allows (spec §3.1, §4.1.3 lifecycle)
 * plus the paused-state RFC's deltas ("Task state machine deltas"), and the reasons the others
 * are refused. Peers use it to guard moves; the observer uses it to flag impossible streams.
 */
import { TERMINAL_STATES, type TaskState } from './types.js';

export type TransitionSource = 'a2a-v1.0' | 'rfc';

export interface Transition {
  from: TaskState;
  to: TaskState;
  source: TransitionSource;
  /** What drives it, in the words of the spec or RFC. */
  via: string;
}

const t = (from: TaskState, to: TaskState, source: TransitionSource, via: string): Transition => ({
  from,
  to,
  source,
  via,
});

/** Every allowed transition. A move not listed here is refused. */
export const TRANSITIONS: readonly Transition[] = [
  t('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'a2a-v1.0', 'agent starts processing'),
  t('TASK_STATE_SUBMITTED', 'TASK_STATE_INPUT_REQUIRED', 'a2a-v1.0', 'agent needs input'),
  t('TASK_STATE_SUBMITTED', 'TASK_STATE_AUTH_REQUIRED', 'a2a-v1.0', 'agent needs authentication'),
  t('TASK_STATE_SUBMITTED', 'TASK_STATE_COMPLETED', 'a2a-v1.0', 'agent finishes'),
  t('TASK_STATE_SUBMITTED', 'TASK_STATE_FAILED', 'a2a-v1.0', 'agent fails'),
  t('TASK_STATE_SUBMITTED', 'TASK_STATE_CANCELED', 'a2a-v1.0', 'CancelTask'),
  t('TASK_STATE_SUBMITTED', 'TASK_STATE_REJECTED', 'a2a-v1.0', 'agent rejects'),
  t('TASK_STATE_WORKING', 'TASK_STATE_WORKING', 'a2a-v1.0', 'progress update'),
  t('TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'a2a-v1.0', 'agent needs input'),
  t('TASK_STATE_WORKING', 'TASK_STATE_AUTH_REQUIRED', 'a2a-v1.0', 'agent needs authentication'),
  t('TASK_STATE_WORKING', 'TASK_STATE_COMPLETED', 'a2a-v1.0', 'agent finishes'),
  t('TASK_STATE_WORKING', 'TASK_STATE_FAILED', 'a2a-v1.0', 'agent fails'),
  t('TASK_STATE_WORKING', 'TASK_STATE_CANCELED', 'a2a-v1.0', 'CancelTask'),
  t('TASK_STATE_WORKING', 'TASK_STATE_REJECTED', 'a2a-v1.0', 'agent rejects'),
  t('TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'a2a-v1.0', 'a message supplies the input'),
  t('TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED', 'a2a-v1.0', 'agent finishes'),
  t('TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_FAILED', 'a2a-v1.0', 'agent fails'),
  t('TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_CANCELED', 'a2a-v1.0', 'CancelTask'),
  t('TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_WORKING', 'a2a-v1.0', 'credentials supplied'),
  t('TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_COMPLETED', 'a2a-v1.0', 'agent finishes'),
  t('TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_FAILED', 'a2a-v1.0', 'agent fails'),
  t('TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_CANCELED', 'a2a-v1.0', 'CancelTask'),
  t('TASK_STATE_WORKING', 'TASK_STATE_PAUSED', 'rfc', 'PauseTask (client) or AwaitTaskResumption / self-park (agent)'),
  t('TASK_STATE_PAUSED', 'TASK_STATE_WORKING', 'rfc', 'ResumeTask, or the declared resume condition fires'),
  t('TASK_STATE_PAUSED', 'TASK_STATE_CANCELED', 'rfc', 'CancelTask'),
  t('TASK_STATE_PAUSED', 'TASK_STATE_FAILED', 'rfc', 'timeout elapsed with onTimeout "fail"'),
];

const ALLOWED = new Map<string, Transition>(TRANSITIONS.map((tr) => [`${tr.from}>${tr.to}`, tr]));

export type TransitionVerdict = { allowed: true; transition: Transition } | { allowed: false; reason: string };

/** Whether `from -> to` is allowed, and if not, why (in user words). */
export function checkTransition(from: TaskState, to: TaskState): TransitionVerdict {
  const transition = ALLOWED.get(`${from}>${to}`);
  if (transition) return { allowed: true, transition };
  if (TERMINAL_STATES.has(from)) return { allowed: false, reason: `${from} is terminal: no transition leaves it` };
  if (from === 'TASK_STATE_UNSPECIFIED' || to === 'TASK_STATE_UNSPECIFIED') {
    return { allowed: false, reason: 'TASK_STATE_UNSPECIFIED is not a state a task can be in' };
  }
  if (to === 'TASK_STATE_SUBMITTED') return { allowed: false, reason: 'a task is SUBMITTED only when it is created' };
  if (
    (from === 'TASK_STATE_INPUT_REQUIRED' && to === 'TASK_STATE_PAUSED') ||
    (from === 'TASK_STATE_PAUSED' && to === 'TASK_STATE_INPUT_REQUIRED')
  ) {
    return {
      allowed: false,
      reason: 'INPUT_REQUIRED and PAUSED have different unblock channels: go through WORKING (RFC)',
    };
  }
  if (to === 'TASK_STATE_PAUSED') {
    return from === 'TASK_STATE_PAUSED'
      ? { allowed: false, reason: 'already PAUSED: a second PauseTask returns the same pause and changes nothing' }
      : { allowed: false, reason: `only a WORKING task can be paused, not ${from} (RFC)` };
  }
  if (from === 'TASK_STATE_PAUSED') {
    return { allowed: false, reason: `a PAUSED task leaves only to WORKING, CANCELED or FAILED, not ${to} (RFC)` };
  }
  return { allowed: false, reason: `${from} cannot move to ${to} in A2A v1.0` };
}

export function isAllowedTransition(from: TaskState, to: TaskState): boolean {
  return ALLOWED.has(`${from}>${to}`);
}

export function isTerminal(state: TaskState): boolean {
  return TERMINAL_STATES.has(state);
}
