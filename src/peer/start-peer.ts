/**
 * @module peer/start-peer
 * The reference peer's edge (docs/design.md §4, §15, §16): one port, whose connections go to HTTP/1.1
 * or, when they open with the HTTP/2 preface, to gRPC (src/http/transport-sniff.ts). HTTP requests
 * are routed to one of two thin binding adapters over one transport-agnostic
 * {@link RequestHandler}: A2A v1.0 JSON-RPC on `POST /` (src/peer/jsonrpc-adapter.ts) and HTTP+JSON
 * under `/rest` (src/peer/rest-adapter.ts), both with the pause extension and SSE streams; gRPC
 * calls go to the third adapter over the same handler (src/peer/grpc-adapter.ts). The agent card
 * (listing the three interfaces) is at `/.well-known/agent-card.json`, and the `/control` channel
 * (`AdvanceClock`, `FireEvent`, `GetClock`, JSON-RPC) when enabled. Bad input of any kind gets an
 * error in the binding's terms; nothing a client sends crashes the peer.
 *
 * Wire decisions:
 * - HTTP limits come first (src/http/limits.ts): 408 for a request that does not arrive in
 *   time, 503 past the connection cap, 413 for a body over the limit (the client reads it),
 *   in HTTP+JSON terms under `/rest` once the request's head arrived, else JSON-RPC.
 * - Requests must carry `A2A-Version: 1.0` (header, or the `A2A-Version` query parameter, spec
 *   §3.6); a missing value means 0.3 → -32009. `/control` is not A2A and does not require it.
 * - The target is read once, as src/http/request-target.ts reads it for the recorder and the
 *   observer (docs/design.md §5): one that servers read differently (a dot segment, `%2F`,
 *   `%5C`, a backslash, a fragment) gets 400, in HTTP+JSON terms under `/rest`, else JSON-RPC.
 * - The checks of each binding and of the handler, in order, are in their modules. Unknown path
 *   404, wrong HTTP method 405, both with a JSON-RPC error body outside `/rest`. `/control`
 *   answers only loopback clients.
 * - Push-notification methods → -32003; GetExtendedAgentCard → -32004 (none is declared).
 * - A PauseTask that waits for a step or a tool call (see task-engine) is answered during the
 *   AdvanceClock that lets the task pause, before that AdvanceClock's own answer.
 * - With `transitionsFile`, every state change, refused pause/resume and eviction is written to
 *   the peer's transitions log (src/peer/transition-log.ts), naming the principal of the request
 *   that caused it as the recorder names it (src/recording/principal.ts).
 *
 * The control channel, a small JSON-RPC protocol any peer may implement to become replayable
 * (`POST /control`, loopback clients only, no A2A-Version needed):
 * - `GetClock {}` → `{now: ISO}`;
 * - `AdvanceClock {ms}` → `{now: ISO}`: fires every timer due up to now+ms in time order, each
 *   at its own instant, then sets the clock to now+ms; answered after the events it caused.
 *   Moves run one at a time; a move that fires many timers yields to other requests between
 *   batches. `ms` is at most a year, and the clock never passes {@link MAX_CLOCK_MS};
 * - `FireEvent {name, payload?}` → `{resumed: [taskId]}`: resumes the paused tasks whose
 *   `conditions.onEvent` is `name` (cause `condition_fired`), then the paused task named by
 *   `payload.taskId`, if any and not already resumed (cause `external_event`); FireEvent
 *   `credentials` naming an AUTH_REQUIRED task continues it (out of band, not listed).
 *
 * Deterministic mode: the clock starts at {@link DETERMINISTIC_EPOCH} and moves only on
 * AdvanceClock (each due timer fires at its own instant, then the clock is set to the target);
 * ids and resume tokens come from `CounterIdSource(seed)`. In real-time mode `--control`
 * enables FireEvent and GetClock; AdvanceClock then answers -32004 (the real clock cannot jump).
 */
import { type IncomingMessage, type RequestListener, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2aReplayError, errorMessage } from '../errors.js';
import { type Clock, ManualClock, isoAt, systemClock } from '../clock.js';
import { CounterIdSource, type IdSource, randomIdSource } from '../ids.js';
import { MAX_CLOCK_MS } from '../protocol/bounds.js';
import { Intake, type VirtualPeerClock, virtualPeerClock } from './virtual-peer-clock.js';

