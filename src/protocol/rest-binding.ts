/**
 * @module protocol/rest-binding
 * The A2A v1.0 HTTP+JSON binding as data (docs/design.md §15): which HTTP verb and path under an
 * interface URL carries which method, how a request's path, query and body make that method's
 * params, and how a JSON-RPC error of the one table (src/protocol/errors.ts) travels as an HTTP
 * status with a `google.rpc.Status`-style body. The peer's adapter, the observer and replay all read
 * the binding from here, so there is one route table.
 *
 * Routes follow the proto's HTTP annotations (`POST /message:send`, `GET /tasks/{id}`, ...), each
 * also under an optional `/{tenant}` segment; `:subscribe` answers GET (the proto) and POST (the spec
 * text and the SDK client). The pause extension adds `POST /tasks/{id}:pause`, `:resume` and
 * `:awaitResumption`, whose bodies are the request messages without the path's id.
 */
import { ERROR_DOMAIN, ERROR_INFO_TYPE, type ErrorInfo, JSON_RPC_ERRORS, type JsonRpcErrorName } from './errors.js';
import { isRecord } from './read.js';

/** The two bindings this project speaks, as `AgentInterface.protocolBinding` names them. */
export const BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;
export type Binding = (typeof BINDINGS)[number];

/** A method of the HTTP+JSON binding (the push-config ones included, which the peer refuses). */
export type RestMethod =
  | 'SendMessage'
  | 'SendStreamingMessage'
  | 'GetTask'
  | 'ListTasks'
  | 'CancelTask'
  | 'SubscribeToTask'
  | 'PauseTask'
  | 'ResumeTask'
  | 'AwaitTaskResumption'
  | 'CreateTaskPushNotificationConfig'
  | 'GetTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigs'
  | 'DeleteTaskPushNotificationConfig'
  | 'GetExtendedAgentCard';

interface RestRoute {
  method: RestMethod;
  verbs: readonly string[];
  /** The route's path after the interface URL (and tenant), `{id}` segments as capture groups. */
  tail: string;
  /** Names of the captures, in order. */
  captures: readonly ('id' | 'configId')[];
}

const SEGMENT = '([^/:]+)';

/** Most specific first: `/tasks/{id}:cancel` before `/tasks/{id}` before `/tasks`. */
const ROUTES: readonly RestRoute[] = [
  { method: 'SendMessage', verbs: ['POST'], tail: '/message:send', captures: [] },
  { method: 'SendStreamingMessage', verbs: ['POST'], tail: '/message:stream', captures: [] },
  { method: 'CancelTask', verbs: ['POST'], tail: `/tasks/${SEGMENT}:cancel`, captures: ['id'] },
  { method: 'SubscribeToTask', verbs: ['GET', 'POST'], tail: `/tasks/${SEGMENT}:subscribe`, captures: ['id'] },
  { method: 'PauseTask', verbs: ['POST'], tail: `/tasks/${SEGMENT}:pause`, captures: ['id'] },
  { method: 'ResumeTask', verbs: ['POST'], tail: `/tasks/${SEGMENT}:resume`, captures: ['id'] },
  { method: 'AwaitTaskResumption', verbs: ['POST'], tail: `/tasks/${SEGMENT}:awaitResumption`, captures: ['id'] },
  {
    method: 'GetTaskPushNotificationConfig',
    verbs: ['GET'],
    tail: `/tasks/${SEGMENT}/pushNotificationConfigs/${SEGMENT}`,
    captures: ['id', 'configId'],
  },
  {
    method: 'DeleteTaskPushNotificationConfig',
    verbs: ['DELETE'],
    tail: `/tasks/${SEGMENT}/pushNotificationConfigs/${SEGMENT}`,
    captures: ['id', 'configId'],
  },
  {
    method: 'CreateTaskPushNotificationConfig',
    verbs: ['POST'],
    tail: `/tasks/${SEGMENT}/pushNotificationConfigs`,
    captures: ['id'],
  },
  {
    method: 'ListTaskPushNotificationConfigs',
    verbs: ['GET'],
    tail: `/tasks/${SEGMENT}/pushNotificationConfigs`,
    captures: ['id'],
  },
  { method: 'GetTask', verbs: ['GET'], tail: `/tasks/${SEGMENT}`, captures: ['id'] },
  { method: 'ListTasks', verbs: ['GET'], tail: '/tasks', captures: [] },
  { method: 'GetExtendedAgentCard', verbs: ['GET'], tail: '/extendedAgentCard', captures: [] },
];

