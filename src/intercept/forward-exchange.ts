/**
 * @module intercept/forward-exchange
 * Forwarding one exchange through the recording proxy: the request goes to the upstream as the
 * client sent it (end-to-end headers, the body already read whole), the answer comes back
 * unchanged (errors included, an SSE stream chunk by chunk) except for an agent card
 * (src/intercept/card-answer.ts), and the {@link ExchangeRecorder} is told all it saw.
 *
 * Failures are answered by the proxy itself in the request's binding: a dead upstream gets HTTP
 * 502 naming the upstream (an `error` entry), one that sends no response head within
 * `upstreamTimeoutMs` gets 504 (an open SSE stream is then never cut for idleness); an answer cut
 * mid-body cuts the client's connection. The peer may act on a request whatever its client does,
 * so a client that goes away, or gets the 504, does not cut the upstream: the answer is read on
 * for up to `followMs` and recorded with `undelivered` saying why the client did not get it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../errors.js';
import { certificateFailure } from '../http/tls-failure.js';
import type { GrpcTargetParts } from './agent-card-rewrite.js';
import { type CardAnswer, type CardRewrites, cardAnswerOf, passCardAnswer } from './card-answer.js';
import { type Exchange, type ExchangeRecorder, RESPONSE_CUT_MESSAGE } from './exchange-recorder.js';
import type { Flights } from './flights.js';
import { relayHeld } from './held-relay.js';
import { mediaType } from './http-headers.js';
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
  /**
   * How long the recorder reads on an answer whose client no longer gets it (the client left, or
   * got the recorder's 504), from that moment; then it stops reading and records why.
   */
  followMs: number;
  /** `http(s)://HOST:PORT` the proxy listens on: where a card's URLs move when the request names no Host. */
  ownUrl(): string;
  /** The gRPC upstream, whose card interfaces move to the proxy too. */
  grpc?: GrpcTargetParts;
  /** The cards this proxy rewrote last. */
  cards: CardRewrites;
}

/**
 * Forwards `req` (its body read whole: `body`) to the upstream and its answer back to `res`,
 * recording both. Once the request is sent, the answer is read to its end and recorded whatever
 * becomes of the client: a client that leaves, or one the recorder answers 504, only stops getting
 * it (docs/design.md §5, "The recorder follows the peer").
 */