export type { VirtualPeerClock } from './virtual-peer-clock.js';
import { jsonRpcError } from '../protocol/errors.js';
import { errorResponse } from '../protocol/json-rpc.js';
import { CONTROL_PATH } from '../protocol/methods.js';
import { AGENT_CARD_PATH } from '../protocol/types.js';
import { principalOf } from '../recording/principal.js';
import { VERSION } from '../version.js';
import { limitAnswerBody as limitBody, sendJson } from '../http/json-answer.js';
import { isLoopbackHost } from '../http/loopback.js';
import { readTarget, refusedTargetMessage } from '../http/request-target.js';
import { type Binding, restError } from '../protocol/rest-binding.js';
import { buildAgentCard } from './agent-card.js';
import {
  DEFAULT_HTTP_LIMITS,
  type HttpLimits,
  answerAndClose,
  drainRequest,
  guardServer,
  limitedServerOptions,
} from '../http/limits.js';
import { type LazyH2c, lazyH2c } from '../http/lazy-h2c.js';
import { createSniffingServer } from '../http/transport-sniff.js';
import type { GrpcAdapterOptions } from './grpc-adapter.js';
import { createJsonRpcAdapter, sendRpcError } from './jsonrpc-adapter.js';
import { RequestHandler } from './request-handler.js';
import { REST_PATH, createRestAdapter } from './rest-adapter.js';
import type { PeerTarget } from './sse-reply.js';
import { RealScheduler, type Scheduler, VirtualScheduler } from './scheduler.js';
import { TaskEngine } from './task-engine.js';
import type { Caller } from './task-phase.js';
import { DEFAULT_MAX_TASKS } from './task-store.js';
import { CountingIdSource, PeerStore, type StoreSync } from './peer-store.js';
import { PEER_TRANSITIONS_TYPE, PEER_TRANSITIONS_VERSION, TransitionLogWriter } from './transition-log.js';
import { DETERMINISTIC_EPOCH } from './epoch.js';
import { A2A_VERSION_SETTINGS, type A2aVersionSetting } from './v03-dialect.js';

export interface PeerOptions {
  /** Interface to bind; default `127.0.0.1`. */
  host?: string;
  /** Port; default 0 (a free port). */
  port?: number;
  /** Virtual clock + CounterIdSource(seed) + /control enabled. */
  deterministic?: boolean;
  /** Seed of the deterministic id source; default 0. */
  seed?: number;
  /** Duration of one work step: virtual ms in deterministic mode, real ms otherwise; default 1000. */
  stepMs?: number;
  /** Enables /control in real-time mode too. */
  control?: boolean;
  /** Reports pauses the Harn way (src/protocol/legacy.ts). */
  legacyPause?: boolean;
  /** The A2A dialects served, decided per request (docs/design.md §4); default both. */
  a2aVersion?: A2aVersionSetting;
  /** Largest accepted request body; default 1 MiB (larger: HTTP 413). */
  bodyLimitBytes?: number;
  /** Terminal tasks kept, oldest finished evicted first; default 10,000. */
  maxTasks?: number;
  /** A variant: an `ask:` step moves on with no input this many clock ms after it asked. */
  bypassAskAfterMs?: number;
  /** A request must fully arrive within this many ms (else HTTP 408); default 30,000. */
  requestTimeoutMs?: number;
  /** Its headers within this many ms (at most `requestTimeoutMs`); default 10,000. */
  headersTimeoutMs?: number;
  /** Open connections served (requests on further ones: HTTP 503); default 1024. */
  maxConnections?: number;
  /** How much of a body over the limit is read and dropped after the 413, bytes; default 64 MiB. */
  drainLimitBytes?: number;
  /** For how long a body over the limit is read and dropped after the 413, ms; default 30,000. */
  drainTimeoutMs?: number;
  /** Writes the peer's transitions log (src/peer/transition-log.ts) to this file, mode 0600. */
  transitionsFile?: string;
  /**
   * Keeps tasks, pauses, tokens and transitions in this directory and carries on from it on the
   * next start (src/peer/peer-store.ts, docs/design.md §4 "The store"); locked against a second peer.
   */
  storeDir?: string;
  /** How the store's lines reach the disk (src/peer/peer-store.ts); default fsync(2). */
  storeSync?: StoreSync;
  /** Said once about the store as it is read (a torn last line dropped); default `log`. */
  warn?: (line: string) => void;
  /** Injected clock; in deterministic mode (and with `virtualTime`) it must be a ManualClock. */
  clock?: Clock;
  /**
   * A real-time peer (ids, card and everything else as in real-time mode) whose timers run on a
   * virtual clock moved only through {@link RunningPeer.advanceTo}: `run` replays a session of a
   * real-time peer on it at the recorded instants (docs/design.md §8).
   */
  virtualTime?: boolean;
  /** Injected id source. */
  ids?: IdSource;
  /** Diagnostics sink (never secrets). */
  log?: (line: string) => void;
  /**
   * Wraps the peer's request handler, e.g. to record or observe its own traffic; the wrapper
   * must call the handler it is given for every request.
   */
  wrapHandler?: (handler: RequestListener) => RequestListener;
}

