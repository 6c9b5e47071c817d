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
 *   anyway, and so does a create that waited only for other tasks' creation. Nothing hangs.
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
import { A2aReplayError } from '../errors.js';
import { IDLE_CONNECTION_MS } from '../http/keep-alive.js';
import { STREAMING_METHODS } from '../protocol/methods.js';
import type { RecordingEntry } from '../recording/format.js';
import type { EntryDraft } from '../recording/recording-writer.js';
import type { NoiseRules } from './content.js';
import type { ExchangeDrift } from './drift.js';
import { type LaneKey, type PlannedExchange, type ReplayPlan, planReplay } from './lanes.js';
import { ReplayLedger } from './ledger.js';
import { type LiveCall, sendLive } from './live-exchange.js';
import { IdMap } from './substitution.js';
import type { VirtualPeerClock } from '../peer/virtual-peer-clock.js';
import { DriveTime, ReplayTiming, type StepOutcome } from './replay-timing.js';
import { ChangeSignal } from './change-signal.js';
import {
  BodyNotes,
  DriveTotals,
  type SegmentResult,
  type TaskTimeline,
  driftTimelines,
  stateLabel,
} from './drive-report.js';
import { DEFAULT_SEGMENT_ENTRIES, segmentsOf } from './segments.js';
import type { ReplayPace } from './pace.js';
import type { GrpcChannel } from './grpc-exchange.js';

/** Default bound on sockets for unary calls to the peer. */
export const DEFAULT_MAX_SOCKETS = 64;

/** Default deadline of one wait for a live entry. */
export const DEFAULT_WAIT_MS = 5000;

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
  peerClock?: VirtualPeerClock;
  /**
   * Least entries of a segment (default {@link DEFAULT_SEGMENT_ENTRIES}): the drive holds one
   * segment at a time (src/replay/segments.ts), and the next one ahead when it keeps time (`peerClock`, `pace`).
   */
  segmentEntries?: number;
  /** Stops the drive at once: it resolves with what was replayed, `stopped` set. */
  signal?: AbortSignal;
  /** Each segment's replayed entries (recorded order, extras after their predecessor) and its recorded ones. */
  onSegment?: (replayed: readonly RecordingEntry[], recorded: readonly RecordingEntry[]) => void | Promise<void>;
  /**
   * Keep every replayed entry in the result (`--update`, merged sessions); default false but in
   * {@link driveRecording}.
   */
  keepReplayed?: boolean;
  /** The recorded entries in all, for progress, when known. */
  totalEntries?: number;
  /** The seq of the first live entry with no recorded counterpart: above the recording's last. */
  firstExtraSeq?: number;
  /**
   * Given for a live peer (src/replay/live-time.ts): how requests are spaced, and poll loops read
   * again on the wall clock until the peer shows their outcome. Not given: requests go as soon as
   * what they wait for came and no read is repeated (a peer whose state moves only with its clock).
   */
  pace?: ReplayPace;
}

export interface DriveResult {
  /** Recorded exchanges and entries replayed (all of them unless `stopped`). */
  exchanges: number;
  entries: number;
  /**
   * Live entries in the recording's identity, in recorded order (extras after their predecessor),
   * when kept (`keepReplayed`); else empty.
   */
  replayed: RecordingEntry[];
  /** The first {@link DRIFT_LISTED} drifts, in recorded order within each segment. */
  drift: ExchangeDrift[];
  /** Every drift found, listed or not. */
  driftCount: number;
  /** Timelines of the lanes that drifted. */
  timelines: TaskTimeline[];
  ids: IdMap;
  liveEntries: number;
  durationMs: number;
  /** Remarks for the run report: requests sent with a body their method usually lacks, drift not listed. */
  notes: string[];
  /** True when `signal` stopped the drive before its end. */
  stopped: boolean;
}

