/**
 * @module peer/start-peer
 * The reference peer's HTTP edge (docs/design.md §4): A2A v1.0 JSON-RPC on `POST /` (core methods plus
 * the pause extension), SSE streams, the agent card at `/.well-known/agent-card.json`, and the
 * `/control` channel (`AdvanceClock`, `FireEvent`, `GetClock`) when enabled. Bad input of any
 * kind gets a JSON-RPC error; nothing a client sends crashes the peer.
 *
 * Wire decisions:
 * - HTTP limits come first (src/http/limits.ts): 408 for a request that does not arrive in
 *   time, 503 past the connection cap, 413 for a body over the limit (the client reads it).
 * - Requests must carry `A2A-Version: 1.0` (header, or the `A2A-Version` query parameter, spec
 *   §3.6); a missing value means 0.3 → -32009. `/control` is not A2A and does not require it.
 * - Checks run in this order: body size (HTTP 413 + -32600 naming the limit), JSON (-32700),
 *   nesting depth (-32600 past 128 levels, which could not be echoed back), JSON-RPC request
 *   envelope (-32600; notifications and batches are refused: every call needs an `id`),
 *   version (-32009), method (-32601; control methods exist only on `/control`, A2A
 *   methods only on `/`), params (-32602 naming the field), ranges (-32602 naming the field and
 *   its range, src/protocol/bounds.ts), then the method's own errors.
 * - HTTP status 200 for JSON-RPC errors except -32603 (500); unknown path 404, wrong HTTP
 *   method 405, both with a JSON-RPC error body. `/control` answers only loopback clients.
 * - Push-notification methods → -32003; GetExtendedAgentCard → -32004 (none is declared).
 * - SSE frames are `data: <JSON-RPC response with a StreamResponse>\n\n`; an error after the
 *   stream opened is an `event: error` frame, then the stream ends.
 * - Responses to calls that cause events (ResumeTask, PauseTask, CancelTask, AdvanceClock,
 *   FireEvent, ...) are sent only after those events were written to every open stream, so a
 *   recorder sees a stable order. A PauseTask that waits for a step or a tool call (see
 *   task-engine) is answered during the AdvanceClock that lets the task pause, before that
 *   AdvanceClock's own answer.
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
 *   `payload.taskId`, if any and not already resumed (cause `external_event`).
 *
 * Deterministic mode: the clock starts at {@link DETERMINISTIC_EPOCH} and moves only on
 * AdvanceClock (each due timer fires at its own instant, then the clock is set to the target);
 * ids and resume tokens come from `CounterIdSource(seed)`. In real-time mode `--control`
 * enables FireEvent and GetClock; AdvanceClock then answers -32004 (the real clock cannot jump).
 */
import { type IncomingMessage, type RequestListener, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2aReplayError, errorMessage } from '../errors.js';
import { type Clock, ManualClock, isoAt, systemClock } from '../clock.js';
import { CounterIdSource, type IdSource, randomIdSource } from '../ids.js';
import { MAX_CLOCK_MS, checkCallRanges } from '../protocol/bounds.js';
import { type JsonRpcErrorObject, jsonRpcError } from '../protocol/errors.js';
import { type JsonRpcId, errorResponse, parseJsonRpcRequest, successResponse } from '../protocol/json-rpc.js';
import { CONTROL_METHODS, CONTROL_PATH, CORE_METHODS, PAUSE_METHODS } from '../protocol/methods.js';
import { type MethodCall, isKnownMethod, parseMethodCall } from '../protocol/params.js';
import { formatIssue } from '../protocol/read.js';
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, type StreamResponse } from '../protocol/types.js';
import { isTerminal } from '../protocol/state-machine.js';
import { principalOf } from '../recording/principal.js';
import { VERSION } from '../version.js';
import { limitAnswerBody as limitBody, sendJson } from '../http/json-answer.js';
import { isLoopbackHost } from '../http/loopback.js';
import { buildAgentCard } from './agent-card.js';
import {
  DEFAULT_HTTP_LIMITS,
  type HttpLimits,
  answerAndClose,
  drainRequest,
  guardServer,
  limitedServerOptions,
  readLimitedBody,
} from '../http/limits.js';
import { RpcFailure } from './rpc-failure.js';
import { RealScheduler, type Scheduler, VirtualScheduler } from './scheduler.js';
import { type Caller, type Subscriber, TaskEngine } from './task-engine.js';
import { DEFAULT_MAX_TASKS } from './task-store.js';
import { PEER_TRANSITIONS_TYPE, PEER_TRANSITIONS_VERSION, TransitionLogWriter } from './transition-log.js';

