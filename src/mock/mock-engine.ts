/**
 * @module mock/mock-engine
 * The transport-agnostic mock (docs/design.md §13): recordings in, for each incoming request the
 * outputs to send. It matches the request to a recorded exchange of one of its recordings
 * (`match.ts`), releases recorded answers as their order allows (`mock-script.ts`), answers pause
 * calls the recordings hold no case for as the RFC prescribes (`pause-fallback.ts`), and answers
 * anything else with an error naming the closest recorded exchange. Both bindings are served: a
 * request is read into the call view (src/observe/call-view.ts), and the mock's own errors go out in
 * the request's binding — a JSON-RPC error, or over HTTP+JSON an HTTP status with a
 * `google.rpc.Status`-style body (design §15). The node:http server and the in-process fetch are thin
 * adapters over it.
 *
 * Timing: with `speed` (a positive number), each answer goes out no sooner than the recorded gap
 * between it and the entry recorded before it, divided by `speed`, after it became due; without,
 * as soon as order allows. `delay` is injectable, so nothing here reads a clock.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { readTarget, refusedTargetMessage } from '../http/request-target.js';
import { ERROR_INFO_TYPE, type JsonRpcErrorName, type JsonRpcErrorObject, jsonRpcError } from '../protocol/errors.js';
import { grpcMethodNameOfPath } from '../grpc/method-paths.js';
import { GRPC_ERROR_STATUS } from '../grpc/status-codes.js';
import type { RequestView } from '../observe/call-view.js';
import { REST_ERROR_STATUS, matchRestTail, restError } from '../protocol/rest-binding.js';
import { CONTROL_PATH } from '../protocol/methods.js';
import { AGENT_CARD_PATH } from '../protocol/types.js';
import { versionFailure } from '../peer/request-handler.js';
import { V03_METHODS } from '../protocol/methods.js';
import { asksForV03, isV03Method } from '../peer/v03-dialect.js';
import { isV03RestPath, v03RestError } from '../protocol/rest-binding-v03.js';
import type { Recording } from '../recording/recording-reader.js';
import type { NoiseRules } from '../replay/content.js';
import type { PlannedExchange } from '../replay/lanes.js';
import {
  type IncomingRequest,
  type RequestComparison,
  distance,
  incomingCall,
  pathOnly,
  requestVersion,
} from './match.js';
import { OutputQueue } from './mock-output.js';
import { type DueAnswer, MockScript, READ_METHODS, isCardExchange } from './mock-script.js';
import { type PauseRefusal, pauseFallback } from './pause-fallback.js';

/** The ErrorInfo reason of an answer to a request no recorded exchange matches. */
export const NO_RECORDED_EXCHANGE = 'NO_RECORDED_EXCHANGE';
/** The ErrorInfo domain of the mock's own reasons. */
export const MOCK_ERROR_DOMAIN = 'a2a-replay.dev';

export interface MockOptions {
  /** Recorded timing scaled by this factor (2 = twice as fast); default: as fast as order allows. */
  speed?: number;
  /** Paths never compared, per method (`a2a-replay.config.json`), in requests as in answers. */
  noise?: NoiseRules;
  /** Paths never compared for any method (`--ignore`). */
  ignore?: readonly string[];
  /** Waits `ms` (default: a timer); only called when `speed` is set. */
  delay?: (ms: number) => Promise<void>;
}

/** A recording and the name it goes by in reports (its file). */
export interface MockSource {
  source: string;
  recording: Recording;
}

/** A recorded exchange, as reports name it. */
export interface ExchangeRef {
  recording: string;
  xid: string;
  seq: number;
  /** The JSON-RPC method, or `GET <path>` for other requests. */
  method: string;
}

/** A request no recorded exchange matched, with the closest one and the first field that differs. */
export interface UnmatchedRequest {
  method: string;
  path: string;
  closest: (ExchangeRef & { field: string | null; alreadyRequested: boolean }) | null;
}

/** What was and was not requested, per recording. */
export interface MockReport {
  recordings: { recording: string; id: string; exchanges: number; requested: number; unrequested: ExchangeRef[] }[];
  unmatched: UnmatchedRequest[];
}

interface Closest {
  script: MockScript;
  ex: PlannedExchange;
  comparison: RequestComparison;
  score: number;
}

