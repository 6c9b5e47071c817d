/**
 * @module peer/v03-dialect
 * A2A v0.3 JSON-RPC at the reference peer's edge (docs/design.md §4 "Two dialects"), converted the
 * way the SDKs' compatibility layers do: a v0.3 method name and its params in, the v1.0 call the
 * {@link RequestHandler} knows; its v1.0 result or stream event out, the v0.3 shape the client
 * expects. Pure.
 *
 * v0.3 names its methods `message/send`, `tasks/get`, ...; states are lowercase kebab strings
 * (`input-required`); every task, message and event carries `kind`; parts are `{kind: "text" |
 * "file" | "data"}`; roles are `user` / `agent`; a status update says `final` when it ends the
 * stream. The pause extension in v0.3 is this project's proposal: `tasks/pause`, `tasks/resume`,
 * `tasks/awaitResumption`, with the RFC's params, and `paused` as the state's v0.3 name.
 */
import type { JsonObject, JsonValue } from '../canonical/canonical-json.js';
import { V03_METHODS, stateToV03 } from '../protocol/methods.js';
import type { StreamResponse, TaskState } from '../protocol/types.js';

/** Which dialects a peer serves (`peer --a2a-version`). */
export const A2A_VERSION_SETTINGS = ['0.3', '1.0', 'both'] as const;
export type A2aVersionSetting = (typeof A2A_VERSION_SETTINGS)[number];

/** The dialect one request speaks. */
export type Dialect = '0.3' | '1.0';

/** The `protocolVersion` a v0.3 card names. */
export const V03_PROTOCOL_VERSION = '0.3.0';

/** Whether `method` is a v0.3 method name. */
export function isV03Method(method: string): boolean {
  return Object.hasOwn(V03_METHODS, method);
}

/** Whether a request's A2A-Version value ('' for none) asks for v0.3: none, `0.3` or `0.3.x`. */
export function asksForV03(version: string): boolean {
  return version === '' || version === '0.3' || version.startsWith('0.3.');
}

/** Whether a peer set to `setting` serves `dialect`. */
export function serves(setting: A2aVersionSetting, dialect: Dialect): boolean {
  return setting === 'both' || setting === dialect;
}

type Obj = { [key: string]: JsonValue };

function asObj(value: unknown): Obj | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : undefined;
}

/** `o` without `kind` (v0.3's discriminator, which v1.0 has not). */
function withoutKind(o: Obj): Obj {
  const { kind: _kind, ...rest } = o;
  return rest;
}

// ---- v0.3 in ----

function partFromV03(value: JsonValue): JsonValue {
  const p = asObj(value);
  if (p === undefined) return value;
  const out: Obj = {};
  if (p.metadata !== undefined) out.metadata = p.metadata;
  switch (p.kind) {
    case 'text':
      out.text = p.text ?? null;
      return out;
    case 'data':
      out.data = p.data ?? null;
      return out;
    case 'file': {
      const file = asObj(p.file) ?? {};
      if (typeof file.bytes === 'string') out.raw = file.bytes;
      if (typeof file.uri === 'string') out.url = file.uri;
      if (typeof file.mimeType === 'string') out.mediaType = file.mimeType;
      if (typeof file.name === 'string') out.filename = file.name;
      return out;
    }
    default:
      // Not a v0.3 part: left as it came, for the v1.0 reader to name what is wrong with it.
      return value;
  }
}

function roleFromV03(role: JsonValue | undefined): JsonValue | undefined {
  return role === 'user' ? 'ROLE_USER' : role === 'agent' ? 'ROLE_AGENT' : role;
}

function messageFromV03(value: JsonValue | undefined): JsonValue | undefined {
  const m = asObj(value);
  if (m === undefined) return value;
  const out = withoutKind(m);
  const role = roleFromV03(m.role);
  if (role !== undefined) out.role = role;
  if (Array.isArray(m.parts)) out.parts = m.parts.map(partFromV03);
  return out;
}

/** `message/send` params: the message converted; `blocking: false` is v1.0's `returnImmediately: true`. */
function sendParamsFromV03(params: Obj): Obj {
  const out: Obj = { ...params };
  const message = messageFromV03(params.message);
  if (message !== undefined) out.message = message;
  const config = asObj(params.configuration);
  if (config !== undefined) {
    const { blocking, pushNotificationConfig, ...rest } = config;
    const c: Obj = { ...rest };
    if (blocking === false) c.returnImmediately = true;
    if (pushNotificationConfig !== undefined) c.taskPushNotificationConfig = pushNotificationConfig;
    out.configuration = c;
  }
  return out;
}

