/**
 * @module intercept/recording-proxy
 * The recording reverse proxy (`a2a-replay record`): forwards every path and method to one
 * upstream, streams SSE chunk by chunk as it arrives (no buffering), keeps end-to-end headers and
 * drops hop-by-hop ones, passes upstream answers (errors included) through unchanged, and tells
 * the {@link ExchangeRecorder} what it saw. The proxy never crashes or hangs on input, and
 * recording cannot touch the client's response: the recorder swallows its own failures.
 *
 * This module listens, routes and closes; each concern is a module of its own, with the proxy's
 * own answers in the request's binding (src/intercept/proxy-answers.ts, docs/design.md §5):
 *
 * - the HTTP edge limits, as on the peer: src/intercept/proxy-limits.ts;
 * - refusals, never forwarded (`/control` off loopback, a target servers read differently):
 *   src/intercept/proxy-refusals.ts;
 * - forwarding one exchange, its 502 and 504: src/intercept/forward-exchange.ts, over the
 *   upstream of src/intercept/upstream.ts;
 * - holds (bytes released once their receipt is durable): src/intercept/held-relay.ts;
 * - the agent card rewritten in flight: src/intercept/card-answer.ts;
 * - exchanges in flight at close: src/intercept/flights.ts;
 * - gRPC: the port serves HTTP/1.1 and HTTP/2 cleartext, told apart by the HTTP/2 preface
 *   (src/http/transport-sniff.ts); each gRPC call is forwarded to the gRPC upstream and recorded by
 *   src/intercept/grpc-forward.ts (docs/design.md §16);
 * - TLS (`tls`): the port serves TLS instead, ALPN `h2` (gRPC) and `http/1.1` on the same port,
 *   each connection handed to the same two servers by the protocol its client chose.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import {
  type Http2Session,
  type IncomingHttpHeaders,
  type ServerHttp2Stream,
  createServer as createHttp2Server,
} from 'node:http2';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { type TLSSocket, createServer as createTlsServer } from 'node:tls';
import { A2aReplayError, describeError } from '../errors.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits, limitedServerOptions } from '../http/limits.js';
import { isLoopbackHost } from '../http/loopback.js';
import { basePathOf, readTarget } from '../http/request-target.js';
import {
  type SniffOptions,
  type TransportRoutes,
  createSniffingServer,
  sniffTransport,
} from '../http/transport-sniff.js';
import { DEFAULT_MAX_BODY_BYTES, type ExchangeRecorder } from './exchange-recorder.js';
import { CardRewrites } from './card-answer.js';
import { Flights } from './flights.js';
import { type ForwardContext, forwardExchange } from './forward-exchange.js';
import type { GrpcForwardContext, GrpcRefusalKind, forwardGrpcCall } from './grpc-forward.js';
import { openGrpcUpstream } from './grpc-upstream.js';
import { answerOwn, targetOf } from './proxy-answers.js';
import { type ProxyLimits, guardProxy } from './proxy-limits.js';
import { composedCallProblem, isControlTarget, refuseComposed, refuseControl, refuseTarget } from './proxy-refusals.js';
import { type UpstreamTls, openUpstream } from './upstream.js';

export { CONTROL_REFUSED_MESSAGE, isControlTarget } from './proxy-refusals.js';

/** Default time a stop gives the open streams (SSE, gRPC server streams) before it cuts them. */
export const DEFAULT_GRACE_MS = 2000;

/** Default time the upstream has to send its response head. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;

/**
 * Default time the recorder reads on an answer its client no longer gets (the client left, or got
 * a 504), from that moment: a tool call the peer finishes before it pauses may take minutes.
 */
export const DEFAULT_FOLLOW_MS = 10 * 60_000;

