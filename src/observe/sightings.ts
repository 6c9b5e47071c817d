/**
 * @module observe/sightings
 * Reads what a result or stream event says about a task into one flat fact, a {@link Sighting}:
 * its effective state, the pause it carries and the resume it announces. Native
 * `TASK_STATE_PAUSED` + `status.pause` and the legacy `metadata.harn.pause` envelope
 * (protocol/legacy) come out the same, so the observer derives the same receipts from both.
 */
import { isRecord } from '../protocol/read.js';
import { type FieldIssue, formatIssue } from '../protocol/read.js';
import { type HarnPauseEnvelope, legacyToPause, parseLegacyEnvelope } from '../protocol/legacy.js';
import { parsePauseTaskResult, parseResumeMetadata, parseResumeTaskResult } from '../protocol/parse-objects.js';
import type {
  Message,
  ResumeCause,
  Task,
  TaskPause,
  TaskState,
  TaskStatus,
  TaskStatusUpdateEvent,
} from '../protocol/types.js';
import type { FindingCode } from './findings.js';

/** A resume as announced by the peer (RFC resume event `metadata`, or the legacy `resumed` envelope). */
export interface ResumeSignal {
  cause: ResumeCause;
  resumedAt: string;
  hadResumeInput: boolean;
  continueTranscript: boolean;
}

/** One observation of a task's status. */
export interface Sighting {
  taskId: string;
  contextId: string | null;
  /** The effective state: a legacy paused envelope on a WORKING status (only) counts as PAUSED. */
  state: TaskState;
  pause: TaskPause | undefined;
  /** The pause or resume came from `metadata.harn.pause`. */
  legacy: boolean;
  resume: ResumeSignal | undefined;
  /** `status.timestamp`, when the peer gave one. */
  timestamp: string | undefined;
  /** `status.message`: an interrupted state's prompt (docs/design.md §14.9). */
  message: Message | undefined;
}

export interface SightingIssue {
  code: FindingCode;
  field: string;
  message: string;
}

export function issueOf(code: FindingCode, issue: FieldIssue): SightingIssue {
  return { code, field: issue.field, message: formatIssue(issue) };
}

/** Pause-related fields get `malformed-pause`, anything else `malformed-result`. */
export function codeForField(field: string): FindingCode {
  return /\.pause\b|\.metadata\b|\.previousState\b/.test(field) ? 'malformed-pause' : 'malformed-result';
}

function readLegacy(metadata: unknown, field: string, issues: SightingIssue[]): HarnPauseEnvelope | undefined {
  const parsed = parseLegacyEnvelope(metadata, field);
  if (!parsed.ok) {
    issues.push(issueOf('malformed-pause', parsed.issue));
    return undefined;
  }
  return parsed.value;
}

function fromStatus(
  taskId: string,
  contextId: string | null,
  status: TaskStatus,
  envelope: HarnPauseEnvelope | undefined,
  field: string,
  issues: SightingIssue[],
): Sighting {
  const sighting: Sighting = {
    taskId,
    contextId,
    state: status.state,
    pause: undefined,
    legacy: false,
    resume: undefined,
    timestamp: status.timestamp,
    message: status.message,
  };
  if (status.state === 'TASK_STATE_PAUSED') {
    if (status.pause) sighting.pause = status.pause;
    else
      issues.push({
        code: 'malformed-pause',
        field: `${field}.status.pause`,
        message: `${field}.status.pause: a PAUSED status must carry its pause; got nothing`,
      });
  } else if (envelope?.state === 'paused' && status.state === 'TASK_STATE_WORKING') {
    // The legacy envelope tunnels a pause on a WORKING status only: on any other state it is a
    // leftover (a store that merges status metadata keeps the last envelope), not a pause.
    sighting.state = 'TASK_STATE_PAUSED';
    sighting.pause = legacyToPause(envelope);
    sighting.legacy = true;
  }
  if (envelope?.state === 'resumed') {
    sighting.legacy = true;
    sighting.resume = {
      cause: envelope.cause,
      resumedAt: envelope.resumedAt,
      hadResumeInput: envelope.hadResumeInput,
      continueTranscript: envelope.continueTranscript,
    };
  }
  return sighting;
}

