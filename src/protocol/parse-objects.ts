/**
 * @module protocol/parse-objects
 * Parsers for A2A v1.0 objects (Part, Message, Artifact, TaskStatus, Task, stream events) and
 * the pause extension's objects (TaskPause, ResumeConditions, resume metadata, PauseTask /
 * ResumeTask results). Unknown members are ignored (spec §5.7); missing or mistyped required
 * members name the field.
 */
import {
  type Artifact,
  type Message,
  type Part,
  PAUSE_INITIATORS,
  type PauseTaskResult,
  RESUME_CAUSES,
  RESUME_MODES,
  type ResumeConditions,
  type ResumeEventMetadata,
  type ResumeTaskResult,
  ON_TIMEOUT_ACTIONS,
  ROLES,
  type SendMessageResult,
  type StreamEvent,
  TASK_STATES,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskPause,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from './types.js';
import {
  type ParseResult,
  boolean,
  fail,
  integer,
  isRecord,
  jsonObject,
  nonEmptyString,
  object,
  onlyKeys,
  oneOf,
  parseWith,
  string,
  stringArray,
  timestamp,
} from './read.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function copyOptional<T extends object>(
  target: Mutable<T>,
  source: Record<string, unknown>,
  key: keyof T & string,
  read: (v: unknown, f: string) => unknown,
  field: string,
): void {
  const v = source[key];
  if (v !== undefined) (target as Record<string, unknown>)[key] = read(v, `${field}.${key}`);
}

export function readPart(value: unknown, field: string): Part {
  const r = object(value, field);
  const members = ['text', 'raw', 'url', 'data'].filter((k) => r[k] !== undefined);
  if (members.length !== 1) fail(field, 'exactly one of text, raw, url, data', members.length === 0 ? undefined : r);
  const part: Part = {};
  copyOptional(part, r, 'text', string, field);
  copyOptional(part, r, 'raw', string, field);
  copyOptional(part, r, 'url', string, field);
  if (r.data !== undefined) part.data = r.data as Part['data'] & {};
  copyOptional(part, r, 'metadata', jsonObject, field);
  copyOptional(part, r, 'filename', string, field);
  copyOptional(part, r, 'mediaType', string, field);
  return part;
}

function readParts(value: unknown, field: string): Part[] {
  if (!Array.isArray(value)) fail(field, 'an array of parts', value);
  return value.map((p, i) => readPart(p, `${field}[${i}]`));
}

export function readMessage(value: unknown, field: string): Message {
  const r = object(value, field);
  const message: Message = {
    messageId: nonEmptyString(r.messageId, `${field}.messageId`),
    role: oneOf(r.role, `${field}.role`, ROLES),
    parts: readParts(r.parts, `${field}.parts`),
  };
  copyOptional(message, r, 'contextId', string, field);
  copyOptional(message, r, 'taskId', string, field);
  copyOptional(message, r, 'metadata', jsonObject, field);
  copyOptional(message, r, 'extensions', stringArray, field);
  copyOptional(message, r, 'referenceTaskIds', stringArray, field);
  return message;
}

export function readArtifact(value: unknown, field: string): Artifact {
  const r = object(value, field);
  const artifact: Artifact = {
    artifactId: nonEmptyString(r.artifactId, `${field}.artifactId`),
    parts: readParts(r.parts, `${field}.parts`),
  };
  copyOptional(artifact, r, 'name', string, field);
  copyOptional(artifact, r, 'description', string, field);
  copyOptional(artifact, r, 'metadata', jsonObject, field);
  copyOptional(artifact, r, 'extensions', stringArray, field);
  return artifact;
}

/**
 * RFC `conditions`: `{onEvent?, trigger?: {at}, timeout?: {durationMinutes, onTimeout}}`, at least
 * one key, no others.
 */