export function forwardExchange(
  context: ForwardContext,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
): void {
  const { upstream, recorder, flights, upstreamTimeoutMs, followMs } = context;
  const path = targetOf(req);
  const exchange = recorder.request({ method: req.method ?? 'GET', path, headers: req.headers, body });
  let done = false;
  // Why the client no longer gets the answer, once it does not.
  let gone: string | undefined;
  let answer: IncomingMessage | undefined;
  let followTimer: NodeJS.Timeout | undefined;
  const flight = flights.add((reason) => {
    const why = gone === undefined ? reason : `${gone}; ${reason}`;
    exchange.fail(why, unreadAnswer(why));
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
  const settle = (): void => {
    if (done) return;
    done = true;
    clearTimeout(headTimer);
    clearTimeout(followTimer);
    flights.delete(flight);
  };
  // The client gets no more of the answer: read it on for up to `followMs`, for the recording alone.
  const follow = (why: string): void => {
    if (done || gone !== undefined) return;
    gone = why;
    exchange.undelivered(why);
    if (answer?.complete === true) {
      settle();
      return;
    }
    // A read paused for the client's back-pressure would wait for a drain that never comes.
    answer?.resume();
    followTimer = setTimeout(() => {
      if (done) return;
      const cut =
        `${why}; the upstream's answer did not end within ${followMs} ms after that (--follow-ms), ` +
        'so the recorder stopped reading it';
      exchange.fail(cut, unreadAnswer(cut));
      upstreamReq.destroy();
      settle();
    }, followMs);
  };
  // The upstream has this long to send its response head (an SSE stream may then idle for hours).
  const headTimer = setTimeout(() => {
    if (done) return;
    const why = `upstream ${upstream.label} sent no response within ${upstreamTimeoutMs} ms`;
    failWith(504, why);
    follow(`the recorder answered the client 504: ${why}`);
  }, upstreamTimeoutMs);

  const upstreamReq = upstream.send(req, path, body);
  upstreamReq.on('error', (error) => {
    if (done) return;
    const why = `upstream ${upstream.label} failed: ${certificateFailure(error) ?? describeError(error)}`;
    exchange.fail(why);
    if (gone !== undefined) res.destroy();
    else if (!res.headersSent) failWith(502, why);
    else res.destroy();
    settle();
  });
  res.on('close', () => {
    if (done) return;
    if (!res.writableFinished) follow('the client closed its connection before the answer ended');
    else if (gone === undefined) settle();
  });
  upstreamReq.on('response', (upstreamRes) => {
    clearTimeout(headTimer);
    if (done) {
      upstreamRes.resume();
      return;
    }
    answer = upstreamRes;
    const status = upstreamRes.statusCode ?? 502;
    exchange.head(status, upstreamRes.headers);
    const card = cardAnswerOf(req.method ?? 'GET', path, body, status, upstreamRes.headers);
    // An event stream may go on for hours: a stop gives it the grace period (src/intercept/flights.ts).
    if (mediaType(upstreamRes.headers['content-type']) === 'text/event-stream') flights.streaming(flight);
    upstreamRes.on('error', () => {
      // reported through 'close' below
    });
    upstreamRes.on('close', () => {
      if (upstreamRes.complete || done) return;
      exchange.fail(RESPONSE_CUT_MESSAGE);
      res.destroy();
      settle();
    });
    if (gone !== undefined) {
      // Nobody waits for it: an agent card is not read on; anything else is, for the recording.
      if (card === undefined) readUnrelayed(upstreamRes, exchange, settle);
      else {
        exchange.fail(gone);
        upstreamReq.destroy();
        settle();
      }
      return;
    }
    relayAnswer(context, { req, res, body, exchange, settle }, upstreamRes, card);
    // The client may leave while the answer is relayed: the answer's end then ends the exchange.
    upstreamRes.on('end', () => {
      if (gone !== undefined) settle();
    });
  });
  upstreamReq.end(body);
}

/**
 * Why an answer the recorder stopped reading (a stop, `followMs`) leaves what the peer did unknown:
 * the `incomplete` of its entry, unless the answer is a stream (its events were observed as they came).
 */
function unreadAnswer(why: string): string {
  return `the recorder did not read the peer's answer to its end (${why}): a pause or resume it carried has no receipt`;
}

/** One exchange as {@link relayAnswer} needs it. */
interface Relayed {
  req: IncomingMessage;
  res: ServerResponse;
  /** The request's body, for the answer that refuses it (its id, its binding). */
  body: Buffer;
  exchange: Exchange;
  settle: () => void;
}

/** Relays the answer `from` to the client, held until its receipts are durable; an agent card rewritten. */
function relayAnswer(
  context: ForwardContext,
  relayed: Relayed,
  from: IncomingMessage,
  card: CardAnswer | undefined,
): void {
  const { req, res, body, exchange, settle } = relayed;
  if (card === undefined) {
    relayHeld(from, res, exchange, settle, (why) => refuseUndurable(req, res, body, why));
    return;
  }
  const proxyBase = (): URL => {
    const own = new URL(context.ownUrl());
    return req.headers.host ? new URL(`${own.protocol}//${req.headers.host}`) : own;
  };
  const grpc = context.grpc === undefined ? {} : { grpc: context.grpc };
  const rewrite = { upstream: context.upstream.url, proxyBase, baseKey: req.headers.host ?? '', ...grpc };
  passCardAnswer(card, from, res, exchange, rewrite, settle, context.cards);
}

/** Reads an answer no client waits for to its end, recording it on `exchange`; then `settle`. */
function readUnrelayed(from: IncomingMessage, exchange: Exchange, settle: () => void): void {
  from.on('data', (chunk: Buffer) => {
    exchange.data(chunk);
    // Nothing is released to a client, so nothing waits for the receipts the entries hold.
    void exchange.takeHold();
  });
  from.on('end', () => {
    exchange.finish();
    void exchange.takeHold();
    settle();
  });
}
