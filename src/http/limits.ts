/**
 * @module http/limits
 * Defences at the HTTP edge shared by the reference peer and the recording proxy (docs/design.md
 * §4, §5), on `node:http` alone: time-outs, a connection cap and a body limit whose answer the
 * client actually reads.
 *
 * - A request whose headers have not all arrived within `headersTimeoutMs` (default 10 s), or
 *   whose body has not fully arrived within `requestTimeoutMs` (default 30 s, counted from the
 *   start of the request), gets HTTP 408 and the connection closes.
 * - Past `maxConnections` open connections (default 1024), a request on a further connection
 *   gets HTTP 503 (`Retry-After: 1`) and that connection closes.
 * - A body larger than `bodyLimitBytes` (declared by `Content-Length` or counted as chunks
 *   arrive) gets HTTP 413 at once; the rest of the body is read and dropped, up to
 *   `drainLimitBytes` (default 64 MiB) and for at most `drainTimeoutMs` (default 30 s), before
 *   the connection closes, as nginx's lingering close does. A client that writes its whole body
 *   before it reads (most do) finds the 413 waiting; closing with its bytes unread would reset
 *   the connection, and a reset throws away the answer it had not read yet.
 * - Nothing cuts a connection for idleness once its request has arrived: an SSE stream of a
 *   paused task may stay quiet for hours. (Idle keep-alive connections between requests close
 *   after Node's `keepAliveTimeout`.)
 *
 * The answers' bodies come from the caller, which picks their shape from the request when its
 * head has arrived (docs/design.md §5), so this module knows HTTP only.
 */
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface HttpLimits {
  /** A request (headers and body) must fully arrive within this many ms. */
  requestTimeoutMs: number;
  /** The headers must arrive within this many ms (at most `requestTimeoutMs`). */
  headersTimeoutMs: number;
  /** Open connections served; requests on further ones get 503. */
  maxConnections: number;
  /** Largest request body accepted. */
  bodyLimitBytes: number;
  /** How much of an over-limit body is read and dropped after the 413 before closing. */
  drainLimitBytes: number;
  /** How long an over-limit body is read and dropped after the 413 before closing, ms. */
  drainTimeoutMs: number;
}

/** How much of a refused body is drained, in bytes and time (see {@link drainRequest}). */
export type DrainLimits = Pick<HttpLimits, 'drainLimitBytes' | 'drainTimeoutMs'>;

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  maxConnections: 1024,
  bodyLimitBytes: 1024 * 1024,
  drainLimitBytes: 64 * 1024 * 1024,
  drainTimeoutMs: 30_000,
};

/** `node:http` server options that enforce the time-outs (and never an idle time-out). */
export function limitedServerOptions(limits: HttpLimits): ServerOptions {
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout,
    // Node checks for expired requests on this period; a fraction of the shortest time-out.
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
}

/**
 * The body of an answer the limits send: status, message and the request whose head arrived
 * (undefined when none did, e.g. headers that time out) → body text (JSON, from the caller).
 */
export type LimitAnswerBody = (status: number, message: string, req: IncomingMessage | undefined) => string;

/** What {@link guardServer} gives the request handler. */
export interface ConnectionGate {
  /** True when the request came on a connection past the cap: answer it with {@link answerAndClose} 503. */
  overCapacity(req: IncomingMessage): boolean;
  /** Notes the response of a request, so a time-out that hits mid-answer does not write a second one. */
  track(req: IncomingMessage, res: ServerResponse): void;
  /**
   * Counts a connection another server on the same port serves (an HTTP/2 session) against the
   * same cap; `over` when it is past it. `close` when the connection closes.
   */
  count(): { over: boolean; close(): void };
}

