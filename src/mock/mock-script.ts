/**
 * @module mock/mock-script
 * One recording served as the peer side of its session (docs/design.md §13): which recorded
 * exchanges the client requested, which recorded answers went out, the recorded↔client id map,
 * and what the client has been shown of each task. Pure: the engine tells it what arrived and
 * releases what it says is due; outputs go to each exchange's {@link OutputQueue}.
 *
 * Order. The recording is planned as `run` plans it (`planReplay`: a lane per task, barriers for
 * `/control`, ListTasks and the agent card). A recorded answer (response, event, end) of a
 * requested exchange is due when the answers before it in its exchange went out and every earlier
 * entry of its lane is settled — of every lane, for a barrier's answer. A request is settled once
 * it arrived or was passed over (a request recorded after it in its lane, or after it at all for a
 * barrier, arrived: the client skipped it); an answer once it went out or its exchange was never
 * requested; an `error` after a response head never blocks (the client hung up there, so the mock
 * leaves the stream open for the client to close). A task's answers do not wait for barriers, so a
 * client that never moves a clock (`/control`) is not held up by the recorded clock moves, while a
 * stream still stops at PAUSED until the recorded ResumeTask arrives.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { rewriteAgentCard } from '../intercept/agent-card-rewrite.js';
import { AGENT_CARD_PATH } from '../protocol/types.js';
import type { EntryGrpc, RecordingEntry } from '../recording/format.js';
import type { Recording } from '../recording/recording-reader.js';
import { IgnoreSet, type NoiseRules, contentDifferences } from '../replay/content.js';
import { shapeOf } from '../replay/drift.js';
import { type LaneKey, type PlannedExchange, type ReplayPlan, answerTaskId, planReplay } from '../replay/lanes.js';
import { IdMap, resumeTokenIn } from '../replay/substitution.js';
import { stateFromV03 } from '../protocol/methods.js';
import { type IncomingRequest, REQUEST_VOLATILE, type RequestComparison, compareRequest, pathOnly } from './match.js';
import { OutputQueue } from './mock-output.js';

/** A requested exchange: the client's call number and where its answers go. */
export interface ServedExchange {
  exchange: PlannedExchange;
  /** The JSON-RPC id of the client's request (answers carry it instead of the recorded one). */
  clientId: JsonValue;
  queue: OutputQueue;
  /** How many of the exchange's answers went out. */
  sent: number;
}

/** What the client has been shown of a task (recorded ids). */
export interface MockTaskView {
  state: string;
  /** The current pause's resume token (recorded form), while PAUSED. */
  resumeToken: string | undefined;
}

/** A recorded answer that may go out now. */
export interface DueAnswer {
  served: ServedExchange;
  entry: RecordingEntry;
  /** The entry recorded just before it (for timing). */
  previous: RecordingEntry | undefined;
}

/** Headers never sent as recorded: the HTTP stack writes its own, and bodies are recorded decoded. */
const NOT_SENT = new Set(['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive']);

function answersOf(ex: PlannedExchange): RecordingEntry[] {
  return [ex.response, ...ex.events, ex.terminal].filter((e): e is RecordingEntry => e !== undefined);
}

function record(value: JsonValue | undefined): { [key: string]: JsonValue } | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/**
 * Calls that only read what the peer holds: a client may make them as often as it likes (a
 * polling client rarely polls as often as the recorded one did), and they never move a task.
 */
export const READ_METHODS: ReadonlySet<string> = new Set([
  'GetTask',
  'ListTasks',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'GetExtendedAgentCard',
]);

/** True for a GET of the agent card: answered at once, never waited for. */
export function isCardExchange(ex: PlannedExchange): boolean {
  return ex.request.http.method.toUpperCase() === 'GET' && pathOnly(ex.request.http.path) === AGENT_CARD_PATH;
}

function sentHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) if (!NOT_SENT.has(name)) out[name] = value;
  return out;
}

