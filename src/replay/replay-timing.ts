/**
 * @module replay/replay-timing
 * The driver's hooks for time (docs/design.md §8, "Real-time sessions", "Time against a live
 * peer"): with a virtual peer clock, where it stands for each action and awaited answer, and how a
 * poll loop's outcome is read; against a live peer, the pace of the requests and the poll loops
 * read on the wall clock (src/replay/live-time.ts); with neither (the deterministic embedded
 * peer), nothing (every hook resolves at once and no exchange is in a poll loop).
 */
import type { A2aReplayError } from '../errors.js';
import type { RecordingEntry } from '../recording/format.js';
import type { EntryDraft } from '../recording/recording-writer.js';
import type { PlannedExchange, ReplayPlan } from './lanes.js';
import type { LiveAnswer, ReplayLedger } from './ledger.js';
import type { LiveCall } from './live-exchange.js';
import { LiveTime, loopStateLabel, readLiveLoop } from './live-time.js';
import type { ReplayPace } from './pace.js';
import type { Clock } from '../clock.js';
import type { VirtualPeerClock } from '../peer/virtual-peer-clock.js';
import { type PollRole, PollLoops, RecordedTime, loopBoundMs, recordedLoopMs } from './poll-loops.js';

/** What stepping the clock for an awaited answer did (see {@link RecordedTime.stepFor}). */
export type StepOutcome = 'wait' | 'moved' | 'stuck';

/** What reading a poll loop's outcome needs of the drive. */
export interface LoopDrive {
  /** Sends `ex`'s request, its answer entries to `onEntry`; `sent` runs just before it goes. */
  dispatch: (ex: PlannedExchange, onEntry: (draft: EntryDraft) => void, sent: () => void) => LiveCall;
  infra: () => A2aReplayError | undefined;
  /** A state label for reports (`WORKING`, `error -32001`). */
  label: (entry: RecordingEntry) => string | undefined;
  /** Hands `ex`'s live answer entries to the ledger. */
  keep: (ex: PlannedExchange, ledger: ReplayLedger) => (draft: EntryDraft) => void;
}

/** One read of a poll loop: what the peer answered, or undefined when the call failed. */
async function readOnce(drive: LoopDrive, ex: PlannedExchange): Promise<EntryDraft[] | undefined> {
  const got: EntryDraft[] = [];
  const call = drive.dispatch(
    ex,
    (draft) => got.push(draft),
    () => undefined,
  );
  await call.done;
  return drive.infra() || call.failure ? undefined : got;
}

/**
 * Time that lasts a whole drive, across its segments (src/replay/segments.ts): a virtual peer
 * clock's lag and counts, the pace's anchors, the poll loops open at a cut. None of it grows with
 * the recording: a lane's anchor and open loop at most.
 */
export class DriveTime {
  readonly recorded: RecordedTime | undefined;
  readonly live: LiveTime | undefined;
  readonly loops = new PollLoops();

  /**
   * `time.peerClock`: the embedded peer's virtual clock; else `time.pace`: the pace against a live
   * peer, on `time.clock`, from `start` (the recording's first entry); `waitMs`: the longest a
   * move of a virtual clock waits for the peer.
   */
  constructor(
    time: { peerClock?: VirtualPeerClock | undefined; pace?: ReplayPace | undefined; clock: Clock },
    start: RecordingEntry | undefined,
    waitMs: number,
  ) {
    const clock = time.peerClock;
    this.recorded = clock ? new RecordedTime(clock, waitMs) : undefined;
    this.live = !clock && time.pace ? new LiveTime(time.pace, time.clock, start) : undefined;
  }

  /** Whether the drive keeps time at all (a virtual peer clock, or a pace): its poll loops are read then. */
  get timed(): boolean {
    return this.recorded !== undefined || this.live !== undefined;
  }
}

/** Time in one segment of a drive: a virtual peer clock's moves and poll loops, or nothing without one. */
export class ReplayTiming {
  readonly #plan: ReplayPlan;
  readonly #ledger: ReplayLedger;
  readonly #time: RecordedTime | undefined;
  readonly #live: LiveTime | undefined;
  readonly #roles: Map<string, PollRole>;

