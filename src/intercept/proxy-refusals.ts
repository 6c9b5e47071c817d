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
 * - An answer that shows a pause or resume whose receipt could not be made durable (a full disk,
 *   docs/design.md §5): HTTP 503 in place of the peer's answer, or, on an event stream already
 *   started, an error event in place of the held event, and the stream's end.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type OwnAnswer, ownAnswerBody } from '../http/json-answer.js';
import { type TargetReading, refusedTargetMessage } from '../http/request-target.js';
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
