/**
 * @module peer/pause-plan
 * The pure part of the reference peer's pauses (docs/design.md §3): when a pause in a given mode
 * may happen, the {@link TaskPause} a request becomes, and the constant-time token comparison.
 * Nothing here touches a task; the engine computes a pause in full before it moves one.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isoAt } from '../clock.js';
import type { PauseMode, ResumeConditions, ResumeMode, TaskPause } from '../protocol/types.js';
import type { Directive } from './script.js';
import type { PauseRequest, PauseWait, PendingPause } from './task-phase.js';

/** The status message announcing a pending pause. */
export const PENDING_TEXT: Readonly<Record<PendingPause['until'], string>> = {
  step: 'pause requested: pausing when the step in flight ends',
  tool: 'pause requested: pausing when the tool call in flight completes',
};

/** Lower is sooner: a later request may narrow a pending pause, never widen it. */
export const URGENCY: Readonly<Record<PauseWait, number>> = { now: 0, step: 1, tool: 2 };

function digestOf(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time token comparison (never leaks how much of a token matched). */
export function sameToken(a: string, b: string): boolean {
  return timingSafeEqual(digestOf(a), digestOf(b));
}

export function resumeModeOf(conditions: ResumeConditions | undefined): ResumeMode {
  if (!conditions) return 'RESUME_MODE_CLIENT_MESSAGE';
  if (conditions.onEvent !== undefined || conditions.trigger !== undefined) return 'RESUME_MODE_EXTERNAL_EVENT';
  return conditions.timeout !== undefined ? 'RESUME_MODE_TIMEOUT' : 'RESUME_MODE_CLIENT_MESSAGE';
}

/**
 * When a pause in `mode` may happen on a WORKING task whose current directive is `directive`:
 * now, or at the end of the step or the tool call in flight.
 */
export function pauseWait(
  mode: PauseMode,
  directive: Directive | undefined,
  stepInFlight: boolean,
  stepsDone: number,
): PauseWait {
  const toolInFlight = directive?.kind === 'tool' && (stepInFlight || stepsDone > 0);
  switch (mode) {
    case 'interrupt_immediate':
      return 'now';
    case 'finish_step':
      return stepInFlight ? 'step' : 'now';
    case 'wait_for_completion':
      return toolInFlight ? 'tool' : stepInFlight ? 'step' : 'now';
    default: {
      const never: never = mode;
      return never;
    }
  }
}

/** A pause about to be entered, with the instants its conditions name. */
export interface PausePlan {
  pause: TaskPause;
  /** PauseTask's mode; undefined for an agent's pause. */
  mode: PauseMode | undefined;
  /** When `conditions.trigger.at` resumes the task. */
  triggerAt: number | undefined;
  /** When `conditions.timeout` elapses (`pausedUntil`). */
  timeoutAt: number | undefined;
}

/** The pause `request` becomes at `pausedAtMs` with the fresh `resumeToken` (docs/design.md §3). */
export function planPause(request: PauseRequest, pausedAtMs: number, resumeToken: string): PausePlan {
  const conditions = request.conditions;
  const pause: TaskPause = {
    initiatedBy: request.initiatedBy,
    pausedAt: isoAt(pausedAtMs),
    resumeToken,
    resumable: true,
  };
  if (request.reason !== undefined) pause.reason = request.reason;
  const timeoutAt = conditions?.timeout ? pausedAtMs + conditions.timeout.durationMinutes * 60_000 : undefined;
  if (timeoutAt !== undefined) pause.pausedUntil = isoAt(timeoutAt);
  if (conditions) pause.conditions = conditions;
  pause.resumeMode = resumeModeOf(conditions);
  return {
    pause,
    mode: request.initiatedBy === 'PAUSE_INITIATOR_CLIENT' ? request.mode : undefined,
    triggerAt: conditions?.trigger ? Date.parse(conditions.trigger.at) : undefined,
    timeoutAt,
  };
}

/** The instants a pause already entered names (a pause read back from the store). */
export function pauseDeadlinesOf(pause: TaskPause): Pick<PausePlan, 'triggerAt' | 'timeoutAt'> {
  return {
    triggerAt: pause.conditions?.trigger ? Date.parse(pause.conditions.trigger.at) : undefined,
    timeoutAt: pause.pausedUntil !== undefined && pause.conditions?.timeout ? Date.parse(pause.pausedUntil) : undefined,
  };
}