export interface RecordingProxyOptions {
  /** The peer to forward to, e.g. `http://127.0.0.1:8080` (a path prefix is kept). */
  upstream: string;
  recorder: ExchangeRecorder;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Request bodies above this are refused with HTTP 413 (default 1 MiB). */
  maxBodyBytes?: number;
  /** The upstream must send its response head within this many ms, else HTTP 504 (default 30 s). */
  upstreamTimeoutMs?: number;
  /**
   * How long an answer whose client no longer gets it (the client left, or got the 504) is read
   * on for the recording, from that moment (default {@link DEFAULT_FOLLOW_MS}).
   */
  followMs?: number;
  /** Time-outs and the connection cap at the client edge (defaults: src/http/limits.ts). */
  limits?: Partial<
    Pick<HttpLimits, 'requestTimeoutMs' | 'headersTimeoutMs' | 'maxConnections' | 'drainLimitBytes' | 'drainTimeoutMs'>
  >;
  /**
   * Whether `/control` and paths under it are forwarded. Default: only when the address the
   * proxy listens on and the upstream host are both loopback (127.0.0.0/8, ::1, localhost).
   */
  forwardControl?: boolean;
  /**
   * Where gRPC calls go: `HOST:PORT` (or `http://HOST:PORT`), `https://HOST:PORT` over TLS.
   * Default: the upstream's host and port, over TLS when the upstream is `https://`.
   */
  grpcUpstream?: string;
  /** How `https://` upstreams (HTTP and gRPC) are reached: the CAs trusted for their certificates. */
  upstreamTls?: UpstreamTls;
  /** Serve TLS with this certificate and key instead of cleartext (docs/design.md §16). */
  tls?: ServedTls;
  /** Told each time the proxy refuses a gRPC call itself (UNIMPLEMENTED, UNAVAILABLE), with its kind and why. */
  onGrpcRefusal?: (kind: GrpcRefusalKind, message: string) => void;
}

/** The certificate (chain) and private key the proxy serves TLS with, PEM. */
export interface ServedTls {
  cert: string | Buffer;
  key: string | Buffer;
}

export interface RecordingProxy {
  /** `http://HOST:PORT` (`https://` serving TLS) the proxy listens on. */
  readonly url: string;
  /** `HOST:PORT` the gRPC calls it takes go to. */
  readonly grpcUpstream: string;
  readonly server: Server;
  /** Exchanges still in flight. */
  readonly inFlight: number;
  /** Of those, the open streams (SSE, gRPC server streams) whose head has come. */
  readonly streamsInFlight: number;
  /** Whether `/control` requests are forwarded (see {@link RecordingProxyOptions.forwardControl}). */
  readonly forwardsControl: boolean;
  /**
   * Stops accepting, reads the answers still awaited for up to `drainMs` (default: the proxy's
   * `followMs`, so that a deploy does not cut a `finish_step` pause the peer carries out anyway)
   * and open streams for up to `graceMs` (default {@link DEFAULT_GRACE_MS}), then cuts the rest
   * (recorded as `error` entries) and closes every connection (docs/design.md §5).
   */
  close(options?: { graceMs?: number; drainMs?: number }): Promise<void>;
}

/**
 * Forwards a gRPC call with `forwardGrpcCall`, loaded at the first call, not with the module nor at
 * start: it brings the protobuf codec (about 90 ms and 15 MB), which `record --help`, `a2a-replay
 * --version` and a recorder no gRPC client talks to do without
 * (test/architecture/entry-closure.test.ts). Calls wait for it in the order they came; an h2 stream
 * not yet read buffers what its client sends, and one its client reset meanwhile is gone before
 * anything reached the upstream, so it is not forwarded (its close came before anyone listened).
 */
function grpcForwarder(
  context: GrpcForwardContext,
): (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, overCapacity: string | undefined) => void {
  let loading: Promise<typeof forwardGrpcCall> | undefined;
  return (stream, headers, overCapacity) => {
    (loading ??= import('./grpc-forward.js').then((module) => module.forwardGrpcCall))
      .then((forward) => {
        if (!stream.destroyed) forward(context, stream, headers, overCapacity);
      })
      .catch((error: unknown) => {
        context.recorder.report(error);
        stream.close();
      });
  };
}