const EXACT = ROUTES.map((r) => new RegExp(`^(?:/([^/:]+))?${r.tail}$`));
const SUFFIX = ROUTES.map((r) => new RegExp(`${r.tail}$`));
/**
 * The literal text each route's tail begins with (up to its first capture): a path holding none
 * of them matches no route's pattern, so it names no route and no verb is wrong for it. Most
 * recorded paths are a JSON-RPC endpoint's: they are answered without running the patterns.
 */
const LITERALS = [...new Set(ROUTES.map((r) => r.tail.split('(')[0] as string))];

/** @internal whether `path` holds a route's literal text (false: no pattern can match it). */
export function mayNameRoute(path: string): boolean {
  for (const literal of LITERALS) if (path.includes(literal)) return true;
  return false;
}

/** What a path under an interface URL names. */
export type RestMatch =
  | {
      kind: 'route';
      method: RestMethod;
      id: string | undefined;
      configId: string | undefined;
      tenant: string | undefined;
    }
  /** The path is a route, but not for this verb: answer 405 with `allow`. */
  | { kind: 'wrong-verb'; allow: string }
  | { kind: 'none' };

function decode(segment: string | undefined): string | undefined {
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function matchWith(patterns: readonly RegExp[], verb: string, path: string, withTenant: boolean): RestMatch {
  if (!mayNameRoute(path)) return { kind: 'none' };
  const allow = new Set<string>();
  for (let i = 0; i < ROUTES.length; i++) {
    const route = ROUTES[i] as RestRoute;
    const m = (patterns[i] as RegExp).exec(path);
    if (!m) continue;
    if (!route.verbs.includes(verb)) {
      for (const v of route.verbs) allow.add(v);
      continue;
    }
    const groups = withTenant ? m.slice(2) : m.slice(1);
    const captured = (name: 'id' | 'configId'): string | undefined => {
      const at = route.captures.indexOf(name);
      return at < 0 ? undefined : decode(groups[at]);
    };
    return {
      kind: 'route',
      method: route.method,
      id: captured('id'),
      configId: captured('configId'),
      tenant: withTenant ? decode(m[1]) : undefined,
    };
  }
  return allow.size > 0 ? { kind: 'wrong-verb', allow: [...allow].join(', ') } : { kind: 'none' };
}

/** The route `verb path` names, `path` being relative to the interface URL (an optional `/{tenant}` first). */
export function matchRestRoute(verb: string, path: string): RestMatch {
  return matchWith(EXACT, verb, path, true);
}

/**
 * The route a recorded request names when the interface URL is not known: the path's tail is
 * matched (`/a2a/rest/tasks/t-1:pause` → PauseTask of `t-1`). For reading recordings only.
 */
export function matchRestTail(verb: string, path: string): RestMatch {
  return matchWith(SUFFIX, verb, path, false);
}

/** `historyLength=3` → 3; a value that is not a whole number stays text, so the params parser names it. */
function numeric(value: string): number | string {
  return /^-?\d+$/.test(value) ? Number(value) : value;
}

function booleanText(value: string): boolean | string {
  return value === 'true' ? true : value === 'false' ? false : value;
}

/** ListTasks params from the query string (ProtoJSON field names; numbers and booleans read). */
function listParams(query: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of query) {
    if (key === 'A2A-Version') continue;
    if (key === 'pageSize' || key === 'historyLength') out[key] = numeric(value);
    else if (key === 'includeArtifacts') out[key] = booleanText(value);
    else out[key] = value;
  }
  return out;
}

/** Why a body's own task id disagrees with the path's, as a params field issue; undefined when it agrees. */
export interface PathIdConflict {
  field: string;
  message: string;
}

/**
 * The JSON-RPC params of an HTTP+JSON request: the body for messages, the path's id (and the query)
 * for task reads, the body plus the path's id for the pause methods. A body naming a different task
 * than its path is a conflict (refused by the peer as -32602).
 */
