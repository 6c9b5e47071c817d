/**
 * @module replay/lanes
 * Plans a replay (docs/design.md §8): groups a recording's entries into exchanges and assigns each
 * exchange to a lane. Pure: entries in, plan out.
 *
 * - A lane per task, keyed `task:<recorded task id>`. A request names its task in
 *   `params.taskId` (pause methods), `params.id` (GetTask, CancelTask, SubscribeToTask) or
 *   `params.message.taskId` (a follow-up message); over HTTP+JSON the path names it, read into the
 *   same params (observe/call-view).
 * - SendMessage / SendStreamingMessage without a task id start a lane: the task is minted by the
 *   answer, so the lane is keyed by the first task id in that exchange's response or events
 *   (`xid:<xid>` when the answer names no task, e.g. a message-only reply).
 * - Everything else is a global barrier (lane `null`): control calls on `/control`, agent-card
 *   GETs, ListTasks, unknown methods and non-JSON requests, because they observe or move state
 *   shared by all tasks.
 *
 * The ordering rule the driver applies to a plan: before sending recorded request R (seq s), every
 * entry with seq < s of R's lane and of every barrier exchange must be matched live; before a
 * barrier, every entry with seq < s. Requests count as matched once sent. A request that creates a
 * task also waits for the answer that named each task created before it, when that answer has
 * seq < s (the recording shows the task existed before R went): a peer lists and numbers tasks in
 * the order it made them, and lanes would otherwise make them at once. Creates the recording shows
 * overlapping stay concurrent.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { A2aReplayError } from '../errors.js';
import { readTarget } from '../http/request-target.js';
import { readRequest } from '../observe/call-view.js';
import { CONTROL_PATH } from '../protocol/methods.js';
import type { RecordingEntry } from '../recording/format.js';

/** `task:<id>` or `xid:<xid>`; `null` marks a global barrier. */
export type LaneKey = string;

export interface PlannedExchange {
  xid: string;
  request: RecordingEntry;
  /** The JSON-RPC method, or null for non-JSON-RPC requests (agent card GET, raw bodies). */
  method: string | null;
  lane: LaneKey | null;
  /** The unary answer or the SSE response head. */
  response: RecordingEntry | undefined;
  /** SSE events in recorded order. */
  events: RecordingEntry[];
  /** `end` or `error`, when the exchange finished within the recording. */
  terminal: RecordingEntry | undefined;
  /**
   * For a request that created a task (it names none; its answer names the one the peer minted):
   * the first answer entry naming that task, the unary response or a stream's first such event.
   * Not an SSE response head: it names nothing, and a peer may send it before it made the task.
   */
  created: RecordingEntry | undefined;
}

export interface ReplayPlan {
  /** Exchanges in the order their requests were recorded. */
  exchanges: PlannedExchange[];
  /** All entries, ascending seq. */
  entries: RecordingEntry[];
  /** Lane of every entry, by seq (null = barrier). */
  laneOfSeq: Map<number, LaneKey | null>;
  /** Exchange of every entry, by seq. */
  exchangeOfSeq: Map<number, PlannedExchange>;
  lanes: LaneKey[];
}

const LANE_STARTERS: ReadonlySet<string> = new Set(['SendMessage', 'SendStreamingMessage']);

function record(value: JsonValue | undefined): { [key: string]: JsonValue } | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

