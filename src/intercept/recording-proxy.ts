/**
 * @module intercept/recording-proxy
 * The recording reverse proxy (`a2a-replay record`): forwards every path and method to one
 * upstream, streams SSE chunk by chunk as it arrives (no buffering), keeps end-to-end headers and
 * drops hop-by-hop ones, passes upstream answers (errors included) through unchanged, and tells
 * the {@link ExchangeRecorder} what it saw. Agent cards are the one thing changed in flight:
 * their interface URLs are moved to the proxy's address (see `agent-card-rewrite`).
 *
 * The proxy never crashes or hangs on input: a dead upstream gets HTTP 502 naming the upstream,
 * one that sends no response head within `upstreamTimeoutMs` gets 504; the
 * HTTP edge limits of src/http/limits.ts apply as on the peer (408 for a request that does not
 * arrive in time, 503 past the connection cap, 413 that the client reads for a body over the
 * limit, 400 for malformed HTTP). Refusals and upstream failures are recorded as `error` entries.
 * Each answer of the proxy's own is in the request's binding ({@link bindingOfRequest}): an
 * HTTP+JSON error on a route of that binding, else JSON-RPC (docs/design.md §5).
 * An open response (an SSE stream of a paused task) is never cut for idleness. Recording cannot
 * touch the client's response: the recorder swallows its own failures.
 *
 * `/control` (a peer's clock and event channel, docs/design.md §4) and anything under it is
 * forwarded only while the proxy listens on a loopback address and its upstream is loopback:
 * otherwise any client that reaches the proxy could move the peer's clock. A refused request gets
 * HTTP 403 in the request's binding and is recorded as an `error` entry, as the other refusals are.
 *
 * A target that servers read differently (src/http/request-target.ts: a dot segment, `%2F`,
 * `%5C`, a backslash, a fragment) is refused with HTTP 400 and never forwarded, since the
 * upstream could carry out a call the observer reads otherwise: the error in the request's
 * binding (HTTP+JSON when its path names a route, else JSON-RPC), recorded as an `error` entry.
 */
import {
  Agent as HttpAgent,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  createServer,
  request as httpRequest,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { A2aReplayError, describeError } from '../errors.js';
import { isLoopbackHost } from '../http/loopback.js';
import {
  type TargetReading,
  basePathOf,
  originForm,
  readTarget,
  refusedTargetMessage,
  underBase,
} from '../http/request-target.js';
import { CONTROL_PATH } from '../protocol/methods.js';
import { type Binding, matchRestTail } from '../protocol/rest-binding.js';
import { rewriteAgentCard } from './agent-card-rewrite.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  type Exchange,
  type ExchangeRecorder,
  RESPONSE_CUT_MESSAGE,
} from './exchange-recorder.js';
import {
  DEFAULT_HTTP_LIMITS,
  type HttpLimits,
  answerAndClose,
  drainRequest,
  guardServer,
  limitedServerOptions,
  readLimitedBody,
} from '../http/limits.js';
import { type OwnAnswer, limitAnswerBody, ownAnswerBody, sendJson } from '../http/json-answer.js';
import { redactUrl } from '../recording/redaction.js';
import { endToEndRawHeaders, mediaType } from './http-headers.js';

/** Default time the upstream has to send its response head. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;

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
  /** Time-outs and the connection cap at the client edge (defaults: src/http/limits.ts). */
  limits?: Partial<
    Pick<HttpLimits, 'requestTimeoutMs' | 'headersTimeoutMs' | 'maxConnections' | 'drainLimitBytes' | 'drainTimeoutMs'>
  >;
  /**
   * Whether `/control` and paths under it are forwarded. Default: only when the address the
   * proxy listens on and the upstream host are both loopback (127.0.0.0/8, ::1, localhost).
   */
  forwardControl?: boolean;
}

