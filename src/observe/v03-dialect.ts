/**
 * @module observe/v03-dialect
 * The A2A v0.3 dialect read into the observer's one vocabulary (docs/design.md §14.10): v0.3
 * JSON-RPC (`message/send`, kebab states, `kind` discriminators, `role: "user"`, parts with
 * `kind`) and v0.3 HTTP+JSON (ProtoJSON of the v0.3 proto: `content`, `status.update`, `msg`,
 * `TASK_STATE_CANCELLED`, a DataPart's `data.data`) and v0.3 gRPC (the same ProtoJSON, tasks named
 * by resource name: `name: "tasks/{id}"`) become the v1.0 shapes the fact reader parses,
 * as the SDKs' compatibility layers convert at their edge. Only what differs is converted: members
 * both versions share pass as they are. Pure: no I/O, no clock.
 */
import { type CoreMethod, type PauseMethod, V03_METHODS, stateFromV03 } from '../protocol/methods.js';
import { isRecord } from '../protocol/read.js';

/** The v1.0 method a v0.3 JSON-RPC method name is, or undefined when it is none. */
export function v03Method(name: string): CoreMethod | PauseMethod | undefined {
  return Object.hasOwn(V03_METHODS, name) ? V03_METHODS[name] : undefined;
}

/** The two wire forms of v0.3: its JSON-RPC objects, and ProtoJSON of its proto (HTTP+JSON, gRPC). */
export type V03Form = 'rpc' | 'proto';

type Obj = Record<string, unknown>;

/** `value` with `key` replaced by `to(value[key])` when present; anything not an object passes. */
function mapKey(value: Obj, key: string, to: (v: unknown) => unknown): Obj {
  return value[key] === undefined ? value : { ...value, [key]: to(value[key]) };
}

function without(value: Obj, ...keys: string[]): Obj {
  const out = { ...value };
  for (const key of keys) delete out[key];
  return out;
}

/** A v0.3 part as a v1.0 part: `text`, `data` and `file` (bytes or uri, mime type, name). */
function part(value: unknown, form: V03Form): unknown {
  if (!isRecord(value)) return value;
  const p = without(value, 'kind');
  const file = p.file;
  if (isRecord(file)) {
    delete p.file;
    const bytes = file.bytes ?? file.fileWithBytes;
    const uri = file.uri ?? file.fileWithUri;
    if (typeof bytes === 'string') p.raw = bytes;
    if (typeof uri === 'string') p.url = uri;
    const mime = file.mimeType;
    const name = file.name;
    if (typeof mime === 'string' && mime !== '') p.mediaType = mime;
    if (typeof name === 'string' && name !== '') p.filename = name;
  }
  // The v0.3 proto's DataPart is a message holding the Struct: `{data: {data: {...}}}`.
  if (form === 'proto' && isRecord(p.data) && p.data.data !== undefined) p.data = p.data.data;
  return p;
}

function parts(value: unknown, form: V03Form): unknown {
  return Array.isArray(value) ? value.map((p) => part(p, form)) : value;
}

const ROLES: { readonly [role: string]: string } = { user: 'ROLE_USER', agent: 'ROLE_AGENT' };

/** A v0.3 message as a v1.0 message: its role named as v1.0 names it, its parts (`content` in ProtoJSON). */
export function v03Message(value: unknown, form: V03Form): unknown {
  if (!isRecord(value)) return value;
  let m = without(value, 'kind');
  if (form === 'proto' && m.parts === undefined && m.content !== undefined) {
    m = without({ ...m, parts: m.content }, 'content');
  }
  m = mapKey(m, 'parts', (p) => parts(p, form));
  return mapKey(m, 'role', (r) => (typeof r === 'string' ? (ROLES[r] ?? r) : r));
}

/** The pause extension's state number (pause.proto), which v0.3's TaskState has no name for. */
const PAUSED_NUMBER = 9;

function state(value: unknown, form: V03Form): unknown {
  // Decoded from v0.3 gRPC with a2a.v1's enum (a recording made before its pause extension, §14.10),
  // a state it has no name for is its number: 9 is PAUSED.
  if (form === 'proto' && value === PAUSED_NUMBER) return 'TASK_STATE_PAUSED';
  if (typeof value !== 'string') return value;
  if (form === 'proto') return value === 'TASK_STATE_CANCELLED' ? 'TASK_STATE_CANCELED' : value;
  return stateFromV03(value);
}

function status(value: unknown, form: V03Form): unknown {
  if (!isRecord(value)) return value;
  let s = value;
  // The v0.3 proto names the status message `update`.
  if (form === 'proto' && s.message === undefined && s.update !== undefined)
    s = without({ ...s, message: s.update }, 'update');
  s = mapKey(s, 'state', (v) => state(v, form));
  return mapKey(s, 'message', (m) => v03Message(m, form));
}

function artifact(value: unknown, form: V03Form): unknown {
  return isRecord(value) ? mapKey(value, 'parts', (p) => parts(p, form)) : value;
}

/** A v0.3 task as a v1.0 task. */
export function v03Task(value: unknown, form: V03Form): unknown {
  if (!isRecord(value)) return value;
  let t = without(value, 'kind');
  t = mapKey(t, 'status', (s) => status(s, form));
  t = mapKey(t, 'artifacts', (a) => (Array.isArray(a) ? a.map((x) => artifact(x, form)) : a));
  return mapKey(t, 'history', (h) => (Array.isArray(h) ? h.map((x) => v03Message(x, form)) : h));
}

function statusUpdate(value: unknown, form: V03Form): unknown {
  return isRecord(value) ? mapKey(without(value, 'kind', 'final'), 'status', (s) => status(s, form)) : value;
}