function rawAnswer(status: number, reason: string, body: string): string {
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * Counts connections and answers what Node refuses before the handler runs: 408 for a request
 * that timed out, 431 for oversized headers, 400 for anything unparsable.
 */
export function guardServer(server: Server, limits: HttpLimits, body: LimitAnswerBody): ConnectionGate {
  let open = 0;
  const over = new WeakSet<Socket>();
  const answering = new WeakMap<Socket, ServerResponse>();
  server.on('connection', (socket: Socket) => {
    open += 1;
    if (open > limits.maxConnections) over.add(socket);
    socket.once('close', () => {
      open -= 1;
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const tracked = answering.get(socket);
    if (!socket.writable || (tracked?.headersSent ?? false)) {
      socket.destroy();
      return;
    }
    // The request whose head arrived and whose answer has not started: its body is what failed.
    const req = tracked?.req;
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      const headersMs = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
      const message =
        `the request did not fully arrive in time (headers within ${headersMs} ms, ` +
        `the whole request within ${limits.requestTimeoutMs} ms)`;
      socket.end(rawAnswer(408, 'Request Timeout', body(408, message, req)));
    } else if (error.code === 'HPE_HEADER_OVERFLOW') {
      const answer = body(431, 'the request headers are too large', req);
      socket.end(rawAnswer(431, 'Request Header Fields Too Large', answer));
    } else {
      socket.end(rawAnswer(400, 'Bad Request', body(400, 'the request is not valid HTTP/1.1', req)));
    }
  });
  return {
    overCapacity: (req) => over.has(req.socket),
    track: (req, res) => answering.set(req.socket, res),
    count: () => {
      open += 1;
      let closed = false;
      return {
        over: open > limits.maxConnections,
        close: () => {
          if (closed) return;
          closed = true;
          open -= 1;
        },
      };
    },
  };
}

export type BodyResult =
  | { kind: 'ok'; bytes: Buffer }
  /** `drained` settles once the rest was read and dropped (within the drain limits) or the client left. */
  | { kind: 'too-large'; size: number; drained: Promise<void> }
  | { kind: 'aborted' };

/**
 * Reads and drops what remains of `req`, up to `limits.drainLimitBytes` bytes and for at most
 * `limits.drainTimeoutMs`; settles when it ended, either bound was passed or the client left.
 * Attach it before any `await`, so no `end` is missed.
 */
export function drainRequest(req: IncomingMessage, limits: DrainLimits): Promise<void> {
  return new Promise((resolve) => {
    if (req.readableEnded) return resolve();
    let dropped = 0;
    const done = (): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('error', done);
      req.off('close', done);
      resolve();
    };
    const stop = (): void => {
      req.pause();
      done();
    };
    const onData = (chunk: Buffer): void => {
      dropped += chunk.length;
      if (dropped > limits.drainLimitBytes) stop();
    };
    const timer = setTimeout(stop, limits.drainTimeoutMs);
    timer.unref();
    req.on('data', onData);
    req.once('end', done);
    req.once('error', done);
    req.once('close', done);
  });
}

/**
 * Reads the body up to `limit` bytes. A larger body (declared or counted) resolves `too-large`
 * as soon as it is known, and the rest is drained (see {@link drainRequest}).
 */
export function readLimitedBody(req: IncomingMessage, limit: number, drain: DrainLimits): Promise<BodyResult> {
  return new Promise((resolve) => readLimitedBodyThen(req, limit, drain, resolve));
}

/**
 * {@link readLimitedBody} handing its result to `done` (once, from the request's own events)
 * instead of a promise: the recording proxy reads every request's body with it.
 */
export function readLimitedBodyThen(
  req: IncomingMessage,
  limit: number,
  drain: DrainLimits,
  done: (result: BodyResult) => void,
): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    const drained = drainRequest(req, drain);
    // As a resolved promise would hand it on: after the caller's own synchronous work.
    queueMicrotask(() => done({ kind: 'too-large', size: declared, drained }));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const cleanup = (): void => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onAbort);
    req.off('close', onAbort);
  };
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size <= limit) {
      chunks.push(chunk);
      return;
    }
    cleanup();
    chunks.length = 0;
    done({ kind: 'too-large', size, drained: drainRequest(req, drain) });
  };
  const onEnd = (): void => {
    cleanup();
    // A body that came in one chunk (most do) is that chunk, not a copy of it.
    done({ kind: 'ok', bytes: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size) });
  };
  const onAbort = (): void => {
    cleanup();
    done({ kind: 'aborted' });
  };
  req.on('data', onData);
  req.once('end', onEnd);
  req.once('error', onAbort);
  req.once('close', onAbort);
}

/**
 * Sends a whole answer (`Connection: close`), waits until `drained` settles, then ends the
 * response, which closes the connection. The client has the full answer before the close, so it
 * reads it even when it was still sending.
 */
export async function answerAndClose(
  res: ServerResponse,
  status: number,
  body: string,
  drained: Promise<void>,
  headers: Record<string, string> = {},
): Promise<void> {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
    ...headers,
  });
  res.write(body);
  await drained;
  res.end();
}