export interface RecordingProxy {
  /** `http://HOST:PORT` the proxy listens on. */
  readonly url: string;
  readonly server: Server;
  /** Exchanges still in flight. */
  readonly inFlight: number;
  /** Whether `/control` requests are forwarded (see {@link RecordingProxyOptions.forwardControl}). */
  readonly forwardsControl: boolean;
  /**
   * Stops accepting, lets exchanges in flight finish for up to `graceMs` (default 2000), then
   * cuts the rest (recorded as `error` entries) and closes every connection.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

interface Flight {
  exchange: Exchange;
  abort(reason: string): void;
}

function jsonRpcIdOf(body: Buffer): string | number | null {
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const id = (value as Record<string, unknown>).id;
      if (typeof id === 'string' || typeof id === 'number') return id;
    }
  } catch {
    // not JSON-RPC: answer with id null
  }
  return null;
}

function jsonRpcMethodOf(body: Buffer): string | undefined {
  if (body.byteLength === 0 || body.byteLength > 64 * 1024) return undefined;
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    const method = (value as Record<string, unknown> | null)?.method;
    return typeof method === 'string' ? method : undefined;
  } catch {
    return undefined;
  }
}

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

/**
 * The binding the recorder answers a request in (docs/design.md §5): HTTP+JSON when the path of
 * its target, read the one way (src/http/request-target.ts), names a route of the binding
 * (src/protocol/rest-binding.ts, matched by its tail since the upstream's interface path is not
 * known), else JSON-RPC; JSON-RPC too for a request whose head never arrived.
 */
function bindingOfRequest(req: Pick<IncomingMessage, 'method' | 'url'> | undefined): Binding {
  if (req === undefined) return 'JSONRPC';
  // Path parameters (`;x`, refused) are read as the servers that strip them read the route.
  const path = readTarget(req.url ?? '/').path.replace(/;[^/]*/g, '');
  return matchRestTail(req.method ?? 'GET', path).kind === 'none' ? 'JSONRPC' : 'HTTP+JSON';
}

/**
 * The recorder's own answer (a refusal or a failure) in the request's binding, whole, or, when
 * the response has already started, the connection cut.
 */
function answerOwn(req: IncomingMessage, res: ServerResponse, answer: OwnAnswer): void {
  if (!sendJson(res, answer.status, ownAnswerBody(bindingOfRequest(req), answer))) res.destroy();
}

/** The body of an answer of the HTTP limits (408, 413, 503, ...) in the request's binding. */
function limitBody(status: number, message: string, req: IncomingMessage | undefined): string {
  return limitAnswerBody(status, message, bindingOfRequest(req));
}

/**
 * What the proxy forwards and records of a request's target: the target as sent, or, for one in
 * absolute form (a client that takes the recorder for a forward proxy), its path and query.
 */
function targetOf(req: IncomingMessage): string {
  return originForm(req.url ?? '/');
}

/** Starts the proxy; resolves once it listens. */
export async function startRecordingProxy(options: RecordingProxyOptions): Promise<RecordingProxy> {
  let upstream: URL;
  try {
    upstream = new URL(options.upstream);
  } catch {
    throw new A2aReplayError('INVALID_ARGUMENT', `upstream "${redactUrl(options.upstream)}" is not a URL`);
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') {
    throw new A2aReplayError('INVALID_ARGUMENT', `upstream "${redactUrl(upstream)}" is not an http or https URL`);
  }
  // User-info is neither sent upstream nor ever printed: the label is what 502s and errors name.
  const upstreamLabel = redactUrl(upstream).replace(/\/$/, '');
  const basePath = basePathOf(upstream);
  const secure = upstream.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const recorder = options.recorder;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.limits, bodyLimitBytes: maxBody };
  const flights = new Set<Flight>();
  let ownUrl = '';
  let forwardControl = options.forwardControl ?? false;
  let idle: (() => void) | undefined;

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const path = targetOf(req);
    const exchange = recorder.request({ method: req.method ?? 'GET', path, headers: req.headers, body });
    let done = false;
    const flight: Flight = {
      exchange,
      abort: (reason) => {
        exchange.fail(reason);
        upstreamReq.destroy();
        res.destroy();
      },
    };
    flights.add(flight);
    // The upstream has this long to send its response head (an SSE stream may then idle for hours).
    const headTimer = setTimeout(() => {
      if (done) return;
      const why = `upstream ${upstreamLabel} sent no response within ${upstreamTimeoutMs} ms`;
      exchange.fail(why);
      upstreamReq.destroy();
      answerOwn(req, res, {
        status: 504,
        name: 'INTERNAL',
        message: why,
        id: jsonRpcIdOf(body),
        metadata: { upstream: upstreamLabel },
      });
      settle();
    }, upstreamTimeoutMs);
    const settle = (): void => {
      if (done) return;
      done = true;
      clearTimeout(headTimer);
      flights.delete(flight);
      if (flights.size === 0) idle?.();
    };

