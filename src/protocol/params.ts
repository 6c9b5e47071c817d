/**
 * @module protocol/params
 * Parsers for each method's `params` (A2A v1.0 requests, the pause extension, the control
 * channel). A bad member is a -32602 whose message names the field and what was expected.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { readConditions, readMessage } from './parse-objects.js';
import {
  type ParseResult,
  boolean,
  fail,
  integer,
  jsonObject,
  nonEmptyString,
  object,
  oneOf,
  parseWith,
  string,
  stringArray,
  timestamp,
} from './read.js';
import {
  type AwaitTaskResumptionParams,
  type CancelTaskParams,
  DEFAULT_PAUSE_MODE,
  type GetTaskParams,
  type ListTasksParams,
  PAUSE_MODES,
  type PauseTaskParams,
  type ResumeTaskParams,
  type SendMessageConfiguration,
  type SendMessageParams,
  type SubscribeToTaskParams,
  TASK_STATES,
} from './types.js';

export interface AdvanceClockParams {
  ms: number;
}

export interface FireEventParams {
  name: string;
  payload?: JsonValue;
}

/** Params of every method this project understands, keyed by method. */
export type MethodCall =
  | { method: 'SendMessage'; params: SendMessageParams }
  | { method: 'SendStreamingMessage'; params: SendMessageParams }
  | { method: 'GetTask'; params: GetTaskParams }
  | { method: 'ListTasks'; params: ListTasksParams }
  | { method: 'CancelTask'; params: CancelTaskParams }
  | { method: 'SubscribeToTask'; params: SubscribeToTaskParams }
  | { method: 'PauseTask'; params: PauseTaskParams }
  | { method: 'ResumeTask'; params: ResumeTaskParams }
  | { method: 'AwaitTaskResumption'; params: AwaitTaskResumptionParams }
  | { method: 'AdvanceClock'; params: AdvanceClockParams }
  | { method: 'FireEvent'; params: FireEventParams }
  | { method: 'GetClock'; params: Record<string, never> };

export type KnownMethod = MethodCall['method'];

const P = 'params';

function tenantOf(r: Record<string, unknown>): { tenant?: string } {
  return r.tenant === undefined ? {} : { tenant: string(r.tenant, `${P}.tenant`) };
}

function readConfiguration(value: unknown): SendMessageConfiguration {
  const f = `${P}.configuration`;
  const r = object(value, f);
  const c: SendMessageConfiguration = {};
  if (r.acceptedOutputModes !== undefined)
    c.acceptedOutputModes = stringArray(r.acceptedOutputModes, `${f}.acceptedOutputModes`);
  if (r.historyLength !== undefined) c.historyLength = integer(r.historyLength, `${f}.historyLength`, 0);
  if (r.returnImmediately !== undefined) c.returnImmediately = boolean(r.returnImmediately, `${f}.returnImmediately`);
  if (r.taskPushNotificationConfig !== undefined) {
    c.taskPushNotificationConfig = jsonObject(r.taskPushNotificationConfig, `${f}.taskPushNotificationConfig`);
  }
  return c;
}

export function readSendMessageParams(value: unknown): SendMessageParams {
  const r = object(value, P);
  const params: SendMessageParams = { ...tenantOf(r), message: readMessage(r.message, `${P}.message`) };
  if (r.configuration !== undefined) params.configuration = readConfiguration(r.configuration);
  if (r.metadata !== undefined) params.metadata = jsonObject(r.metadata, `${P}.metadata`);
  return params;
}

function readGetTaskParams(value: unknown): GetTaskParams {
  const r = object(value, P);
  const params: GetTaskParams = { ...tenantOf(r), id: nonEmptyString(r.id, `${P}.id`) };
  if (r.historyLength !== undefined) params.historyLength = integer(r.historyLength, `${P}.historyLength`, 0);
  return params;
}

function readListTasksParams(value: unknown): ListTasksParams {
  const r = object(value ?? {}, P);
  const params: ListTasksParams = { ...tenantOf(r) };
  if (r.contextId !== undefined) params.contextId = string(r.contextId, `${P}.contextId`);
  if (r.status !== undefined) params.status = oneOf(r.status, `${P}.status`, TASK_STATES);
  if (r.pageSize !== undefined) params.pageSize = integer(r.pageSize, `${P}.pageSize`, 1, 100);
  if (r.pageToken !== undefined) params.pageToken = string(r.pageToken, `${P}.pageToken`);
  if (r.historyLength !== undefined) params.historyLength = integer(r.historyLength, `${P}.historyLength`, 0);
  if (r.statusTimestampAfter !== undefined) {
    params.statusTimestampAfter = timestamp(r.statusTimestampAfter, `${P}.statusTimestampAfter`);
  }
  if (r.includeArtifacts !== undefined) params.includeArtifacts = boolean(r.includeArtifacts, `${P}.includeArtifacts`);
  return params;
}

