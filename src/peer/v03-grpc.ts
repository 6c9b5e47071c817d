/**
 * @module peer/v03-grpc
 * A2A v0.3 over gRPC at the reference peer's edge (docs/design.md §4 "Two dialects", §16): a call
 * of v0.3's service (package `a2a.v1`) is read into the v1.0 call the {@link RequestHandler}
 * knows by the observer's own v0.3 reader (src/observe/v03-dialect.ts: `content` parts, tasks
 * named `tasks/{id}`), and its v1.0 result or stream event goes out as ProtoJSON of the v0.3
 * proto: a message's parts as `content`, a file part as `file.fileWithBytes` / `fileWithUri`, a
 * DataPart's object inside `data.data`, `TASK_STATE_CANCELLED`, `final` on the status update that
 * ends the stream, push configs as named resources. Pure.
 *
 * v0.3's proto has no pause extension and no TASK_STATE_PAUSED: the pause methods are not served
 * over v0.3 gRPC, and a paused task's state goes out as enum value 9, the number pause.proto gives
 * TASK_STATE_PAUSED, which a v0.3 client reads as a state it does not know.
 */
import type { JsonObject, JsonValue } from '../canonical/canonical-json.js';
import { v03GrpcParams } from '../observe/v03-dialect.js';
import type { StreamResponse } from '../protocol/types.js';
import { endsV03Stream } from './v03-dialect.js';

type Obj = { [key: string]: JsonValue };

function asObj(value: unknown): Obj | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : undefined;
}

/** The v1.0 params of a v0.3 gRPC call to `method` (its v1.0 name), from the request's ProtoJSON. */
export function grpcParamsFromV03(method: string, params: JsonValue): unknown {
  const p = asObj(v03GrpcParams(method, params));
  const config = asObj(p?.configuration);
  // The v0.3 proto names the send configuration's push config `pushNotification`.
  if (p === undefined || config?.pushNotification === undefined) return p ?? params;
  const { pushNotification, ...rest } = config;
  return { ...p, configuration: { ...rest, taskPushNotificationConfig: pushNotification } };
}

/** The pause extension's state number (pause.proto), which v0.3's TaskState has no name for. */
const PAUSED_NUMBER = 9;

function stateToV03(state: JsonValue | undefined): JsonValue | undefined {
  if (state === 'TASK_STATE_CANCELED') return 'TASK_STATE_CANCELLED';
  if (state === 'TASK_STATE_PAUSED') return PAUSED_NUMBER;
  return state;
}

function partToV03(value: JsonValue): JsonValue {
  const p = asObj(value);
  if (p === undefined) return value;
  if (p.text !== undefined) return { text: p.text };
  if (p.data !== undefined) return { data: { data: p.data } };
  const file: Obj = {};
  if (p.raw !== undefined) file.fileWithBytes = p.raw;
  if (p.url !== undefined) file.fileWithUri = p.url;
  if (p.mediaType !== undefined) file.mimeType = p.mediaType;
  return { file };
}

function partsToV03(parts: JsonValue | undefined): JsonValue[] {
  return Array.isArray(parts) ? parts.map(partToV03) : [];
}

function messageToV03(value: JsonValue | undefined): JsonValue | undefined {
  const m = asObj(value);
  if (m === undefined) return value;
  const { parts, referenceTaskIds: _refs, ...rest } = m;
  return { ...rest, content: partsToV03(parts) };
}

function statusToV03(value: JsonValue | undefined): Obj {
  const { pause: _pause, ...s } = asObj(value) ?? {};
  const out: Obj = { ...s };
  const state = stateToV03(s.state);
  if (state !== undefined) out.state = state;
  const message = messageToV03(s.message);
  if (message !== undefined) out.message = message;
  return out;
}

function artifactToV03(value: JsonValue): JsonValue {
  const a = asObj(value);
  return a === undefined ? value : { ...a, parts: partsToV03(a.parts) };
}

/** A v1.0 Task as ProtoJSON of v0.3's Task. */
function taskToV03(value: JsonValue | undefined): JsonObject {
  const t = asObj(value) ?? {};
  const out: Obj = { ...t, status: statusToV03(t.status) };
  if (Array.isArray(t.history)) out.history = t.history.map((m) => messageToV03(m) as JsonValue);
  if (Array.isArray(t.artifacts)) out.artifacts = t.artifacts.map(artifactToV03);
  return out;
}

/** A v1.0 push config as v0.3's named resource `tasks/{taskId}/pushNotificationConfigs/{id}`. */
function pushConfigToV03(value: JsonValue): JsonValue {
  const c = asObj(value);
  if (c === undefined) return value;
  const { taskId, tenant: _tenant, ...config } = c;
  const id = typeof config.id === 'string' ? config.id : '';
  const task = typeof taskId === 'string' ? taskId : '';
  return { name: `tasks/${task}/pushNotificationConfigs/${id}`, pushNotificationConfig: config };
}

/** A v1.0 StreamResponse as v0.3's (`final` on the status update that ends the stream). */
export function grpcEventToV03(event: StreamResponse): JsonObject {
  const e = event as unknown as Obj;
  if (e.task !== undefined) return { task: taskToV03(e.task) };
  if (e.message !== undefined) return { message: messageToV03(e.message) ?? null };
  const update = asObj(e.statusUpdate);
  if (update !== undefined) {
    return { statusUpdate: { ...update, status: statusToV03(update.status), final: endsV03Stream(event) } };
  }
  const artifact = asObj(e.artifactUpdate) ?? {};
  return { artifactUpdate: { ...artifact, artifact: artifactToV03(artifact.artifact ?? {}) } };
}

/** A v1.0 result of `method` as ProtoJSON of the v0.3 method's response message. */
export function grpcResultToV03(method: string, result: unknown): unknown {
  const r = asObj(result);
  if (r === undefined) return result;
  switch (method) {
    case 'SendMessage':
      return r.task !== undefined ? { task: taskToV03(r.task) } : { message: messageToV03(r.message) ?? null };
    case 'GetTask':
    case 'CancelTask':
      return taskToV03(r);
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return pushConfigToV03(r);
    case 'ListTaskPushNotificationConfigs':
      return { ...r, configs: Array.isArray(r.configs) ? r.configs.map(pushConfigToV03) : [] };
    default:
      return result;
  }
}
