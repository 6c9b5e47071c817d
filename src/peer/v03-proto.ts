/**
 * @module peer/v03-proto
 * A2A v0.3 HTTP+JSON bodies at the reference peer's edge (docs/design.md §4 "Two dialects"): ProtoJSON
 * of the v0.3 proto in, the v1.0 call the {@link RequestHandler} knows; its v1.0 result or stream event
 * out, the ProtoJSON the v0.3 SDK's REST client reads. Pure.
 *
 * The v0.3 proto names a message's parts `content`; a DataPart is a message holding the Struct
 * (`{data: {data: {...}}}`); a FilePart is `{fileWithUri | fileWithBytes, mimeType}`; roles and states
 * are enum names as in v1.0, but CANCELED is spelt `TASK_STATE_CANCELLED`; a stream's status update
 * says `final`; `SendMessageConfiguration.blocking` is a plain proto bool, so a configuration that
 * leaves it out is not blocking. The pause extension's state keeps its v1.0 name,
 * `TASK_STATE_PAUSED` (this project's proposal).
 */
import type { JsonObject, JsonValue } from '../canonical/canonical-json.js';
import type { StreamResponse } from '../protocol/types.js';
import { endsV03Stream } from './v03-dialect.js';

type Obj = { [key: string]: JsonValue };

function asObj(value: unknown): Obj | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : undefined;
}

function without(o: Obj, ...keys: string[]): Obj {
  const out = { ...o };
  for (const key of keys) delete out[key];
  return out;
}

// ---- v0.3 ProtoJSON in ----

function partFromProto(value: JsonValue): JsonValue {
  const p = asObj(value);
  if (p === undefined) return value;
  const out: Obj = {};
  if (p.metadata !== undefined) out.metadata = p.metadata;
  if (p.text !== undefined) {
    out.text = p.text;
    return out;
  }
  const data = asObj(p.data);
  if (data !== undefined) {
    out.data = data.data ?? {};
    return out;
  }
  const file = asObj(p.file);
  if (file === undefined) return value; // no v0.3 part: for the v1.0 reader to name
  if (typeof file.fileWithBytes === 'string') out.raw = file.fileWithBytes;
  if (typeof file.fileWithUri === 'string') out.url = file.fileWithUri;
  if (typeof file.mimeType === 'string' && file.mimeType !== '') out.mediaType = file.mimeType;
  if (typeof file.name === 'string' && file.name !== '') out.filename = file.name;
  return out;
}

function messageFromProto(value: JsonValue | undefined): JsonValue | undefined {
  const m = asObj(value);
  if (m === undefined) return value;
  const out = without(m, 'content');
  out.parts = Array.isArray(m.content) ? m.content.map(partFromProto) : (m.parts ?? []);
  return out;
}

/** A v0.3 `SendMessageRequest` as v1.0 params: its `message` (or `request`), its configuration. */
function sendParamsFromProto(body: Obj): Obj {
  const out = without(body, 'request', 'message', 'configuration');
  const message = messageFromProto(body.message ?? body.request);
  if (message !== undefined) out.message = message;
  const config = asObj(body.configuration);
  if (config !== undefined) {
    const c = without(config, 'blocking', 'pushNotification');
    if (config.blocking !== true) c.returnImmediately = true;
    if (config.pushNotification !== undefined) c.taskPushNotificationConfig = config.pushNotification;
    out.configuration = c;
  }
  return out;
}

/** The v1.0 params of a v0.3 HTTP+JSON call to `method` (its v1.0 name). */
export function paramsFromV03Proto(method: string, params: unknown): unknown {
  const p = asObj(params);
  if (p === undefined) return params;
  return method === 'SendMessage' || method === 'SendStreamingMessage' ? sendParamsFromProto(p) : params;
}

// ---- v0.3 ProtoJSON out ----

/** A v1.0 state's v0.3 proto name: CANCELED is spelt CANCELLED; the others, PAUSED included, stay. */
export function stateToV03Proto(state: string): string {
  return state === 'TASK_STATE_CANCELED' ? 'TASK_STATE_CANCELLED' : state;
}

function partToProto(value: JsonValue): JsonValue {
  const p = asObj(value);
  if (p === undefined) return value;
  if (p.text !== undefined) return { text: p.text };
  if (p.data !== undefined) return { data: { data: p.data } };
  const file: Obj = {};
  if (p.url !== undefined) file.fileWithUri = p.url;
  else if (p.raw !== undefined) file.fileWithBytes = p.raw;
  if (p.mediaType !== undefined) file.mimeType = p.mediaType;
  return { file };
}

function messageToProto(value: JsonValue | undefined): JsonValue | undefined {
  const m = asObj(value);
  if (m === undefined) return value;
  const out = without(m, 'parts', 'referenceTaskIds');
  out.content = Array.isArray(m.parts) ? m.parts.map(partToProto) : [];
  return out;
}

function statusToProto(value: JsonValue | undefined): JsonValue | undefined {
  const s = asObj(value);
  if (s === undefined) return value;
  const out: Obj = { ...s };
  if (typeof s.state === 'string') out.state = stateToV03Proto(s.state);
  if (s.message !== undefined) out.message = messageToProto(s.message) ?? null;
  return out;
}

function artifactToProto(value: JsonValue): JsonValue {
  const a = asObj(value);
  return a === undefined ? value : { ...a, parts: Array.isArray(a.parts) ? a.parts.map(partToProto) : [] };
}

/** A v1.0 Task as the v0.3 proto's ProtoJSON. */
export function taskToV03Proto(value: JsonValue | undefined): JsonObject {
  const t = asObj(value) ?? {};
  const out: Obj = { ...t };
  if (t.status !== undefined) out.status = statusToProto(t.status) ?? null;
  if (Array.isArray(t.history)) out.history = t.history.map((m) => messageToProto(m) ?? null);
  if (Array.isArray(t.artifacts)) out.artifacts = t.artifacts.map(artifactToProto);
  return out;
}

/** A v1.0 StreamResponse as the v0.3 proto's (`final` on a status update that ends the stream). */
export function eventToV03Proto(event: StreamResponse): JsonObject {
  const e = event as unknown as Obj;
  if (e.task !== undefined) return { task: taskToV03Proto(e.task) };
  if (e.message !== undefined) return { message: messageToProto(e.message) ?? null };
  const update = asObj(e.statusUpdate);
  if (update !== undefined) {
    return { statusUpdate: { ...update, status: statusToProto(update.status) ?? null, final: endsV03Stream(event) } };
  }
  const artifact = asObj(e.artifactUpdate) ?? {};
  return { artifactUpdate: { ...artifact, artifact: artifactToProto(artifact.artifact ?? {}) } };
}

/** A v1.0 result of `method` as v0.3 HTTP+JSON answers it. */
export function resultToV03Proto(method: string, result: unknown): unknown {
  const r = asObj(result);
  if (r === undefined) return result;
  switch (method) {
    case 'SendMessage':
      return r.task !== undefined ? { task: taskToV03Proto(r.task) } : { message: messageToProto(r.message) ?? null };
    case 'GetTask':
    case 'CancelTask':
      return taskToV03Proto(r);
    case 'PauseTask':
    case 'AwaitTaskResumption':
    case 'ResumeTask': {
      const out: Obj = { ...r };
      if (typeof r.state === 'string') out.state = stateToV03Proto(r.state);
      if (typeof r.previousState === 'string') out.previousState = stateToV03Proto(r.previousState);
      return out;
    }
    default:
      return result;
  }
}
