/**
 * @module observe/fact
 * The facts of docs/design.md §14.2: what reading one recording entry gives (`observe/facts`
 * reads them, the rules of `observe/rules` consume them), the JSON-RPC error codes the rules
 * read in them, and which tasks a reading showed a client (docs/design.md §5).
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { JSON_RPC_ERRORS } from '../protocol/errors.js';
import type { ControlMethod } from '../protocol/methods.js';
import type { CallBinding } from './call-view.js';
import type { PauseMode, ResumeCause, TaskPause, TaskState } from '../protocol/types.js';
import type { InterruptedState, SpanRef } from '../receipts/types.js';
import type { ObserverFinding } from './findings.js';
import type { ResumeSignal } from './sightings.js';

/** The entry a fact was read from. */
export interface EntryRef {
  seq: number;
  at: string;
}

/**
 * Where a sighting of a task came from: an event of a stream (an ordered log of the task; `opened`
 * is the seq of the request that opened it, so what it shows is no older than that), a snapshot
 * (GetTask, ListTasks, a SendMessage result: the state at one instant), or the answer to a call on
 * the task (PauseTask, AwaitTaskResumption, CancelTask).
 */
export type Origin =
  | { kind: 'stream'; xid: string; opened: number }
  | { kind: 'snapshot'; xid: string; multi: boolean }
  | { kind: 'answer'; xid: string };

/** A task as a sighting names it. */
export interface TaskRef {
  taskId: string;
  contextId: string | null;
}

/** The methods that open a pause. */
export type PauseOpeningMethod = 'PauseTask' | 'AwaitTaskResumption';

/** A control call as its request named it. */
export interface ControlCall {
  seq: number;
  method: ControlMethod;
  /** FireEvent `name`. */
  name: string | undefined;
  /** FireEvent `payload.taskId`. */
  payloadTaskId: string | undefined;
  principal: string | null;
}