/** Something the driver does at a recorded position: send a request, or close a broken exchange. */
interface Action {
  type: 'send' | 'close';
  seq: number;
  ex: PlannedExchange;
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

/** Reports how many recorded entries have settled, each time the count moves. */
function progressOf(ledger: ReplayLedger, shared: DriveShared, onProgress: DriveOptions['onProgress']): () => void {
  let settled = 0;
  return () => {
    if (!onProgress) return;
    const total = shared.total;
    // Extra live entries settle too: progress counts recorded entries and never passes its total.
    const n = Math.min(shared.settledBefore + ledger.settledCount, total);
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

/**
 * Waits until `action` is due. False when a deadline passed (drift recorded, awaited entries given
 * up); true then too for a create that waited only for other tasks' creation.
 */
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
    const late = ledger.unsettledBefore(seq, ex.lane);
    // A create that waited only for other tasks' creation goes: its own task lost nothing, and
    // their answers stay awaited in their own lanes (lanes.ts).
    if (late.every((e) => ledger.plan.exchangeOfSeq.get(e.seq)?.created === e)) return true;
    for (const e of late) ledger.abandon(e.seq, `it never came: waited ${timeoutMs} ms before seq ${seq}`);
    return false;
  }
}

/** A2A methods that only read: sent twice, they do what they do once (RFC 9110 §9.2.2). */
const READ_METHODS: ReadonlySet<string> = new Set([
  'GetTask',
  'ListTasks',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'GetExtendedAgentCard',
  'GetClock',
]);

/** Whether `ex` only reads: a GET or HEAD (the agent card), or a unary A2A read. */
function readsOnly(ex: PlannedExchange): boolean {
  const method = ex.request.http.method.toUpperCase();
  if (method === 'GET' || method === 'HEAD') return true;
  return ex.method !== null && READ_METHODS.has(ex.method);
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
    idempotent: readsOnly(ex),
    onEntry,
  });
}

/** What every segment of one drive shares: the peer's connections, the ids learnt, what is said after. */
interface DriveShared {
  options: DriveOptions;
  timeoutMs: number;
  ids: IdMap;
  notes: BodyNotes;
  base: URL;
  unaryAgent: Agent;
  streamAgent: Agent;
  /** Opened by the first segment with a gRPC call. */
  grpc: GrpcChannel | undefined;
  /** Lanes stopped after a timeout: their later requests are not sent, in later segments either. */
  stopped: Set<LaneKey | null>;
  /** The seq the next live entry with no recorded counterpart gets. */
  extraSeqs: { next: number };
  /** Recorded entries settled in the segments before this one. */
  settledBefore: number;
  total: number;
  /** The peer's failure, or the stop, once there is one. */
  infra: A2aReplayError | undefined;
  /** Time across the segments (a virtual peer clock, a pace), set up by the first segment. */
  time: DriveTime | undefined;
}

/** Why a drive stopped on its signal: said by every entry it did not wait for. */
const STOPPED = 'the run was stopped before it came';