export interface RunningPeer {
  /** `http://HOST:PORT`, the JSON-RPC endpoint and agent card base. */
  url: string;
  /** `http://HOST:PORT/rest`, the HTTP+JSON interface. */
  restUrl: string;
  /** `HOST:PORT`, the gRPC interface (a grpc-js target), on the same port. */
  grpcUrl: string;
  /** With a virtual clock (deterministic mode, `virtualTime`): the clock, moved from outside. */
  virtualClock?: VirtualPeerClock;
  close(): Promise<void>;
}

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new A2aReplayError('INVALID_ARGUMENT', `peer option ${name}: expected a positive number; got ${value}`);
  }
  return value;
}

function wholePositive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new A2aReplayError(
      'INVALID_ARGUMENT',
      `peer option ${name}: expected a whole number of at least 1; got ${value}`,
    );
  }
  return value;
}

/** The principal of a request, as a recorder without a mark key names it (`jwt:sub=...`, `bearer:sha256:...`). */
function callerOf(req: IncomingMessage, method: string): Caller {
  const auth = req.headers.authorization;
  const principal = typeof auth === 'string' ? principalOf({ authorization: auth }) : undefined;
  return { method, principal: principal ?? null };
}

function versionOf(req: IncomingMessage, target: PeerTarget): string {
  const header = req.headers['a2a-version'];
  const value = Array.isArray(header) ? header[0] : header;
  return (value ?? target.query.get('A2A-Version') ?? '').trim();
}

/** The HTTP limits of `options`, each checked, the defaults filled in. */
function httpLimitsOf(options: PeerOptions): HttpLimits {
  const requestTimeoutMs = wholePositive(
    options.requestTimeoutMs,
    'requestTimeoutMs',
    DEFAULT_HTTP_LIMITS.requestTimeoutMs,
  );
  return {
    requestTimeoutMs,
    headersTimeoutMs: Math.min(
      requestTimeoutMs,
      wholePositive(options.headersTimeoutMs, 'headersTimeoutMs', DEFAULT_HTTP_LIMITS.headersTimeoutMs),
    ),
    maxConnections: wholePositive(options.maxConnections, 'maxConnections', DEFAULT_HTTP_LIMITS.maxConnections),
    bodyLimitBytes: wholePositive(options.bodyLimitBytes, 'bodyLimitBytes', DEFAULT_HTTP_LIMITS.bodyLimitBytes),
    drainLimitBytes: wholePositive(options.drainLimitBytes, 'drainLimitBytes', DEFAULT_HTTP_LIMITS.drainLimitBytes),
    drainTimeoutMs: wholePositive(options.drainTimeoutMs, 'drainTimeoutMs', DEFAULT_HTTP_LIMITS.drainTimeoutMs),
  };
}

