/**
 * @module replay/poll-loops
 * Time in a replay on a virtual peer clock (docs/design.md §8, "Real-time sessions"): poll loops
 * and where the clock stands for each request.
 *
 * A **poll loop** is a run of consecutive GetTask reads of one task with nothing else of that task
 * between them (a lane's consecutive unary GetTask exchanges; one read alone is a loop too). It is
 * one step: its reads before the last are sent and kept, never compared (how many polls a client
 * made depends on its timer and the peer's, not on what the peer did); its last read, the loop's
 * outcome, is read again, the clock moved to the peer's next timer each time, until the peer shows
 * what the recording shows, or until the loop's bound: then what the peer shows is compared, and
 * the difference is named as timing drift with the recorded and replayed durations.
 *
 * **Where the clock stands.** The recorded peer ran on the wall clock, late on every timer and
 * late to take a request by what its machine's load made it (a SendMessage the recorder wrote at
 * T stamped WORKING at T + 348 ms); the virtual one is never late. So the recorded instants of a
 * loaded session run ahead of what its peer had done: the clock is moved to a request's recorded
 * instant less the peer's *lag*, how far the recorded peer was behind the virtual one when the
 * last loop's outcome showed (its recorded instant less the virtual instant it showed at). An
 * awaited unary answer moves it no further than the virtual peer needs to make it.
 */
import type { LaneKey, PlannedExchange, ReplayPlan } from './lanes.js';
import type { JsonValue } from '../canonical/canonical-json.js';
import type { RecordingEntry } from '../recording/format.js';
import type { VirtualPeerClock } from '../peer/virtual-peer-clock.js';

/** The part an exchange plays in a poll loop. */
export type PollRole =
  /** A read before the loop's last: sent and kept, not compared. */
  | { kind: 'read' }
  /** The loop's last read: read until the peer shows the recorded answer, or the bound passes. */
  | { kind: 'outcome'; first: PlannedExchange; reads: number };

/** A loop's bound: its recorded duration times this, and at least {@link POLL_BOUND_MIN_MS}. */
export const POLL_BOUND_FACTOR = 4;

/** The least bound of a poll loop, ms. */
export const POLL_BOUND_MIN_MS = 1000;

/** A unary GetTask exchange answered within the recording. */
function isRead(ex: PlannedExchange): boolean {
  return ex.method === 'GetTask' && ex.response !== undefined && ex.events.length === 0 && ex.lane !== null;
}

/** A lane's poll loop still open where a segment ends: its first read, and its reads so far. */
interface OpenLoop {
  first: PlannedExchange;
  reads: number;
}

/** Each lane's exchanges in `plan`, in recorded order. */
function byLane(plan: ReplayPlan): Map<LaneKey, PlannedExchange[]> {
  const lanes = new Map<LaneKey, PlannedExchange[]>();
  for (const ex of plan.exchanges) {
    if (ex.lane === null) continue;
    const list = lanes.get(ex.lane);
    if (list) list.push(ex);
    else lanes.set(ex.lane, [ex]);
  }
  return lanes;
}

/**
 * The poll loops of a recording replayed in segments (src/replay/segments.ts), one segment after
 * the other. A loop needs only its own lane: its first read (for its recorded duration), how many
 * reads it has had, and whether the lane's next exchange is a read too. That is read from the
 * segment after (`next`): a lane whose last exchange of a segment is a read continues its loop
 * into the next segment when its first exchange there is a read, so a loop is one loop whatever
 * the cuts. A lane the next segment does not touch at all ends its loop at the cut (its next read,
 * at least a segment's worth of entries later, starts a new one); so does every lane at the
 * recording's end. What is held between segments is one open loop per lane.
 */
export class PollLoops {
  readonly #open = new Map<LaneKey, OpenLoop>();

  /** The role of every exchange of `plan` in a poll loop, by xid; `next`: the next segment's plan, if any. */
  rolesOf(plan: ReplayPlan, next: ReplayPlan | undefined): Map<string, PollRole> {
    const continues = new Map<LaneKey, boolean>();
    if (next)
      for (const ex of next.exchanges)
        if (ex.lane !== null && !continues.has(ex.lane)) continues.set(ex.lane, isRead(ex));
    const roles = new Map<string, PollRole>();
    for (const [lane, exchanges] of byLane(plan)) {
      let carried = this.#open.get(lane);
      this.#open.delete(lane);
      let run: PlannedExchange[] = [];
      const close = (): void => {
        const last = run.at(-1);
        if (last) {
          for (let i = 0; i < run.length - 1; i++) roles.set((run[i] as PlannedExchange).xid, { kind: 'read' });
          const first = carried?.first ?? (run[0] as PlannedExchange);
          roles.set(last.xid, { kind: 'outcome', first, reads: (carried?.reads ?? 0) + run.length });
        }
        run = [];
        carried = undefined;
      };
      for (const ex of exchanges) {
        if (isRead(ex)) run.push(ex);
        else close();
      }
      if (run.length > 0 && continues.get(lane) === true) {
        for (const ex of run) roles.set(ex.xid, { kind: 'read' });
        this.#open.set(lane, {
          first: carried?.first ?? (run[0] as PlannedExchange),
          reads: (carried?.reads ?? 0) + run.length,
        });
      } else close();
    }
    return roles;
  }
}

/** The poll loops of a whole plan: the role of every exchange in one, by xid. */
export function pollLoops(plan: ReplayPlan): Map<string, PollRole> {
  return new PollLoops().rolesOf(plan, undefined);
}