    const headers = ['Host', upstream.host, ...endToEndRawHeaders(req.rawHeaders, ['host', 'content-length'])];
    if (body.byteLength > 0 || !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(req.method ?? 'GET')) {
      headers.push('Content-Length', String(body.byteLength));
    }
    const upstreamReq = send({
      protocol: upstream.protocol,
      hostname: upstream.hostname.replace(/^\[|\]$/g, ''),
      port: upstream.port,
      method: req.method,
      path: underBase(basePath, path),
      headers,
      agent,
    });

    upstreamReq.on('error', (error) => {
      if (done) return;
      const why = `upstream ${upstreamLabel} failed: ${describeError(error)}`;
      exchange.fail(why);
      if (!res.headersSent) {
        answerOwn(req, res, {
          status: 502,
          name: 'INTERNAL',
          message: why,
          id: jsonRpcIdOf(body),
          metadata: { upstream: upstreamLabel },
        });
      } else {
        res.destroy();
      }
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
      const rawHeaders = endToEndRawHeaders(upstreamRes.rawHeaders);
      exchange.head(status, upstreamRes.headers);
      const contentType = mediaType(upstreamRes.headers['content-type']);
      const encoded = (upstreamRes.headers['content-encoding'] ?? 'identity') !== 'identity';
      const method = req.method ?? 'GET';
      const isCardPath =
        method === 'GET' && /\/\.well-known\/agent(-card)?\.json$/.test((path.split('?')[0] ?? '').replace(/\/+$/, ''));
      const json = status === 200 && contentType === 'application/json' && !encoded;
      // Only a body that names the method is parsed again: most exchanges skip the second JSON.parse.
      const isCardCall =
        json &&
        method === 'POST' &&
        body.includes('GetExtendedAgentCard') &&
        jsonRpcMethodOf(body) === 'GetExtendedAgentCard';
      const rewrite = json && (isCardPath || isCardCall);

      upstreamRes.on('error', () => {
        // reported through 'close' below
      });
      upstreamRes.on('close', () => {
        if (upstreamRes.complete || done) return;
        exchange.fail(RESPONSE_CUT_MESSAGE);
        res.destroy();
        settle();
      });

      if (rewrite) {
        const chunks: Buffer[] = [];
        upstreamRes.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          exchange.data(chunk);
        });
        upstreamRes.on('end', () => {
          exchange.finish();
          let out = Buffer.concat(chunks);
          try {
            const proxyBase = new URL(req.headers.host ? `http://${req.headers.host}` : ownUrl);
            const parsed = JSON.parse(out.toString('utf8')) as unknown;
            if (isCardCall) {
              const result = (parsed as { result?: unknown } | null)?.result;
              const card = rewriteAgentCard(result, upstream, proxyBase);
              if (card !== undefined) out = Buffer.from(JSON.stringify({ ...(parsed as object), result: card }));
            } else {
              const card = rewriteAgentCard(parsed, upstream, proxyBase);
              if (card !== undefined) out = Buffer.from(JSON.stringify(card));
            }
          } catch {
            // not a card after all: pass the bytes through
          }
          const kept = endToEndRawHeaders(upstreamRes.rawHeaders, ['content-length']);
          res.writeHead(status, upstreamRes.statusMessage, [...kept, 'Content-Length', String(out.byteLength)]);
          res.end(out, settle);
        });
        return;
      }

