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
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../http/json-answer.js';
import { MAX_JSON_DEPTH, readJsonBody } from '../http/json-body.js';
import { answerAndClose } from '../http/limits.js';
import { type JsonRpcErrorObject, jsonRpcError } from '../protocol/errors.js';
import { type JsonRpcId, errorResponse, parseJsonRpcRequest, successResponse } from '../protocol/json-rpc.js';
import { CONTROL_METHODS, CONTROL_PATH, CORE_METHODS, PAUSE_METHODS } from '../protocol/methods.js';
import { formatIssue } from '../protocol/read.js';
import { type MethodScope, type Reply, versionFailure } from './request-handler.js';
import type { RpcFailure } from './rpc-failure.js';
import { type AdapterOptions, type PeerTarget, failOpenStream, openSseStream } from './sse-reply.js';

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

/** The {@link Reply} of one JSON-RPC call. */
function jsonRpcReply(res: ServerResponse, id: JsonRpcId, log: (line: string) => void): Reply {
  return {
    result(value: unknown): void {
      sendJson(res, 200, successResponse(id, value));
    },
    openStream: () =>
      openSseStream(
        res,
        log,
        (event) => successResponse(id, event),
        () => errorResponse(id, jsonRpcError('INTERNAL', 'a stream event could not be serialised')),
      ),
    fail(failure: RpcFailure): void {
      const error = failure.toError();
      if (!failOpenStream(res, errorResponse(id, error))) sendRpcError(res, id, error);
    },
  };
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
    const { id, method, params } = parsed.value;
    if (scope === 'a2a') {
      const refused = versionFailure(options.versionOf(req, target));
      if (refused) {
        sendRpcError(res, id, refused.toError());
        return;
      }
    }
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
    await handler.call(method, params, options.callerOf(req, method), jsonRpcReply(res, id, options.log));
  };
}