/** Starts the proxy; resolves once it listens. */
export async function startRecordingProxy(options: RecordingProxyOptions): Promise<RecordingProxy> {
  const upstreamTls = options.upstreamTls ?? {};
  const upstream = openUpstream(options.upstream, upstreamTls);
  const grpcUpstream = openGrpcUpstream(options.grpcUpstream ?? defaultGrpcTarget(upstream.url), upstreamTls);
  const recorder = options.recorder;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.limits, bodyLimitBytes: maxBody };
  const flights = new Flights();
  let ownUrl = '';
  let forwardControl = options.forwardControl ?? false;
  const forwarding: ForwardContext = {
    upstream,
    recorder,
    flights,
    upstreamTimeoutMs: options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
    followMs: options.followMs ?? DEFAULT_FOLLOW_MS,
    ownUrl: () => ownUrl,
    grpc: { hostname: grpcUpstream.hostname, port: grpcUpstream.port },
    cards: new CardRewrites(),
  };
  const drainMs = forwarding.followMs;

  // What a request within the limits gets: refused (/control, an ambiguous target) or forwarded.
  const route = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    try {
      const reading = readTarget(req.url ?? '/');
      const composed = composedCallProblem(basePathOf(upstream.url), req.method ?? 'GET', reading.path);
      if (!forwardControl && isControlTarget(targetOf(req))) refuseControl(recorder, req, res, body);
      else if (reading.ambiguity !== undefined) refuseTarget(recorder, req, res, body, reading);
      else if (composed !== undefined) refuseComposed(recorder, req, res, body, composed);
      else forwardExchange(forwarding, req, res, body);
    } catch (error) {
      answerOwn(req, res, { status: 500, name: 'INTERNAL', message: `proxy failure: ${describeError(error)}` });
    }
  };

  const server = createServer({ noDelay: true, ...limitedServerOptions(limits) }, (req, res) => {
    res.on('error', () => {
      // the client went away; 'close' does the bookkeeping
    });
    req.on('error', () => {
      res.destroy();
    });
    proxyLimits.admit(req, res, (body) => route(req, res, body));
  });
  // A client that half-closes after its request still gets the answer, then the connection ends.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  const proxyLimits = guardProxy(server, limits, recorder);

  const warn = (kind: GrpcRefusalKind, message: string): void => options.onGrpcRefusal?.(kind, message);
  const grpcForwarding: GrpcForwardContext = { upstream: grpcUpstream, recorder, flights, followMs: drainMs, warn };
  const h2 = createHttp2Server();
  const sessions = new Set<Http2Session>();
  /** Every connection the port accepted and not yet closed (cleartext; TLS ones are the TLS server's). */
  const accepted = new Set<Socket>();
  // Sessions past the connection cap, with why (docs/design.md §16).
  const refused = new WeakMap<Http2Session, string>();
  h2.on('session', (session: Http2Session) => {
    sessions.add(session);
    const counted = proxyLimits.countSession();
    if (counted.refusal !== undefined) refused.set(session, counted.refusal);
    session.on('error', () => {
      // its streams report what they lost
    });
    session.once('close', () => {
      counted.close();
      sessions.delete(session);
    });
  });
  const forwardGrpc = grpcForwarder(grpcForwarding);
  h2.on('stream', (stream, headers) => forwardGrpc(stream, headers, refused.get(stream.session as Http2Session)));
  // One port: HTTP/1 connections go to `server`, HTTP/2 (gRPC) ones to `h2`.
  const port = servePort(
    { http1: (socket) => server.emit('connection', socket), h2c: (socket) => void h2.emit('connection', socket) },
    countedSniffing(limits, proxyLimits, accepted),
    options.tls,
  );

  await listen(port, options.host ?? '127.0.0.1', options.port ?? 0);
  // node:http starts its time-out checks when its server listens; its connections come from `port`.
  server.emit('listening');
  const address = port.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  ownUrl = `${options.tls === undefined ? 'http' : 'https'}://${host}:${address.port}`;
  forwardControl = options.forwardControl ?? (isLoopbackHost(address.address) && isLoopbackHost(upstream.url.hostname));

  let closing: Promise<void> | undefined;
  return {
    url: ownUrl,
    grpcUpstream: grpcUpstream.label,
    server,
    get inFlight() {
      return flights.size;
    },
    get streamsInFlight() {
      return flights.streams;
    },
    forwardsControl: forwardControl,
    close(closeOptions = {}) {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => port.close(() => resolve()));
        server.close();
        server.closeIdleConnections();
        for (const session of sessions) session.close();
        const graceMs = closeOptions.graceMs ?? DEFAULT_GRACE_MS;
        if (flights.size > 0) await flights.settled(graceMs, closeOptions.drainMs ?? drainMs);
        flights.abortAll('the recorder stopped while the exchange was open');
        server.closeAllConnections();
        for (const session of sessions) session.destroy();
        // A connection kept half-open for its answer, or still being sniffed, ends here too: the
        // port closes only once every connection it accepted has.
        for (const socket of accepted) socket.destroy();
        await stopped;
        upstream.destroy();
        grpcUpstream.destroy();
      })();
      return closing;
    },
  };
}

