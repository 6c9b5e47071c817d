/**
 * @module intercept/grpc-forward
 * Forwarding one gRPC call through the recording proxy (docs/design.md §16): the client's HTTP/2
 * stream goes to the gRPC upstream as it came (metadata, message bytes, end of stream) and the
 * answer comes back unchanged (headers, message bytes, trailers, a Trailers-Only answer, a
 * RST_STREAM), while {@link GrpcExchange} records it on the side. The proxy reads the messages
 * only to record them; it never re-encodes one.
 *
 * Durable before acknowledged (docs/design.md §5), as src/intercept/held-relay.ts does for HTTP:
 * a stream's DATA chunk goes out once the holds of the messages it completed settle; a unary
 * answer keeps its last chunk back until the trailers are recorded and their hold settles, and
 * the trailers follow it. The client cannot read either before. A hold that settles to a refusal
 * (a receipt that could not be made durable: a full disk) ends the call with UNAVAILABLE saying
 * why, in place of what it held; the upstream's answer is still read and recorded.
 *
 * Refused, never forwarded: a path that names no method of A2A or its pause extension gets
 * UNIMPLEMENTED saying why; an upstream that cannot be reached gets UNAVAILABLE naming it, and a
 * call on a session past the connection cap UNAVAILABLE saying so (its session then goes away).
 * Each is recorded as the request and an `error` entry, and told once on stderr (`warn`).
 */
import {
  type ClientHttp2Stream,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Stream,
  constants as h2,
} from 'node:http2';
import { describeError } from '../errors.js';
import { GrpcFrameReader, grpcMessageHeader, grpcTimeoutMs, grpcTimeoutValue } from '../grpc/grpc-wire.js';
import { type GrpcMethod, grpcMethodOfPath } from '../grpc/methods.js';
import type { ExchangeRecorder } from './exchange-recorder.js';
import type { Flights } from './flights.js';
import { GrpcExchange, MOVING_METHODS } from './grpc-exchange.js';
import type { GrpcUpstream } from './grpc-upstream.js';
import { holdGate } from './hold-gate.js';
import { GrpcStatus, type GrpcStatusCode } from '../grpc/status-codes.js';

/** What forwarding a gRPC call needs of the proxy that wires it. */
export interface GrpcForwardContext {
  upstream: GrpcUpstream;
  recorder: ExchangeRecorder;
  flights: Flights;
  /**
   * How long the recorder reads on an answer whose client no longer gets it (it cancelled, or its
   * deadline passed), from that moment; then it stops reading and records why.
   */
  followMs: number;
  /** Says a refusal on stderr; the caller tells each kind once. */
  warn(kind: GrpcRefusalKind, message: string): void;
}

/** The calls the proxy refuses itself: an unknown path, an unreachable upstream, a session past the cap. */
export type GrpcRefusalKind = 'unimplemented' | 'unavailable' | 'connections';

/** Headers of one side of a call as forwarded: no pseudo-headers but `:status`, nothing HTTP/2 forbids. */
function forwardedHeaders(headers: IncomingHttpHeaders, keepStatus: boolean): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (name.startsWith(':') && !(keepStatus && name === ':status')) continue;
    if (name === 'connection' || name === 'keep-alive' || name === 'transfer-encoding' || name === 'upgrade') continue;
    out[name] = value;
  }
  return out;
}

/** Answers the call with a Trailers-Only status the proxy makes itself. */
function answerStatus(stream: ServerHttp2Stream, code: GrpcStatusCode, message: string): void {
  if (stream.destroyed || stream.closed) return;
  if (stream.headersSent) {
    stream.close(h2.NGHTTP2_INTERNAL_ERROR);
    return;
  }
  stream.respond(
    {
      ':status': 200,
      'content-type': 'application/grpc',
      'grpc-status': String(code),
      'grpc-message': grpcMessageHeader(message),
    },
    { endStream: true },
  );
}

/** A call the proxy answers itself, never forwarded: its status, why, and what kind of refusal. */
interface Refusal {
  code: GrpcStatusCode;
  message: string;
  kind: GrpcRefusalKind;
  /** The method the path names, when it names one (its request is then recorded decoded). */
  method: GrpcMethod | undefined;
}

