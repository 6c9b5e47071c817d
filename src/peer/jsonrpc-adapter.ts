/**
 * @module peer/jsonrpc-adapter
 * The reference peer's JSON-RPC binding over `node:http` (docs/design.md §4): A2A calls on
 * `POST /`, control calls on `POST /control`. It reads the envelope and hands method and params
 * to the {@link RequestHandler}; results are JSON-RPC responses, streams are SSE frames
 * `data: <JSON-RPC response with a StreamResponse>`, and an error after a stream opened is an
 * `event: error` frame, then the stream ends.
 *
 * Checks before the handler's: body size (HTTP 413 + -32600 naming the limit), JSON (-32700),
 * nesting depth (-32600 past 128 levels), the envelope (-32600; notifications and batches are
 * refused: every call needs an `id`), A2A-Version on `/` (-32009), the method's endpoint (-32601).
 * HTTP status 200 for JSON-RPC errors except -32603 (500).
 *
 * A call named in v0.3 (`message/send`, with no A2A-Version or a 0.3 one) is served in v0.3 when
 * the peer serves it (src/peer/v03-dialect.ts converts its params in and its answers out, and a
 * stream ends after its `final` event); a v1.0 name needs `A2A-Version: 1.0`, as the SDKs'
 * compatibility layers decide.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../http/json-answer.js';
import { MAX_JSON_DEPTH, readJsonBody } from '../http/json-body.js';
import { answerAndClose } from '../http/limits.js';
import { type JsonRpcErrorObject, jsonRpcError } from '../protocol/errors.js';
import { type JsonRpcId, errorResponse, parseJsonRpcRequest, successResponse } from '../protocol/json-rpc.js';
import { CONTROL_METHODS, CONTROL_PATH, CORE_METHODS, PAUSE_METHODS, V03_METHODS } from '../protocol/methods.js';
import { formatIssue } from '../protocol/read.js';
import { type MethodScope, type Reply, versionFailure } from './request-handler.js';
import type { RpcFailure } from './rpc-failure.js';
import { type AdapterOptions, type PeerTarget, endingAtFinal, failOpenStream, openSseStream } from './sse-reply.js';
import {
  type Dialect,
  asksForV03,
  eventToV03,
  isV03Method,
  paramsFromV03,
  resultToV03,
  serves,
} from './v03-dialect.js';

const A2A_METHODS: ReadonlySet<string> = new Set<string>([...CORE_METHODS, ...PAUSE_METHODS]);
const CONTROL: ReadonlySet<string> = new Set<string>(CONTROL_METHODS);

/** Sends a JSON-RPC error answer (HTTP 200, 500 for -32603, or `status`). */
export function sendRpcError(
  res: ServerResponse,
  id: JsonRpcId | null,
  error: JsonRpcErrorObject,
  status?: number,
): void {
  sendJson(res, status ?? (error.code === -32603 ? 500 : 200), errorResponse(id, error));
}

function idOf(value: unknown): JsonRpcId | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const id = (value as Record<string, unknown>).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** The {@link Reply} of one JSON-RPC call to `method` (its v1.0 name) in `dialect`. */
function jsonRpcReply(
  res: ServerResponse,
  id: JsonRpcId,
  log: (line: string) => void,
  method: string,
  dialect: Dialect,
): Reply {
  const v03 = dialect === '0.3';
  return {
    result(value: unknown): void {
      sendJson(res, 200, successResponse(id, v03 ? resultToV03(method, value) : value));
    },
    openStream: () => {
      const sink = openSseStream(
        res,
        log,
        (event) => successResponse(id, v03 ? eventToV03(event) : event),
        () => errorResponse(id, jsonRpcError('INTERNAL', 'a stream event could not be serialised')),
      );
      return v03 ? endingAtFinal(sink) : sink;
    },
    fail(failure: RpcFailure): void {
      const error = failure.toError();
      if (!failOpenStream(res, errorResponse(id, error))) sendRpcError(res, id, error);
    },
  };
}

/** A call as the handler takes it: its v1.0 method and params, and the dialect to answer in. */
type Routed = { method: string; params: unknown; dialect: Dialect } | { refused: JsonRpcErrorObject };