/** Virtual timers on a ManualClock in deterministic mode, real ones otherwise. */
function schedulerOf(
  options: PeerOptions,
  deterministic: boolean,
  log: (line: string) => void,
  restoredClockMs: number | null,
): Scheduler {
  const onTimerError = (error: unknown): void => log(`peer: timer failed: ${errorMessage(error)}`);
  if (deterministic || options.virtualTime === true) {
    if (options.clock !== undefined && !(options.clock instanceof ManualClock)) {
      const mode = deterministic ? 'deterministic mode' : 'virtualTime';
      throw new A2aReplayError('INVALID_ARGUMENT', `peer option clock: ${mode} needs a ManualClock`);
    }
    // A restarted deterministic peer's clock goes on from the latest instant its store shows.
    const clock = options.clock ?? new ManualClock(Math.max(Date.parse(DETERMINISTIC_EPOCH), restoredClockMs ?? 0));
    return new VirtualScheduler(clock, onTimerError, MAX_CLOCK_MS);
  }
  return new RealScheduler(options.clock ?? systemClock, onTimerError);
}

/** The binding of the peer's own answers to `req`: HTTP+JSON under {@link REST_PATH}, else JSON-RPC. */
function bindingOf(req: IncomingMessage | undefined): Binding {
  if (req === undefined) return 'JSONRPC';
  const { path } = readTarget(req.url ?? '/');
  return path === REST_PATH || path.startsWith(`${REST_PATH}/`) ? 'HTTP+JSON' : 'JSONRPC';
}

/** What routing a request needs of the running peer. */
interface Router {
  gate: ReturnType<typeof guardServer>;
  limits: HttpLimits;
  jsonRpc: ReturnType<typeof createJsonRpcAdapter>;
  rest: ReturnType<typeof createRestAdapter>;
  controlEnabled: boolean;
  /** The agent card, serialized once the peer knows its own URL. */
  cardJson: string;
}

/** Answers one request: the agent card, JSON-RPC on `/`, HTTP+JSON under /rest, or /control. */
async function routeRequest(router: Router, req: IncomingMessage, res: Parameters<RequestListener>[1]): Promise<void> {
  const { gate, limits, jsonRpc, rest, controlEnabled, cardJson } = router;
  gate.track(req, res);
  if (gate.overCapacity(req)) {
    const message = `the peer serves at most ${limits.maxConnections} connections at once; try again later`;
    await answerAndClose(res, 503, limitBody(503, message, bindingOf(req)), drainRequest(req, limits), {
      'Retry-After': '1',
    });
    return;
  }
  const method = req.method ?? 'GET';
  // One reading of the target for routing, the recorder's and the observer's (docs/design.md §5).
  const reading = readTarget(req.url ?? '/');
  const path = reading.path;
  if (reading.ambiguity !== undefined) {
    req.resume();
    const message = refusedTargetMessage(reading.ambiguity);
    if (path === REST_PATH || path.startsWith(`${REST_PATH}/`)) {
      const { http, body } = restError('INVALID_REQUEST', message);
      sendJson(res, http, body);
    } else {
      sendRpcError(res, null, jsonRpcError('INVALID_REQUEST', message), 400);
    }
    return;
  }
  const target: PeerTarget = { path, query: new URLSearchParams(reading.query) };
  const wrongMethod = (allow: string): void => {
    req.resume();
    sendJson(
      res,
      405,
      errorResponse(null, jsonRpcError('INVALID_REQUEST', `${method} is not allowed on ${path}; use ${allow}`)),
      { Allow: allow },
    );
  };
  if (path === AGENT_CARD_PATH) {
    if (method !== 'GET' && method !== 'HEAD') return wrongMethod('GET');
    req.resume();
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(cardJson),
      'Cache-Control': 'no-cache',
    });
    res.end(method === 'HEAD' ? undefined : cardJson);
    return;
  }
  if (path === '/') {
    if (method !== 'POST') return wrongMethod('POST');
    return jsonRpc('a2a', req, res, target);
  }
  if (path === REST_PATH || path.startsWith(`${REST_PATH}/`)) return rest(req, res, target);
  if (path === CONTROL_PATH && controlEnabled) {
    if (!isLoopbackHost(req.socket.remoteAddress)) {
      req.resume();
      sendJson(
        res,
        403,
        errorResponse(null, jsonRpcError('INVALID_REQUEST', `${CONTROL_PATH} answers loopback clients only`)),
      );
      return;
    }
    if (method !== 'POST') return wrongMethod('POST');
    return jsonRpc('control', req, res, target);
  }
  req.resume();
  sendJson(
    res,
    404,
    errorResponse(
      null,
      jsonRpcError(
        'METHOD_NOT_FOUND',
        `no endpoint at ${method} ${path}: JSON-RPC is served at POST /, HTTP+JSON under ${REST_PATH}, ` +
          `the agent card at GET ${AGENT_CARD_PATH}`,
      ),
    ),
  );
}