/** The facts of docs/design.md §14.2, in the order they happened. */
export type Fact =
  /** A PauseTask / AwaitTaskResumption request. */
  | {
      type: 'PauseRequested';
      entry: EntryRef;
      xid: string;
      taskId: string;
      method: PauseOpeningMethod;
      mode: PauseMode | null;
      reason: string | null;
      principal: string | null;
      /** The request's body was read from bytes that are not valid UTF-8 (its entry's `bodyRepaired`). */
      bodyRepaired: boolean;
      /** The caller's span from its `traceparent`. */
      parent: SpanRef | undefined;
      binding: CallBinding;
    }
  /** A SendMessage / SendStreamingMessage request: a client message, which may continue an interrupted task. */
  | {
      type: 'MessageSent';
      entry: EntryRef;
      xid: string;
      /** The message's `taskId`: the task it continues, if any. */
      taskId: string | undefined;
      contextId: string | null;
      /** The message's parts: what the client answered (a receipt keeps only their hash). */
      parts: JsonValue;
      principal: string | null;
      binding: CallBinding;
    }
  /** A ResumeTask request. */
  | {
      type: 'ResumeCalled';
      entry: EntryRef;
      xid: string;
      taskId: string;
      tokenHash: string | null;
      input: JsonValue | undefined;
      continueTranscript: boolean | null;
      principal: string | null;
      binding: CallBinding;
      /** The caller's span from its `traceparent`: the Resume's `ResumeCall` goes in its trace. */
      parent: SpanRef | undefined;
    }
  /** A CancelTask request. */
  | {
      type: 'CancelCalled';
      entry: EntryRef;
      xid: string;
      taskId: string;
      principal: string | null;
      binding: CallBinding;
    }
  /** An AdvanceClock / FireEvent request on the control channel. */
  | { type: 'ControlCalled'; entry: EntryRef; call: ControlCall }
  /** A task was seen at all (before what was seen of it): its context, its stream, the peer's time. */
  | {
      type: 'TaskSeen';
      entry: EntryRef;
      task: TaskRef;
      /** The stream that carried it, if a stream did. */
      stream: string | undefined;
      /** Instants the peer stated (`status.timestamp`, `resumedAt`). */
      times: string[];
      /** The binding of the exchange it was seen on. */
      binding: CallBinding;
    }
  /** A sighting of TASK_STATE_PAUSED (native, or the legacy envelope) with its pause. */
  | {
      type: 'PausedSeen';
      entry: EntryRef;
      task: TaskRef;
      pause: TaskPause;
      legacy: boolean;
      origin: Origin;
      /** The traceparent span of the exchange it came on. */
      parent: SpanRef | undefined;
    }
  /** A sighting that announces a resume (RFC resume metadata, or the legacy `resumed` envelope). */
  | { type: 'ResumeAnnounced'; entry: EntryRef; task: TaskRef; signal: ResumeSignal; origin: Origin; field: string }
  /**
   * A sighting of an interrupted state (INPUT_REQUIRED, AUTH_REQUIRED) with the agent's prompt; a
   * `StateSeen` of the same state follows it.
   */
  | {
      type: 'InterruptedSeen';
      entry: EntryRef;
      task: TaskRef;
      state: InterruptedState;
      /** The parts of `status.message` (a receipt keeps only their hash), null when it carries none. */
      prompt: JsonValue | null;
      timestamp: string | undefined;
      origin: Origin;
    }
  /** Any other sighting of a task's state. */
  | {
      type: 'StateSeen';
      entry: EntryRef;
      task: TaskRef;
      state: TaskState;
      timestamp: string | undefined;
      origin: Origin;
      field: string;
    }
  /** An artifactUpdate: the task did work. */
  | { type: 'WorkSeen'; entry: EntryRef; task: TaskRef; stream: string }
  /** A PauseTask / AwaitTaskResumption answer was read (after its PausedSeen, if it carried a pause). */
  | { type: 'PauseAnswered'; entry: EntryRef; xid: string; taskId: string }
  /** A ResumeTask answer that succeeded. */
  | { type: 'ResumeAnswered'; entry: EntryRef; xid: string; taskId: string; cause: ResumeCause; resumedAt: string }
  /** A CancelTask answer (after its StateSeen). */
  | { type: 'CancelAnswered'; entry: EntryRef; xid: string; taskId: string; state: TaskState }
  /** A call on a task got a JSON-RPC error (`code`) or no usable answer (`code` undefined). */
  | {
      type: 'CallFailed';
      entry: EntryRef;
      xid: string;
      taskId: string;
      method: string;
      code: number | undefined;
      why: string;
      /** The answer came but could not be read (a ResumeTask answer that is not a resume result). */
      unreadable: boolean;
    }
  /** A control call was answered: the peer's clock (`now`) and, for FireEvent, the tasks it resumed. */
  | {
      type: 'ControlAnswered';
      entry: EntryRef;
      call: ControlCall;
      now: string | undefined;
      /** FireEvent `result.resumed`, when the peer listed what it resumed. */
      resumed: readonly string[] | undefined;
    }
  /** An exchange that carried tasks ended (a stream closed, or a single JSON answer). */
  | { type: 'StreamEnded'; entry: EntryRef; xid: string; tasks: readonly string[] };

/** What reading one entry gave, in order: facts and findings. */
export type ReadItem = Fact | { type: 'finding'; finding: ObserverFinding };

/** The JSON-RPC error codes the lifecycle rules read (docs/design.md §3). */
export const RULE_ERRORS = {
  TASK_NOT_FOUND: JSON_RPC_ERRORS.TASK_NOT_FOUND.code,
  INVALID_TASK_STATE: JSON_RPC_ERRORS.INVALID_TASK_STATE.code,
  RESUME_TOKEN_MISMATCH: JSON_RPC_ERRORS.RESUME_TOKEN_MISMATCH.code,
} as const;

/** The member of {@link Fact} of one type. */
export type FactOf<T extends Fact['type']> = Extract<Fact, { type: T }>;

/**
 * Calls `each` with the id of every task `items` showed a client (docs/design.md §5): a sighting
 * of it, a ResumeTask or CancelTask answer, an error answer to a call on it, a FireEvent answer that
 * resumed it. A request shows nothing.
 */
export function tasksShownIn(items: readonly ReadItem[], each: (taskId: string) => void): void {
  for (const item of items) {
    switch (item.type) {
      case 'TaskSeen':
        each(item.task.taskId);
        break;
      case 'ResumeAnswered':
      case 'CancelAnswered':
      case 'CallFailed':
        each(item.taskId);
        break;
      case 'ControlAnswered':
        for (const taskId of item.resumed ?? []) each(taskId);
        break;
      default:
        break;
    }
  }
}
