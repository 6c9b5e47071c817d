/**
 * @module http/transport-sniff
 * One TCP port for HTTP/1.1 and for HTTP/2 over cleartext (h2c with prior knowledge, which gRPC
 * uses), told apart by the first bytes a client sends (docs/design.md §16). An HTTP/2 client
 * opens with the connection preface `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n` (RFC 9113 §3.4); no
 * HTTP/1 request starts with it, so the first byte that differs from the preface makes the
 * connection HTTP/1, and the whole preface makes it HTTP/2. Bytes are read only until that
 * decision (at most 24); they are put back on the socket before it is handed on, so the server
 * that gets it reads the connection from its first byte.
 *
 * A client that sends nothing, or stops inside the preface, for `silentMs` is handed to
 * HTTP/1 with whatever it sent, where the HTTP/1 server's own time-outs answer it (src/http/limits.ts);
 * with `closeSilent`, one that sent nothing at all is closed then instead.
 * A connection that closes or fails before the decision is dropped.
 */
import { type Server, type Socket, createServer } from 'node:net';

/** The HTTP/2 client connection preface (RFC 9113 §3.4). */
export const HTTP2_PREFACE: Buffer = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** What the first bytes of a connection say about its transport, so far. */
export type PrefaceReading = 'http1' | 'h2c' | 'undecided';

/** Reads the bytes a connection sent so far against the HTTP/2 preface. */
export function readPreface(bytes: Buffer): PrefaceReading {
  const n = Math.min(bytes.length, HTTP2_PREFACE.length);
  if (bytes.subarray(0, n).compare(HTTP2_PREFACE, 0, n) !== 0) return 'http1';
  return n === HTTP2_PREFACE.length ? 'h2c' : 'undecided';
}

/**
 * Where a sniffed connection goes; each gets the socket with the sniffed bytes put back, paused. A
 * route that returns a promise (one that loads its server first) has the socket read once it
 * resolves, and destroyed if it rejects.
 */
export interface TransportRoutes {
  http1(socket: Socket): void;
  h2c(socket: Socket): void | Promise<void>;
}

export interface SniffOptions {
  /** How long a connection may send nothing decisive before it goes to HTTP/1, ms. */
  silentMs: number;
  /**
   * Keep a connection's write side open when its client ends its own (half-close, as `nc -N`
   * does after the request), so the server it goes to can still answer (default false).
   */
  allowHalfOpen?: boolean;
  /**
   * Called with each connection as it is accepted, before a byte is read; the function it returns
   * is called when the connection is handed on (not when it closes before that). A connection cap
   * counts connections here, so one that stays silent counts too.
   */
  accepted?: (socket: Socket) => () => void;
  /** Close a connection that sent nothing at all for `silentMs`, instead of handing it on (default false). */
  closeSilent?: boolean;
}

/** Reads the start of `socket` and hands it to the route its first bytes name. */
export function sniffTransport(socket: Socket, routes: TransportRoutes, options: SniffOptions): void {
  const chunks: Buffer[] = [];
  let settled = false;
  const handedOn = options.accepted?.(socket);
  const onError = (): void => {
    finish();
    socket.destroy();
  };
  const onClose = (): void => finish();
  const timer = setTimeout(() => {
    if (chunks.length === 0 && options.closeSilent === true) {
      finish();
      socket.destroy();
    } else handOff('http1');
  }, options.silentMs);
  timer.unref();

  function finish(): void {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('error', onError);
    socket.off('close', onClose);
  }

  function handOff(route: 'http1' | 'h2c'): void {
    if (settled) return;
    finish();
    socket.pause();
    if (chunks.length > 0) socket.unshift(Buffer.concat(chunks));
    handedOn?.();
    const taken = route === 'h2c' ? routes.h2c(socket) : routes.http1(socket);
    // The new owner reads from here, its first byte the connection's first byte.
    if (taken instanceof Promise)
      taken.then(
        () => socket.resume(),
        () => socket.destroy(),
      );
    else process.nextTick(() => socket.resume());
  }

  function onData(chunk: Buffer): void {
    chunks.push(chunk);
    const reading = readPreface(chunks.length === 1 ? chunk : Buffer.concat(chunks));
    if (reading !== 'undecided') handOff(reading);
  }

  socket.on('data', onData);
  socket.on('error', onError);
  socket.on('close', onClose);
}

/**
 * A TCP server whose connections go to HTTP/1 or h2c by their first bytes. Nagle's algorithm is
 * off on each, as node:http does for the connections it accepts itself: `noDelay` of
 * `http.createServer` never reaches a socket handed over by `emit('connection')`, and with Nagle
 * on, a small write after another still unacknowledged (the end of an SSE stream, the last chunk
 * of a held answer) waits for the client's delayed ACK, about 40 ms on Linux.
 */
export function createSniffingServer(routes: TransportRoutes, options: SniffOptions): Server {
  return createServer({ noDelay: true, allowHalfOpen: options.allowHalfOpen === true }, (socket) =>
    sniffTransport(socket, routes, options),
  );
}
