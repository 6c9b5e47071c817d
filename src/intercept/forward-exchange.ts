/**
 * @module intercept/forward-exchange
 * Forwarding one exchange through the recording proxy: the request goes to the upstream as the
 * client sent it (end-to-end headers, the body already read whole), the answer comes back
 * unchanged (errors included, an SSE stream chunk by chunk) except for an agent card
 * (src/intercept/card-answer.ts), and the {@link ExchangeRecorder} is told all it saw.
 *
 * Failures are answered by the proxy itself in the request's binding and recorded as `error`
 * entries: a dead upstream gets HTTP 502 naming the upstream, one that sends no response head
 * within `upstreamTimeoutMs` gets 504 (an open SSE stream is then never cut for idleness); an
 * answer cut mid-body cuts the client's connection; a client that goes away cuts the upstream's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../errors.js';
import { certificateFailure } from '../http/tls-failure.js';
import type { GrpcTargetParts } from './agent-card-rewrite.js';
import { type CardRewrites, cardAnswerOf, passCardAnswer } from './card-answer.js';
import { type ExchangeRecorder, RESPONSE_CUT_MESSAGE } from './exchange-recorder.js';
import type { Flights } from './flights.js';
import { relayHeld } from './held-relay.js';
import { answerOwn, jsonRpcIdOf, targetOf } from './proxy-answers.js';
import { refuseUndurable } from './proxy-refusals.js';
import type { Upstream } from './upstream.js';

/** What forwarding needs of the proxy that wires it. */
export interface ForwardContext {
  upstream: Upstream;
  recorder: ExchangeRecorder;
  flights: Flights;
  /** The upstream must send its response head within this many ms, else HTTP 504. */
  upstreamTimeoutMs: number;
  /** `http(s)://HOST:PORT` the proxy listens on: where a card's URLs move when the request names no Host. */
  ownUrl(): string;
  /** The gRPC upstream, whose card interfaces move to the proxy too. */
  grpc?: GrpcTargetParts;
  /** The cards this proxy rewrote last. */
  cards: CardRewrites;
}

/** Forwards `req` (its body read whole: `body`) to the upstream and its answer back to `res`, recording both. */
export function forwardExchange(
  context: ForwardContext,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
): void {
  const { upstream, recorder, flights, upstreamTimeoutMs } = context;
  const path = targetOf(req);
  const exchange = recorder.request({ method: req.method ?? 'GET', path, headers: req.headers, body });
  let done = false;
  const flight = flights.add((reason) => {
    exchange.fail(reason);
    upstreamReq.destroy();
    res.destroy();
  });
  const failWith = (status: 502 | 504, why: string): void => {
    answerOwn(req, res, {
      status,
      name: 'INTERNAL',
      message: why,
      id: jsonRpcIdOf(body),
      metadata: { upstream: upstream.label },
    });
  };
  // The upstream has this long to send its response head (an SSE stream may then idle for hours).
  const headTimer = setTimeout(() => {
    if (done) return;
    const why = `upstream ${upstream.label} sent no response within ${upstreamTimeoutMs} ms`;
    exchange.fail(why);
    upstreamReq.destroy();
    failWith(504, why);
    settle();
  }, upstreamTimeoutMs);
  const settle = (): void => {
    if (done) return;
    done = true;
    clearTimeout(headTimer);
    flights.delete(flight);
  };

  const upstreamReq = upstream.send(req, path, body);
  upstreamReq.on('error', (error) => {
    if (done) return;
    const why = `upstream ${upstream.label} failed: ${certificateFailure(error) ?? describeError(error)}`;
    exchange.fail(why);
    if (!res.headersSent) failWith(502, why);
    else res.destroy();
    settle();
  });
  res.on('close', () => {
    if (done) return;
    if (!res.writableFinished) {
      exchange.fail('the client closed the connection before the response ended');
      upstreamReq.destroy();
    }
    settle();
  });
  upstreamReq.on('response', (upstreamRes) => {
    clearTimeout(headTimer);
    if (done) {
      upstreamRes.resume();
      return;
    }
    const status = upstreamRes.statusCode ?? 502;
    exchange.head(status, upstreamRes.headers);
    const card = cardAnswerOf(req.method ?? 'GET', path, body, status, upstreamRes.headers);
    upstreamRes.on('error', () => {
      // reported through 'close' below
    });
    upstreamRes.on('close', () => {
      if (upstreamRes.complete || done) return;
      exchange.fail(RESPONSE_CUT_MESSAGE);
      res.destroy();
      settle();
    });
    if (card === undefined) {
      relayHeld(upstreamRes, res, exchange, settle, (why) => refuseUndurable(req, res, body, why));
      return;
    }
    const proxyBase = (): URL => {
      const own = new URL(context.ownUrl());
      return req.headers.host ? new URL(`${own.protocol}//${req.headers.host}`) : own;
    };
    const grpc = context.grpc === undefined ? {} : { grpc: context.grpc };
    const rewrite = { upstream: upstream.url, proxyBase, baseKey: req.headers.host ?? '', ...grpc };
    passCardAnswer(card, upstreamRes, res, exchange, rewrite, settle, context.cards);
  });
  upstreamReq.end(body);
}
