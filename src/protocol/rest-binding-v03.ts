/**
 * @module protocol/rest-binding-v03
 * The A2A v0.3 HTTP+JSON binding as data (docs/design.md §15 "v0.3", §14.10): the routes the v0.3
 * SDK's `restHandler` serves under an interface URL — v1.0's route tails under `/v1`
 * (`POST /v1/message:send`, `GET /v1/tasks/{id}`, `POST /v1/tasks/{id}:cancel`, ...), `GET /v1/card`
 * for the extended card, no tenant segment and no task list — and its error answer, the JSON-RPC
 * error object itself (`{code, message, data?}`) with the HTTP status the v0.3 SDK gives its code.
 * The pause extension's `:pause`, `:resume` and `:awaitResumption` are served under `/v1` too: this
 * project's proposal for the RFC in v0.3 (docs/design.md §4). One table for the peer, the observer
 * and the mock.
 */
import { JSON_RPC_ERRORS, type JsonRpcErrorName } from './errors.js';
import { type RestMatch, matchRestRoute, matchRestTail } from './rest-binding.js';

/** The segment every v0.3 HTTP+JSON route starts with, after the interface URL. */
export const V03_REST_PREFIX = '/v1';

const CARD_TAIL = '/card';

function cardRoute(verb: string): RestMatch {
  return verb === 'GET'
    ? { kind: 'route', method: 'GetExtendedAgentCard', id: undefined, configId: undefined, tenant: undefined }
    : { kind: 'wrong-verb', allow: 'GET' };
}

/** A v1.0 match that is no v0.3 route: a tenant segment, the task list, v1.0's extended-card path. */
function v03Only(match: RestMatch): RestMatch {
  if (match.kind !== 'route') return match;
  if (match.tenant !== undefined || match.method === 'ListTasks' || match.method === 'GetExtendedAgentCard')
    return { kind: 'none' };
  return match;
}

/**
 * The v0.3 route `verb path` names, `path` being relative to the interface URL
 * (`/v1/tasks/t-1:cancel` → CancelTask of `t-1`); `none` for anything not under `/v1`.
 */
export function matchV03RestRoute(verb: string, path: string): RestMatch {
  if (!path.startsWith(`${V03_REST_PREFIX}/`)) return { kind: 'none' };
  const tail = path.slice(V03_REST_PREFIX.length);
  if (tail === CARD_TAIL) return cardRoute(verb);
  if (tail === '/tasks') return { kind: 'none' }; // v1.0's task list, which v0.3 has not
  return v03Only(matchRestRoute(verb, tail));
}

/**
 * The v0.3-only route a recorded path ends with when the interface URL is not known: `…/v1/card`,
 * which v1.0 has not. For reading recordings only; every other v0.3 route is a v1.0 tail too.
 */
export function matchV03RestTail(verb: string, path: string): RestMatch {
  if (path.endsWith(`${V03_REST_PREFIX}${CARD_TAIL}`)) return cardRoute(verb);
  return matchRestTail(verb, path);
}

/**
 * Whether a request path (query and base path included) names a v0.3 route: `…/v1/message:…`,
 * `…/v1/tasks/…`, `…/v1/card`.
 */
export function isV03RestPath(path: string): boolean {
  const bare = path.split('?')[0] ?? '';
  return /\/v1\/(?:message:|tasks\/)/.test(bare) || bare.endsWith(`${V03_REST_PREFIX}${CARD_TAIL}`);
}

/**
 * The HTTP status of each error of the table in v0.3 HTTP+JSON: the v0.3 SDK's own mapping for
 * the codes it has (404 for a missing task or method, 409 for a task that cannot be canceled), 400
 * for the codes v1.0 and the RFC added (a client's request the peer refuses), 500 for the rest.
 */
export const V03_REST_ERROR_STATUS: { readonly [N in JsonRpcErrorName]: number } = {
  PARSE_ERROR: 400,
  INVALID_REQUEST: 400,
  METHOD_NOT_FOUND: 404,
  INVALID_PARAMS: 400,
  INTERNAL: 500,
  TASK_NOT_FOUND: 404,
  TASK_NOT_CANCELABLE: 409,
  PUSH_NOTIFICATION_NOT_SUPPORTED: 400,
  UNSUPPORTED_OPERATION: 400,
  CONTENT_TYPE_NOT_SUPPORTED: 500,
  INVALID_AGENT_RESPONSE: 500,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: 500,
  EXTENSION_SUPPORT_REQUIRED: 400,
  VERSION_NOT_SUPPORTED: 400,
  INVALID_TASK_STATE: 400,
  RESUME_TOKEN_MISMATCH: 400,
};

/** The body of a v0.3 HTTP+JSON error answer: the JSON-RPC error object. */
export interface V03RestErrorBody {
  code: number;
  message: string;
  data?: Record<string, string>;
}

/** An error of the table as v0.3 HTTP+JSON sends it: the HTTP status and `{code, message, data?}`. */
export function v03RestError(
  name: JsonRpcErrorName,
  message: string,
  metadata?: Record<string, string>,
): { http: number; body: V03RestErrorBody } {
  const body: V03RestErrorBody = { code: JSON_RPC_ERRORS[name].code, message };
  if (metadata && Object.keys(metadata).length > 0) body.data = metadata;
  return { http: V03_REST_ERROR_STATUS[name], body };
}
