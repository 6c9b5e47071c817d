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
 *
 * A2A v0.3 is decided per request as the SDKs' compatibility layers do: a request with no
 * A2A-Version (or a 0.3 one) on a v0.3 route (`/rest/v1/message:send`, `/rest/v1/tasks/{id}`, ...,
 * src/protocol/rest-binding-v03.ts) is served in v0.3 when the peer serves it — ProtoJSON of the
 * v0.3 proto (src/peer/v03-proto.ts), `message:send` answered 201, errors as `{code, message}`, a
 * stream ending after its `final` event.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ownAnswerBody, sendJson } from '../http/json-answer.js';
import { MAX_JSON_DEPTH, readJsonBody } from '../http/json-body.js';
import { answerAndClose, drainRequest } from '../http/limits.js';
import type { JsonRpcErrorName } from '../protocol/errors.js';
import { type RestMatch, matchRestRoute, restError, restParams } from '../protocol/rest-binding.js';
import { V03_REST_PREFIX, matchV03RestRoute, v03RestError } from '../protocol/rest-binding-v03.js';
import { type Reply, versionFailure } from './request-handler.js';
import type { RpcFailure } from './rpc-failure.js';
import { type AdapterOptions, type PeerTarget, endingAtFinal, failOpenStream, openSseStream } from './sse-reply.js';
import { asksForV03, serves } from './v03-dialect.js';
import { eventToV03Proto, paramsFromV03Proto, resultToV03Proto } from './v03-proto.js';

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

/** How one dialect of the binding answers: a refusal of the table, and the reply of a call. */
interface RestDialect {
  refuse(
    res: ServerResponse,
    name: JsonRpcErrorName,
    message: string,
    options?: { metadata?: Record<string, string>; status?: number; headers?: Record<string, string> },
  ): void;
  reply(res: ServerResponse, method: string): Reply;
  params(method: string, params: unknown): unknown;
}

/** v1.0: `google.rpc.Status`-style errors, results as they are. */
function v10Dialect(log: (line: string) => void): RestDialect {
  return { refuse: sendRestError, reply: (res) => restReply(res, log), params: (_method, params) => params };
}

/**
 * v0.3 (docs/design.md §4 "Two dialects"): ProtoJSON of the v0.3 proto in and out, errors as the
 * JSON-RPC error object, `message:send` answered 201, a stream ending after its `final` event.
 */
function v03Dialect(log: (line: string) => void): RestDialect {
  const refuse: RestDialect['refuse'] = (res, name, message, options = {}) => {
    const { http, body } = v03RestError(name, message, options.metadata);
    sendJson(res, options.status ?? http, body, options.headers);
  };
  return {
    refuse,
    params: paramsFromV03Proto,
    reply: (res, method) => ({
      result(value: unknown): void {
        sendJson(res, method === 'SendMessage' ? 201 : 200, resultToV03Proto(method, value));
      },
      openStream: () =>
        endingAtFinal(
          openSseStream(
            res,
            log,
            (event) => eventToV03Proto(event),
            () => v03RestError('INTERNAL', 'a stream event could not be serialised').body,
          ),
        ),
      fail(failure: RpcFailure): void {
        const { http, body } = v03RestError(failure.errorName, failure.message, failure.metadata);
        if (!failOpenStream(res, body)) sendJson(res, http, body);
      },
    }),
  };
}

/**
 * The route and dialect of a request: a v0.3 route (`/v1/...`) when the request asks for v0.3 (no
 * A2A-Version, or a 0.3 one) and the peer serves it, as the SDKs' compatibility layers decide;
 * otherwise a v1.0 route.
 */
function routeOf(
  verb: string,
  tail: string,
  version: string,
  options: AdapterOptions,
): { match: RestMatch; dialect: 'v03' | 'v10' } {
  if (asksForV03(version) && serves(options.a2aVersion, '0.3') && tail.startsWith(`${V03_REST_PREFIX}/`)) {
    return { match: matchV03RestRoute(verb, tail), dialect: 'v03' };
  }
  return { match: matchRestRoute(verb, tail), dialect: 'v10' };
}

/** The request's JSON body (`{}` when empty or for a verb without one); undefined once answered. */
async function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  verb: string,
  limits: AdapterOptions['limits'],
  dialect: RestDialect,
): Promise<{ body: unknown } | undefined> {
  if (verb === 'GET' || verb === 'HEAD' || verb === 'DELETE') {
    req.resume();
    return { body: {} };
  }
  const read = await readJsonBody(req, limits.bodyLimitBytes, limits);
  switch (read.kind) {
    case 'aborted':
      return undefined;
    case 'too-large': {
      const error = ownAnswerBody('HTTP+JSON', {
        status: 413,
        name: 'INVALID_REQUEST',
        message: `request body is larger than the ${read.limitBytes}-byte limit`,
        metadata: { limitBytes: String(read.limitBytes) },
      });
      await answerAndClose(res, 413, JSON.stringify(error), read.drained);
      return undefined;
    }
    case 'not-json':
      dialect.refuse(res, 'PARSE_ERROR', `request body is not valid JSON: ${read.why}`);
      return undefined;
    case 'too-deep':
      dialect.refuse(res, 'INVALID_REQUEST', `request body nests deeper than ${MAX_JSON_DEPTH} levels`);
      return undefined;
    case 'empty':
      return { body: {} };
    case 'ok':
      return { body: read.value };
    default: {
      const never: never = read;
      return never;
    }
  }
}

/** Serves one request whose path is under {@link REST_PATH}. */
export function createRestAdapter(
  options: AdapterOptions,
): (req: IncomingMessage, res: ServerResponse, target: PeerTarget) => Promise<void> {
  const { handler, limits } = options;
  const dialects = { v03: v03Dialect(options.log), v10: v10Dialect(options.log) };
  return async (req, res, target) => {
    const verb = req.method ?? 'GET';
    const tail = target.path.slice(REST_PATH.length);
    const version = options.versionOf(req, target);
    const routed = routeOf(verb, tail, version, options);
    const { match } = routed;
    const dialect = dialects[routed.dialect];
    if (match.kind !== 'route') {
      const drained = drainRequest(req, limits);
      if (match.kind === 'wrong-verb') {
        dialect.refuse(res, 'INVALID_REQUEST', `${verb} is not allowed on ${target.path}; use ${match.allow}`, {
          status: 405,
          headers: { Allow: match.allow },
        });
      } else {
        dialect.refuse(
          res,
          'METHOD_NOT_FOUND',
          `no HTTP+JSON route at ${verb} ${target.path}: the interface serves POST ${REST_PATH}/message:send, ` +
            `GET ${REST_PATH}/tasks/{id}, POST ${REST_PATH}/tasks/{id}:pause, ... (A2A 1.0), and ` +
            `POST ${REST_PATH}${V03_REST_PREFIX}/message:send, ... (A2A 0.3)`,
        );
      }
      await drained;
      return;
    }
    if (routed.dialect === 'v10') {
      const refused = versionFailure(version, options.a2aVersion);
      if (refused) {
        req.resume();
        sendRestError(res, refused.errorName, refused.message);
        return;
      }
    }
    const read = await readBody(req, res, verb, limits, dialect);
    if (read === undefined) return;
    const { params, conflict } = restParams(match, target.query, read.body);
    if (conflict) {
      dialect.refuse(res, 'INVALID_PARAMS', conflict.message, { metadata: { field: conflict.field } });
      return;
    }
    await handler.call(
      match.method,
      dialect.params(match.method, params),
      options.callerOf(req, match.method),
      dialect.reply(res, match.method),
    );
  };
}