export function readConditions(value: unknown, field: string): ResumeConditions {
  const r = object(value, field);
  onlyKeys(r, field, ['onEvent', 'trigger', 'timeout']);
  const conditions: ResumeConditions = {};
  if (r.onEvent !== undefined) conditions.onEvent = nonEmptyString(r.onEvent, `${field}.onEvent`);
  if (r.trigger !== undefined) {
    const t = object(r.trigger, `${field}.trigger`);
    onlyKeys(t, `${field}.trigger`, ['at']);
    conditions.trigger = { at: timestamp(t.at, `${field}.trigger.at`) };
  }
  if (r.timeout !== undefined) {
    const t = object(r.timeout, `${field}.timeout`);
    onlyKeys(t, `${field}.timeout`, ['durationMinutes', 'onTimeout']);
    conditions.timeout = {
      durationMinutes: integer(t.durationMinutes, `${field}.timeout.durationMinutes`, 1),
      onTimeout: oneOf(t.onTimeout, `${field}.timeout.onTimeout`, ON_TIMEOUT_ACTIONS),
    };
  }
  if (Object.keys(conditions).length === 0) fail(field, 'at least one of onEvent, trigger, timeout', r);
  return conditions;
}

export function readPause(value: unknown, field: string): TaskPause {
  const r = object(value, field);
  const pause: TaskPause = {
    initiatedBy: oneOf(r.initiatedBy, `${field}.initiatedBy`, PAUSE_INITIATORS),
    pausedAt: timestamp(r.pausedAt, `${field}.pausedAt`),
    resumeToken: string(r.resumeToken, `${field}.resumeToken`),
    // proto3 bool: absent means false.
    resumable: r.resumable === undefined ? false : boolean(r.resumable, `${field}.resumable`),
  };
  copyOptional(pause, r, 'reason', string, field);
  copyOptional(pause, r, 'pausedUntil', timestamp, field);
  if (r.conditions !== undefined) pause.conditions = readConditions(r.conditions, `${field}.conditions`);
  if (r.resumeMode !== undefined) pause.resumeMode = oneOf(r.resumeMode, `${field}.resumeMode`, RESUME_MODES);
  return pause;
}

export function readStatus(value: unknown, field: string): TaskStatus {
  const r = object(value, field);
  const status: TaskStatus = { state: oneOf(r.state, `${field}.state`, TASK_STATES) };
  if (r.message !== undefined) status.message = readMessage(r.message, `${field}.message`);
  copyOptional(status, r, 'timestamp', timestamp, field);
  if (r.pause !== undefined) status.pause = readPause(r.pause, `${field}.pause`);
  return status;
}

export function readTask(value: unknown, field: string): Task {
  const r = object(value, field);
  const task: Task = { id: nonEmptyString(r.id, `${field}.id`), status: readStatus(r.status, `${field}.status`) };
  copyOptional(task, r, 'contextId', string, field);
  if (r.artifacts !== undefined) {
    if (!Array.isArray(r.artifacts)) fail(`${field}.artifacts`, 'an array', r.artifacts);
    task.artifacts = r.artifacts.map((a, i) => readArtifact(a, `${field}.artifacts[${i}]`));
  }
  if (r.history !== undefined) {
    if (!Array.isArray(r.history)) fail(`${field}.history`, 'an array', r.history);
    task.history = r.history.map((m, i) => readMessage(m, `${field}.history[${i}]`));
  }
  copyOptional(task, r, 'metadata', jsonObject, field);
  return task;
}

export function readStatusUpdate(value: unknown, field: string): TaskStatusUpdateEvent {
  const r = object(value, field);
  const event: TaskStatusUpdateEvent = {
    taskId: nonEmptyString(r.taskId, `${field}.taskId`),
    contextId: string(r.contextId, `${field}.contextId`),
    status: readStatus(r.status, `${field}.status`),
  };
  copyOptional(event, r, 'metadata', jsonObject, field);
  return event;
}

export function readArtifactUpdate(value: unknown, field: string): TaskArtifactUpdateEvent {
  const r = object(value, field);
  const event: TaskArtifactUpdateEvent = {
    taskId: nonEmptyString(r.taskId, `${field}.taskId`),
    contextId: string(r.contextId, `${field}.contextId`),
    artifact: readArtifact(r.artifact, `${field}.artifact`),
  };
  copyOptional(event, r, 'append', boolean, field);
  copyOptional(event, r, 'lastChunk', boolean, field);
  copyOptional(event, r, 'metadata', jsonObject, field);
  return event;
}