export function restParams(
  match: Extract<RestMatch, { kind: 'route' }>,
  query: URLSearchParams,
  body: unknown,
): { params: unknown; conflict: PathIdConflict | undefined } {
  const tenant = match.tenant === undefined ? {} : { tenant: match.tenant };
  const fromBody = isRecord(body) ? body : {};
  switch (match.method) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return { params: isRecord(body) ? { ...body, ...tenant } : body, conflict: undefined };
    case 'GetTask': {
      const params: Record<string, unknown> = { id: match.id, ...tenant };
      const history = query.get('historyLength');
      if (history !== null) params.historyLength = numeric(history);
      return { params, conflict: undefined };
    }
    case 'ListTasks':
      return { params: { ...listParams(query), ...tenant }, conflict: undefined };
    case 'CancelTask':
    case 'SubscribeToTask':
      return { params: { ...fromBody, id: match.id, ...tenant }, conflict: idConflict(fromBody, 'id', match.id) };
    case 'PauseTask':
    case 'ResumeTask':
    case 'AwaitTaskResumption':
      return {
        params: { ...fromBody, taskId: match.id, ...tenant },
        conflict: idConflict(fromBody, 'taskId', match.id),
      };
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
    case 'ListTaskPushNotificationConfigs':
    case 'DeleteTaskPushNotificationConfig':
      return {
        params: { ...fromBody, taskId: match.id, ...(match.configId ? { id: match.configId } : {}), ...tenant },
        conflict: undefined,
      };
    case 'GetExtendedAgentCard':
      return { params: { ...tenant }, conflict: undefined };
    default: {
      const never: never = match.method;
      return never;
    }
  }
}

function idConflict(
  body: Record<string, unknown>,
  key: string,
  pathId: string | undefined,
): PathIdConflict | undefined {
  const value = body[key];
  if (value === undefined || value === pathId) return undefined;
  return {
    field: `params.${key}`,
    message:
      `params.${key}: the body names task ${JSON.stringify(value)}, the path task ` +
      `${JSON.stringify(pathId)}; omit it from the body`,
  };
}

/** The `google.rpc.Code` names the binding uses. */
export type RpcStatusName = 'INVALID_ARGUMENT' | 'NOT_FOUND' | 'FAILED_PRECONDITION' | 'INTERNAL' | 'UNIMPLEMENTED';

/**
 * HTTP status and `google.rpc.Code` name of each error of the table (spec §5.4's table; the RFC's
 * two codes as FAILED_PRECONDITION, docs/design.md §15).
 */
export const REST_ERROR_STATUS: { readonly [N in JsonRpcErrorName]: { http: number; status: RpcStatusName } } = {
  PARSE_ERROR: { http: 400, status: 'INVALID_ARGUMENT' },
  INVALID_REQUEST: { http: 400, status: 'INVALID_ARGUMENT' },
  METHOD_NOT_FOUND: { http: 404, status: 'NOT_FOUND' },
  INVALID_PARAMS: { http: 400, status: 'INVALID_ARGUMENT' },
  INTERNAL: { http: 500, status: 'INTERNAL' },
  TASK_NOT_FOUND: { http: 404, status: 'NOT_FOUND' },
  TASK_NOT_CANCELABLE: { http: 400, status: 'FAILED_PRECONDITION' },
  PUSH_NOTIFICATION_NOT_SUPPORTED: { http: 400, status: 'FAILED_PRECONDITION' },
  UNSUPPORTED_OPERATION: { http: 400, status: 'FAILED_PRECONDITION' },
  CONTENT_TYPE_NOT_SUPPORTED: { http: 400, status: 'INVALID_ARGUMENT' },
  INVALID_AGENT_RESPONSE: { http: 500, status: 'INTERNAL' },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: { http: 400, status: 'FAILED_PRECONDITION' },
  EXTENSION_SUPPORT_REQUIRED: { http: 400, status: 'FAILED_PRECONDITION' },
  VERSION_NOT_SUPPORTED: { http: 400, status: 'FAILED_PRECONDITION' },
  INVALID_TASK_STATE: { http: 400, status: 'FAILED_PRECONDITION' },
  RESUME_TOKEN_MISMATCH: { http: 400, status: 'FAILED_PRECONDITION' },
};