/** The binding adapters' options, their `callerOf` counting into the returned {@link Intake}. */
function adapterOptionsOf(
  handler: RequestHandler,
  limits: HttpLimits,
  log: (line: string) => void,
  a2aVersion: A2aVersionSetting,
): [Intake, Parameters<typeof createJsonRpcAdapter>[0]] {
  const intake = new Intake();
  return [intake, { handler, limits, versionOf, callerOf: takingCallerOf(intake), log, a2aVersion }];
}

/**
 * The adapters' `callerOf`, counting each request as taken: they name the caller just before
 * they hand a call to the handler.
 */
function takingCallerOf(intake: Intake): (req: IncomingMessage, method: string) => Caller {
  return (req, method) => {
    intake.taken(req);
    return callerOf(req, method);
  };
}

/** Where a peer listening at `address` is reached: JSON-RPC, HTTP+JSON and gRPC. */
function addressesOf(address: AddressInfo): { url: string; restUrl: string; grpcUrl: string } {
  const shownHost = address.address.includes(':') ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}`;
  return { url, restUrl: `${url}${REST_PATH}`, grpcUrl: `${shownHost}:${address.port}` };
}

/** `a2aVersion`, checked; default both. */
function a2aVersionOf(value: string | undefined): A2aVersionSetting {
  if (value === undefined) return 'both';
  if (!(A2A_VERSION_SETTINGS as readonly string[]).includes(value)) {
    throw new A2aReplayError(
      'INVALID_ARGUMENT',
      `peer option a2aVersion: expected one of ${A2A_VERSION_SETTINGS.join(', ')}; got ${JSON.stringify(value)}`,
    );
  }
  return value as A2aVersionSetting;
}

/** `bypassAskAfterMs`, checked: a whole number of clock ms, at least 1. */
function bypassOf(value: number | undefined): number | undefined {
  return value === undefined ? undefined : wholePositive(value, 'bypassAskAfterMs', 1);
}

/** Opens the `--transitions` log, if asked for, its header naming the peer's settings. */
async function openTransitions(
  file: string | undefined,
  scheduler: Scheduler,
  peer: { deterministic: boolean; seed: number; stepMs: number; legacyPause: boolean; maxTasks: number },
  log: (line: string) => void,
): Promise<TransitionLogWriter | undefined> {
  if (file === undefined) return undefined;
  return TransitionLogWriter.open(
    file,
    {
      type: PEER_TRANSITIONS_TYPE,
      version: PEER_TRANSITIONS_VERSION,
      startedAt: isoAt(scheduler.clock.now()),
      tool: `a2a-replay@${VERSION}`,
      peer,
    },
    (error) => log(`peer: the transitions log stopped: ${errorMessage(error)}`),
  );
}

/** The gRPC adapter, loaded for the first h2c connection, not at start (docs/design.md §2, "Start-up"). */
function lazyGrpc(options: GrpcAdapterOptions): LazyH2c {
  return lazyH2c(
    async () => (await import('./grpc-adapter.js')).createGrpcAdapter(options),
    (error) => options.log(`peer: gRPC could not be served: ${errorMessage(error)}`),
  );
}

/** Starts the reference peer; resolves once it listens. */
export async function startPeer(options: PeerOptions = {}): Promise<RunningPeer> {
  const host = options.host ?? '127.0.0.1';
  const deterministic = options.deterministic ?? false;
  const stepMs = positive(options.stepMs, 'stepMs', 1000);
  const limits = httpLimitsOf(options);
  const maxTasks = wholePositive(options.maxTasks, 'maxTasks', DEFAULT_MAX_TASKS);
  const legacy = options.legacyPause ?? false;
  const controlEnabled = deterministic || (options.control ?? false);
  const log = options.log ?? (() => undefined);

  const store = options.storeDir === undefined ? undefined : PeerStore.open(options.storeDir, options.storeSync);
  for (const note of store?.restored.notes ?? []) (options.warn ?? log)(`peer: ${note}`);
  const scheduler = schedulerOf(options, deterministic, log, store?.restored.clockMs ?? null);
  const baseIds = options.ids ?? (deterministic ? new CounterIdSource(options.seed ?? 0) : randomIdSource);
  // A counter source draws the ids it drew before the restart again first, so none is issued twice.
  const ids = store ? new CountingIdSource(baseIds, store.restored.ids, baseIds instanceof CounterIdSource) : baseIds;
  const seed = Number(options.seed ?? 0);
  const bypassAskAfterMs = bypassOf(options.bypassAskAfterMs);
  const peer = { deterministic, seed, stepMs, legacyPause: legacy, maxTasks };
  const transitions = await openTransitions(options.transitionsFile, scheduler, peer, log).catch(
    async (error: unknown) => {
      await store?.close();
      throw error;
    },
  );
  const engine = new TaskEngine({
    scheduler,
    ids,
    stepMs,
    legacy,
    maxTasks,
    bypassAskAfterMs,
    onTransition: transitions ? (fact) => transitions.append(fact) : undefined,
    store,
  });
  if (store) engine.restore(store.restored);
  const handler = new RequestHandler({ engine, scheduler, log });
  const a2aVersion = a2aVersionOf(options.a2aVersion);
  const [intake, adapterOptions] = adapterOptionsOf(handler, limits, log, a2aVersion);
  const jsonRpc = createJsonRpcAdapter(adapterOptions);
  const rest = createRestAdapter(adapterOptions);
  const grpc = lazyGrpc({ handler, messageLimitBytes: limits.bodyLimitBytes, log, a2aVersion });

  const listener: RequestListener = (req, res) => {
    intake.arrived(req, res);
    routeRequest(router, req, res).catch((error: unknown) => {
      log(`peer: request failed: ${errorMessage(error)}`);
      if (!res.headersSent) sendRpcError(res, null, jsonRpcError('INTERNAL', 'internal error'));
      else if (!res.writableEnded) res.end();
    });
  };
  const server: Server = createServer(
    limitedServerOptions(limits),
    options.wrapHandler ? options.wrapHandler(listener) : listener,
  );
  const gate = guardServer(server, limits, (status, message, req) => limitBody(status, message, bindingOf(req)));
  const router: Router = { gate, limits, jsonRpc, rest, controlEnabled, cardJson: '' };
  // One port: HTTP/1 connections go to `server`, HTTP/2 (gRPC) ones to the gRPC adapter. A client
  // that sends nothing within the headers time-out goes to `server`, whose time-outs answer it.
  const port = createSniffingServer(
    { http1: (socket) => server.emit('connection', socket), h2c: grpc.route },
    { silentMs: limits.headersTimeoutMs },
  );

  await new Promise<void>((resolve, reject) => {
    port.once('error', reject);
    port.listen(options.port ?? 0, host, () => {
      port.off('error', reject);
      resolve();
    });
  }).catch(async (error: unknown) => {
    engine.close();
    grpc.close();
    await transitions?.close();
    await store?.close();
    throw error;
  });
  // node:http starts its request and headers time-out checks when its server listens; it gets its
  // connections from `port`, so it is told the port listens.
  server.emit('listening');
  const { url, restUrl, grpcUrl } = addressesOf(port.address() as AddressInfo);
  router.cardJson = JSON.stringify(
    buildAgentCard(
      { jsonRpc: url, rest: restUrl, grpc: grpcUrl },
      {
        deterministic,
        seed,
        stepMs,
        legacyPause: legacy,
        ...(bypassAskAfterMs === undefined ? {} : { bypassAskAfterMs }),
        ...(a2aVersion === '1.0' ? {} : { a2aVersion }),
      },
    ),
  );
  log(`peer: listening on ${url}${deterministic ? ' (deterministic)' : ''}`);

  let closing: Promise<void> | undefined;
  return {
    url,
    restUrl,
    grpcUrl,
    ...(scheduler instanceof VirtualScheduler ? { virtualClock: virtualPeerClock(handler, scheduler, intake) } : {}),
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        engine.close();
        handler.closeStreams();
        grpc.close();
        port.close(() => resolve());
        server.close();
        server.closeIdleConnections();
        setImmediate(() => server.closeAllConnections());
      })
        .then(() => transitions?.close())
        .then(() => store?.close());
      return closing;
    },
  };
}
