/**
 * @module peer/task-restore
 * Between a task of the engine and its line in the peer store (src/peer/peer-store.ts,
 * docs/design.md §4 "The store"): {@link snapshotOf} keeps what outlives the process, and
 * {@link recordOf} rebuilds the task with the phase its wire state names. What does not outlive
 * the process is left out: the step scheduled (a step in flight is redone from its start), a
 * pending pause (its requests died with their connections), the timers (armed again from the
 * pause), streams and waiters.
 */
import { A2aReplayError } from '../errors.js';
import type { TaskSnapshot } from './peer-store.js';
import { type Phase, type TaskRecord, WORKING } from './task-phase.js';

export function snapshotOf(rec: TaskRecord): TaskSnapshot {
  return {
    task: rec.task,
    script: rec.script,
    pc: rec.pc,
    stepsDone: rec.stepsDone,
    mode: rec.phase.kind === 'paused' ? (rec.phase.mode ?? null) : null,
  };
}

function phaseOf(snapshot: TaskSnapshot): Phase {
  const status = snapshot.task.status;
  const state = status.state;
  switch (state) {
    case 'TASK_STATE_SUBMITTED':
      return { kind: 'submitted' };
    case 'TASK_STATE_WORKING':
      return WORKING;
    case 'TASK_STATE_PAUSED':
      if (!status.pause) break;
      return { kind: 'paused', pause: status.pause, mode: snapshot.mode ?? undefined, timers: [] };
    case 'TASK_STATE_INPUT_REQUIRED':
    case 'TASK_STATE_AUTH_REQUIRED':
      return { kind: 'interrupted', state };
    case 'TASK_STATE_COMPLETED':
    case 'TASK_STATE_FAILED':
    case 'TASK_STATE_CANCELED':
    case 'TASK_STATE_REJECTED':
      return { kind: 'terminal', state };
    case 'TASK_STATE_UNSPECIFIED':
      break;
    default: {
      const never: never = state;
      return never;
    }
  }
  throw new A2aReplayError(
    'INVALID_ARGUMENT',
    `peer store: task ${snapshot.task.id} is ${state}${state === 'TASK_STATE_PAUSED' ? ' without a pause' : ''}, ` +
      'which the reference peer never writes',
  );
}

/** The engine record of a stored task, with no step scheduled, no timers armed, no streams. */
export function recordOf(snapshot: TaskSnapshot): TaskRecord {
  return {
    task: snapshot.task,
    script: snapshot.script,
    pc: snapshot.pc,
    stepsDone: snapshot.stepsDone,
    phase: phaseOf(snapshot),
    subscribers: new Set(),
    watchers: new Set(),
  };
}
