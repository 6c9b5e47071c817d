/**
 * @module replay/driver
 * Re-drives a live peer from one recording (docs/design.md §8) and returns the replayed entries (in the
 * recording's identity, ready for the PauseObserver) plus exchange drift.
 *
 * - One loop per lane (a task) and one for global barriers, all concurrent; each sends its
 *   recorded requests in order, each only when the ledger says every entry it depends on came
 *   (see `lanes.ts` for the rule). Outgoing bodies carry live ids (`IdMap.toLive`).
 * - A stream the recording shows broken (`error`, e.g. the client hung up) is closed by the driver
 *   at that point, when every entry recorded before the break came: the live exchange then ends
 *   with the recorded error, as the client's action is part of the recording. A live break that
 *   comes first is kept as is.
 * - A wait has a deadline (`timeoutMs`, restarted whenever the awaited entry changes, so a slow
 *   but moving peer is not drift). When it passes, the wait becomes a `timeout` drift, the entries
 *   awaited are given up, and the lane stops: its later requests are not sent. A barrier sends
 *   anyway. Nothing hangs.
 * - When every request was sent, the driver waits (same deadline) for the answers still due,
 *   then closes what is still open (streams the recording left open).
 * - A recorded body is sent as recorded, framed by `Content-Length`, whatever the method; one
 *   sent with a method that usually carries none (a GET with a body) gets a note in the result,
 *   since a peer may read or refuse such a body where the recorded one did not.
 * - A peer that cannot be reached, or that `peerFailure()` reports dead, ends the replay with an
 *   infrastructure error (A2aReplayError PEER_UNREACHABLE / PEER_CRASHED), never drift.
 */
import { Agent } from 'node:http';
import type { JsonValue } from '../canonical/canonical-json.js';
import { type Clock, systemClock } from '../clock.js';
import type { A2aReplayError } from '../errors.js';
import { IDLE_CONNECTION_MS } from '../http/keep-alive.js';
import { STREAMING_METHODS } from '../protocol/methods.js';
import type { RecordingEntry } from '../recording/format.js';
import type { EntryDraft } from '../recording/recording-writer.js';
import type { NoiseRules } from './content.js';
import { type ExchangeDrift, driftLane, shapeOf } from './drift.js';
import { type LaneKey, type PlannedExchange, type ReplayPlan, planReplay } from './lanes.js';
import { ReplayLedger } from './ledger.js';
import { type LiveCall, bodyOfBodilessMethod, sendLive } from './live-exchange.js';
import { IdMap } from './substitution.js';
import type { ReplayPeerClock } from './poll-loops.js';
import { ReplayTiming, type StepOutcome } from './replay-timing.js';
import type { ReplayPace } from './pace.js';
import type { GrpcChannel } from './grpc-exchange.js';

/** Default bound on sockets for unary calls to the peer. */
export const DEFAULT_MAX_SOCKETS = 64;

/** Default deadline of one wait for a live entry. */
export const DEFAULT_WAIT_MS = 5000;

/** Requests with a body their method usually lacks that are named one by one in the notes. */
const BODY_NOTES_LISTED = 20;

export interface DriveOptions {
  /** Base URL of the live peer. */
  peerUrl: string;
  /** Deadline of one wait, ms (default {@link DEFAULT_WAIT_MS}). */
  timeoutMs?: number;
  /** For `durationMs` only. */
  clock?: Clock;
  /** Sockets for unary calls (default {@link DEFAULT_MAX_SOCKETS}); streams are not bounded. */
  maxSockets?: number;
  /** Called as entries settle: `(settled, total)`. */
  onProgress?: (settled: number, total: number) => void;
  /** Returns an error once the peer process died (checked while waiting and at the end). */
  peerFailure?: () => A2aReplayError | undefined;
  /** Paths never compared, per method (`a2a-replay.config.json`). */
  noise?: NoiseRules;
  /** Paths never compared for any method (`--ignore`). */
  ignore?: readonly string[];
  /**
   * The live peer's gRPC endpoint (`HOST:PORT`) for the recorded gRPC calls; a recording that
   * holds one and no endpoint is refused before anything is sent.
   */
  grpcPeer?: string;
  /**
   * The live peer's virtual clock: given for the embedded peer replaying a session of a real-time
   * reference peer, which then runs on the recording's clock (src/replay/poll-loops.ts).
   */
  peerClock?: ReplayPeerClock;
  /**
   * Given for a live peer (src/replay/live-time.ts): how requests are spaced, and poll loops read
   * again on the wall clock until the peer shows their outcome. Not given: requests go as soon as
   * what they wait for came and no read is repeated (a peer whose state moves only with its clock).
   */
  pace?: ReplayPace;
}

