import { describe, expect, it } from 'vitest';
import { checkTransition, isAllowedTransition, isTerminal } from '../../src/protocol/state-machine.js';
import { TASK_STATES, type TaskState } from '../../src/protocol/types.js';

/**
 * The expected table, written out independently from the RFC's "Task state machine deltas" and
 * A2A v1.0's lifecycle: from-state -> the states it may move to.
 */
const EXPECTED: Record<TaskState, TaskState[]> = {
  TASK_STATE_UNSPECIFIED: [],
  TASK_STATE_SUBMITTED: [
    'TASK_STATE_WORKING',
    'TASK_STATE_INPUT_REQUIRED',
    'TASK_STATE_AUTH_REQUIRED',
    'TASK_STATE_COMPLETED',
    'TASK_STATE_FAILED',
    'TASK_STATE_CANCELED',
    'TASK_STATE_REJECTED',
  ],
  TASK_STATE_WORKING: [
    'TASK_STATE_WORKING',
    'TASK_STATE_INPUT_REQUIRED',
    'TASK_STATE_AUTH_REQUIRED',
    'TASK_STATE_COMPLETED',
    'TASK_STATE_FAILED',
    'TASK_STATE_CANCELED',
    'TASK_STATE_REJECTED',
    'TASK_STATE_PAUSED', // RFC: PauseTask (client) or AwaitTaskResumption (agent)
  ],
  TASK_STATE_INPUT_REQUIRED: ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED'],
  TASK_STATE_AUTH_REQUIRED: ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED'],
  // RFC: PAUSED -> WORKING (ResumeTask / condition), CANCELED (CancelTask), FAILED (timeout "fail").
  TASK_STATE_PAUSED: ['TASK_STATE_WORKING', 'TASK_STATE_CANCELED', 'TASK_STATE_FAILED'],
  TASK_STATE_COMPLETED: [],
  TASK_STATE_FAILED: [],
  TASK_STATE_CANCELED: [],
  TASK_STATE_REJECTED: [],
};

describe('task state machine', () => {
  const pairs = TASK_STATES.flatMap((from) => TASK_STATES.map((to) => [from, to] as const));

  it.each(pairs)('%s -> %s matches the RFC table', (from, to) => {
    const expected = EXPECTED[from].includes(to);
    const verdict = checkTransition(from, to);
    expect(verdict.allowed).toBe(expected);
    expect(isAllowedTransition(from, to)).toBe(expected);
    if (!verdict.allowed) expect(verdict.reason.length).toBeGreaterThan(10);
  });

  it('refuses INPUT_REQUIRED <-> PAUSED in both directions, naming the rule', () => {
    for (const [from, to] of [
      ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_PAUSED'],
      ['TASK_STATE_PAUSED', 'TASK_STATE_INPUT_REQUIRED'],
    ] as const) {
      const verdict = checkTransition(from, to);
      expect(verdict).toMatchObject({ allowed: false });
      if (!verdict.allowed) expect(verdict.reason).toMatch(/through WORKING/);
    }
  });

  it('refuses every move out of a terminal state', () => {
    for (const from of TASK_STATES.filter(isTerminal)) {
      for (const to of TASK_STATES) {
        const verdict = checkTransition(from, to);
        expect(verdict.allowed).toBe(false);
        if (!verdict.allowed) expect(verdict.reason).toMatch(/terminal/);
      }
    }
  });

  it('attributes the pause transitions to the RFC', () => {
    const verdict = checkTransition('TASK_STATE_WORKING', 'TASK_STATE_PAUSED');
    expect(verdict.allowed && verdict.transition.source).toBe('rfc');
    expect(isTerminal('TASK_STATE_PAUSED')).toBe(false);
  });
});