/** Where the deterministic peer's virtual clock starts. */
export const DETERMINISTIC_EPOCH = '2026-01-01T00:00:00.000Z';

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
  /** Largest accepted request body; default 1 MiB (larger: HTTP 413). */
  bodyLimitBytes?: number;
  /** Terminal tasks kept, oldest finished evicted first; default 10,000. */
  maxTasks?: number;
  /** A request must fully arrive within this many ms (else HTTP 408); default 30,000. */
  requestTimeoutMs?: number;
  /** Its headers within this many ms (at most `requestTimeoutMs`); default 10,000. */
  headersTimeoutMs?: number;
  /** Open connections served (requests on further ones: HTTP 503); default 1024. */
  maxConnections?: number;
  /** Writes the peer's transitions log (src/peer/transition-log.ts) to this file, mode 0600. */
  transitionsFile?: string;
  /** Injected clock; in deterministic mode it must be a ManualClock. */
  clock?: Clock;
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
  close(): Promise<void>;
}

const A2A_METHODS: ReadonlySet<string> = new Set<string>([...CORE_METHODS, ...PAUSE_METHODS]);
const CONTROL: ReadonlySet<string> = new Set<string>(CONTROL_METHODS);

type Endpoint = 'a2a' | 'control';

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

/** The principal of a request, named as the recorder names it (`jwt:sub=...`, `bearer:sha256:...`). */
function callerOf(req: IncomingMessage, method: string): Caller {
  const auth = req.headers.authorization;
  const principal = typeof auth === 'string' ? principalOf({ authorization: auth }) : undefined;
  return { method, principal: principal ?? null };
}

function sendError(res: ServerResponse, id: JsonRpcId | null, error: JsonRpcErrorObject, status?: number): void {
  sendJson(res, status ?? (error.code === -32603 ? 500 : 200), errorResponse(id, error));
}

/** Largest JSON nesting accepted: deeper values could not be serialised back (call-stack bound). */
const MAX_DEPTH = 128;