function record(value: JsonValue | undefined): { [key: string]: JsonValue } | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

function methodName(ex: PlannedExchange): string {
  return ex.method ?? `${ex.request.http.method} ${pathOnly(ex.request.http.path)}`;
}

function refOf(script: MockScript, ex: PlannedExchange): ExchangeRef {
  return { recording: script.source, xid: ex.xid, seq: ex.request.seq, method: methodName(ex) };
}

function clientIdOf(body: JsonValue | undefined): JsonValue {
  const id = record(body)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function unary(status: number, body: JsonValue): OutputQueue {
  const queue = new OutputQueue();
  queue.push({
    kind: 'unary',
    status,
    headers: { 'content-type': 'application/json' },
    body,
    text: JSON.stringify(body),
  });
  return queue;
}

function rpcError(id: JsonValue, error: JsonRpcErrorObject): JsonValue {
  return { jsonrpc: '2.0', id, error: error as unknown as JsonValue };
}

/** How a request travelled: its binding, and for JSON-RPC the client's call number. */
/** Who asked, and so how the mock's own answers go out: a v0.3 HTTP+JSON client gets `{code, message}`. */
type Caller =
  { binding: 'JSONRPC'; clientId: JsonValue } | { binding: 'HTTP+JSON'; v03?: boolean } | { binding: 'GRPC' };

/**
 * A gRPC error answer (docs/design.md §16): the status, `grpc-message`, and the
 * `google.rpc.Status` ProtoJSON the `grpc-status-details-bin` trailer carries, its ErrorInfo the
 * one a JSON binding's error carries.
 */
function grpcErrorAnswer(code: number, message: string, info: JsonValue): OutputQueue {
  const queue = new OutputQueue();
  const details: JsonValue = { code, message, details: [info] };
  queue.push({
    kind: 'unary',
    status: 200,
    headers: {},
    body: undefined,
    text: '',
    grpc: { status: code, message, details },
  });
  return queue;
}

/** An error of the table in the caller's binding: a JSON-RPC error, an HTTP status and body, a gRPC status. */
function errorAnswer(caller: Caller, name: JsonRpcErrorName, message: string, metadata?: Record<string, string>) {
  if (caller.binding === 'GRPC') {
    const info = jsonRpcError(name, message, metadata).data[0] as unknown as JsonValue;
    return grpcErrorAnswer(GRPC_ERROR_STATUS[name], message, info);
  }
  if (caller.binding === 'HTTP+JSON') {
    const { http, body } =
      caller.v03 === true ? v03RestError(name, message, metadata) : restError(name, message, metadata);
    return unary(http, body as unknown as JsonValue);
  }
  return unary(200, rpcError(caller.clientId, jsonRpcError(name, message, metadata)));
}

/** Whether a request target is the reference peer's control channel (`/control`, under any base path). */
function isControlPath(target: string): boolean {
  const path = pathOnly(target);
  return path === CONTROL_PATH || path.endsWith(CONTROL_PATH);
}

/** A gRPC call read as the call view reads the JSON bindings: its path's method, its message as params. */
function grpcCall(request: IncomingRequest): RequestView {
  const name = grpcMethodNameOfPath(request.path);
  if (!name) return { kind: 'malformed', field: 'http.path', message: `${request.path} is no A2A gRPC method` };
  return { kind: 'call', binding: 'JSONRPC', rpcId: undefined, method: name, params: request.body };
}

/** Whether `request` names a route of the HTTP+JSON binding (a body that failed to parse still came over it). */
function isRestRoute(request: IncomingRequest): boolean {
  return matchRestTail(request.method.toUpperCase(), readTarget(request.path).path).kind === 'route';
}

const defaultDelay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How long an answer waits for the outputs released before it on other connections to be written
 * (design §13, "Order across connections"): a stream whose client stopped reading, or left without
 * the mock hearing of it, holds the answers after it this long, not forever.
 */
export const ORDER_WAIT_MS = 2_000;

export class MockEngine {
  readonly scripts: MockScript[];
  readonly #speed: number | undefined;
  readonly #delay: (ms: number) => Promise<void>;
  readonly #unmatched: UnmatchedRequest[] = [];
  readonly #open = new Set<OutputQueue>();
  #pumping = false;
  /** Index of the recording that served the last request (agent cards follow it). */
  #lastServed = 0;
  #closed = false;
  /** Queues holding released outputs not yet written, in release order. */
  readonly #unflushed = new Set<OutputQueue>();
  /** Ends every wait of the pump for outputs to be written (the mock is closing). */
  #stopWaiting: (() => void) | undefined;
  /** The A2A-Version values the recorded requests carried. */
  readonly #recordedVersions = new Set<string>();

  constructor(sources: readonly MockSource[], options: MockOptions = {}) {
    if (options.speed !== undefined && !(options.speed > 0 && Number.isFinite(options.speed)))
      throw new RangeError(`speed must be a positive number (got ${options.speed})`);
    this.#speed = options.speed;
    this.#delay = options.delay ?? defaultDelay;
    const rules = {
      ...(options.noise ? { noise: options.noise } : {}),
      ...(options.ignore ? { ignore: options.ignore } : {}),
    };
    this.scripts = sources.map((s) => new MockScript(s.source, s.recording, rules));
    for (const { recording } of sources)
      for (const entry of recording.entries) {
        if (entry.kind !== 'request' || isControlPath(entry.http.path)) continue;
        if (pathOnly(entry.http.path) === AGENT_CARD_PATH) continue;
        this.#recordedVersions.add(requestVersion(entry.http.headers?.['a2a-version'], entry.http.path));
      }
  }

  /** The mock's own URL: agent cards point here. */
  set url(url: string) {
    for (const script of this.scripts) script.url = url;
  }

  /** Answers one request: the queue yields what to send, in order. */
  handle(request: IncomingRequest): OutputQueue {
    if (this.#closed) return unary(503, rpcError(null, jsonRpcError('INTERNAL', 'the mock is closing')));
    const target = readTarget(request.path);
    const clientId = clientIdOf(request.body);
    if (target.ambiguity !== undefined) {
      // Refused as the reference peer refuses it (design §5): in HTTP+JSON terms on a route.
      const message = refusedTargetMessage(target.ambiguity);
      if (isRestRoute(request)) return errorAnswer({ binding: 'HTTP+JSON' }, 'INVALID_REQUEST', message);
      return unary(400, rpcError(clientId, jsonRpcError('INVALID_REQUEST', message)));
    }
    if (request.method.toUpperCase() === 'GET' && target.path === AGENT_CARD_PATH) return this.#card(request);
    const call = request.grpc === true ? grpcCall(request) : incomingCall(request);
    const overRest =
      (call.kind === 'call' && call.binding === 'HTTP+JSON') ||
      (call.kind === 'malformed' && call.field === 'bodyText' && request.body === undefined && isRestRoute(request));
    const caller: Caller =
      request.grpc === true
        ? { binding: 'GRPC' }
        : overRest
          ? { binding: 'HTTP+JSON', v03: asksForV03(request.version) && isV03RestPath(request.path) }
          : { binding: 'JSONRPC', clientId };
    if (
      request.body === undefined &&
      request.deep !== true &&
      request.text.trim() !== '' &&
      request.method.toUpperCase() === 'POST'
    )
      return errorAnswer(
        overRest ? caller : { binding: 'JSONRPC', clientId: null },
        'PARSE_ERROR',
        'the request body is not valid JSON',
      );
    // The version header, checked as the reference peer checks it (/control is not A2A); a
    // version some recorded request carried is matched instead, so its recorded answer comes back.
    const refused = isControlPath(request.path) ? undefined : versionFailure(request.version);
    if (refused && !this.#recordedVersions.has(request.version))
      return errorAnswer(caller, refused.errorName, refused.message);
    let closest: Closest | undefined;
    // A read that would run ahead of the client's own calls is not served fresh; the latest equal
    // read already answered is shown again instead (design §13, "Reads").
    let again: { script: MockScript; ex: PlannedExchange } | undefined;
    for (const script of this.scripts) {
      for (const ex of script.plan.exchanges) {
        if (isCardExchange(ex)) continue;
        const comparison = script.compare(ex, request);
        const served = script.isServed(ex);
        const read = ex.method !== null && READ_METHODS.has(ex.method);
        if (comparison.fields.length === 0) {
          if (!served && !(read && script.skipsCall(ex))) return this.#serve(script, ex, comparison, clientId);
          if (served && read && script.answered(ex) && (again === undefined || again.script === script))
            again = { script, ex };
        }
        const score = distance(comparison) * 2 + (served ? 1 : 0);
        if (!closest || score < closest.score) closest = { script, ex, comparison, score };
      }
    }
    const shown = again?.script.repeat(again.ex, clientId);
    if (shown) return shown;
    const fallback = call.kind === 'call' ? this.#fallback(call.method, call.params) : undefined;
    if (fallback) return errorAnswer(caller, fallback.name, fallback.message, fallback.metadata);
    return this.#unmatchedAnswer(request, call.kind === 'call' ? call.method : undefined, caller, closest);
  }

  #serve(script: MockScript, ex: PlannedExchange, comparison: RequestComparison, clientId: JsonValue): OutputQueue {
    const served = script.serve(ex, comparison, clientId);
    if (!isCardExchange(ex)) this.#lastServed = this.scripts.indexOf(script);
    this.#open.add(served.queue);
    served.queue.onCancel = () => {
      script.abandon(served);
      this.#open.delete(served.queue);
      this.#pump();
    };
    this.#pump();
    return served.queue;
  }

  /**
   * The agent card of the recording in progress: the one that served the last request while it
   * has exchanges left, else the next one after it with exchanges left (else the first). Its next
   * recorded card exchange counts as requested; with none left, its card is served again.
   */
  #card(request: IncomingRequest): OutputQueue {
    const pending = (s: MockScript): boolean => s.plan.exchanges.some((e) => !isCardExchange(e) && !s.isServed(e));
    const n = this.scripts.length;
    const order = Array.from({ length: n }, (_, i) => this.scripts[(this.#lastServed + i) % n] as MockScript);
    const current = order.find(pending) ?? this.scripts[0];
    const ex = current?.plan.exchanges.find((e) => isCardExchange(e) && !current.isServed(e));
    if (current && ex) return this.#serve(current, ex, current.compare(ex, request), null);
    const card = [current, ...this.scripts].map((s) => s?.agentCard()).find((c) => c !== undefined);
    if (card === undefined)
      return unary(404, rpcError(null, jsonRpcError('INTERNAL', 'the recordings hold no agent card')));
    return unary(200, card);
  }

  /** The RFC's answer to a pause call no recorded exchange matched, when the recordings know the task. */
  #fallback(called: string, callParams: unknown): PauseRefusal | undefined {
    // The pause extension's v0.3 names (`tasks/pause`, `tasks/resume`) are the same calls.
    const method = isV03Method(called) ? (V03_METHODS[called] as string) : called;
    const params = record(callParams as JsonValue);
    if ((method !== 'ResumeTask' && method !== 'PauseTask') || typeof params?.taskId !== 'string') return undefined;
    for (const script of this.scripts) {
      const view = script.taskView(params.taskId);
      if (!view) continue;
      const token = typeof params.resumeToken === 'string' ? script.ids.recordedOf(params.resumeToken) : undefined;
      return pauseFallback(method, params.taskId, view, token);
    }
    return undefined;
  }

  #unmatchedAnswer(
    request: IncomingRequest,
    method: string | undefined,
    caller: Caller,
    closest: Closest | undefined,
  ): OutputQueue {
    const name = method ?? `${request.method.toUpperCase()} ${pathOnly(request.path)}`;
    let near: (ExchangeRef & { field: string | null; alreadyRequested: boolean }) | null = null;
    let why = 'the recordings hold no exchanges';
    if (closest) {
      const { script, ex } = closest;
      const alreadyRequested = script.isServed(ex);
      let field = closest.comparison.fields[0] ?? null;
      // Equal after pairing, yet not served: a read recorded after a call of its task the client
      // has not made (design §13, "Reads"); the field is where the request differs as sent.
      const skipped = field === null && !alreadyRequested ? script.skippedCall(ex) : undefined;
      if (skipped) field = script.unpairedField(ex, request) ?? null;
      near = { ...refOf(script, ex), field, alreadyRequested };
      const differs = field !== null ? `which differs at ${field}` : '';
      let how: string;
      if (skipped) {
        const call = `${methodName(skipped)} seq ${skipped.request.seq}`;
        const lead = differs === '' ? 'which' : `${differs}, and`;
        how = `${lead} is recorded after ${call} of its task, a call not made yet`;
      } else if (field !== null) how = differs;
      else how = alreadyRequested ? 'which was already requested' : 'which is not due yet';
      why = `closest: ${near.method} seq ${near.seq} (xid ${near.xid}) in ${near.recording}, ${how}`;
    }
    this.#unmatched.push({ method: name, path: request.path, closest: near });
    const metadata: Record<string, string> = near
      ? {
          recording: near.recording,
          xid: near.xid,
          seq: String(near.seq),
          method: near.method,
          field: near.field ?? '',
          alreadyRequested: String(near.alreadyRequested),
        }
      : {};
    const message = `no recorded exchange matches this ${name} request; ${why}`;
    const details = [{ '@type': ERROR_INFO_TYPE, reason: NO_RECORDED_EXCHANGE, domain: MOCK_ERROR_DOMAIN, metadata }];
    if (caller.binding === 'GRPC') return grpcErrorAnswer(GRPC_ERROR_STATUS.INTERNAL, message, details[0] as JsonValue);
    if (caller.binding === 'HTTP+JSON' && caller.v03 === true) {
      const { http, body } = v03RestError('INTERNAL', message);
      return unary(http, { ...body, data: details });
    }
    if (caller.binding === 'HTTP+JSON') {
      const { http, status } = REST_ERROR_STATUS.INTERNAL;
      return unary(http, { error: { code: http, status, message, details } });
    }
    const error: JsonRpcErrorObject = { code: jsonRpcError('INTERNAL').code, message, data: details };
    return unary(200, rpcError(caller.clientId, error));
  }

  /** Releases every answer that is due, in order; with `speed`, after its scaled recorded gap. */
  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    void (async () => {
      let waited: number | undefined;
      try {
        for (;;) {
          if (this.#closed) return;
          let due: { script: MockScript; answer: DueAnswer } | undefined;
          for (const script of this.scripts) {
            const answer = script.nextDue();
            if (answer) {
              due = { script, answer };
              break;
            }
          }
          if (!due) return;
          const { entry, previous, served } = due.answer;
          const before = [...this.#unflushed].filter((q) => q !== served.queue && !q.flushed);
          this.#unflushed.clear();
          if (before.length > 0) {
            // Recorded order across connections: what went out before this answer on other
            // connections is written first, as the recorded peer wrote a stream's events before it
            // answered the control call that caused them. Bounded: a client that stopped reading
            // holds it ORDER_WAIT_MS at most.
            await this.#written(before);
            continue;
          }
          const gap = previous ? Date.parse(entry.at) - Date.parse(previous.at) : 0;
          if (this.#speed !== undefined && waited !== entry.seq && gap > 0) {
            waited = entry.seq;
            await this.#delay(gap / this.#speed);
            continue;
          }
          due.script.release(served, entry);
          if (!served.queue.flushed) this.#unflushed.add(served.queue);
          if (served.queue.closed) this.#open.delete(served.queue);
        }
      } finally {
        this.#pumping = false;
      }
    })();
  }

  /** Waits until every queue of `queues` was written, the mock closes, or {@link ORDER_WAIT_MS} passed. */
  async #written(queues: readonly OutputQueue[]): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ORDER_WAIT_MS);
      timer.unref?.();
      this.#stopWaiting = resolve;
    });
    try {
      await Promise.race([Promise.all(queues.map((q) => q.written())), bound]);
    } finally {
      clearTimeout(timer);
      this.#stopWaiting = undefined;
    }
  }

  /** Ends every open answer (streams close) and refuses further requests. */
  close(): void {
    this.#closed = true;
    this.#stopWaiting?.();
    for (const queue of this.#open) queue.close();
    this.#open.clear();
  }

  /** The exchanges never requested, and the requests nothing matched. */
  report(): MockReport {
    return {
      recordings: this.scripts.map((script) => {
        const unrequested = script.unrequested();
        return {
          recording: script.source,
          id: script.recording.header.id,
          exchanges: script.plan.exchanges.length,
          requested: script.plan.exchanges.length - unrequested.length,
          unrequested: unrequested.map((ex) => refOf(script, ex)),
        };
      }),
      unmatched: [...this.#unmatched],
    };
  }
}