function str(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The method and params of a request entry, read by the observer's call view in its binding (§15, §16). */
function callOf(request: RecordingEntry): { method: string; params: JsonValue | undefined } | undefined {
  const view = readRequest(request);
  return view.kind === 'call' ? { method: view.method, params: view.params as JsonValue } : undefined;
}

/** The A2A method of a request entry in any binding (docs/design.md §15, §16), or null. */
export function methodOf(request: RecordingEntry): string | null {
  return callOf(request)?.method ?? null;
}

/** The recorded task a request addresses, if it names one (in its params or, HTTP+JSON, its path). */
export function requestTaskId(request: RecordingEntry): string | undefined {
  return taskIdOf(callOf(request));
}

/** The task a call's params name. */
function taskIdOf(call: ReturnType<typeof callOf>): string | undefined {
  const params = record(call?.params);
  if (!params) return undefined;
  return str(params.taskId) ?? str(params.id) ?? str(record(params.message)?.taskId);
}

/**
 * The first task id an answer body names (`result.task.id`, `result.statusUpdate.taskId`, ...; an
 * HTTP+JSON body is the result itself).
 */
export function answerTaskId(body: JsonValue | undefined): string | undefined {
  const envelope = record(body);
  const result = envelope && 'jsonrpc' in envelope ? record(envelope.result) : envelope;
  if (!result) return undefined;
  const task = record(result.task);
  if (task) return str(task.id);
  return (
    str(record(result.statusUpdate)?.taskId) ??
    str(record(result.artifactUpdate)?.taskId) ??
    str(record(result.message)?.taskId) ??
    str(result.taskId) ??
    (record(result.status) ? str(result.id) : undefined)
  );
}

/** True for requests that are global barriers: control, agent card, anything not tied to one task. */
function isBarrier(request: RecordingEntry, method: string | null, named: string | undefined): boolean {
  if (readTarget(request.http.path).path === CONTROL_PATH) return true;
  if (method === null) return true;
  return !LANE_STARTERS.has(method) && named === undefined;
}

/**
 * Groups entries into exchanges and lanes. Throws RECORDING_MALFORMED (naming the entry's seq) for
 * an answer without an earlier request, a second request for one exchange, or an unknown kind order
 * that cannot be replayed (a second response, anything after the terminal entry).
 */
export function planReplay(entries: readonly RecordingEntry[]): ReplayPlan {
  const sorted = [...entries].sort((a, b) => a.seq - b.seq);
  const byXid = new Map<string, PlannedExchange>();
  const exchanges: PlannedExchange[] = [];
  /** The task each request names: its call is read once, for its method and this. */
  const named = new Map<PlannedExchange, string | undefined>();
  const malformed = (entry: RecordingEntry, why: string): never => {
    throw new A2aReplayError('RECORDING_MALFORMED', `entry seq ${entry.seq} (xid ${entry.xid}): ${why}`);
  };
  for (const entry of sorted) {
    const ex = byXid.get(entry.xid);
    if (entry.kind === 'request') {
      if (ex) malformed(entry, `a second request for exchange ${entry.xid} (first at seq ${ex.request.seq})`);
      const call = callOf(entry);
      const planned: PlannedExchange = {
        xid: entry.xid,
        request: entry,
        method: call?.method ?? null,
        lane: null,
        response: undefined,
        events: [],
        terminal: undefined,
        created: undefined,
      };
      byXid.set(entry.xid, planned);
      exchanges.push(planned);
      named.set(planned, taskIdOf(call));
      continue;
    }
    if (!ex) return malformed(entry, `a ${entry.kind} with no earlier request`);
    if (ex.terminal) malformed(entry, `a ${entry.kind} after the exchange ended at seq ${ex.terminal.seq}`);
    switch (entry.kind) {
      case 'response':
        if (ex.response) malformed(entry, `a second response (first at seq ${ex.response.seq})`);
        ex.response = entry;
        break;
      case 'event':
        ex.events.push(entry);
        break;
      case 'end':
      case 'error':
        ex.terminal = entry;
        break;
      default: {
        const never: never = entry.kind;
        malformed(entry, `unknown kind ${String(never)}`);
      }
    }
  }

  const laneOfSeq = new Map<number, LaneKey | null>();
  const exchangeOfSeq = new Map<number, PlannedExchange>();
  const lanes = new Set<LaneKey>();
  for (const ex of exchanges) {
    const task = named.get(ex);
    if (!isBarrier(ex.request, ex.method, task)) {
      if (task !== undefined) ex.lane = `task:${task}`;
      else {
        const answers = [ex.response, ...ex.events].filter((e): e is RecordingEntry => e !== undefined);
        ex.created = answers.find((e) => answerTaskId(e.body) !== undefined);
        const minted = ex.created && answerTaskId(ex.created.body);
        ex.lane = minted !== undefined ? `task:${minted}` : `xid:${ex.xid}`;
      }
      lanes.add(ex.lane);
    }
    for (const e of [ex.request, ex.response, ...ex.events, ex.terminal]) {
      if (!e) continue;
      laneOfSeq.set(e.seq, ex.lane);
      exchangeOfSeq.set(e.seq, ex);
    }
  }
  return { exchanges, entries: sorted, laneOfSeq, exchangeOfSeq, lanes: [...lanes] };
}