/**
 * How the port reads a connection's first bytes: a silent one is closed after the headers
 * time-out, a half-closed one kept writable for its answer, and each counted against the
 * connection cap from its accept until the server it goes to counts it.
 */
function countedSniffing(limits: HttpLimits, proxyLimits: ProxyLimits, open: Set<Socket>): SniffOptions {
  return {
    silentMs: limits.headersTimeoutMs,
    allowHalfOpen: true,
    closeSilent: true,
    accepted: (socket) => {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
      const counted = proxyLimits.countSession();
      const close = (): void => counted.close();
      socket.once('close', close);
      return () => {
        socket.off('close', close);
        close();
      };
    },
  };
}

/**
 * The port's server: cleartext, each connection sniffed (src/http/transport-sniff.ts); or TLS,
 * each connection routed by the ALPN protocol its client chose (`h2`, `http/1.1`), sniffed when
 * it chose none. A failed handshake only closes its connection.
 */
function servePort(
  // Routes that take a socket at once: a TLS socket is handed over as it is, not paused.
  routes: Omit<TransportRoutes, 'h2c'> & { h2c(socket: Socket): void },
  sniff: SniffOptions,
  tls: ServedTls | undefined,
): NetServer {
  if (tls === undefined) return createSniffingServer(routes, sniff);
  // `noDelay`: as on the cleartext port (src/http/transport-sniff.ts).
  const secure = createTlsServer(
    { cert: tls.cert, key: tls.key, ALPNProtocols: ['h2', 'http/1.1'], noDelay: true },
    (socket) => {
      const alpn = (socket as TLSSocket).alpnProtocol;
      if (alpn === 'h2') routes.h2c(socket as Socket);
      else if (alpn === 'http/1.1') routes.http1(socket as Socket);
      else sniffTransport(socket as Socket, routes, sniff);
    },
  );
  secure.on('tlsClientError', () => {
    // the client's handshake failed: Node closes its socket
  });
  return secure;
}

/** The upstream's host and port as a gRPC target, over TLS when the upstream is `https://`. */
function defaultGrpcTarget(url: URL): string {
  const secure = url.protocol === 'https:';
  return `${secure ? 'https://' : ''}${url.hostname}:${url.port || (secure ? '443' : '80')}`;
}

/** Listens on `host:port`; a failure is an `IO_FAILED` error naming the address. */
function listen(server: NetServer, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new A2aReplayError('IO_FAILED', `cannot listen on ${host}:${port}: ${describeError(error)}`, { cause: error }),
      ),
    );
    server.listen(port, host, () => resolve());
  });
}