/** The recorded duration of a loop, ms: from its first request to its last answer. */
export function recordedLoopMs(first: PlannedExchange, last: PlannedExchange): number {
  const end = Date.parse((last.response ?? last.request).at);
  const start = Date.parse(first.request.at);
  return Number.isFinite(end) && Number.isFinite(start) ? Math.max(0, end - start) : 0;
}

/** How long a loop may take on replay before its outcome counts as drift, ms. */
export function loopBoundMs(recordedMs: number): number {
  return Math.max(POLL_BOUND_MIN_MS, recordedMs * POLL_BOUND_FACTOR);
}

function obj(value: JsonValue | undefined): { [key: string]: JsonValue } | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/** The instant (ms) the recorded peer's own clock stamped on an answer, if its body names one. */
export function peerInstantOf(answer: RecordingEntry): number | undefined {
  const envelope = obj(answer.body);
  const result = envelope && 'jsonrpc' in envelope ? obj(envelope.result) : envelope;
  if (!result) return undefined;
  const status = obj(result.status) ?? obj(obj(result.task)?.status) ?? obj(obj(result.statusUpdate)?.status);
  const stamped = [obj(result.pause)?.pausedAt, result.resumedAt, status?.timestamp].find(
    (v): v is string => typeof v === 'string',
  );
  const ms = stamped === undefined ? Number.NaN : Date.parse(stamped);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Where a virtual peer clock stands for each recorded entry: its recorded instant less the lag
 * the last poll loop showed (see the module doc).
 */
export class RecordedTime {
  readonly clock: VirtualPeerClock;
  #lagMs = 0;
  /** HTTP requests sent to the peer, those it took before the replay (its agent card) included. */
  #sent: number;

  /** Answers read in full, those before the replay included. */
  #read: number;
  /** How far the clock may step for an awaited answer, by its recorded seq. */
  readonly #stepBounds = new Map<number, number>();

  readonly #waitMs: number;

  /** `waitMs`: the longest a move waits for the peer to take the requests sent before it. */
  constructor(clock: VirtualPeerClock, waitMs: number) {
    this.clock = clock;
    this.#waitMs = waitMs;
    this.#sent = clock.taken();
    this.#read = clock.answered();
  }

  /** A new segment begins: the step bounds of the answers of the one before are done with. */
  newSegment(): void {
    this.#stepBounds.clear();
  }

  /** An HTTP request went to the peer: no move of the clock overtakes it. */
  sent(): void {
    this.#sent += 1;
  }

  /** An exchange with the peer ended (its answer read in full, or broken). */
  read(): void {
    this.#read += 1;
  }

  /**
   * For a unary answer still awaited once its instant is reached: `wait` when the peer has
   * written an answer the replay has not read yet (it is on its way); `moved` when the peer had
   * written everything and the clock stepped to its next timer (the answer waits for time, as a
   * PauseTask waits for the step in flight); `stuck` when no timer is due within the bound.
   */
  async stepFor(answer: RecordingEntry, ex: PlannedExchange): Promise<'wait' | 'moved' | 'stuck'> {
    if (answer.kind !== 'response' || ex.events.length > 0) return 'stuck';
    await this.#taken();
    await new Promise((resolve) => setImmediate(resolve));
    if (this.clock.answered() > this.#read) return 'wait';
    let bound = this.#stepBounds.get(answer.seq);
    if (bound === undefined) {
      bound = this.clock.now() + loopBoundMs(Math.max(0, Date.parse(answer.at) - Date.parse(ex.request.at)));
      this.#stepBounds.set(answer.seq, bound);
    }
    const next = this.clock.nextTimerAt();
    if (next === undefined || next > bound) return 'stuck';
    await this.clock.advanceTo(next);
    return 'moved';
  }

  /** Moves the clock to `instantMs` once the peer has taken every request sent so far. */
  async advanceTo(instantMs: number): Promise<void> {
    await this.#taken();
    await this.clock.advanceTo(instantMs);
  }

  /**
   * Waits until the peer took every request sent, or the wait's deadline passed (a request lost
   * on its way, its connection reset, must not hold the replay: its exchange drifts instead).
   */
  async #taken(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.clock.received(this.#sent),
      new Promise((resolve) => (timer = setTimeout(resolve, this.#waitMs))),
    ]);
    clearTimeout(timer);
  }

  /** Moves the clock to `entry`'s recorded instant less the lag. */
  reach(entry: RecordingEntry): Promise<void> {
    const instant = Date.parse(entry.at);
    return Number.isFinite(instant) ? this.advanceTo(instant - this.#lagMs) : Promise.resolve();
  }

  /**
   * Moves the clock for an awaited `answer`. A unary answer: to its request's instant (less the
   * lag), no further: the virtual peer makes it when it makes it, which {@link stepFor} reaches
   * timer by timer (an answer that waits for nothing costs the peer no time, however late a
   * loaded machine delivered it; and the instant the recorded peer stamped on it, when it took the
   * request late, lies past where the virtual peer, which took it at once, made it: a move there
   * would run the task on by the recorded peer's delay). A stream's event (which
   * {@link stepFor} does not step for): to the instant its body names (a status' `timestamp`)
   * less the lag, else to its own instant.
   */
  reachAnswer(answer: RecordingEntry, ex: PlannedExchange): Promise<void> {
    if (answer.kind === 'response' && ex.events.length === 0) return this.reach(ex.request);
    const named = peerInstantOf(answer);
    return named !== undefined ? this.advanceTo(named - this.#lagMs) : this.reach(answer);
  }

  /** A loop's outcome showed now: the recorded peer was this far behind at its read. */
  shown(read: RecordingEntry): void {
    const instant = Date.parse(read.at);
    if (Number.isFinite(instant)) this.#lagMs = Math.max(0, instant - this.clock.now());
  }
}