/** A task's states in order, recorded and live, for reports. */
export interface TaskTimeline {
  lane: string;
  expected: string[];
  actual: string[];
}

export interface DriveResult {
  plan: ReplayPlan;
  /** Live entries in the recording's identity, in recorded order (extras after their predecessor). */
  replayed: RecordingEntry[];
  drift: ExchangeDrift[];
  /** Timelines of the lanes that drifted. */
  timelines: TaskTimeline[];
  ids: IdMap;
  liveEntries: number;
  durationMs: number;
  /** Remarks for the run report: requests sent with a body their method usually lacks. */
  notes: string[];
}

/** Something the driver does at a recorded position: send a request, or close a broken exchange. */
interface Action {
  type: 'send' | 'close';
  seq: number;
  ex: PlannedExchange;
}

/** How many slices a wait's deadline is cut into: a wait ends between 1 and 1 + 1/8 deadlines. */
const DEADLINE_SLICES = 8;

interface Waiter {
  resolve: (moved: boolean) => void;
  seq: number | undefined;
  /** The sweep after which the deadline has passed. */
  expiresAt: number;
  done: boolean;
}

/**
 * Wakes waiters: per awaited recorded seq (woken when that entry settles), or on any change.
 * Deadlines cost no timer per wait: one sweep timer, running while anybody waits, ticks every
 * 1/{@link DEADLINE_SLICES} of the deadline and ends the waits whose deadline has passed (they
 * began in order and all last the same, so they end in order).
 */