function artifactUpdate(value: unknown, form: V03Form): unknown {
  return isRecord(value) ? mapKey(without(value, 'kind'), 'artifact', (a) => artifact(a, form)) : value;
}

/**
 * A v0.3 answer as the v1.0 result of `method`: a bare task for GetTask and CancelTask; otherwise
 * a `SendMessageResponse` / `StreamResponse` (`{task}`, `{message}`, `{statusUpdate}`,
 * `{artifactUpdate}`), read from the JSON-RPC object's `kind` or the ProtoJSON member (`msg`).
 * What it cannot place is returned as it came, for the v1.0 parser to name.
 */
export function v03Result(method: string | undefined, result: unknown, form: V03Form): unknown {
  if (!isRecord(result)) return result;
  if (method === 'GetTask' || method === 'CancelTask') return v03Task(result, form);
  if (method === 'PauseTask' || method === 'ResumeTask' || method === 'AwaitTaskResumption') {
    // The pause extension's results name their states as the dialect does (`paused` in v0.3 JSON-RPC).
    const named = mapKey(result, 'state', (v) => state(v, form));
    return mapKey(named, 'previousState', (v) => state(v, form));
  }
  if (form === 'proto') {
    if (result.task !== undefined) return { task: v03Task(result.task, form) };
    const m = result.msg ?? result.message;
    if (m !== undefined) return { message: v03Message(m, form) };
    if (result.statusUpdate !== undefined) return { statusUpdate: statusUpdate(result.statusUpdate, form) };
    if (result.artifactUpdate !== undefined) return { artifactUpdate: artifactUpdate(result.artifactUpdate, form) };
    return result;
  }
  switch (result.kind) {
    case 'task':
      return { task: v03Task(result, form) };
    case 'message':
      return { message: v03Message(result, form) };
    case 'status-update':
      return { statusUpdate: statusUpdate(result, form) };
    case 'artifact-update':
      return { artifactUpdate: artifactUpdate(result, form) };
    default:
      return result;
  }
}

/** v0.3 params as the v1.0 params of `method` (a message's role and parts; `blocking: false`). */
export function v03Params(method: string, params: unknown, form: V03Form): unknown {
  if (!isRecord(params) || (method !== 'SendMessage' && method !== 'SendStreamingMessage')) return params;
  let p = mapKey(params, 'message', (m) => v03Message(m, form));
  // The proto's `request` member carries the message in ProtoJSON; JSON-RPC names it `message`.
  if (form === 'proto' && p.message === undefined && p.request !== undefined)
    p = without({ ...p, message: v03Message(p.request, form) }, 'request');
  return mapKey(p, 'configuration', (c) =>
    isRecord(c) && typeof c.blocking === 'boolean' ? { ...without(c, 'blocking'), returnImmediately: !c.blocking } : c,
  );
}

/** The id in a v0.3 resource name `tasks/{id}` (or `tasks/{id}/pushNotificationConfigs/{config}`). */
function resourceIds(name: unknown): { taskId?: string; configId?: string } {
  if (typeof name !== 'string') return {};
  const m = /^tasks\/([^/]+)(?:\/pushNotificationConfigs(?:\/([^/]+))?)?$/.exec(name);
  if (m?.[1] === undefined) return {};
  return m[2] === undefined ? { taskId: m[1] } : { taskId: m[1], configId: m[2] };
}

/** `p` with resource-name member `key` replaced by the v1.0 ids it names (`taskKey` for the task's). */
function fromName(p: Obj, key: string, taskKey: string): Obj {
  const ids = resourceIds(p[key]);
  if (ids.taskId === undefined) return p;
  const out = without(p, key);
  out[taskKey] = ids.taskId;
  if (ids.configId !== undefined) out.id = ids.configId;
  return out;
}

/**
 * v0.3 gRPC params (ProtoJSON of the `a2a.v1` request messages) as the v1.0 params of `method`:
 * a message as {@link v03Params} reads it (a configuration without `blocking` does not block); a
 * task named by `name: "tasks/{id}"` read as its `id`; a push config's `parent` / `name` as its
 * `taskId` and `id`, its `config` flattened as v1.0 has it. A name that is no such resource is
 * left as it came, for the v1.0 parser to name.
 */
export function v03GrpcParams(method: string, params: unknown): unknown {
  if (!isRecord(params)) return params;
  switch (method) {
    case 'SendMessage':
    case 'SendStreamingMessage': {
      // Decoded from the wire, a `blocking` left out is proto3's false: a configuration sent without
      // it asks not to block, as the v0.3 SDK reads it; no configuration at all blocks.
      const c = params.configuration;
      const read =
        isRecord(c) && c.blocking === undefined ? { ...params, configuration: { ...c, blocking: false } } : params;
      return v03Params(method, read, 'proto');
    }
    case 'GetTask':
    case 'CancelTask':
    case 'SubscribeToTask':
      return fromName(params, 'name', 'id');
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return fromName(params, 'name', 'taskId');
    case 'ListTaskPushNotificationConfigs':
      return fromName(params, 'parent', 'taskId');
    case 'CreateTaskPushNotificationConfig': {
      const config = isRecord(params.config) ? params.config : {};
      const push = isRecord(config.pushNotificationConfig) ? config.pushNotificationConfig : {};
      const out: Obj = { ...push, ...fromName(without(params, 'config', 'configId'), 'parent', 'taskId') };
      if (typeof params.configId === 'string' && params.configId !== '') out.id = params.configId;
      return out;
    }
    default:
      return params;
  }
}