/** Replays one segment (src/replay/segments.ts): every entry of it settles before this resolves. */
async function driveSegment(
  plan: ReplayPlan,
  next: ReplayPlan | undefined,
  shared: DriveShared,
): Promise<SegmentResult> {
  const { options, timeoutMs, ids } = shared;
  const ledger = new ReplayLedger(plan, ids, options.noise ?? {}, options.ignore ?? [], shared.extraSeqs);
  const changed = new ChangeSignal(timeoutMs);
  ledger.onSettle = (seq) => changed.settled(seq);
  const calls = new Set<LiveCall>();
  const callsByXid = new Map<string, LiveCall>();
  if (plan.exchanges.some((ex) => ex.request.grpc !== undefined)) {
    // Loaded only for a recording with gRPC calls: grpc-js costs every other run its load time.
    const { checkGrpcPlan, openGrpcChannel } = await import('./grpc-exchange.js');
    if (shared.grpc) checkGrpcPlan(plan, options.grpcPeer);
    else shared.grpc = openGrpcChannel(plan, options.grpcPeer);
  }
  const grpc = shared.grpc;
  const progress = progressOf(ledger, shared, options.onProgress);
  const checkInfra = (): A2aReplayError | undefined => {
    shared.infra ??= options.peerFailure?.() ?? (options.signal?.aborted ? stoppedError() : undefined);
    return shared.infra;
  };
  const onAbort = (): void => {
    checkInfra();
    changed.wakeAll();
  };
  options.signal?.addEventListener('abort', onAbort);

  shared.time ??= new DriveTime({ ...options, clock: options.clock ?? systemClock }, plan.entries[0], timeoutMs);
  const timing = new ReplayTiming(plan, ledger, shared.time, next);
  const { notes, base, unaryAgent, streamAgent } = shared;
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
        shared.infra ??= checkInfra() ?? call.failure;
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
  const loop = { dispatch, infra: () => shared.infra, label: stateLabel, keep: answerSink };

  const runLane = async (lane: LaneKey | null, actions: readonly Action[]): Promise<void> => {
    for (let i = 0; i < actions.length; i++) {
      const action = actions[i] as Action;
      if (shared.stopped.has(lane)) {
        abandonSends(ledger, actions.slice(i), `not sent: lane ${lane ?? 'barrier'} stopped after an earlier timeout`);
        return;
      }
      const ready = await waitFor(action);
      if (shared.infra) return;
      if (!ready && lane !== null) {
        const why = `not sent: lane ${lane} stopped after a timeout before seq ${action.seq}`;
        shared.stopped.add(lane);
        abandonSends(ledger, actions.slice(i), why);
        return;
      }
      const role = timing.role(action.ex);
      // A poll loop's reads go at the clock where it stands: the loop's outcome moves it.
      if (role === undefined || action.type !== 'send')
        await timing.reach(action.type === 'send' ? action.ex.request : (action.ex.terminal ?? action.ex.request));
      if (shared.infra) return;
      if (action.type === 'send' && role?.kind === 'outcome') await timing.readOutcome(action.ex, role, loop);
      else if (action.type === 'send') send(action.ex);
      else closeBroken(action.ex, ledger, callsByXid);
    }
  };

  try {
    await Promise.all([...laneActions(plan)].map(([lane, actions]) => runLane(lane, actions)));
    // Every request is out: wait for the answers still due, the deadline restarting only when a
    // recorded entry settles (a peer that keeps a stream open with heartbeats must not hold the
    // run: its events settle nothing). A virtual peer clock first reaches the recording's end.
    const last = plan.entries.at(-1);
    if (last && !shared.infra && !ledger.complete) await timing.reach(last);
    while (!shared.infra && !ledger.complete) {
      progress();
      const moved = await changed.wait();
      if (checkInfra()) break;
      if (!moved) break;
    }
    progress();
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    changed.stop();
    for (const call of calls) call.abort();
  }
  const failure = checkInfra();
  if (failure && failure.code !== 'STOPPED') throw failure;
  // Stopped: what was not waited for is no drift, and the entries settled are those replayed.
  const settled = failure ? ledger.settledCount : plan.entries.length;
  const why = failure ? STOPPED : `no live entry answered it within ${timeoutMs} ms`;
  for (const e of plan.entries) ledger.abandon(e.seq, why);
  const drift = ledger.finish().filter((d) => d.type !== 'missing' || d.reason !== STOPPED);
  return {
    exchanges: plan.exchanges.length,
    replayed: ledger.replayed(),
    drift,
    timelines: driftTimelines(plan, ledger, drift),
    liveEntries: ledger.liveCount,
    settled,
  };
}

/** The error a drive's stop is carried as until its segment ends (never thrown out of the drive). */
function stoppedError(): A2aReplayError {
  return new A2aReplayError('STOPPED', 'the run was stopped');
}

/**
 * Replays a recording read as a stream (`entries` in ascending seq, as a recording file holds
 * them) against the peer at `options.peerUrl`, one segment at a time (src/replay/segments.ts):
 * what it holds is one segment's entries, not the recording's. Each segment's replayed entries
 * go to `options.onSegment` as it ends. A drive that keeps time (a virtual peer clock, a pace)
 * reads one segment ahead, since a poll loop may go on across a cut (src/replay/poll-loops.ts).
 * With `options.signal` aborted, the drive stops at once and resolves with what it replayed
 * (`stopped`); entries it did not wait for are `missing`.
 */