class ChangeSignal {
  readonly #bySeq = new Map<number, Waiter[]>();
  #any: Waiter[] = [];
  readonly #sliceMs: number;
  /** Waits in the order they began, so in deadline order; settled ones are dropped as the sweep passes. */
  #queue: Waiter[] = [];
  #head = 0;
  #sweeps = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number) {
    this.#sliceMs = Math.max(1, timeoutMs / DEADLINE_SLICES);
  }

  /** A recorded entry settled: wake who waits for it, and who waits for any progress. */
  settled(seq: number): void {
    const waiters = this.#bySeq.get(seq);
    if (waiters) {
      this.#bySeq.delete(seq);
      for (const w of waiters) this.#wake(w, true);
    }
    // Called several times per exchange; nobody waits for "any" until the last requests are out.
    if (this.#any.length === 0) return;
    const any = this.#any;
    this.#any = [];
    for (const w of any) this.#wake(w, true);
  }

  /** Wakes every waiter (the replay is ending). */
  wakeAll(): void {
    const all = [...this.#bySeq.values()].flat();
    this.#bySeq.clear();
    const any = this.#any;
    this.#any = [];
    for (const w of [...all, ...any]) this.#wake(w, true);
  }

  /**
   * True when `seq` settled (with no seq: when any recorded entry settled); false when the
   * deadline passed first. Live entries that settle nothing (extra events) wake nobody, so they
   * cannot hold a replay open.
   */
  wait(seq?: number): Promise<boolean> {
    return new Promise((resolve) => {
      // Begun between two sweeps: one more slice, so the wait lasts at least the whole deadline.
      const waiter: Waiter = { resolve, seq, expiresAt: this.#sweeps + DEADLINE_SLICES + 1, done: false };
      if (seq === undefined) this.#any.push(waiter);
      else {
        const list = this.#bySeq.get(seq);
        if (list) list.push(waiter);
        else this.#bySeq.set(seq, [waiter]);
      }
      this.#queue.push(waiter);
      this.#timer ??= setInterval(() => this.#sweep(), this.#sliceMs);
    });
  }

  /** Stops the sweep timer (the replay is over). */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #wake(waiter: Waiter, moved: boolean): void {
    if (waiter.done) return;
    waiter.done = true;
    waiter.resolve(moved);
  }

  #sweep(): void {
    this.#sweeps += 1;
    const expired: Waiter[] = [];
    while (this.#head < this.#queue.length) {
      const w = this.#queue[this.#head] as Waiter;
      if (!w.done && w.expiresAt > this.#sweeps) break;
      if (!w.done) expired.push(w);
      this.#head += 1;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    if (expired.length > 0) {
      const gone = new Set(expired);
      this.#any = this.#any.filter((w) => !gone.has(w));
      for (const seq of new Set(expired.map((w) => w.seq))) {
        if (seq === undefined) continue;
        const list = (this.#bySeq.get(seq) ?? []).filter((w) => !gone.has(w));
        if (list.length > 0) this.#bySeq.set(seq, list);
        else this.#bySeq.delete(seq);
      }
      for (const w of expired) this.#wake(w, false);
    }
    if (this.#head >= this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
      this.stop();
    }
  }
}

function stateLabel(entry: RecordingEntry): string | undefined {
  const shape = shapeOf(entry);
  if (shape.outcome === 'error') return `error ${shape.errorCode ?? '?'}`;
  if (shape.state === null) return undefined;
  const state = shape.state.replace(/^TASK_STATE_/, '');
  return shape.legacy ? `${state}(legacy ${shape.legacy})` : state;
}

function timeline(entries: readonly RecordingEntry[]): string[] {
  const out: string[] = [];
  for (const e of entries) {
    const label = stateLabel(e);
    if (label !== undefined && out.at(-1) !== label) out.push(label);
  }
  return out;
}

/**
 * Notes on requests sent with a body their method usually lacks, the first
 * {@link BODY_NOTES_LISTED} of them listed, the rest counted.
 */
class BodyNotes {
  readonly #notes: string[] = [];
  #unlisted = 0;

  note(request: RecordingEntry, body: string | undefined): void {
    const bytes = bodyOfBodilessMethod(request.http.method, body);
    if (bytes === undefined) return;
    if (this.#notes.length >= BODY_NOTES_LISTED) {
      this.#unlisted += 1;
      return;
    }
    this.#notes.push(
      `seq ${request.seq}: ${request.http.method} ${request.http.path} was recorded with a ${bytes}-byte body; ` +
        'sent as recorded, framed by Content-Length',
    );
  }

  list(): string[] {
    const notes = [...this.#notes];
    if (this.#unlisted > 0) {
      notes.push(`${this.#unlisted} more requests with a body their method usually lacks were sent the same way`);
    }
    return notes;
  }
}

/** Each lane's actions in recorded order: a send per exchange, a close where the recording shows it broken. */
function laneActions(plan: ReplayPlan): Map<LaneKey | null, Action[]> {
  const loops = new Map<LaneKey | null, Action[]>();
  const add = (action: Action): void => {
    const list = loops.get(action.ex.lane) ?? [];
    list.push(action);
    loops.set(action.ex.lane, list);
  };
  for (const ex of plan.exchanges) {
    add({ type: 'send', seq: ex.request.seq, ex });
    if (clientClosed(ex)) add({ type: 'close', seq: (ex.terminal as RecordingEntry).seq, ex });
  }
  for (const list of loops.values()) list.sort((a, b) => a.seq - b.seq);
  return loops;
}

/** The recorded and live state timelines of each lane that drifted. */
function driftTimelines(plan: ReplayPlan, ledger: ReplayLedger, drift: readonly ExchangeDrift[]): TaskTimeline[] {
  const drifted = new Set(drift.map(driftLane));
  const timelines: TaskTimeline[] = [];
  for (const lane of plan.lanes) {
    if (!drifted.has(lane)) continue;
    const recorded = plan.entries.filter((e) => plan.laneOfSeq.get(e.seq) === lane);
    timelines.push({ lane, expected: timeline(recorded), actual: timeline(ledger.replayedOf(lane)) });
  }
  return timelines;
}

/** Reports how many recorded entries have settled, each time the count moves. */
function progressOf(ledger: ReplayLedger, total: number, onProgress: DriveOptions['onProgress']): () => void {
  let settled = 0;
  return () => {
    if (!onProgress) return;
    // Extra live entries settle too: progress counts recorded entries and never passes its total.
    const n = Math.min(ledger.settledCount, total);
    if (n !== settled) {
      settled = n;
      onProgress(n, total);
    }
  };
}

/**
 * Whether the recording shows the client ending `ex` itself: a stream broken after its head (the
 * client hung up), or a gRPC call the client cancelled (`grpc.cancelled`, docs/design.md §16).
 */
function clientClosed(ex: PlannedExchange): boolean {
  const terminal = ex.terminal;
  if (terminal === undefined) return false;
  if (terminal.grpc?.cancelled === true) return true;
  return terminal.kind === 'error' && ex.response !== undefined;
}

/** Closes a live exchange where the recording shows it broken or cancelled by the client. */
function closeBroken(ex: PlannedExchange, ledger: ReplayLedger, callsByXid: ReadonlyMap<string, LiveCall>): void {
  if (ledger.ended(ex) || !ex.terminal) return;
  const call = callsByXid.get(ex.xid);
  call?.abort();
  const http = { method: ex.request.http.method, path: ex.request.http.path };
  if (ex.terminal.grpc?.cancelled === true) {
    // The client's cancel is part of the session: the live call ends where and as it did.
    ledger.live(ex, { kind: 'end', http, grpc: { cancelled: true } });
    return;
  }
  const error = ex.terminal.error ?? 'the exchange broke';
  ledger.live(ex, { kind: 'error', http, error });
}

/** Gives up every entry of the exchanges `actions` would have sent, saying why. */
function abandonSends(ledger: ReplayLedger, actions: readonly Action[], why: string): void {
  for (const rest of actions) {
    if (rest.type !== 'send') continue;
    const ex = rest.ex;
    for (const e of [ex.request, ex.response, ...ex.events, ex.terminal]) if (e) ledger.abandon(e.seq, why);
  }
}

/** Hands each live answer entry of `ex` to the ledger, under the recorded request's method and path. */
function answerSink(ex: PlannedExchange, ledger: ReplayLedger): (draft: EntryDraft) => void {
  return (draft) => {
    const answer = { ...draft, http: { ...draft.http, method: ex.request.http.method, path: ex.request.http.path } };
    ledger.live(ex, answer as Parameters<ReplayLedger['live']>[1]);
  };
}

/** What waiting for an action needs of the drive. */
interface WaitContext {
  ledger: ReplayLedger;
  changed: ChangeSignal;
  timeoutMs: number;
  /** The peer's failure, once there is one. */
  checkInfra: () => A2aReplayError | undefined;
  progress: () => void;
  /** Moves a virtual peer clock to where it stands for an awaited entry (nothing for a live peer). */
  reach: (entry: RecordingEntry) => Promise<void>;
  /** Steps a virtual peer clock for an answer still awaited (src/replay/replay-timing.ts). */
  step: (entry: RecordingEntry) => Promise<StepOutcome>;
}

/** Waits until `action` is due. False when a deadline passed (drift recorded, awaited entries given up). */
async function waitForAction(action: Action, context: WaitContext): Promise<boolean> {
  const { ledger, changed, timeoutMs, checkInfra, progress, reach, step } = context;
  const { seq, ex } = action;
  let awaited: number | undefined;
  for (;;) {
    if (checkInfra()) return false;
    const blocker = ledger.blockerAt(seq, ex.lane);
    if (!blocker) return true;
    if (blocker.seq !== awaited) {
      awaited = blocker.seq;
      // On a virtual clock, what the recording shows came by an instant comes once it is reached.
      await reach(blocker);
      continue;
    }
    progress();
    const stepped = await step(blocker);
    // Stepping awaited: what it waited for may have come meanwhile.
    if (stepped === 'moved' || ledger.blockerAt(seq, ex.lane) !== blocker) continue;
    const moved = await changed.wait(stepped === 'wait' ? undefined : blocker.seq);
    if (moved) continue;
    if (checkInfra()) return false;
    const still = ledger.blockerAt(seq, ex.lane);
    if (!still) return true;
    if (still.seq !== awaited) continue;
    ledger.timedOut(action.type === 'send' ? ex.request : (ex.terminal ?? ex.request), still, timeoutMs);
    for (const e of ledger.unsettledBefore(seq, ex.lane)) {
      ledger.abandon(e.seq, `it never came: waited ${timeoutMs} ms before seq ${seq}`);
    }
    return false;
  }
}

/** What starting a live call needs of the drive. */
interface CallContext {
  ids: IdMap;
  grpc: GrpcChannel | undefined;
  notes: BodyNotes;
  timing: ReplayTiming;
  base: URL;
  unaryAgent: Agent;
  streamAgent: Agent;
}

/** Starts `ex`'s live call (gRPC or HTTP), its answer entries to `onEntry`; `sent` runs just before it goes. */
function startCall(
  ex: PlannedExchange,
  onEntry: (draft: EntryDraft) => void,
  sent: () => void,
  c: CallContext,
): LiveCall {
  const body: JsonValue | undefined = ex.request.body === undefined ? undefined : c.ids.toLive(ex.request.body);
  if (c.grpc && ex.request.grpc !== undefined) {
    sent();
    return c.grpc.send(ex.request, body, onEntry);
  }
  const text = body !== undefined ? JSON.stringify(body) : ex.request.bodyText;
  c.notes.note(ex.request, text);
  sent();
  c.timing.sent();
  return sendLive({
    base: c.base,
    request: ex.request,
    path: c.ids.targetToLive(ex.request.http.path),
    body: text,
    agent: ex.method !== null && STREAMING_METHODS.has(ex.method) ? c.streamAgent : c.unaryAgent,
    onEntry,
  });
}

/** Replays `entries` (a recording's, in any order) against the peer at `options.peerUrl`. */
export async function driveRecording(entries: readonly RecordingEntry[], options: DriveOptions): Promise<DriveResult> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
  const plan = planReplay(entries);
  const ids = new IdMap();
  const ledger = new ReplayLedger(plan, ids, options.noise ?? {}, options.ignore ?? []);
  const changed = new ChangeSignal(timeoutMs);
  ledger.onSettle = (seq) => changed.settled(seq);
  const base = new URL(options.peerUrl);
  // Unary calls share a bounded pool (a corpus of thousands of lanes must not open thousands of
  // sockets at once); streams stay open for long, so they get their own unbounded one.
  // Idle ones close before the peer would (src/http/keep-alive.ts).
  const unaryAgent = new Agent({
    keepAlive: true,
    timeout: IDLE_CONNECTION_MS,
    maxSockets: options.maxSockets ?? DEFAULT_MAX_SOCKETS,
  });
  const streamAgent = new Agent({ keepAlive: false });
  const calls = new Set<LiveCall>();
  const callsByXid = new Map<string, LiveCall>();
  let infra: A2aReplayError | undefined;
  const notes = new BodyNotes();
  // Loaded only for a recording with gRPC calls: grpc-js costs every other run its load time.
  const grpc: GrpcChannel | undefined = plan.exchanges.some((ex) => ex.request.grpc !== undefined)
    ? (await import('./grpc-exchange.js')).openGrpcChannel(plan, options.grpcPeer)
    : undefined;

  const progress = progressOf(ledger, plan.entries.length, options.onProgress);
  const checkInfra = (): A2aReplayError | undefined => {
    infra ??= options.peerFailure?.();
    return infra;
  };

  const timing = new ReplayTiming(plan, ledger, { ...options, clock }, timeoutMs);
  const callContext: CallContext = { ids, grpc, notes, timing, base, unaryAgent, streamAgent };
  /** Sends `ex`'s request, its answer entries to `onEntry`; `sent` runs just before it goes. */
  const dispatch = (ex: PlannedExchange, onEntry: (draft: EntryDraft) => void, sent: () => void): LiveCall => {
    const call = startCall(ex, onEntry, sent, callContext);
    calls.add(call);
    callsByXid.set(ex.xid, call);
    const http = !grpc || ex.request.grpc === undefined;
    void call.done.then(() => {
      if (http) timing.read();
      calls.delete(call);
      callsByXid.delete(ex.xid);
      if (call.failure) {
        infra ??= checkInfra() ?? call.failure;
        changed.wakeAll();
      }
    });
    return call;
  };
  const send = (ex: PlannedExchange): void => {
    dispatch(ex, answerSink(ex, ledger), () => ledger.sent(ex));
  };
  const [reach, step] = [(e: RecordingEntry) => timing.reachAwaited(e), (e: RecordingEntry) => timing.step(e)];
  const waitFor = (action: Action): Promise<boolean> =>
    waitForAction(action, { ledger, changed, timeoutMs, checkInfra, progress, reach, step });
  const loop = { dispatch, infra: () => infra, label: stateLabel, keep: answerSink };

  const runLane = async (actions: readonly Action[], isBarrierLoop: boolean): Promise<void> => {
    for (let i = 0; i < actions.length; i++) {
      const action = actions[i] as Action;
      const ready = await waitFor(action);
      if (infra) return;
      if (!ready && !isBarrierLoop) {
        const why = `not sent: lane ${action.ex.lane ?? 'barrier'} stopped after a timeout before seq ${action.seq}`;
        abandonSends(ledger, actions.slice(i), why);
        return;
      }
      const role = timing.role(action.ex);
      // A poll loop's reads go at the clock where it stands: the loop's outcome moves it.
      if (role === undefined || action.type !== 'send')
        await timing.reach(action.type === 'send' ? action.ex.request : (action.ex.terminal ?? action.ex.request));
      if (infra) return;
      if (action.type === 'send' && role?.kind === 'outcome') await timing.readOutcome(action.ex, role, loop);
      else if (action.type === 'send') send(action.ex);
      else closeBroken(action.ex, ledger, callsByXid);
    }
  };

  const loops = laneActions(plan);
  try {
    await Promise.all([...loops].map(([lane, exchanges]) => runLane(exchanges, lane === null)));
    // Every request is out: wait for the answers still due, the deadline restarting only when a
    // recorded entry settles (a peer that keeps a stream open with heartbeats must not hold the
    // run: its events settle nothing). A virtual peer clock first reaches the recording's end.
    const last = plan.entries.at(-1);
    if (last && !infra && !ledger.complete) await timing.reach(last);
    while (!infra && !ledger.complete) {
      progress();
      const moved = await changed.wait();
      if (checkInfra()) break;
      if (!moved) break;
    }
    progress();
  } finally {
    changed.stop();
    for (const call of calls) call.abort();
    unaryAgent.destroy();
    streamAgent.destroy();
    grpc?.close();
  }
  const failure = checkInfra();
  if (failure) throw failure;
  for (const e of plan.entries) ledger.abandon(e.seq, `no live entry answered it within ${timeoutMs} ms`);
  const drift = ledger.finish();
  const replayed = ledger.replayed();
  return {
    plan,
    replayed,
    drift,
    timelines: driftTimelines(plan, ledger, drift),
    ids,
    liveEntries: ledger.liveCount,
    durationMs: clock.now() - started,
    notes: notes.list(),
  };
}