  /** `plan`: this segment's; `next`: the next segment's, whose first reads say which loops go on. */
  constructor(plan: ReplayPlan, ledger: ReplayLedger, time: DriveTime, next: ReplayPlan | undefined) {
    this.#plan = plan;
    this.#ledger = ledger;
    this.#time = time.recorded;
    this.#live = time.live;
    this.#time?.newSegment();
    this.#roles = time.timed ? time.loops.rolesOf(plan, next) : new Map<string, PollRole>();
    for (const ex of plan.exchanges)
      if (this.#roles.get(ex.xid)?.kind === 'read' && ex.response) ledger.uncompared(ex.response.seq);
  }

  /** The part `ex` plays in a poll loop, if any. */
  role(ex: PlannedExchange): PollRole | undefined {
    return this.#roles.get(ex.xid);
  }

  /** An HTTP request went to the peer. */
  sent(): void {
    this.#time?.sent();
  }

  /** An HTTP exchange with the peer ended. */
  read(): void {
    this.#time?.read();
  }

  /**
   * Moves the clock to where it stands for a recorded action (its request, or a recorded close);
   * against a live peer, waits until the action is due at the replay's pace.
   */
  reach(entry: RecordingEntry): Promise<void> {
    if (this.#live) return this.#live.reach(entry, this.#plan.laneOfSeq.get(entry.seq) ?? null);
    return this.#time?.reach(entry) ?? Promise.resolve();
  }

  /** Moves the clock for an awaited entry; a poll loop's answers wait for nothing and move nothing. */
  reachAwaited(entry: RecordingEntry): Promise<void> {
    const ex = this.#plan.exchangeOfSeq.get(entry.seq);
    if (!this.#time || !ex || this.#roles.has(ex.xid)) return Promise.resolve();
    return entry.kind === 'request' ? this.#time.reach(entry) : this.#time.reachAnswer(entry, ex);
  }

  /** Steps the clock for an answer still awaited once its instant is reached. */
  step(entry: RecordingEntry): Promise<StepOutcome> {
    const ex = this.#plan.exchangeOfSeq.get(entry.seq);
    if (!this.#time || !ex || this.#roles.has(ex.xid)) return Promise.resolve('stuck');
    return this.#time.stepFor(entry, ex);
  }

  /**
   * Reads a poll loop's outcome (src/replay/poll-loops.ts): again and again, the peer's clock moved
   * to its next timer between reads, until the answer is the recorded one or the loop's bound
   * passes; the last answer is then kept, named as timing drift when it still differs.
   */
  async readOutcome(
    ex: PlannedExchange,
    role: Extract<PollRole, { kind: 'outcome' }>,
    drive: LoopDrive,
  ): Promise<void> {
    if (this.#live) return this.#readLiveOutcome(ex, role, drive, this.#live);
    const time = this.#time;
    if (!time) return;
    const ledger = this.#ledger;
    const clock = time.clock;
    const recordedMs = recordedLoopMs(role.first, ex);
    const started = clock.now();
    const bound = started + loopBoundMs(recordedMs);
    for (;;) {
      const got = await readOnce(drive, ex);
      if (got === undefined) return;
      const response = got.find((d) => d.kind === 'response');
      const answer = response && { ...response, http: { ...response.http, method: ex.request.http.method } };
      const matched = answer !== undefined && ledger.wouldMatch(ex, answer as LiveAnswer);
      const next = clock.nextTimerAt();
      if (matched || next === undefined || next > bound) {
        if (matched) time.shown(ex.request);
        else if (ex.response && response) {
          ledger.timing(ex.response.seq, {
            reads: role.reads,
            expectedState: drive.label(ex.response) ?? 'its answer',
            actualState: drive.label({ ...ex.response, ...response } as RecordingEntry) ?? 'another answer',
            recordedMs,
            replayedMs: clock.now() - started,
            clock: 'peer',
          });
        }
        ledger.sent(ex);
        const sink = drive.keep(ex, ledger);
        for (const draft of got) sink(draft);
        return;
      }
      await time.advanceTo(next);
    }
  }

  /**
   * Reads a poll loop's outcome against a live peer (src/replay/live-time.ts): from the loop's
   * paced start, again and again on the wall clock, until the peer shows the state and artifacts
   * the loop ended in, goes past them, or the loop's bound passes; the last answer is kept, its
   * difference named as timing drift when it is not the recorded state.
   */
  async #readLiveOutcome(
    ex: PlannedExchange,
    role: Extract<PollRole, { kind: 'outcome' }>,
    drive: LoopDrive,
    live: LiveTime,
  ): Promise<void> {
    const loop = { last: ex, reads: role.reads, readsMs: recordedLoopMs(role.first, ex) };
    const read = (): Promise<EntryDraft[] | undefined> => readOnce(drive, ex);
    const end = await readLiveLoop(live, loop, read, (d) => d as RecordingEntry);
    if (!end) return;
    const response = end.got.find((d) => d.kind === 'response');
    // Gone through the recorded outcome between two reads: the loop showed it; its last answer is
    // kept, not compared (what came after the outcome is for the entries after the loop to show).
    if (end.reading === 'through' && ex.response) this.#ledger.uncompared(ex.response.seq);
    else if (end.reading !== 'reached' && ex.response && response) {
      const actual = { ...ex.response, ...response } as RecordingEntry;
      this.#ledger.timing(ex.response.seq, {
        reads: role.reads,
        expectedState: loopStateLabel(drive.label(ex.response), ex.response.body),
        actualState: loopStateLabel(drive.label(actual), actual.body),
        recordedMs: end.recordedMs,
        replayedMs: end.replayedMs,
        clock: 'wall',
      });
    }
    this.#ledger.sent(ex);
    const sink = drive.keep(ex, this.#ledger);
    for (const draft of end.got) sink(draft);
  }
}
