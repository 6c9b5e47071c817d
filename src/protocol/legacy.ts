/**
 * @module protocol/legacy
 * The Harn-style legacy pause envelope (RFC "Compatibility and migration"): peers without
 * TASK_STATE_PAUSED report a pause as `TASK_STATE_WORKING` plus `metadata.harn.pause`, with the
 * suspension handle standing in for the resume token. A peer in `--legacy-pause` mode writes it;
 * the observer reads it and writes the same receipts as for a native pause (`via: "legacy-metadata"`).
 *
 * Where it rides:
 * - status updates: `statusUpdate.metadata.harn.pause` (state stays TASK_STATE_WORKING);
 * - tasks (GetTask, first stream event): `task.metadata.harn.pause`;
 * - PauseTask / AwaitTaskResumption results: `{taskId, state: "TASK_STATE_WORKING", metadata: {harn: {pause}}}`;
 * - ResumeTask results: `{taskId, state: "TASK_STATE_WORKING", metadata: {harn: {pause: <resumed>}}}`.
 */
import type { JsonObject } from '../canonical/canonical-json.js';
import { readConditions } from './parse-objects.js';
import {
  type ParseResult,
  boolean,
  fail,
  isRecord,
  nonEmptyString,
  oneOf,
  parseWith,
  string,
  timestamp,
} from './read.js';
import {
  PAUSE_MODES,
  type PauseInitiator,
  type PauseMode,
  RESUME_CAUSES,
  type ResumeCause,
  type ResumeConditions,
  type ResumeEventMetadata,
  type TaskPause,
} from './types.js';

export interface HarnPausedEnvelope {
  state: 'paused';
  initiator: 'client' | 'agent';
  /** The suspension handle: the resume token. */
  handle: string;
  reason?: string;
  conditions?: ResumeConditions;
  pausedAt: string;
  pausedUntil?: string;
  resumable: boolean;
  mode?: PauseMode;
}

export interface HarnResumedEnvelope {
  state: 'resumed';
  cause: ResumeCause;
  resumedAt: string;
  hadResumeInput: boolean;
  continueTranscript: boolean;
}

export type HarnPauseEnvelope = HarnPausedEnvelope | HarnResumedEnvelope;

/** The RFC pause as the legacy envelope. */
export function pauseToLegacy(pause: TaskPause, mode?: PauseMode): HarnPausedEnvelope {
  const env: HarnPausedEnvelope = {
    state: 'paused',
    initiator: pause.initiatedBy === 'PAUSE_INITIATOR_AGENT' ? 'agent' : 'client',
    handle: pause.resumeToken,
    pausedAt: pause.pausedAt,
    resumable: pause.resumable,
  };
  if (pause.reason !== undefined) env.reason = pause.reason;
  if (pause.conditions !== undefined) env.conditions = pause.conditions;
  if (pause.pausedUntil !== undefined) env.pausedUntil = pause.pausedUntil;
  if (mode !== undefined) env.mode = mode;
  return env;
}

export function resumeToLegacy(meta: ResumeEventMetadata): HarnResumedEnvelope {
  return {
    state: 'resumed',
    cause: meta.cause,
    resumedAt: meta.resumedAt,
    hadResumeInput: meta.hadResumeInput,
    continueTranscript: meta.continueTranscript,
  };
}

/** `{harn: {pause: envelope}}`, to merge into a metadata object. */
export function legacyMetadata(envelope: HarnPauseEnvelope): JsonObject {
  return { harn: { pause: envelope as unknown as JsonObject } };
}

/** The RFC pause a legacy paused envelope stands for. */
export function legacyToPause(env: HarnPausedEnvelope): TaskPause {
  const initiatedBy: PauseInitiator = env.initiator === 'agent' ? 'PAUSE_INITIATOR_AGENT' : 'PAUSE_INITIATOR_CLIENT';
  const pause: TaskPause = { initiatedBy, pausedAt: env.pausedAt, resumeToken: env.handle, resumable: env.resumable };
  if (env.reason !== undefined) pause.reason = env.reason;
  if (env.pausedUntil !== undefined) pause.pausedUntil = env.pausedUntil;
  if (env.conditions !== undefined) pause.conditions = env.conditions;
  return pause;
}

/**
 * Reads `metadata.harn.pause` from a metadata object. `undefined` when there is none; an issue
 * naming the field when it is there but malformed.
 */
export function parseLegacyEnvelope(metadata: unknown, field = 'metadata'): ParseResult<HarnPauseEnvelope | undefined> {
  return parseWith(() => {
    if (!isRecord(metadata) || !isRecord(metadata.harn) || metadata.harn.pause === undefined) return undefined;
    const f = `${field}.harn.pause`;
    const r = metadata.harn.pause;
    if (!isRecord(r)) fail(f, 'an object', r);
    const state = oneOf(r.state, `${f}.state`, ['paused', 'resumed'] as const);
    if (state === 'resumed') {
      return {
        state,
        cause: oneOf(r.cause, `${f}.cause`, RESUME_CAUSES),
        resumedAt: timestamp(r.resumedAt, `${f}.resumedAt`),
        hadResumeInput: boolean(r.hadResumeInput, `${f}.hadResumeInput`),
        continueTranscript: boolean(r.continueTranscript, `${f}.continueTranscript`),
      };
    }
    const env: HarnPausedEnvelope = {
      state,
      initiator: oneOf(r.initiator, `${f}.initiator`, ['client', 'agent'] as const),
      handle: nonEmptyString(r.handle, `${f}.handle`),
      pausedAt: timestamp(r.pausedAt, `${f}.pausedAt`),
      resumable: r.resumable === undefined ? true : boolean(r.resumable, `${f}.resumable`),
    };
    if (r.reason !== undefined) env.reason = string(r.reason, `${f}.reason`);
    if (r.conditions !== undefined) env.conditions = readConditions(r.conditions, `${f}.conditions`);
    if (r.pausedUntil !== undefined) env.pausedUntil = timestamp(r.pausedUntil, `${f}.pausedUntil`);
    if (r.mode !== undefined) env.mode = oneOf(r.mode, `${f}.mode`, PAUSE_MODES);
    return env;
  });
}
