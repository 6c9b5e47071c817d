/**
 * @module peer/wire-views
 * How the reference peer renders its tasks, status updates and pause/resume results on the
 * wire: raw ProtoJSON (empty repeated fields omitted), natively as the paused-state RFC says, or
 * — with `--legacy-pause` — the Harn way defined in src/protocol/legacy.ts (state stays
 * TASK_STATE_WORKING, the pause rides `metadata.harn.pause`).
 */
import type { JsonObject } from '../canonical/canonical-json.js';
import { legacyMetadata, pauseToLegacy, resumeToLegacy } from '../protocol/legacy.js';
import type {
  PauseMode,
  ResumeEventMetadata,
  ResumeTaskResult,
  Task,
  TaskPause,
  TaskStatus,
  TaskStatusUpdateEvent,
} from '../protocol/types.js';

export interface ViewOptions {
  legacy: boolean;
  /** PauseTask `mode` of the current pause, carried in the legacy envelope. */
  mode?: PauseMode | undefined;
  historyLength?: number | undefined;
  includeArtifacts?: boolean | undefined;
}

function mergeMetadata(base: JsonObject | undefined, extra: JsonObject): JsonObject {
  return { ...(base ?? {}), ...extra };
}

/** A legacy peer has no PAUSED state: it reports WORKING. */
function legacyStatus(status: TaskStatus): TaskStatus {
  const out: TaskStatus = { state: 'TASK_STATE_WORKING' };
  if (status.message !== undefined) out.message = status.message;
  if (status.timestamp !== undefined) out.timestamp = status.timestamp;
  return out;
}

/** A Task as GetTask, ListTasks, SendMessage and the first stream event return it. */
export function taskView(task: Task, options: ViewOptions): Task {
  const view: Task =
    task.contextId === undefined
      ? { id: task.id, status: task.status }
      : { id: task.id, contextId: task.contextId, status: task.status };
  if (options.includeArtifacts !== false && task.artifacts && task.artifacts.length > 0)
    view.artifacts = [...task.artifacts];
  if (task.history && task.history.length > 0) {
    const n = options.historyLength;
    const history = n === undefined ? [...task.history] : n === 0 ? [] : task.history.slice(-n);
    if (history.length > 0) view.history = history;
  }
  if (task.metadata !== undefined) view.metadata = task.metadata;
  const pause = task.status.pause;
  if (options.legacy && task.status.state === 'TASK_STATE_PAUSED' && pause) {
    view.status = legacyStatus(task.status);
    view.metadata = mergeMetadata(view.metadata, legacyMetadata(pauseToLegacy(pause, options.mode)));
  }
  return view;
}

/** The statusUpdate that enters PAUSED (`status.pause` carries the full TaskPause). */
export function pausedEventView(task: Task, options: ViewOptions): TaskStatusUpdateEvent {
  const event: TaskStatusUpdateEvent = { taskId: task.id, contextId: task.contextId ?? '', status: task.status };
  const pause = task.status.pause;
  if (options.legacy && pause) {
    event.status = legacyStatus(task.status);
    event.metadata = legacyMetadata(pauseToLegacy(pause, options.mode));
  }
  return event;
}

/** The WORKING statusUpdate that leaves PAUSED, its `metadata` the RFC resume detail. */
export function resumedEventView(task: Task, meta: ResumeEventMetadata, options: ViewOptions): TaskStatusUpdateEvent {
  const metadata = options.legacy ? legacyMetadata(resumeToLegacy(meta)) : (meta as unknown as JsonObject);
  return { taskId: task.id, contextId: task.contextId ?? '', status: task.status, metadata };
}

/** Any other statusUpdate. */
export function statusEventView(task: Task): TaskStatusUpdateEvent {
  return { taskId: task.id, contextId: task.contextId ?? '', status: task.status };
}

/** PauseTask / AwaitTaskResumption result: the RFC's `{taskId, state, pause}`, or the legacy envelope. */
export function pauseResultView(taskId: string, pause: TaskPause, options: ViewOptions): JsonObject {
  if (options.legacy) {
    return { taskId, state: 'TASK_STATE_WORKING', metadata: legacyMetadata(pauseToLegacy(pause, options.mode)) };
  }
  return { taskId, state: 'TASK_STATE_PAUSED', pause: pause as unknown as JsonObject };
}

/**
 * ResumeTask result: docs/design.md §3's `{taskId, state, previousState, cause, resumedAt}`, or the
 * legacy envelope.
 */
export function resumeResultView(
  result: ResumeTaskResult,
  meta: ResumeEventMetadata,
  options: ViewOptions,
): JsonObject {
  if (options.legacy) {
    return { taskId: result.taskId, state: 'TASK_STATE_WORKING', metadata: legacyMetadata(resumeToLegacy(meta)) };
  }
  return result as unknown as JsonObject;
}