export class MockScript {
  readonly source: string;
  readonly recording: Recording;
  readonly plan: ReplayPlan;
  /** Recorded ids ↔ the client's ids ("live" is the client's side). */
  ids = new IdMap();
  /** The mock's own URL, for the agent card. */
  url: string;
  readonly #served = new Map<string, ServedExchange>();
  readonly #released = new Set<number>();
  readonly #arrived = new Map<LaneKey, number>();
  #arrivedAny = 0;
  readonly #tasks = new Map<string, MockTaskView>();
  readonly #recordedTasks = new Set<string>();
  readonly #previous = new Map<number, RecordingEntry>();
  readonly #noise: NoiseRules;
  readonly #ignore: readonly string[];
  readonly #ignoreSets = new Map<string | null, IgnoreSet>();

  constructor(source: string, recording: Recording, options: { noise?: NoiseRules; ignore?: readonly string[] } = {}) {
    this.source = source;
    this.recording = recording;
    this.plan = planReplay(recording.entries);
    this.url = recording.header.target.url;
    this.#noise = options.noise ?? {};
    this.#ignore = options.ignore ?? [];
    for (const lane of this.plan.lanes) if (lane.startsWith('task:')) this.#recordedTasks.add(lane.slice(5));
    this.plan.entries.forEach((e, i) => {
      const before = this.plan.entries[i - 1];
      if (before) this.#previous.set(e.seq, before);
    });
  }

  isServed(ex: PlannedExchange): boolean {
    return this.#served.has(ex.xid);
  }

