/**
 * @module peer/task-phase
 * What the reference peer's engine knows of one task (docs/design.md §4 "Phases"): the wire task,
 * its script and where the script stands, and its {@link Phase}, a discriminated union whose every
 * member holds only its own fields. `task.status.state` is the wire view of the phase, and
 * {@link stateOfPhase} is the one mapping between them.
 */
import type { JsonObject } from '../canonical/canonical-json.js';
import type {
  Artifact,
  Message,
  PauseInitiator,
  PauseMode,
  ResumeConditions,
  StreamResponse,
  Task,
  TaskPause,
  TaskState,
} from '../protocol/types.js';
import type { TimerHandle } from './scheduler.js';
import type { Directive, InterruptState } from './script.js';
import type { PausedDetail, TransitionCause } from './transition-log.js';

/** Who sent the request being handled: its method, and its principal (null without a bearer). */
export interface Caller {
  method: string;
  principal: string | null;
}

/** A pause asked for by PauseTask, AwaitTaskResumption or the script's own park. */
export interface PauseRequest {
  initiatedBy: PauseInitiator;
  mode: PauseMode;
  reason?: string | undefined;
  conditions?: ResumeConditions | undefined;
  summary?: string | undefined;
  /** The request that asked for the pause; null for a script's self-park. */
  caller: Caller | null;
}

export interface Waiter {
  resolve: (result: JsonObject) => void;
  reject: (error: unknown) => void;
}

/** What a pause in some mode waits for: nothing, the end of the step in flight, or of the tool call. */
export type PauseWait = 'now' | 'step' | 'tool';

/** A pause waiting for a step or a tool call to end; everyone who asked for it waits with it. */
export interface PendingPause extends PauseRequest {
  until: Exclude<PauseWait, 'now'>;
  waiters: Waiter[];
}

/** The step scheduled: in flight once the clock has moved past `startedAt`. */
export interface StepInFlight {
  handle: TimerHandle;
  startedAt: number;
}

/** The terminal states the engine reaches. */
export type TerminalState = Extract<
  TaskState,
  'TASK_STATE_COMPLETED' | 'TASK_STATE_FAILED' | 'TASK_STATE_CANCELED' | 'TASK_STATE_REJECTED'
>;

/**
 * Where a task is:
 * - `submitted`: accepted, not started yet;
 * - `working`: the script runs; `step` is the step scheduled (none between directives), `pending`
 *   a pause that waits for that step or its tool call to end;
 * - `paused`: parked at a resumable boundary with `pause` (its consume-once token inside), the
 *   PauseTask `mode` (undefined for an agent's pause) and the timers of its conditions;
 * - `interrupted`: INPUT_REQUIRED or AUTH_REQUIRED, until a follow-up message (or, for `auth:`,
 *   FireEvent `credentials`); `bypass` the timer that moves an `ask:` step on with no input;
 * - `terminal`: nothing leaves it.
 */
export type Phase =
  | { kind: 'submitted' }
  | { kind: 'working'; step: StepInFlight | undefined; pending: PendingPause | undefined }
  | { kind: 'paused'; pause: TaskPause; mode: PauseMode | undefined; timers: TimerHandle[] }
  | { kind: 'interrupted'; state: InterruptState; bypass?: TimerHandle | undefined }
  | { kind: 'terminal'; state: TerminalState };

/** A fresh WORKING phase: no step scheduled, no pause pending. */
export const WORKING: Readonly<Extract<Phase, { kind: 'working' }>> = Object.freeze({
  kind: 'working',
  step: undefined,
  pending: undefined,
});

/** The wire state of a phase. */
export function stateOfPhase(phase: Phase): TaskState {
  switch (phase.kind) {
    case 'submitted':
      return 'TASK_STATE_SUBMITTED';
    case 'working':
      return 'TASK_STATE_WORKING';
    case 'paused':
      return 'TASK_STATE_PAUSED';
    case 'interrupted':
    case 'terminal':
      return phase.state;
    default: {
      const never: never = phase;
      return never;
    }
  }
}

/** Whether a blocking SendMessage returns in this phase (terminal or interrupted; PAUSED counts). */
export function isSettled(phase: Phase): boolean {
  switch (phase.kind) {
    case 'submitted':
    case 'working':
      return false;
    case 'paused':
    case 'interrupted':
    case 'terminal':
      return true;
    default: {
      const never: never = phase;
      return never;
    }
  }
}

export type EngineTask = Task & { contextId: string; artifacts: Artifact[]; history: Message[] };

export interface TaskRecord {
  readonly task: EngineTask;
  readonly script: Directive[];
  /** Index of the directive being run. */
  pc: number;
  /** Steps of the current `work:N` or `tool:N` already done. */
  stepsDone: number;
  phase: Phase;
  readonly subscribers: Set<Subscriber>;
  readonly watchers: Set<() => void>;
}

/** One open stream on a task. */
export interface Subscriber {
  /** Writes one StreamResponse; resolves once it was handed to the socket. */
  send(event: StreamResponse): Promise<void>;
  /** Ends the stream (terminal state, or the peer shutting down). */
  close(): void;
}

/** Why the task moves, for the transitions log. */
export interface Why {
  cause: TransitionCause;
  caller: Caller | null;
  /** The resume token of the pause entered or left. */
  token?: string | undefined;
  pause?: PausedDetail | undefined;
}
