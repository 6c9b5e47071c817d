/**
 * @module observe/scan
 * The scan path of the fact reader (docs/design.md §14.11): a task, a status update or an artifact
 * update that carries nothing about a pause or an interruption — its state is none of PAUSED,
 * INPUT_REQUIRED, AUTH_REQUIRED, it has no `status.pause`, and its `metadata` has neither the
 * legacy `harn` envelope nor the RFC resume detail (`previousState`) — is checked where it lies
 * and read into the same {@link Sighting} the full parse gives, without copying it into typed
 * objects. Everything else, and anything the full parse would refuse, is left to the full parse
 * (undefined here), so the findings of a malformed answer are the full parse's, word for word.
 *
 * The check is at least as strict as `protocol/parse-objects` for every member it accepts: what it
 * accepts, the full parse accepts without an issue. test/observe/scan-path.test.ts runs both paths
 * over the golden corpus and generated traffic and compares what they read.
 */
import { isRecord } from '../protocol/read.js';
import { canonicalTimeText } from '../protocol/time-text.js';
import { ROLES, TASK_STATES, type TaskState } from '../protocol/types.js';
import type { Sighting } from './sightings.js';

/** What the scan read from a stream event or a call's answer; undefined: read it in full. */
export type ScanReading =
  { kind: 'sighting'; sighting: Sighting; field: string } | { kind: 'work'; taskId: string; contextId: string };

const STATES: ReadonlySet<string> = new Set(TASK_STATES);
const ROLE_SET: ReadonlySet<string> = new Set(ROLES);

/** States whose sighting can open, end or prove a pause or an interruption by itself: always read in full. */
const FULL_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'TASK_STATE_PAUSED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
]);

/** A `StreamResponse` (a stream event, or a streaming method's one JSON answer) at `field`. */
export function scanStreamResult(result: unknown, field: string): ScanReading | undefined {
  if (!isRecord(result)) return undefined;
  const { task, statusUpdate, artifactUpdate } = result;
  if (result.message !== undefined) return undefined;
  if (task !== undefined) {
    if (statusUpdate !== undefined || artifactUpdate !== undefined) return undefined;
    const sighting = scanTask(task);
    return sighting && { kind: 'sighting', sighting, field: `${field}.task` };
  }
  if (statusUpdate !== undefined) {
    if (artifactUpdate !== undefined) return undefined;
    const sighting = scanStatusUpdate(statusUpdate);
    return sighting && { kind: 'sighting', sighting, field: `${field}.statusUpdate` };
  }
  return artifactUpdate === undefined ? undefined : scanArtifactUpdate(artifactUpdate);
}

/**
 * The answer of a unary call whose answer is a snapshot of one task (GetTask; SendMessage's `{task}`,
 * a message shows no task) at `field`; undefined for any other method.
 */
export function scanCallResult(
  method: string,
  result: unknown,
  field: string,
): Extract<ScanReading, { kind: 'sighting' }> | undefined {
  if (method === 'GetTask') {
    const sighting = scanTask(result);
    return sighting && { kind: 'sighting', sighting, field };
  }
  if (method !== 'SendMessage' || !isRecord(result) || result.message !== undefined) return undefined;
  if (result.statusUpdate !== undefined || result.artifactUpdate !== undefined) return undefined;
  const sighting = scanTask(result.task);
  return sighting && { kind: 'sighting', sighting, field: `${field}.task` };
}

/** A Task (GetTask, a SendMessage result's `task`, a stream's `task` member). */
export function scanTask(value: unknown): Sighting | undefined {
  if (!isRecord(value)) return undefined;
  const { id, contextId, artifacts, history, metadata } = value;
  if (typeof id !== 'string' || id === '') return undefined;
  if (contextId !== undefined && typeof contextId !== 'string') return undefined;
  if (artifacts !== undefined && !(Array.isArray(artifacts) && artifacts.every(isArtifact))) return undefined;
  if (history !== undefined && !(Array.isArray(history) && history.every(isMessage))) return undefined;
  if (!quietMetadata(metadata)) return undefined;
  return sightingOf(id, contextId ?? null, value.status);
}