/** Whether `value` nests deeper than `limit` levels (iterative: safe on any input). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

function idOf(value: unknown): JsonRpcId | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const id = (value as Record<string, unknown>).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

function versionOf(req: IncomingMessage, url: URL): string {
  const header = req.headers['a2a-version'];
  const value = Array.isArray(header) ? header[0] : header;
  return (value ?? url.searchParams.get('A2A-Version') ?? '').trim();
}

/** Starts the reference peer; resolves once it listens. */
export async function startPeer(options: PeerOptions = {}): Promise<RunningPeer> {
  const host = options.host ?? '127.0.0.1';
  const deterministic = options.deterministic ?? false;
  const stepMs = positive(options.stepMs, 'stepMs', 1000);
  const requestTimeoutMs = wholePositive(
    options.requestTimeoutMs,
    'requestTimeoutMs',
    DEFAULT_HTTP_LIMITS.requestTimeoutMs,
  );
  const limits: HttpLimits = {
    requestTimeoutMs,
    headersTimeoutMs: Math.min(
      requestTimeoutMs,
      wholePositive(options.headersTimeoutMs, 'headersTimeoutMs', DEFAULT_HTTP_LIMITS.headersTimeoutMs),
    ),
    maxConnections: wholePositive(options.maxConnections, 'maxConnections', DEFAULT_HTTP_LIMITS.maxConnections),
    bodyLimitBytes: wholePositive(options.bodyLimitBytes, 'bodyLimitBytes', DEFAULT_HTTP_LIMITS.bodyLimitBytes),
    drainLimitBytes: DEFAULT_HTTP_LIMITS.drainLimitBytes,
  };
  const bodyLimit = limits.bodyLimitBytes;
  const maxTasks = wholePositive(options.maxTasks, 'maxTasks', DEFAULT_MAX_TASKS);
  const legacy = options.legacyPause ?? false;
  const controlEnabled = deterministic || (options.control ?? false);
  const log = options.log ?? (() => undefined);

  const onTimerError = (error: unknown): void => log(`peer: timer failed: ${errorMessage(error)}`);
  let scheduler: Scheduler;
  if (deterministic) {
    if (options.clock !== undefined && !(options.clock instanceof ManualClock)) {
      throw new A2aReplayError('INVALID_ARGUMENT', 'peer option clock: deterministic mode needs a ManualClock');
    }
    const clock = options.clock ?? new ManualClock(Date.parse(DETERMINISTIC_EPOCH));
    scheduler = new VirtualScheduler(clock, onTimerError, MAX_CLOCK_MS);
  } else {
    scheduler = new RealScheduler(options.clock ?? systemClock, onTimerError);
  }
  const ids = options.ids ?? (deterministic ? new CounterIdSource(options.seed ?? 0) : randomIdSource);
  const seed = Number(options.seed ?? 0);
  const transitions =
    options.transitionsFile === undefined
      ? undefined
      : await TransitionLogWriter.open(
          options.transitionsFile,
          {
            type: PEER_TRANSITIONS_TYPE,
            version: PEER_TRANSITIONS_VERSION,
            startedAt: isoAt(scheduler.clock.now()),
            tool: `a2a-replay@${VERSION}`,
            peer: { deterministic, seed, stepMs, legacyPause: legacy, maxTasks },
          },
          (error) => log(`peer: the transitions log stopped: ${errorMessage(error)}`),
        );
  const engine = new TaskEngine({
    scheduler,
    ids,
    stepMs,
    legacy,
    maxTasks,
    onTransition: transitions ? (fact) => transitions.append(fact) : undefined,
  });
  const streams = new Set<ServerResponse>();
  /** Answers of event-causing calls being sent; AdvanceClock answers after those it let happen. */
  const answers = new Set<Promise<void>>();
  let cardJson = '';

  /** Sends a success once every event so far reached its streams (docs/design.md §4 "Order"). */
  function answerAfterEvents(res: ServerResponse, id: JsonRpcId, result: unknown): Promise<void> {
    const sent = engine.flushed().then(() => {
      sendJson(res, 200, successResponse(id, result));
    });
    answers.add(sent);
    void sent.finally(() => answers.delete(sent));
    return sent;
  }

  function openStream(res: ServerResponse, id: JsonRpcId): Subscriber {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    streams.add(res);
    const waiting = new Set<() => void>();
    res.on('close', () => {
      streams.delete(res);
      for (const done of waiting) done();
      waiting.clear();
    });
    return {
      send(event: StreamResponse): Promise<void> {
        if (res.writableEnded || res.destroyed) return Promise.resolve();
        return new Promise((resolve) => {
          const done = (): void => {
            waiting.delete(done);
            resolve();
          };
          waiting.add(done);
          let frame: string;
          try {
            frame = `data: ${JSON.stringify(successResponse(id, event))}\n\n`;
          } catch (error) {
            log(`peer: cannot serialise a stream event: ${errorMessage(error)}`);
            const failure = errorResponse(id, jsonRpcError('INTERNAL', 'a stream event could not be serialised'));
            frame = `event: error\ndata: ${JSON.stringify(failure)}\n\n`;
          }
          res.write(frame, done);
        });
      },
      close(): void {
        if (!res.writableEnded) res.end();
      },
    };
  }

  async function dispatch(call: MethodCall, id: JsonRpcId, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const caller = callerOf(req, call.method);
    switch (call.method) {
      case 'SendMessage': {
        const historyLength = call.params.configuration?.historyLength;
        const taskId = engine.accept(call.params, caller);
        engine.start(taskId, caller);
        const task =
          call.params.configuration?.returnImmediately === true
            ? engine.getTask(taskId, historyLength)
            : await engine.untilSettled(taskId, historyLength);
        await answerAfterEvents(res, id, { task });
        return;
      }
      case 'SendStreamingMessage': {
        const taskId = engine.accept(call.params, caller);
        const sub = openStream(res, id);
        const off = engine.subscribe(taskId, sub);
        res.on('close', off);
        engine.start(taskId, caller);
        return;
      }
      case 'GetTask':
        sendJson(res, 200, successResponse(id, engine.getTask(call.params.id, call.params.historyLength)));
        return;
      case 'ListTasks':
        sendJson(res, 200, successResponse(id, engine.listTasks(call.params)));
        return;
      case 'CancelTask':
        await answerAfterEvents(res, id, engine.cancel(call.params.id, caller));
        return;
      case 'SubscribeToTask': {
        const state = engine.taskState(call.params.id);
        if (isTerminal(state)) {
          throw new RpcFailure(
            'UNSUPPORTED_OPERATION',
            `task ${call.params.id} is ${state}: a terminal task cannot be subscribed to`,
            {
              taskId: call.params.id,
              state,
            },
          );
        }
        const sub = openStream(res, id);
        const off = engine.subscribe(call.params.id, sub);
        res.on('close', off);
        return;
      }
      case 'PauseTask':
        await answerAfterEvents(res, id, await engine.pause(call.params, caller));
        return;
      case 'AwaitTaskResumption':
        await answerAfterEvents(res, id, await engine.awaitResumption(call.params, caller));
        return;
      case 'ResumeTask':
        await answerAfterEvents(res, id, await engine.resume(call.params, caller));
        return;
      case 'AdvanceClock': {
        if (!(scheduler instanceof VirtualScheduler)) {
          throw new RpcFailure(
            'UNSUPPORTED_OPERATION',
            'AdvanceClock needs a deterministic peer (--deterministic): this peer runs on the real clock',
          );
        }
        const moved = await scheduler.advance(call.params.ms);
        if (moved.kind === 'past-limit') {
          throw new RpcFailure(
            'INVALID_PARAMS',
            `params.ms: expected at most ${moved.limit - moved.now} (the virtual clock stands at ` +
              `${isoAt(moved.now)} and never passes ${isoAt(moved.limit)}); got ${call.params.ms}`,
            { field: 'params.ms' },
          );
        }
        await engine.flushed();
        // The answers this move let happen (a PauseTask that waited for a step) go out first.
        await Promise.all([...answers]);
        sendJson(res, 200, successResponse(id, { now: isoAt(moved.now) }));
        return;
      }
      case 'FireEvent':
        await answerAfterEvents(res, id, { resumed: engine.fireEvent(call.params.name, call.params.payload, caller) });
        return;
      case 'GetClock':
        sendJson(res, 200, successResponse(id, { now: isoAt(scheduler.clock.now()) }));
        return;
      default: {
        const never: never = call;
        throw new Error(`unhandled method ${JSON.stringify(never)}`);
      }
    }
  }

  async function rpc(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const body = await readLimitedBody(req, bodyLimit, limits.drainLimitBytes);
    if (body.kind === 'aborted') return;
    if (body.kind === 'too-large') {
      const error = jsonRpcError('INVALID_REQUEST', `request body is larger than the ${bodyLimit}-byte limit`, {
        limitBytes: String(bodyLimit),
      });
      await answerAndClose(res, 413, JSON.stringify(errorResponse(null, error)), body.drained);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(body.bytes.toString('utf8')) as unknown;
    } catch (error) {
      const why = error instanceof Error ? error.message : 'not valid JSON';
      sendError(res, null, jsonRpcError('PARSE_ERROR', `request body is not valid JSON: ${why}`));
      return;
    }
    if (nestsDeeperThan(value, MAX_DEPTH)) {
      sendError(
        res,
        idOf(value),
        jsonRpcError('INVALID_REQUEST', `request body nests deeper than ${MAX_DEPTH} levels`),
      );
      return;
    }
    if (Array.isArray(value)) {
      sendError(
        res,
        null,
        jsonRpcError('INVALID_REQUEST', 'batch requests are not supported: send one JSON-RPC request per HTTP request'),
      );
      return;
    }
    const parsed = parseJsonRpcRequest(value);
    if (!parsed.ok) {
      sendError(
        res,
        idOf(value),
        jsonRpcError('INVALID_REQUEST', `not a JSON-RPC 2.0 request: ${formatIssue(parsed.issue)}`),
      );
      return;
    }
    if (parsed.value.kind === 'notification') {
      sendError(
        res,
        null,
        jsonRpcError('INVALID_REQUEST', `notifications are not supported: "${parsed.value.method}" needs an "id"`),
      );
      return;
    }
    const { id, method, params } = parsed.value;
    if (endpoint === 'a2a') {
      const version = versionOf(req, url);
      if (version !== A2A_PROTOCOL_VERSION) {
        const shown = version === '' ? 'none (which means 0.3)' : JSON.stringify(version);
        sendError(
          res,
          id,
          jsonRpcError(
            'VERSION_NOT_SUPPORTED',
            `A2A-Version ${shown} is not supported; this peer speaks ${A2A_PROTOCOL_VERSION}: send ` +
              `the header A2A-Version: ${A2A_PROTOCOL_VERSION}`,
          ),
        );
        return;
      }
    }
    const here = endpoint === 'a2a' ? A2A_METHODS : CONTROL;
    if (!here.has(method)) {
      const hint =
        endpoint === 'a2a' && CONTROL.has(method)
          ? ` (it is a control method: POST it to ${CONTROL_PATH})`
          : endpoint === 'control' && A2A_METHODS.has(method)
            ? ' (it is an A2A method: POST it to /)'
            : '';
      sendError(
        res,
        id,
        jsonRpcError(
          'METHOD_NOT_FOUND',
          `method "${method}" does not exist on ${endpoint === 'a2a' ? '/' : CONTROL_PATH}${hint}`,
        ),
      );
      return;
    }
    if (!isKnownMethod(method)) {
      if (method === 'GetExtendedAgentCard') {
        sendError(res, id, jsonRpcError('UNSUPPORTED_OPERATION', 'this peer declares no extended agent card'));
      } else {
        sendError(
          res,
          id,
          jsonRpcError('PUSH_NOTIFICATION_NOT_SUPPORTED', `${method}: this peer does not support push notifications`),
        );
      }
      return;
    }
    const call = parseMethodCall(method, params);
    if (!call.ok) {
      sendError(res, id, jsonRpcError('INVALID_PARAMS', formatIssue(call.issue), { field: call.issue.field }));
      return;
    }
    const outOfRange = checkCallRanges(call.value);
    if (outOfRange) {
      sendError(res, id, jsonRpcError('INVALID_PARAMS', formatIssue(outOfRange), { field: outOfRange.field }));
      return;
    }
    try {
      await dispatch(call.value, id, req, res);
    } catch (error) {
      const rpcError =
        error instanceof RpcFailure
          ? error.toError()
          : jsonRpcError('INTERNAL', `internal error in ${method}: ${errorMessage(error)}`);
      if (!(error instanceof RpcFailure) || error.errorName === 'INTERNAL')
        log(`peer: ${method} failed: ${rpcError.message}`);
      if (res.headersSent) {
        if (!res.writableEnded) res.end(`event: error\ndata: ${JSON.stringify(errorResponse(id, rpcError))}\n\n`);
        return;
      }
      sendError(res, id, rpcError);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    gate.track(req, res);
    if (gate.overCapacity(req)) {
      const message = `the peer serves at most ${limits.maxConnections} connections at once; try again later`;
      await answerAndClose(res, 503, limitBody(503, message), drainRequest(req, limits.drainLimitBytes), {
        'Retry-After': '1',
      });
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://peer.invalid');
    } catch {
      sendError(res, null, jsonRpcError('INVALID_REQUEST', 'unreadable request target'), 400);
      return;
    }
    const path = url.pathname;
    const method = req.method ?? 'GET';
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
      return rpc('a2a', req, res, url);
    }
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
      return rpc('control', req, res, url);
    }
    req.resume();
    sendJson(
      res,
      404,
      errorResponse(
        null,
        jsonRpcError(
          'METHOD_NOT_FOUND',
          `no endpoint at ${method} ${path}: JSON-RPC is served at POST /, the agent card at GET ${AGENT_CARD_PATH}`,
        ),
      ),
    );
  }

  const handler: RequestListener = (req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`peer: request failed: ${errorMessage(error)}`);
      if (!res.headersSent) sendError(res, null, jsonRpcError('INTERNAL', 'internal error'));
      else if (!res.writableEnded) res.end();
    });
  };
  const server: Server = createServer(
    limitedServerOptions(limits),
    options.wrapHandler ? options.wrapHandler(handler) : handler,
  );
  const gate = guardServer(server, limits, limitBody);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (error: unknown) => {
    await transitions?.close();
    throw error;
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.address.includes(':') ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}`;
  cardJson = JSON.stringify(buildAgentCard(url, { deterministic, seed, stepMs, legacyPause: legacy }));
  log(`peer: listening on ${url}${deterministic ? ' (deterministic)' : ''}`);

  let closing: Promise<void> | undefined;
  return {
    url,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        engine.close();
        for (const res of streams) if (!res.writableEnded) res.end();
        server.close(() => resolve());
        server.closeIdleConnections();
        setImmediate(() => server.closeAllConnections());
      }).then(() => transitions?.close());
      return closing;
    },
  };
}
