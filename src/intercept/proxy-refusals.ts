/**
 * @module intercept/proxy-refusals
 * Requests the recording proxy refuses instead of forwarding, each recorded as an `error` entry
 * and answered in the request's binding (docs/design.md §5):
 *
 * - `/control` (a peer's clock and event channel, docs/design.md §4) and anything under it, while
 *   the proxy or its upstream is not loopback: otherwise any client that reaches the proxy could
 *   move the peer's clock. HTTP 403.
 * - A target that servers read differently (src/http/request-target.ts: a dot segment, `%2F`,
 *   `%5C`, a backslash, a fragment, a `;` parameter): the upstream could carry out a call the
 *   observer reads otherwise. HTTP 400.
 * - A target that names no A2A call as the client sent it but an HTTP+JSON one under the
 *   upstream's base path (`--upstream http://peer/rest/tasks`, `POST /t-1:pause`): the peer would
 *   carry out a call the recording does not show. HTTP 400 saying where to point `--upstream`.
 * - An answer that shows a pause or resume whose receipt could not be made durable (a full disk,
 *   docs/design.md §5): HTTP 503 in place of the peer's answer, or, on an event stream already
 *   started, an error event in place of the held event, and the stream's end.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type OwnAnswer, ownAnswerBody } from '../http/json-answer.js';
import { type TargetReading, refusedTargetMessage, underBase } from '../http/request-target.js';
import { matchRestTail } from '../protocol/rest-binding.js';
import { sseFrame } from '../http/sse-writer.js';
import { CONTROL_PATH } from '../protocol/methods.js';
import type { ExchangeRecorder } from './exchange-recorder.js';
import { answerOwn, bindingOfRequest, jsonRpcIdOf, targetOf } from './proxy-answers.js';

/** The message of a refused `/control` request. */
export const CONTROL_REFUSED_MESSAGE =
  '/control is forwarded only while the recorder listens on loopback and its upstream is loopback';

/**
 * True when a request target names `/control` or a path under it, read as generously as any
 * server might read it: absolute form, percent-escapes, dot segments, repeated slashes or
 * backslashes, `;` parameters and letter case do not hide it.
 */
export function isControlTarget(target: string): boolean {
  let path = target.split(/[?#]/, 1)[0] ?? '';
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) {
    try {
      path = new URL(path).pathname;
    } catch {
      // not a URL: read it as a path
    }
  }
  try {
    path = decodeURIComponent(path);
  } catch {
    // a stray %: read it as it is
  }
  const segments: string[] = [];
  for (const raw of path.split(/[/\\]/)) {
    const segment = (raw.split(';', 1)[0] ?? '').trim().toLowerCase();
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments[0] === CONTROL_PATH.slice(1);
}

/** Records and refuses (403) a `/control` request the proxy does not forward. */
export function refuseControl(
  recorder: ExchangeRecorder,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
): void {
  const exchange = recorder.request({
    method: req.method ?? 'GET',
    path: targetOf(req),
    headers: req.headers,
    body,
  });
  exchange.fail(CONTROL_REFUSED_MESSAGE);
  const id = jsonRpcIdOf(body);
  answerOwn(req, res, { status: 403, name: 'INVALID_REQUEST', message: CONTROL_REFUSED_MESSAGE, id });
}

/**
 * Records and refuses (400) a target servers read differently (docs/design.md §5), never
 * forwarded: the upstream could carry out what the observer reads as another request, or as none.
 */
export function refuseTarget(
  recorder: ExchangeRecorder,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  reading: TargetReading,
): void {
  const why = refusedTargetMessage(reading.ambiguity ?? '');
  const method = req.method ?? 'GET';
  recorder.request({ method, path: reading.sent, headers: req.headers, body }).fail(`${why}; not forwarded`);
  answerOwn(req, res, { status: 400, name: 'INVALID_REQUEST', message: why, id: jsonRpcIdOf(body) });
}

/**
 * Why the peer would read `verb path` under the upstream's `basePath` as an HTTP+JSON call that the
 * recording, which keeps the path as the client sent it, does not show; undefined when it would
 * not (no base path, the path names a call itself, or the composed one names none). The recorder
 * reads the base path as where the A2A interface is mounted (docs/design.md §5), as it rewrites
 * the agent card; a base path that is part of a route is refused, never observed as another call.
 */
export function composedCallProblem(basePath: string, verb: string, path: string): string | undefined {
  if (basePath === '' || matchRestTail(verb, path).kind === 'route') return undefined;
  const composed = underBase(basePath, path);
  const match = matchRestTail(verb, composed);
  if (match.kind !== 'route') return undefined;
  return (
    `the request target is refused: under the upstream's base path ${basePath} the peer gets ${verb} ${composed}, ` +
    `an HTTP+JSON ${match.method}${match.id === undefined ? '' : ` of task ${match.id}`}, while ${path} names no ` +
    'A2A call, so the recording would not show it; give --upstream the URL the A2A interface is mounted at'
  );
}

/** Records and refuses (400) a request whose target names a call only under the upstream's base path. */
export function refuseComposed(
  recorder: ExchangeRecorder,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  why: string,
): void {
  recorder.request({ method: req.method ?? 'GET', path: targetOf(req), headers: req.headers, body }).fail(why);
  answerOwn(req, res, { status: 400, name: 'INVALID_REQUEST', message: why, id: jsonRpcIdOf(body) });
}

/**
 * Refuses the peer's answer to `req` because a receipt it shows could not be made durable
 * (`why`, in a client's words): 503 in the request's binding while the answer
 * has not started; on an event stream already started, that error as one more event, then the
 * stream's end. The held bytes are never sent (docs/design.md §5, "A full disk").
 */
export function refuseUndurable(req: IncomingMessage, res: ServerResponse, body: Buffer, why: string): void {
  const answer: OwnAnswer = {
    status: 503,
    name: 'INTERNAL',
    message: why,
    id: jsonRpcIdOf(body),
    metadata: { httpStatus: '503' },
  };
  if (!res.headersSent) {
    answerOwn(req, res, answer);
    return;
  }
  if (res.destroyed || res.writableEnded) return;
  res.end(sseFrame(JSON.stringify(ownAnswerBody(bindingOfRequest(req), answer))));
}