/** Refuses a call: reads and records its request, then answers `refusal`'s status, recorded as an error. */
function refuseCall(
  context: GrpcForwardContext,
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  refusal: Refusal,
): void {
  const exchange = new GrpcExchange(context.recorder, headers, refusal.method);
  const reader = new GrpcFrameReader(context.recorder.maxObservedBytes);
  const { code, message } = refusal;
  let answered = false;
  const answer = (): void => {
    if (answered) return;
    answered = true;
    exchange.requestEnd();
    exchange.fail(message, { status: code, message, trailersOnly: true });
    answerStatus(stream, code, message);
    context.warn(refusal.kind, message);
  };
  stream.on('data', (chunk: Buffer) => {
    try {
      for (const frame of reader.push(chunk)) exchange.requestMessage(frame);
    } catch (error) {
      exchange.requestUnreadable(describeError(error));
      answer();
    }
  });
  stream.on('end', answer);
  stream.on('error', () => answer());
}

/**
 * Forwards the call on `stream` (its request `headers`) to the upstream, recording it; refuses it
 * with UNAVAILABLE saying `overCapacity` when its session is past the connection cap.
 */
export function forwardGrpcCall(
  context: GrpcForwardContext,
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  overCapacity?: string,
): void {
  const { upstream, recorder, flights } = context;
  const found = grpcMethodOfPath(String(headers[':path'] ?? ''));
  if (found === undefined || overCapacity !== undefined) {
    refuseUnforwarded(context, stream, headers, found?.method, overCapacity);
    return;
  }
  const exchange = new GrpcExchange(recorder, headers, found.method);
  const requests = new GrpcFrameReader(recorder.maxObservedBytes);
  const answers = new GrpcFrameReader(recorder.maxObservedBytes);
  const timeout = grpcTimeoutMs(firstHeader(headers, 'grpc-timeout'));
  const moving = MOVING_METHODS.has(found.name);
  let upstreamStream: ClientHttp2Stream;
  let done = false;
  // The client's message went whole to the upstream: the peer may act on it from now on.
  let sent = false;
  // Why the client no longer gets the answer, once it does not.
  let gone: string | undefined;
  let deadlineTimer: NodeJS.Timeout | undefined;
  let followTimer: NodeJS.Timeout | undefined;
  const settle = (): void => {
    if (done) return;
    done = true;
    clearTimeout(deadlineTimer);
    clearTimeout(followTimer);
    flights.delete(flight);
  };
  // A unary answer to a call that can move a pause, which the peer has and has not answered yet:
  // cut now, the peer's move is unknown (an open stream's events were observed as they came).
  const awaited = (): boolean => sent && moving && !found.method.stream;
  const unavailable = (why: string): void => {
    const message = `the recorder cannot reach the gRPC upstream ${upstream.label}: ${why}`;
    exchange.fail(message, { status: GrpcStatus.UNAVAILABLE, message, trailersOnly: true });
    answerStatus(stream, GrpcStatus.UNAVAILABLE, message);
    context.warn('unavailable', message);
    settle();
  };
  const flight = flights.add((reason) => {
    const why = gone === undefined ? reason : `${gone}; ${reason}`;
    exchange.fail(why, gone === undefined ? {} : { cancelled: true }, awaited() ? unreadAnswer(why) : undefined);
    upstreamStream.close(h2.NGHTTP2_CANCEL);
    stream.close(h2.NGHTTP2_CANCEL);
  });
  // The client gets no more of the answer: read it on for up to `followMs`, for the recording alone.
  const follow = (why: string): void => {
    if (done || gone !== undefined) return;
    gone = why;
    exchange.undelivered(why);
    // A read paused for the client's back-pressure would wait for a drain that never comes.
    upstreamStream.resume();
    followTimer = setTimeout(() => {
      if (done) return;
      const cut =
        `${why}; the upstream's answer did not end within ${context.followMs} ms after that (--follow-ms), ` +
        'so the recorder stopped reading it';
      exchange.fail(cut, { cancelled: true }, awaited() ? unreadAnswer(cut) : undefined);
      upstreamStream.close(h2.NGHTTP2_CANCEL);
      settle();
    }, context.followMs);
  };
  try {
    upstreamStream = upstream.request(upstreamHeaders(headers, moving ? timeout : undefined, context.followMs));
  } catch (error) {
    stream.resume();
    unavailable(upstream.why(error));
    return;
  }
  // A stream's messages may go on for hours: a stop gives it the grace period (src/intercept/flights.ts).
  if (found.method.stream) upstreamStream.once('response', () => flights.streaming(flight));
  if (timeout !== undefined && moving) {
    // The client's deadline is kept here, for the client; the peer's answer is read on after it.
    deadlineTimer = setTimeout(() => {
      if (done || gone !== undefined) return;
      const why = `the client's deadline (grpc-timeout, ${timeout} ms) passed before the answer ended`;
      if (!sent) {
        exchange.finish(undefined, { cancelled: true });
        upstreamStream.close(h2.NGHTTP2_CANCEL);
        answerStatus(stream, GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded');
        settle();
        return;
      }
      follow(`${why}: the recorder answered it DEADLINE_EXCEEDED`);
      endClient(stream, GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded');
    }, timeout);
  }

  pipeClient(stream, upstreamStream, exchange, requests, {
    sent: () => (sent = true),
    left: () => {
      if (done || gone !== undefined) return;
      if (sent) {
        // The peer has the whole request and may act on it: its answer is read on (docs/design.md §16).
        follow('the client cancelled the call (RST_STREAM) before the answer ended');
        return;
      }
      // The client cancelled before its request was whole: nothing the peer could act on.
      exchange.finish(undefined, { cancelled: true });
      upstreamStream.close(h2.NGHTTP2_CANCEL);
      settle();
    },
  });
  relayAnswer(upstreamStream, stream, exchange, answers, {
    streaming: found.method.stream,
    unavailable,
    why: (error) => upstream.why(error),
    settle,
    isDone: () => done,
    isGone: () => gone !== undefined,
  });
}

/** Refuses a call whose path names no method, or one past the connection cap (`overCapacity`). */
function refuseUnforwarded(
  context: GrpcForwardContext,
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  method: GrpcMethod | undefined,
  overCapacity: string | undefined,
): void {
  if (method === undefined) {
    const path = String(headers[':path'] ?? '');
    const message =
      `the recorder does not forward ${path}: it is no method of lf.a2a.v1.A2AService, ` +
      'lf.a2a.v1.pause.A2APauseService or a2a.v1.A2AService (A2A v0.3), so the call could not be recorded ' +
      'as the peer reads it';
    refuseCall(context, stream, headers, { code: GrpcStatus.UNIMPLEMENTED, message, kind: 'unimplemented', method });
    return;
  }
  // Past the connection cap: refused, and the session told to go away once its calls are answered.
  const message = overCapacity ?? '';
  refuseCall(context, stream, headers, { code: GrpcStatus.UNAVAILABLE, message, kind: 'connections', method });
  stream.session?.close();
}

/**
 * The client's side of a call, as it comes: its bytes to the upstream, its messages to the
 * recording; `sent` once its request went whole, `left` when its stream closes.
 */
function pipeClient(
  stream: ServerHttp2Stream,
  upstreamStream: ClientHttp2Stream,
  exchange: GrpcExchange,
  requests: GrpcFrameReader,
  on: { sent(): void; left(): void },
): void {
  stream.on('data', (chunk: Buffer) => {
    try {
      for (const frame of requests.push(chunk)) exchange.requestMessage(frame);
    } catch (error) {
      exchange.requestUnreadable(describeError(error));
    }
    if (!upstreamStream.write(chunk)) {
      stream.pause();
      upstreamStream.once('drain', () => stream.resume());
    }
  });
  stream.on('end', () => {
    exchange.requestEnd();
    upstreamStream.end();
    on.sent();
  });
  stream.on('error', () => {
    // reported through 'close' below
  });
  stream.on('close', () => on.left());
}

/** Why an answer the recorder stopped reading leaves the peer's move unknown (an `incomplete` entry). */
function unreadAnswer(why: string): string {
  return `the recorder did not read the peer's answer to its end (${why}): a pause or resume it carried has no receipt`;
}

function firstHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The headers of the call as the upstream gets them: the client's, but for a call that can move a
 * pause a deadline of `timeout` ms (the client's) stretched by `followMs`. A peer that enforces the
 * client's deadline answers DEADLINE_EXCEEDED and may still pause the task after (grpc-js runs the
 * handler on), leaving nothing on the wire; stretched, its answer comes and is observed, while the
 * recorder keeps the client's own deadline for the client (docs/design.md §16).
 */
function upstreamHeaders(
  headers: IncomingHttpHeaders,
  timeout: number | undefined,
  followMs: number,
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {
    ...forwardedHeaders(headers, false),
    ':method': 'POST',
    ':path': String(headers[':path']),
  };
  if (timeout !== undefined) out['grpc-timeout'] = grpcTimeoutValue(timeout + followMs);
  return out;
}

/** Ends the client's side of a call with `code` (trailers after headers sent, else Trailers-Only). */
function endClient(stream: ServerHttp2Stream, code: GrpcStatusCode, message: string): void {
  if (stream.destroyed || stream.closed) return;
  if (!stream.headersSent) {
    answerStatus(stream, code, message);
    return;
  }
  const status = { 'grpc-status': String(code), 'grpc-message': grpcMessageHeader(message) };
  stream.once('wantTrailers', () => stream.sendTrailers(status));
  stream.end();
}

interface RelayControl {
  /** The method streams its answer (each message released on its own). */
  streaming: boolean;
  unavailable(why: string): void;
  /** Why the upstream could not be reached, in user words. */
  why(error: unknown): string;
  settle(): void;
  isDone(): boolean;
  /** The client gets no more of the answer (it cancelled, or its deadline passed): it is read on alone. */
  isGone(): boolean;
}

/** Passes the upstream's answer on to the client, each part released once its hold settles. */
function relayAnswer(
  from: ClientHttp2Stream,
  to: ServerHttp2Stream,
  exchange: GrpcExchange,
  reader: GrpcFrameReader,
  control: RelayControl,
): void {
  let answered = false;
  let trailers: IncomingHttpHeaders | undefined;
  let unreadable = false;
  const { release, write } = holdGate(from, to);
  let finished = false;
  let last: Buffer | undefined;
  let refused = false;
  const clientOpen = (): boolean => !to.destroyed && !to.closed && !control.isGone();
  /** Ends the call with UNAVAILABLE saying why, once: a receipt it held could not be made durable. */
  const refuse = (why: string): void => {
    if (refused) return;
    refused = true;
    if (clientOpen()) endClient(to, GrpcStatus.UNAVAILABLE, why);
  };
  const pass =
    (chunk: Buffer) =>
    (refusal: string | undefined): void => {
      if (control.isGone()) return;
      if (refusal === undefined) write(chunk);
      else refuse(refusal);
    };

  from.on('response', (headers: IncomingHttpHeaders, flags: number) => {
    answered = true;
    if ((flags & h2.NGHTTP2_FLAG_END_STREAM) !== 0 || headers['grpc-status'] !== undefined) {
      // Trailers-Only: the status in the one HEADERS frame.
      finished = true;
      exchange.finish(headers, { trailersOnly: true });
      release((refusal) => {
        if (refusal !== undefined) refuse(refusal);
        else if (clientOpen()) to.respond(forwardedHeaders(headers, true), { endStream: true });
        control.settle();
      }, exchange.takeHold());
      return;
    }
    exchange.head(headers);
    if (clientOpen()) to.respond(forwardedHeaders(headers, true), { waitForTrailers: true });
  });
  from.on('trailers', (headers: IncomingHttpHeaders) => {
    trailers = headers;
  });
  from.on('data', (chunk: Buffer) => {
    if (!unreadable) {
      try {
        for (const frame of reader.push(chunk)) exchange.message(frame);
      } catch (error) {
        unreadable = true;
        exchange.answerUnreadable(describeError(error));
      }
    }
    const hold = exchange.takeHold();
    if (control.streaming) {
      release(pass(chunk), hold);
      return;
    }
    const previous = last;
    last = chunk;
    if (previous !== undefined) release(pass(previous), hold);
  });
  from.on('end', () => {
    if (!answered || finished || control.isDone()) return;
    if (trailers === undefined) {
      finished = true;
      exchange.fail('the gRPC upstream ended the call without trailers (no status)');
      release(() => {
        if (!to.destroyed) to.close(h2.NGHTTP2_INTERNAL_ERROR);
        control.settle();
      }, exchange.takeHold());
      return;
    }
    const sent = trailers;
    finished = true;
    exchange.finish(sent);
    const tail = last;
    release((refusal) => {
      if (refusal !== undefined) refuse(refusal);
      else if (clientOpen() && !refused) {
        to.once('wantTrailers', () => to.sendTrailers(forwardedHeaders(sent, false)));
        to.end(tail ?? Buffer.alloc(0));
      }
      control.settle();
    }, exchange.takeHold());
  });
  from.on('error', (error: Error) => {
    if (finished || control.isDone()) return;
    finished = true;
    if (!answered) {
      control.unavailable(control.why(error));
      return;
    }
    exchange.fail(`the gRPC upstream's answer broke: ${describeError(error)}`);
    if (!to.destroyed) to.close(h2.NGHTTP2_INTERNAL_ERROR);
    control.settle();
  });
  from.on('close', () => {
    if (finished || control.isDone()) return;
    finished = true;
    const code = from.rstCode ?? h2.NGHTTP2_NO_ERROR;
    if (!answered) {
      control.unavailable(`the call's stream closed with HTTP/2 code ${code} before an answer`);
      return;
    }
    exchange.fail(`the gRPC upstream reset the call (HTTP/2 code ${code})`);
    if (!to.destroyed) to.close(code === h2.NGHTTP2_NO_ERROR ? h2.NGHTTP2_INTERNAL_ERROR : code);
    control.settle();
  });
}