function readCancelTaskParams(value: unknown): CancelTaskParams {
  const r = object(value, P);
  const params: CancelTaskParams = { ...tenantOf(r), id: nonEmptyString(r.id, `${P}.id`) };
  if (r.metadata !== undefined) params.metadata = jsonObject(r.metadata, `${P}.metadata`);
  return params;
}

function readSubscribeParams(value: unknown): SubscribeToTaskParams {
  const r = object(value, P);
  return { ...tenantOf(r), id: nonEmptyString(r.id, `${P}.id`) };
}

export function readPauseTaskParams(value: unknown): PauseTaskParams {
  const r = object(value, P);
  const params: PauseTaskParams = {
    taskId: nonEmptyString(r.taskId, `${P}.taskId`),
    mode: r.mode === undefined ? DEFAULT_PAUSE_MODE : oneOf(r.mode, `${P}.mode`, PAUSE_MODES),
  };
  if (r.reason !== undefined) params.reason = string(r.reason, `${P}.reason`);
  if (r.metadata !== undefined) params.metadata = jsonObject(r.metadata, `${P}.metadata`);
  return params;
}

export function readAwaitParams(value: unknown): AwaitTaskResumptionParams {
  const r = object(value, P);
  if (r.conditions === undefined) fail(`${P}.conditions`, 'an object with onEvent, trigger or timeout', undefined);
  const params: AwaitTaskResumptionParams = {
    taskId: nonEmptyString(r.taskId, `${P}.taskId`),
    conditions: readConditions(r.conditions, `${P}.conditions`),
  };
  if (r.reason !== undefined) params.reason = string(r.reason, `${P}.reason`);
  if (r.summary !== undefined) params.summary = string(r.summary, `${P}.summary`);
  if (r.metadata !== undefined) params.metadata = jsonObject(r.metadata, `${P}.metadata`);
  return params;
}

export function readResumeTaskParams(value: unknown): ResumeTaskParams {
  const r = object(value, P);
  const params: ResumeTaskParams = {
    taskId: nonEmptyString(r.taskId, `${P}.taskId`),
    resumeToken: nonEmptyString(r.resumeToken, `${P}.resumeToken`),
    continueTranscript:
      r.continueTranscript === undefined ? true : boolean(r.continueTranscript, `${P}.continueTranscript`),
  };
  // `input: null` is the RFC's "no input" (its own example sends it).
  if (r.input !== undefined && r.input !== null) params.input = r.input as JsonValue;
  if (r.metadata !== undefined) params.metadata = jsonObject(r.metadata, `${P}.metadata`);
  return params;
}

function readAdvanceClockParams(value: unknown): AdvanceClockParams {
  const r = object(value, P);
  return { ms: integer(r.ms, `${P}.ms`, 0, 366 * 24 * 3600 * 1000) };
}

function readFireEventParams(value: unknown): FireEventParams {
  const r = object(value, P);
  const params: FireEventParams = { name: nonEmptyString(r.name, `${P}.name`) };
  if (r.payload !== undefined) params.payload = r.payload as JsonValue;
  return params;
}

const READERS: { [M in KnownMethod]: (params: unknown) => Extract<MethodCall, { method: M }>['params'] } = {
  SendMessage: readSendMessageParams,
  SendStreamingMessage: readSendMessageParams,
  GetTask: readGetTaskParams,
  ListTasks: readListTasksParams,
  CancelTask: readCancelTaskParams,
  SubscribeToTask: readSubscribeParams,
  PauseTask: readPauseTaskParams,
  ResumeTask: readResumeTaskParams,
  AwaitTaskResumption: readAwaitParams,
  AdvanceClock: readAdvanceClockParams,
  FireEvent: readFireEventParams,
  GetClock: () => ({}),
};

export function isKnownMethod(method: string): method is KnownMethod {
  return Object.hasOwn(READERS, method);
}

/**
 * Parses `params` for a known method. Unknown methods are the caller's -32601; a bad member is a
 * -32602 naming it (e.g. `params.conditions.timeout.onTimeout`).
 */
export function parseMethodCall(method: KnownMethod, params: unknown): ParseResult<MethodCall> {
  return parseWith(() => ({ method, params: READERS[method](params) }) as MethodCall);
}
