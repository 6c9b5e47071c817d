/**
 * @module peer/rest-adapter
 * The reference peer's HTTP+JSON binding over `node:http` (docs/design.md §15): the routes of
 * src/protocol/rest-binding.ts under the interface path {@link REST_PATH}, ProtoJSON bodies, the
 * {@link RequestHandler} behind them. A result is the method's response message as the body
 * (HTTP 200); a stream is SSE with one `data: <StreamResponse>` frame per event; an error is its
 * HTTP status with `{error: {code, status, message, details: [ErrorInfo]}}`, or, after a stream
 * opened, an `event: error` frame with that body, then the stream ends.
 *
 * Checks before the handler's: the route (404, or 405 with `Allow`), A2A-Version (400
 * VERSION_NOT_SUPPORTED), body size (413), JSON (400 PARSE_ERROR), nesting depth (400), a body
 * naming another task than its path (400 INVALID_PARAMS). An empty body is `{}` (the SDK sends
 * none to `:cancel` and `:subscribe`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ownAnswerBody, sendJson } from '../http/json-answer.js';
import { MAX_JSON_DEPTH, readJsonBody } from '../http/json-body.js';
import { answerAndClose, drainRequest } from '../http/limits.js';
import type { JsonRpcErrorName } from '../protocol/errors.js';
import { matchRestRoute, restError, restParams } from '../protocol/rest-binding.js';
import { type Reply, versionFailure } from './request-handler.js';
import type { RpcFailure } from './rpc-failure.js';
import { type AdapterOptions, type PeerTarget, failOpenStream, openSseStream } from './sse-reply.js';

/** Where the peer serves HTTP+JSON: its interface URL is `http://HOST:PORT/rest`. */
export const REST_PATH = '/rest';

/** Sends an error of the table as HTTP+JSON (its status unless `status` overrides it). */
function sendRestError(
  res: ServerResponse,
  name: JsonRpcErrorName,
  message: string,
  options: { metadata?: Record<string, string>; status?: number; headers?: Record<string, string> } = {},
): void {
  const { http, body } = restError(name, message, options.metadata);
  // The body's code is the HTTP status it travels with (405 for a wrong verb, not the error's 400).
  if (options.status !== undefined) body.error.code = options.status;
  sendJson(res, options.status ?? http, body, options.headers);
}

function restReply(res: ServerResponse, log: (line: string) => void): Reply {
  return {
    result(value: unknown): void {
      sendJson(res, 200, value);
    },
    openStream: () =>
      openSseStream(
        res,
        log,
        (event) => event,
        () => restError('INTERNAL', 'a stream event could not be serialised').body,
      ),
    fail(failure: RpcFailure): void {
      const { http, body } = restError(failure.errorName, failure.message, failure.metadata);
      if (!failOpenStream(res, body)) sendJson(res, http, body);
    },
  };
}

/** Serves one request whose path is under {@link REST_PATH}. */
export function createRestAdapter(
  options: AdapterOptions,
): (req: IncomingMessage, res: ServerResponse, target: PeerTarget) => Promise<void> {
  const { handler, limits } = options;
  return async (req, res, target) => {
    const verb = req.method ?? 'GET';
    const tail = target.path.slice(REST_PATH.length);
    const match = matchRestRoute(verb, tail);
    if (match.kind !== 'route') {
      const drained = drainRequest(req, limits);
      if (match.kind === 'wrong-verb') {
        sendRestError(res, 'INVALID_REQUEST', `${verb} is not allowed on ${target.path}; use ${match.allow}`, {
          status: 405,
          headers: { Allow: match.allow },
        });
      } else {
        sendRestError(
          res,
          'METHOD_NOT_FOUND',
          `no HTTP+JSON route at ${verb} ${target.path}: the interface serves POST ${REST_PATH}/message:send, ` +
            `GET ${REST_PATH}/tasks/{id}, POST ${REST_PATH}/tasks/{id}:pause, ...`,
        );
      }
      await drained;
      return;
    }
    const refused = versionFailure(options.versionOf(req, target));
    if (refused) {
      req.resume();
      sendRestError(res, refused.errorName, refused.message);
      return;
    }
    let body: unknown = {};
    if (verb !== 'GET' && verb !== 'HEAD' && verb !== 'DELETE') {
      const read = await readJsonBody(req, limits.bodyLimitBytes, limits);
      switch (read.kind) {
        case 'aborted':
          return;
        case 'too-large': {
          const error = ownAnswerBody('HTTP+JSON', {
            status: 413,
            name: 'INVALID_REQUEST',
            message: `request body is larger than the ${read.limitBytes}-byte limit`,
            metadata: { limitBytes: String(read.limitBytes) },
          });
          await answerAndClose(res, 413, JSON.stringify(error), read.drained);
          return;
        }
        case 'not-json':
          sendRestError(res, 'PARSE_ERROR', `request body is not valid JSON: ${read.why}`);
          return;
        case 'too-deep':
          sendRestError(res, 'INVALID_REQUEST', `request body nests deeper than ${MAX_JSON_DEPTH} levels`);
          return;
        case 'empty':
          break;
        case 'ok':
          body = read.value;
          break;
        default: {
          const never: never = read;
          return never;
        }
      }
    } else {
      req.resume();
    }
    const { params, conflict } = restParams(match, target.query, body);
    if (conflict) {
      sendRestError(res, 'INVALID_PARAMS', conflict.message, { metadata: { field: conflict.field } });
      return;
    }
    await handler.call(match.method, params, options.callerOf(req, match.method), restReply(res, options.log));
  };
}