export async function driveRecordingStream(
  entries: AsyncIterable<RecordingEntry> | Iterable<RecordingEntry>,
  options: DriveOptions,
): Promise<DriveResult> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
  // Unary calls share a bounded pool (a corpus of thousands of lanes must not open thousands of
  // sockets at once); streams stay open for long, so they get their own unbounded one.
  // Idle ones close before the peer would (src/http/keep-alive.ts).
  const shared: DriveShared = {
    options,
    timeoutMs,
    ids: new IdMap(),
    notes: new BodyNotes(),
    base: new URL(options.peerUrl),
    unaryAgent: new Agent({
      keepAlive: true,
      timeout: IDLE_CONNECTION_MS,
      maxSockets: options.maxSockets ?? DEFAULT_MAX_SOCKETS,
    }),
    streamAgent: new Agent({ keepAlive: false }),
    grpc: undefined,
    stopped: new Set(),
    extraSeqs: { next: options.firstExtraSeq ?? UNNUMBERED_EXTRAS },
    settledBefore: 0,
    total: options.totalEntries ?? 0,
    infra: undefined,
    time: undefined,
  };
  const totals = new DriveTotals();
  // A replay that keeps time (a virtual peer clock, a paced live peer) reads poll loops, which go
  // on across a cut: it reads the next segment before it drives one, to know which loops do.
  const timed = options.peerClock !== undefined || options.pace !== undefined;
  const window = options.segmentEntries ?? DEFAULT_SEGMENT_ENTRIES;
  const keepReplayed = options.keepReplayed ?? false;
  const drive = async (segment: Planned, next: Planned | undefined): Promise<void> => {
    if (options.totalEntries === undefined) shared.total = shared.settledBefore + segment.entries.length;
    const result = await driveSegment(segment.plan, next?.plan, shared);
    totals.add(result, keepReplayed);
    await options.onSegment?.(result.replayed, segment.entries);
    shared.settledBefore += result.settled;
  };
  try {
    let held: Planned | undefined;
    for await (const segment of segmentsOf(entries, window)) {
      if (shared.infra) break;
      const planned = { entries: segment, plan: planReplay(segment) };
      if (!timed) await drive(planned, undefined);
      else if (held) await drive(held, planned);
      held = timed ? planned : undefined;
    }
    if (held && !shared.infra) await drive(held, undefined);
  } finally {
    shared.unaryAgent.destroy();
    shared.streamAgent.destroy();
    shared.grpc?.close();
  }
  const notes = shared.notes.list();
  if (totals.driftUnlisted > 0) notes.push(`${totals.driftUnlisted} more drifts found and not listed`);
  return {
    exchanges: totals.exchanges,
    entries: totals.entries,
    replayed: totals.replayed,
    drift: totals.drift,
    driftCount: totals.drift.length + totals.driftUnlisted,
    timelines: totals.timelines,
    ids: shared.ids,
    liveEntries: totals.liveEntries,
    durationMs: clock.now() - started,
    notes,
    stopped: shared.infra?.code === 'STOPPED',
  };
}

/** A segment's entries and its plan. */
interface Planned {
  entries: RecordingEntry[];
  plan: ReplayPlan;
}

/** Where live entries with no recorded counterpart are numbered when the recording's length is not known. */
const UNNUMBERED_EXTRAS = 1_000_000_000_000;

/**
 * Replays `entries` (a recording's, in any order) against the peer at `options.peerUrl`: as
 * {@link driveRecordingStream}, the replayed entries kept in the result unless `keepReplayed` is false.
 */
export async function driveRecording(entries: readonly RecordingEntry[], options: DriveOptions): Promise<DriveResult> {
  const sorted = [...entries].sort((a, b) => a.seq - b.seq);
  const firstExtraSeq = options.firstExtraSeq ?? (sorted.at(-1)?.seq ?? 0) + 1;
  return driveRecordingStream(sorted, {
    keepReplayed: true,
    totalEntries: sorted.length,
    ...options,
    firstExtraSeq,
  });
}