function scanStatusUpdate(value: unknown): Sighting | undefined {
  if (!isRecord(value)) return undefined;
  const { taskId, contextId } = value;
  if (typeof taskId !== 'string' || taskId === '' || typeof contextId !== 'string') return undefined;
  if (!quietMetadata(value.metadata)) return undefined;
  return sightingOf(taskId, contextId, value.status);
}

function scanArtifactUpdate(value: unknown): ScanReading | undefined {
  if (!isRecord(value)) return undefined;
  const { taskId, contextId, append, lastChunk, metadata } = value;
  if (typeof taskId !== 'string' || taskId === '' || typeof contextId !== 'string') return undefined;
  if (!isArtifact(value.artifact)) return undefined;
  if (append !== undefined && typeof append !== 'boolean') return undefined;
  if (lastChunk !== undefined && typeof lastChunk !== 'boolean') return undefined;
  if (metadata !== undefined && !isRecord(metadata)) return undefined;
  return { kind: 'work', taskId, contextId };
}

/** The sighting of a status with no pause and no interruption, as `sightings.fromStatus` reads it. */
function sightingOf(taskId: string, contextId: string | null, status: unknown): Sighting | undefined {
  if (!isRecord(status)) return undefined;
  const { state, message, timestamp } = status;
  if (typeof state !== 'string' || !STATES.has(state) || FULL_STATES.has(state as TaskState)) return undefined;
  if (status.pause !== undefined) return undefined;
  if (message !== undefined && !isMessage(message)) return undefined;
  if (timestamp !== undefined && !(typeof timestamp === 'string' && canonicalTimeText(timestamp) !== undefined))
    return undefined;
  return {
    taskId,
    contextId,
    state: state as TaskState,
    pause: undefined,
    legacy: false,
    resume: undefined,
    timestamp,
    // Only an interrupted state's prompt is read from the message (observe/facts), never this one's.
    message: undefined,
  };
}

/** No metadata, or metadata that names neither a legacy envelope nor an RFC resume. */
function quietMetadata(metadata: unknown): boolean {
  return (
    metadata === undefined ||
    (isRecord(metadata) && metadata.harn === undefined && metadata.previousState === undefined)
  );
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

function isStringArray(value: unknown): boolean {
  return value === undefined || (Array.isArray(value) && value.every((item) => typeof item === 'string'));
}

function isPart(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const { text, raw, url, data } = value;
  const members = Number(text !== undefined) + Number(raw !== undefined) + Number(url !== undefined);
  if (members + Number(data !== undefined) !== 1) return false;
  if (!isOptionalString(text) || !isOptionalString(raw) || !isOptionalString(url)) return false;
  if (value.metadata !== undefined && !isRecord(value.metadata)) return false;
  return isOptionalString(value.filename) && isOptionalString(value.mediaType);
}

function isParts(value: unknown): boolean {
  return Array.isArray(value) && value.every(isPart);
}

function isMessage(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const { messageId, role } = value;
  if (typeof messageId !== 'string' || messageId === '') return false;
  if (typeof role !== 'string' || !ROLE_SET.has(role) || !isParts(value.parts)) return false;
  if (!isOptionalString(value.contextId) || !isOptionalString(value.taskId)) return false;
  if (value.metadata !== undefined && !isRecord(value.metadata)) return false;
  return isStringArray(value.extensions) && isStringArray(value.referenceTaskIds);
}

function isArtifact(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const { artifactId } = value;
  if (typeof artifactId !== 'string' || artifactId === '' || !isParts(value.parts)) return false;
  if (!isOptionalString(value.name) || !isOptionalString(value.description)) return false;
  if (value.metadata !== undefined && !isRecord(value.metadata)) return false;
  return isStringArray(value.extensions);
}