function readStreamEvent(value: unknown, field: string): StreamEvent {
  const r = object(value, field);
  const members = ['task', 'message', 'statusUpdate', 'artifactUpdate'].filter((k) => r[k] !== undefined);
  if (members.length !== 1) fail(field, 'exactly one of task, message, statusUpdate, artifactUpdate', r);
  if (r.task !== undefined) return { kind: 'task', task: readTask(r.task, `${field}.task`) };
  if (r.message !== undefined) return { kind: 'message', message: readMessage(r.message, `${field}.message`) };
  if (r.statusUpdate !== undefined) {
    return { kind: 'statusUpdate', statusUpdate: readStatusUpdate(r.statusUpdate, `${field}.statusUpdate`) };
  }
  return { kind: 'artifactUpdate', artifactUpdate: readArtifactUpdate(r.artifactUpdate, `${field}.artifactUpdate`) };
}

/** A `StreamResponse` (the `result` of an SSE event) as a tagged union. */
export function parseStreamResponse(value: unknown, field = 'result'): ParseResult<StreamEvent> {
  return parseWith(() => readStreamEvent(value, field));
}

/** A `SendMessageResponse` oneof: `{task}` or `{message}`. */
export function parseSendMessageResult(value: unknown, field = 'result'): ParseResult<SendMessageResult> {
  return parseWith(() => {
    const event = readStreamEvent(value, field);
    if (event.kind === 'task') return { task: event.task };
    if (event.kind === 'message') return { message: event.message };
    return fail(field, 'a task or a message', value);
  });
}

export function parseTask(value: unknown, field = 'result'): ParseResult<Task> {
  return parseWith(() => readTask(value, field));
}

/** The result of PauseTask and AwaitTaskResumption. */
export function parsePauseTaskResult(value: unknown, field = 'result'): ParseResult<PauseTaskResult> {
  return parseWith(() => {
    const r = object(value, field);
    if (r.state !== 'TASK_STATE_PAUSED') fail(`${field}.state`, '"TASK_STATE_PAUSED"', r.state);
    return {
      taskId: nonEmptyString(r.taskId, `${field}.taskId`),
      state: 'TASK_STATE_PAUSED',
      pause: readPause(r.pause, `${field}.pause`),
    };
  });
}

export function parseResumeTaskResult(value: unknown, field = 'result'): ParseResult<ResumeTaskResult> {
  return parseWith(() => {
    const r = object(value, field);
    if (r.state !== 'TASK_STATE_WORKING') fail(`${field}.state`, '"TASK_STATE_WORKING"', r.state);
    if (r.previousState !== 'TASK_STATE_PAUSED') fail(`${field}.previousState`, '"TASK_STATE_PAUSED"', r.previousState);
    return {
      taskId: nonEmptyString(r.taskId, `${field}.taskId`),
      state: 'TASK_STATE_WORKING',
      previousState: 'TASK_STATE_PAUSED',
      cause: oneOf(r.cause, `${field}.cause`, RESUME_CAUSES),
      resumedAt: timestamp(r.resumedAt, `${field}.resumedAt`),
    };
  });
}

/**
 * The RFC resume detail on a status update's `metadata`. Returns `undefined` when the metadata
 * does not claim to be a resume (no `previousState`), and an issue when it claims but is malformed.
 */
export function parseResumeMetadata(
  metadata: unknown,
  field = 'metadata',
): ParseResult<ResumeEventMetadata | undefined> {
  return parseWith(() => {
    if (!isRecord(metadata) || metadata.previousState === undefined) return undefined;
    if (metadata.previousState !== 'TASK_STATE_PAUSED') {
      fail(`${field}.previousState`, '"TASK_STATE_PAUSED"', metadata.previousState);
    }
    return {
      previousState: 'TASK_STATE_PAUSED',
      cause: oneOf(metadata.cause, `${field}.cause`, RESUME_CAUSES),
      hadResumeInput: boolean(metadata.hadResumeInput, `${field}.hadResumeInput`),
      continueTranscript: boolean(metadata.continueTranscript, `${field}.continueTranscript`),
      resumedAt: timestamp(metadata.resumedAt, `${field}.resumedAt`),
    };
  });
}