/** A `statusUpdate` stream event. `field` is its path, e.g. `body.result.statusUpdate`. */
export function sightStatusUpdate(
  event: TaskStatusUpdateEvent,
  field: string,
): { sighting: Sighting; issues: SightingIssue[] } {
  const issues: SightingIssue[] = [];
  const envelope = readLegacy(event.metadata, `${field}.metadata`, issues);
  const sighting = fromStatus(event.taskId, event.contextId, event.status, envelope, field, issues);
  if (!sighting.resume) {
    const meta = parseResumeMetadata(event.metadata, `${field}.metadata`);
    if (!meta.ok) issues.push(issueOf('malformed-pause', meta.issue));
    else if (meta.value) {
      const { cause, resumedAt, hadResumeInput, continueTranscript } = meta.value;
      sighting.resume = { cause, resumedAt, hadResumeInput, continueTranscript };
    }
  }
  return { sighting, issues };
}

/**
 * A Task (GetTask, CancelTask, a SendMessage result, a stream's `task` member). A peer may keep the
 * RFC resume metadata of the last resume on `Task.metadata` (docs/design.md §14.2): it is read like
 * a status update's.
 */
export function sightTask(task: Task, field: string): { sighting: Sighting; issues: SightingIssue[] } {
  const issues: SightingIssue[] = [];
  const envelope = readLegacy(task.metadata, `${field}.metadata`, issues);
  const sighting = fromStatus(task.id, task.contextId ?? null, task.status, envelope, field, issues);
  if (!sighting.resume && sighting.state === 'TASK_STATE_WORKING') {
    const meta = parseResumeMetadata(task.metadata, `${field}.metadata`);
    if (!meta.ok) issues.push(issueOf('malformed-pause', meta.issue));
    else if (meta.value) {
      const { cause, resumedAt, hadResumeInput, continueTranscript } = meta.value;
      sighting.resume = { cause, resumedAt, hadResumeInput, continueTranscript };
    }
  }
  return { sighting, issues };
}

export interface PauseCallResult {
  taskId: string;
  pause: TaskPause;
  legacy: boolean;
}

/** The result of PauseTask / AwaitTaskResumption: native `{taskId, state: PAUSED, pause}` or the legacy envelope. */
export function readPauseCallResult(
  result: unknown,
  field: string,
): { ok: true; value: PauseCallResult } | { ok: false; issue: SightingIssue } {
  const native = parsePauseTaskResult(result, field);
  if (native.ok) return { ok: true, value: { taskId: native.value.taskId, pause: native.value.pause, legacy: false } };
  if (
    isRecord(result) &&
    typeof result.taskId === 'string' &&
    result.taskId !== '' &&
    result.state !== 'TASK_STATE_PAUSED'
  ) {
    const legacy = parseLegacyEnvelope(result.metadata, `${field}.metadata`);
    if (!legacy.ok) return { ok: false, issue: issueOf('malformed-pause', legacy.issue) };
    if (legacy.value?.state === 'paused') {
      return { ok: true, value: { taskId: result.taskId, pause: legacyToPause(legacy.value), legacy: true } };
    }
  }
  return { ok: false, issue: issueOf('malformed-pause', native.issue) };
}

export interface ResumeCallResult {
  taskId: string;
  cause: ResumeCause;
  resumedAt: string;
}

/** The result of ResumeTask: native `{taskId, state, previousState, cause, resumedAt}` or the legacy envelope. */
export function readResumeCallResult(
  result: unknown,
  field: string,
): { ok: true; value: ResumeCallResult } | { ok: false; issue: SightingIssue } {
  const native = parseResumeTaskResult(result, field);
  if (native.ok)
    return {
      ok: true,
      value: { taskId: native.value.taskId, cause: native.value.cause, resumedAt: native.value.resumedAt },
    };
  if (
    isRecord(result) &&
    typeof result.taskId === 'string' &&
    result.taskId !== '' &&
    result.previousState === undefined
  ) {
    const legacy = parseLegacyEnvelope(result.metadata, `${field}.metadata`);
    if (!legacy.ok) return { ok: false, issue: issueOf('malformed-pause', legacy.issue) };
    if (legacy.value?.state === 'resumed') {
      return {
        ok: true,
        value: { taskId: result.taskId, cause: legacy.value.cause, resumedAt: legacy.value.resumedAt },
      };
    }
  }
  return { ok: false, issue: issueOf('malformed-pause', native.issue) };
}