/** The v1.0 params of a v0.3 call to `method` (a v1.0 name, from {@link V03_METHODS}). */
export function paramsFromV03(method: string, params: unknown): unknown {
  const p = asObj(params);
  if (p === undefined) return params;
  return method === 'SendMessage' || method === 'SendStreamingMessage' ? sendParamsFromV03(p) : params;
}

// ---- v0.3 out ----

/** States after which a v0.3 status update is `final`: terminal and interrupted ones. */
const FINAL_STATES: ReadonlySet<string> = new Set<TaskState>([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
]);

function partToV03(value: JsonValue): JsonValue {
  const p = asObj(value);
  if (p === undefined) return value;
  const out: Obj = {};
  if (p.text !== undefined) {
    out.kind = 'text';
    out.text = p.text;
  } else if (p.data !== undefined) {
    out.kind = 'data';
    out.data = p.data;
  } else {
    const file: Obj = {};
    if (p.raw !== undefined) file.bytes = p.raw;
    if (p.url !== undefined) file.uri = p.url;
    if (p.mediaType !== undefined) file.mimeType = p.mediaType;
    if (p.filename !== undefined) file.name = p.filename;
    out.kind = 'file';
    out.file = file;
  }
  if (p.metadata !== undefined) out.metadata = p.metadata;
  return out;
}

function partsToV03(parts: JsonValue | undefined): JsonValue[] {
  return Array.isArray(parts) ? parts.map(partToV03) : [];
}

function messageToV03(value: JsonValue | undefined): JsonValue | undefined {
  const m = asObj(value);
  if (m === undefined) return value;
  const out: Obj = { kind: 'message', ...m, parts: partsToV03(m.parts) };
  out.role = m.role === 'ROLE_AGENT' ? 'agent' : 'user';
  return out;
}

function statusToV03(value: JsonValue | undefined): Obj {
  const s = asObj(value) ?? {};
  const out: Obj = { ...s, state: stateToV03(typeof s.state === 'string' ? s.state : 'TASK_STATE_UNSPECIFIED') };
  if (s.message !== undefined) out.message = messageToV03(s.message) as JsonValue;
  return out;
}

function artifactToV03(value: JsonValue): JsonValue {
  const a = asObj(value);
  return a === undefined ? value : { ...a, parts: partsToV03(a.parts) };
}

/** A v1.0 Task as v0.3 shows it (`kind: "task"`, kebab states, v0.3 parts). */
export function taskToV03(value: JsonValue | undefined): JsonObject {
  const t = asObj(value) ?? {};
  const out: Obj = { kind: 'task', ...t, status: statusToV03(t.status) };
  if (Array.isArray(t.history)) out.history = t.history.map((m) => messageToV03(m) as JsonValue);
  if (Array.isArray(t.artifacts)) out.artifacts = t.artifacts.map(artifactToV03);
  return out;
}

/** Whether `event` is a status update that ends a v0.3 stream (`final: true`). */
export function endsV03Stream(event: StreamResponse): boolean {
  const state = 'statusUpdate' in event ? event.statusUpdate.status.state : undefined;
  return state !== undefined && FINAL_STATES.has(state);
}

/** A v1.0 StreamResponse as a v0.3 stream result (`kind` inside, `final` on status updates). */
export function eventToV03(event: StreamResponse): JsonObject {
  const e = event as unknown as Obj;
  if (e.task !== undefined) return taskToV03(e.task);
  if (e.message !== undefined) return messageToV03(e.message) as JsonObject;
  const update = asObj(e.statusUpdate);
  if (update !== undefined) {
    const status = statusToV03(update.status);
    const state = asObj(update.status)?.state;
    return {
      kind: 'status-update',
      ...update,
      status,
      final: typeof state === 'string' && FINAL_STATES.has(state),
    };
  }
  const artifact = asObj(e.artifactUpdate) ?? {};
  return { kind: 'artifact-update', ...artifact, artifact: artifactToV03(artifact.artifact ?? {}) };
}

/** A v1.0 result of `method` as the v0.3 method answers it. */
export function resultToV03(method: string, result: unknown): unknown {
  const r = asObj(result);
  if (r === undefined) return result;
  switch (method) {
    case 'SendMessage':
      return r.task !== undefined ? taskToV03(r.task) : (messageToV03(r.message) ?? r);
    case 'GetTask':
    case 'CancelTask':
      return taskToV03(r);
    case 'PauseTask':
    case 'AwaitTaskResumption':
    case 'ResumeTask': {
      const out: Obj = { ...r };
      if (typeof r.state === 'string') out.state = stateToV03(r.state);
      if (typeof r.previousState === 'string') out.previousState = stateToV03(r.previousState);
      return out;
    }
    default:
      return result;
  }
}