      res.writeHead(status, upstreamRes.statusMessage, rawHeaders);
      const stream = contentType === 'text/event-stream';
      if (stream) res.flushHeaders();
      // Durable before acknowledged (docs/design.md §5): bytes that make a pause or resume
      // observable are released only once its receipt is durable. An SSE chunk waits for the
      // hold its events produced; a unary answer keeps its last chunk back until `finish` has
      // recorded the whole body, since the client cannot read the answer without it.
      let gate: Promise<void> | undefined;
      const release = (action: () => void, hold: Promise<void> | undefined): void => {
        if (gate === undefined && hold === undefined) {
          action();
          return;
        }
        upstreamRes.pause();
        const next = (gate ?? Promise.resolve()).then(() => hold).then(action);
        gate = next;
        void next.then(() => {
          if (gate !== next) return;
          gate = undefined;
          if (!res.writableNeedDrain) upstreamRes.resume();
        });
      };
      const write = (chunk: Buffer): void => {
        if (!res.write(chunk)) {
          upstreamRes.pause();
          res.once('drain', () => {
            if (gate === undefined) upstreamRes.resume();
          });
        }
      };
      let last: Buffer | undefined;
      upstreamRes.on('data', (chunk: Buffer) => {
        exchange.data(chunk);
        const hold = exchange.takeHold();
        if (stream) {
          release(() => write(chunk), hold);
          return;
        }
        const previous = last;
        last = chunk;
        if (previous !== undefined) release(() => write(previous), hold);
      });
      upstreamRes.on('end', () => {
        exchange.finish();
        const tail = last;
        release(() => res.end(tail ?? '', settle), exchange.takeHold());
      });
    });

    upstreamReq.end(body);
  };

  const refuseControl = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const exchange = recorder.request({
      method: req.method ?? 'GET',
      path: targetOf(req),
      headers: req.headers,
      body,
    });
    exchange.fail(CONTROL_REFUSED_MESSAGE);
    const id = jsonRpcIdOf(body);
    answerOwn(req, res, { status: 403, name: 'INVALID_REQUEST', message: CONTROL_REFUSED_MESSAGE, id });
  };

  // A target servers read differently (docs/design.md §5) is refused, never forwarded: the
  // upstream could carry out what the observer reads as another request, or as none.
  const refuseTarget = (req: IncomingMessage, res: ServerResponse, body: Buffer, reading: TargetReading): void => {
    const why = refusedTargetMessage(reading.ambiguity ?? '');
    const method = req.method ?? 'GET';
    recorder.request({ method, path: reading.sent, headers: req.headers, body }).fail(`${why}; not forwarded`);
    answerOwn(req, res, { status: 400, name: 'INVALID_REQUEST', message: why, id: jsonRpcIdOf(body) });
  };

  const server = createServer({ noDelay: true, ...limitedServerOptions(limits) }, (req, res) => {
    handle(req, res);
  });
  const gate = guardServer(server, limits, limitBody);

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    res.on('error', () => {
      // the client went away; 'close' does the bookkeeping
    });
    req.on('error', () => {
      res.destroy();
    });
    gate.track(req, res);
    if (gate.overCapacity(req)) {
      const why = `the recorder serves at most ${limits.maxConnections} connections at once; try again later`;
      recorder.request({ method: req.method ?? 'GET', path: targetOf(req), headers: req.headers }).fail(why);
      void answerAndClose(res, 503, limitBody(503, why, req), drainRequest(req, limits), {
        'Retry-After': '1',
      });
      return;
    }
    void readLimitedBody(req, maxBody, limits).then((result) => {
      switch (result.kind) {
        case 'ok':
          try {
            const reading = readTarget(req.url ?? '/');
            if (!forwardControl && isControlTarget(targetOf(req))) refuseControl(req, res, result.bytes);
            else if (reading.ambiguity !== undefined) refuseTarget(req, res, result.bytes, reading);
            else forward(req, res, result.bytes);
          } catch (error) {
            answerOwn(req, res, { status: 500, name: 'INTERNAL', message: `proxy failure: ${describeError(error)}` });
          }
          return;
        case 'too-large': {
          const why =
            `request body over the recorder's limit of ${maxBody} bytes ` +
            `(${result.size} bytes declared or seen); not forwarded`;
          recorder.request({ method: req.method ?? 'GET', path: targetOf(req), headers: req.headers }).fail(why);
          void answerAndClose(res, 413, limitBody(413, why, req), result.drained);
          return;
        }
        case 'aborted':
          return;
        default: {
          const never: never = result;
          return never;
        }
      }
    });
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new A2aReplayError(
          'IO_FAILED',
          `cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? 0}: ${describeError(error)}`,
          { cause: error },
        ),
      ),
    );
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  ownUrl = `http://${host}:${address.port}`;
  forwardControl = options.forwardControl ?? (isLoopbackHost(address.address) && isLoopbackHost(upstream.hostname));

  let closing: Promise<void> | undefined;
  return {
    url: ownUrl,
    server,
    get inFlight() {
      return flights.size;
    },
    forwardsControl: forwardControl,
    close(closeOptions = {}) {
      closing ??= (async () => {
        const graceMs = closeOptions.graceMs ?? 2000;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        if (flights.size > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, graceMs);
            idle = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        for (const flight of [...flights]) flight.abort('the recorder stopped while the exchange was open');
        server.closeAllConnections();
        await stopped;
        agent.destroy();
      })();
      return closing;
    },
  };
}