/** Which dialect an A2A call speaks, and whether this peer serves it (docs/design.md §4). */
function routeA2a(method: string, params: unknown, version: string, options: AdapterOptions): Routed {
  if (isV03Method(method)) {
    if (!asksForV03(version)) {
      return {
        refused: jsonRpcError(
          'METHOD_NOT_FOUND',
          `method "${method}" is A2A v0.3 and this request says A2A-Version ${JSON.stringify(version)}: ` +
            `call ${V03_METHODS[method]} instead, or send no A2A-Version`,
        ),
      };
    }
    if (!serves(options.a2aVersion, '0.3')) {
      return {
        refused: jsonRpcError(
          'VERSION_NOT_SUPPORTED',
          `method "${method}" is A2A v0.3, which this peer does not serve (--a2a-version 1.0): ` +
            `call ${V03_METHODS[method]} with the header A2A-Version: 1.0`,
        ),
      };
    }
    return {
      method: V03_METHODS[method] as string,
      params: paramsFromV03(V03_METHODS[method] as string, params),
      dialect: '0.3',
    };
  }
  const refused = versionFailure(version, options.a2aVersion);
  return refused ? { refused: refused.toError() } : { method, params, dialect: '1.0' };
}

/** Serves one JSON-RPC request on `/` (`a2a`) or `/control` (`control`). */
export function createJsonRpcAdapter(
  options: AdapterOptions,
): (scope: MethodScope, req: IncomingMessage, res: ServerResponse, target: PeerTarget) => Promise<void> {
  const { handler, limits } = options;
  return async (scope, req, res, target) => {
    const body = await readJsonBody(req, limits.bodyLimitBytes, limits);
    switch (body.kind) {
      case 'aborted':
        return;
      case 'too-large': {
        const error = jsonRpcError('INVALID_REQUEST', `request body is larger than the ${body.limitBytes}-byte limit`, {
          limitBytes: String(body.limitBytes),
        });
        await answerAndClose(res, 413, JSON.stringify(errorResponse(null, error)), body.drained);
        return;
      }
      case 'empty':
      case 'not-json': {
        const why = body.kind === 'empty' ? 'Unexpected end of JSON input' : body.why;
        sendRpcError(res, null, jsonRpcError('PARSE_ERROR', `request body is not valid JSON: ${why}`));
        return;
      }
      case 'too-deep':
        sendRpcError(
          res,
          idOf(body.value),
          jsonRpcError('INVALID_REQUEST', `request body nests deeper than ${MAX_JSON_DEPTH} levels`),
        );
        return;
      case 'ok':
        break;
      default: {
        const never: never = body;
        return never;
      }
    }
    const value = body.value;
    if (Array.isArray(value)) {
      sendRpcError(
        res,
        null,
        jsonRpcError('INVALID_REQUEST', 'batch requests are not supported: send one JSON-RPC request per HTTP request'),
      );
      return;
    }
    const parsed = parseJsonRpcRequest(value);
    if (!parsed.ok) {
      sendRpcError(
        res,
        idOf(value),
        jsonRpcError('INVALID_REQUEST', `not a JSON-RPC 2.0 request: ${formatIssue(parsed.issue)}`),
      );
      return;
    }
    if (parsed.value.kind === 'notification') {
      sendRpcError(
        res,
        null,
        jsonRpcError('INVALID_REQUEST', `notifications are not supported: "${parsed.value.method}" needs an "id"`),
      );
      return;
    }
    const { id } = parsed.value;
    const routed: Routed =
      scope === 'a2a'
        ? routeA2a(parsed.value.method, parsed.value.params, options.versionOf(req, target), options)
        : { method: parsed.value.method, params: parsed.value.params, dialect: '1.0' };
    if ('refused' in routed) {
      sendRpcError(res, id, routed.refused);
      return;
    }
    const { method, params, dialect } = routed;
    const here = scope === 'a2a' ? A2A_METHODS : CONTROL;
    if (!here.has(method)) {
      const hint =
        scope === 'a2a' && CONTROL.has(method)
          ? ` (it is a control method: POST it to ${CONTROL_PATH})`
          : scope === 'control' && A2A_METHODS.has(method)
            ? ' (it is an A2A method: POST it to /)'
            : '';
      sendRpcError(
        res,
        id,
        jsonRpcError(
          'METHOD_NOT_FOUND',
          `method "${method}" does not exist on ${scope === 'a2a' ? '/' : CONTROL_PATH}${hint}`,
        ),
      );
      return;
    }
    await handler.call(
      method,
      params,
      options.callerOf(req, method),
      jsonRpcReply(res, id, options.log, method, dialect),
    );
  };
}