  /** Recorded exchanges the client never requested, in recorded order. */
  unrequested(): PlannedExchange[] {
    return this.plan.exchanges.filter((ex) => !this.#served.has(ex.xid));
  }

  #ignoreFor(method: string | null): IgnoreSet {
    let ignore = this.#ignoreSets.get(method);
    if (!ignore) {
      ignore = IgnoreSet.forMethod(method, this.#noise, [...this.#ignore, ...REQUEST_VOLATILE]);
      this.#ignoreSets.set(method, ignore);
    }
    return ignore;
  }

  /** How `incoming` compares with the recorded request of `ex`. */
  compare(ex: PlannedExchange, incoming: IncomingRequest): RequestComparison {
    return compareRequest(ex.request, incoming, this.ids, this.#ignoreFor(ex.method));
  }

  /**
   * The first field where a JSON-RPC `incoming` differs from the recorded request of `ex` under
   * the ids known so far, without pairing new ones: where {@link compare} matched only by pairing
   * an id the client was never handed with the recorded one (`/params/id`).
   */
  unpairedField(ex: PlannedExchange, incoming: IncomingRequest): string | undefined {
    const recorded = ex.request.body;
    if (recorded === undefined || incoming.body === undefined) return undefined;
    const isRpc = (b: JsonValue): boolean =>
      b !== null && typeof b === 'object' && !Array.isArray(b) && b.jsonrpc === '2.0';
    if (!isRpc(recorded) || !isRpc(incoming.body)) return undefined;
    const mapped = this.ids.toRecorded(incoming.body);
    return contentDifferences(recorded, mapped, this.#ignoreFor(ex.method))[0]?.path;
  }

  /** The client requested `ex` (as `comparison` found): its answers go to the returned queue. */
  serve(ex: PlannedExchange, comparison: RequestComparison, clientId: JsonValue): ServedExchange {
    this.ids = comparison.ids;
    const served: ServedExchange = { exchange: ex, clientId, queue: new OutputQueue(), sent: 0 };
    this.#served.set(ex.xid, served);
    if (!isCardExchange(ex)) {
      const seq = ex.request.seq;
      if (ex.lane !== null) this.#arrived.set(ex.lane, Math.max(this.#arrived.get(ex.lane) ?? 0, seq));
      this.#arrivedAny = Math.max(this.#arrivedAny, seq);
    }
    return served;
  }

  /**
   * Whether serving `ex` now would skip a call the client has not made: a request of its lane,
   * recorded before it, that is not a read ({@link READ_METHODS}) and was not requested. A read
   * must not show the client a state its own calls have not reached (a PAUSED task before its
   * PauseTask).
   */
  skipsCall(ex: PlannedExchange): boolean {
    return this.skippedCall(ex) !== undefined;
  }

  /** The first call {@link skipsCall} finds: recorded before `ex` in its lane, not a read, not requested. */
  skippedCall(ex: PlannedExchange): PlannedExchange | undefined {
    if (ex.lane === null) return undefined;
    for (const other of this.plan.exchanges) {
      if (other.request.seq >= ex.request.seq) return undefined;
      if (other.lane !== ex.lane || this.#served.has(other.xid) || isCardExchange(other)) continue;
      if (other.method === null || !READ_METHODS.has(other.method)) return other;
    }
    return undefined;
  }

  /** Whether every recorded answer of `ex` went out (so it may be shown again). */
  answered(ex: PlannedExchange): boolean {
    const served = this.#served.get(ex.xid);
    return served !== undefined && served.sent === answersOf(ex).length;
  }

  /**
   * The unary answer of `ex`, a read served before, once more under `clientId`: what the client
   * was last shown, for a read it repeats. Undefined for a streamed exchange.
   */
  repeat(ex: PlannedExchange, clientId: JsonValue): OutputQueue | undefined {
    const response = ex.response;
    if (!response || ex.events.length > 0 || (response.body === undefined && response.bodyText === undefined))
      return undefined;
    const body = response.body === undefined ? undefined : this.#outgoing(ex, response.body, clientId);
    const queue = new OutputQueue();
    queue.push({
      kind: 'unary',
      status: response.http.status ?? 200,
      headers: sentHeaders(response.http.headers),
      body,
      text: body === undefined ? (response.bodyText ?? '') : JSON.stringify(body),
      ...(response.grpc !== undefined ? { grpc: response.grpc } : {}),
    });
    return queue;
  }

  /** The client left `served` early: its remaining answers are dropped and block nothing. */
  abandon(served: ServedExchange): void {
    const answers = answersOf(served.exchange);
    for (const e of answers.slice(served.sent)) this.#released.add(e.seq);
    served.sent = answers.length;
  }

  #settled(entry: RecordingEntry, ex: PlannedExchange, lane: LaneKey | null): boolean {
    if (isCardExchange(ex)) return true;
    if (entry.kind === 'request') {
      if (this.#served.has(ex.xid)) return true;
      return lane === null ? this.#arrivedAny > entry.seq : (this.#arrived.get(lane) ?? 0) > entry.seq;
    }
    if (this.#released.has(entry.seq) || !this.#served.has(ex.xid)) return true;
    return entry.kind === 'error' && ex.response !== undefined;
  }

  /** The first recorded answer that may go out now, in recorded order. */
  nextDue(): DueAnswer | undefined {
    const blockedLanes = new Set<LaneKey>();
    let anyBlocked = false;
    for (const entry of this.plan.entries) {
      const ex = this.plan.exchangeOfSeq.get(entry.seq) as PlannedExchange;
      const lane = this.plan.laneOfSeq.get(entry.seq) ?? null;
      const served = this.#served.get(ex.xid);
      if (served && entry.kind !== 'request' && !this.#released.has(entry.seq)) {
        const next = answersOf(ex)[served.sent] === entry;
        const free = isCardExchange(ex) || (lane === null ? !anyBlocked : !blockedLanes.has(lane));
        if (next && free) return { served, entry, previous: this.#previous.get(entry.seq) };
      }
      if (!this.#settled(entry, ex, lane)) {
        anyBlocked = true;
        if (lane !== null) blockedLanes.add(lane);
      }
    }
    return undefined;
  }

  /** Sends `entry` (the next answer of `served`) to the client, in the client's ids. */
  release(served: ServedExchange, entry: RecordingEntry): void {
    this.#released.add(entry.seq);
    served.sent += 1;
    const ex = served.exchange;
    switch (entry.kind) {
      case 'response': {
        const headers = sentHeaders(entry.http.headers);
        const status = entry.http.status ?? 200;
        if (entry.grpc !== undefined) {
          // A gRPC answer: the message, or (an error) the status alone (docs/design.md §16).
          const body = entry.body === undefined ? undefined : this.#outgoing(ex, entry.body, served.clientId);
          const text = body === undefined ? '' : JSON.stringify(body);
          served.queue.push({ kind: 'unary', status, headers: {}, body, text, grpc: this.#grpcOut(entry.grpc) });
          break;
        }
        if (entry.body === undefined && entry.bodyText === undefined) {
          served.queue.push({ kind: 'head', status, headers });
          break;
        }
        const body = entry.body === undefined ? undefined : this.#outgoing(ex, entry.body, served.clientId);
        const text = body === undefined ? (entry.bodyText ?? '') : JSON.stringify(body);
        served.queue.push({ kind: 'unary', status, headers, body, text });
        break;
      }
      case 'event': {
        const data =
          entry.body === undefined
            ? (entry.bodyText ?? '')
            : JSON.stringify(this.#outgoing(ex, entry.body, served.clientId));
        served.queue.push({ kind: 'event', data, ...(entry.sse ?? {}) });
        break;
      }
      case 'end':
        served.queue.push(
          entry.grpc !== undefined ? { kind: 'end', grpc: this.#grpcOut(entry.grpc) } : { kind: 'end' },
        );
        break;
      case 'error':
        if (ex.response === undefined)
          served.queue.push({ kind: 'break', reason: entry.error ?? 'the exchange broke' });
        break;
      case 'request':
        break;
      default: {
        const never: never = entry.kind;
        throw new Error(`unknown entry kind ${String(never)}`);
      }
    }
    this.#observe(entry);
  }

  /** A recorded answer body in the client's ids, under the client's call number; unknown ids pair with themselves. */
  #outgoing(ex: PlannedExchange, body: JsonValue, clientId: JsonValue): JsonValue {
    if (isCardExchange(ex)) {
      return (
        (rewriteAgentCard(body, new URL(this.recording.header.target.url), new URL(this.url), {
          everyUrl: true,
        }) as JsonValue) ?? body
      );
    }
    const mapped = this.ids.toLive(body);
    const recorded = record(body);
    const out = record(mapped);
    if (!recorded || !out) return mapped;
    if (!('jsonrpc' in out)) {
      // HTTP+JSON (design §15): the body is the result itself.
      this.ids.learn(recorded, out);
      return out;
    }
    this.ids.learn(recorded.result, out.result);
    return { ...out, id: clientId };
  }

  /** A recorded gRPC status in the client's ids: its message and details may name a task. */
  #grpcOut(grpc: EntryGrpc): EntryGrpc {
    return this.ids.toLive(grpc as JsonValue) as EntryGrpc;
  }

  /** Keeps what the client has now been shown of a task's state and pause. */
  #observe(entry: RecordingEntry): void {
    if (entry.kind !== 'response' && entry.kind !== 'event') return;
    const taskId = answerTaskId(entry.body);
    // An HTTP+JSON answer is the result itself (design §15): read its shape as the JSON-RPC one's
    // (a gRPC one's shape is read from its message and status, §16).
    const body = record(entry.body);
    const rest = entry.grpc === undefined && body !== undefined && !('jsonrpc' in body) && !('error' in body);
    const shape = shapeOf(rest ? { ...entry, body: { result: body } } : entry);
    if (taskId === undefined || shape.state === null) return;
    // A v0.3 answer names its state in kebab case (`paused`): kept under its v1.0 name.
    const state = stateFromV03(shape.state);
    const paused = state === 'TASK_STATE_PAUSED' || shape.legacy === 'paused';
    this.#tasks.set(taskId, {
      state: paused ? 'TASK_STATE_PAUSED' : state,
      resumeToken: paused ? resumeTokenIn(entry.body) : undefined,
    });
  }

  /** What the client was shown of the task it calls `clientTaskId`, when it is one of this recording's tasks. */
  taskView(clientTaskId: string): MockTaskView | undefined {
    const recorded = this.ids.recordedOf(clientTaskId);
    return this.#recordedTasks.has(recorded) ? this.#tasks.get(recorded) : undefined;
  }

  /** The agent card this recording's peer served, pointing at the mock. */
  agentCard(): JsonValue | undefined {
    let card = this.recording.header.agentCard;
    if (card === undefined) {
      const answered = this.plan.exchanges.find((ex) => isCardExchange(ex) && ex.response?.http.status === 200);
      card = answered?.response?.body;
    }
    if (card === undefined) return undefined;
    return (
      (rewriteAgentCard(card, new URL(this.recording.header.target.url), new URL(this.url), {
        everyUrl: true,
      }) as JsonValue) ?? card
    );
  }
}