/** The body of an HTTP+JSON error answer: `{error: {code, status, message, details: [ErrorInfo]}}`. */
export interface RestErrorBody {
  error: { code: number; status: RpcStatusName; message: string; details: ErrorInfo[] };
}

/** An error of the table as the HTTP+JSON binding sends it: the HTTP status and the body. */
export function restError(
  name: JsonRpcErrorName,
  message: string,
  metadata?: Record<string, string>,
): { http: number; body: RestErrorBody } {
  const { http, status } = REST_ERROR_STATUS[name];
  const info: ErrorInfo = { '@type': ERROR_INFO_TYPE, reason: JSON_RPC_ERRORS[name].reason, domain: ERROR_DOMAIN };
  if (metadata && Object.keys(metadata).length > 0) info.metadata = metadata;
  return { http, body: { error: { code: http, status, message, details: [info] } } };
}

const CODE_BY_REASON = new Map<string, number>(Object.values(JSON_RPC_ERRORS).map((e) => [e.reason, e.code]));

/**
 * Reads an HTTP+JSON error body back into the table's terms: the JSON-RPC code its ErrorInfo
 * reason names (undefined for a reason outside the table, or none) and its message. Undefined when
 * `body` is not an error body.
 */
export function readRestError(
  body: unknown,
): { code: number | undefined; reason: string | undefined; message: string } | undefined {
  if (!isRecord(body) || !isRecord(body.error)) return undefined;
  const error = body.error;
  const message = typeof error.message === 'string' ? error.message : '';
  let reason: string | undefined;
  if (Array.isArray(error.details)) {
    for (const d of error.details as unknown[]) {
      if (isRecord(d) && d['@type'] === ERROR_INFO_TYPE && typeof d.reason === 'string') {
        reason = d.reason;
        break;
      }
    }
  }
  return { code: reason === undefined ? undefined : CODE_BY_REASON.get(reason), reason, message };
}

/** An HTTP+JSON request: verb, path under the interface URL (query included) and body. */
export interface RestRequest {
  verb: 'GET' | 'POST';
  path: string;
  body: Record<string, unknown> | undefined;
}

function without(params: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = params;
  return rest;
}

function queryOf(params: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      query.set(key, String(value));
    }
  }
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * The HTTP+JSON request of a JSON-RPC call (the inverse of {@link restParams}), for clients that
 * speak both bindings; undefined for a method this binding does not carry (control methods).
 * `:subscribe` is sent as POST, as the spec text and the SDK client do.
 */
export function restRequestOf(method: string, params: unknown): RestRequest | undefined {
  const p = isRecord(params) ? params : {};
  const named = typeof p.id === 'string' ? p.id : typeof p.taskId === 'string' ? p.taskId : '';
  const id = encodeURIComponent(named);
  switch (method) {
    case 'SendMessage':
      return { verb: 'POST', path: '/message:send', body: p };
    case 'SendStreamingMessage':
      return { verb: 'POST', path: '/message:stream', body: p };
    case 'GetTask':
      return { verb: 'GET', path: `/tasks/${id}${queryOf(without(p, 'id'))}`, body: undefined };
    case 'ListTasks':
      return { verb: 'GET', path: `/tasks${queryOf(p)}`, body: undefined };
    case 'CancelTask':
      return { verb: 'POST', path: `/tasks/${id}:cancel`, body: without(p, 'id') };
    case 'SubscribeToTask':
      return { verb: 'POST', path: `/tasks/${id}:subscribe`, body: undefined };
    case 'PauseTask':
      return { verb: 'POST', path: `/tasks/${id}:pause`, body: without(p, 'taskId') };
    case 'ResumeTask':
      return { verb: 'POST', path: `/tasks/${id}:resume`, body: without(p, 'taskId') };
    case 'AwaitTaskResumption':
      return { verb: 'POST', path: `/tasks/${id}:awaitResumption`, body: without(p, 'taskId') };
    default:
      return undefined;
  }
}
