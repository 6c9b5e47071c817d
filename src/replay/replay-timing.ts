/**
 * @module replay/replay-timing
 * The driver's hooks for time (docs/design.md §8, "Real-time sessions"): with a virtual peer clock,
 * where it stands for each action and awaited answer, and how a poll loop's outcome is read;
 * without one, nothing (every hook resolves at once and no exchange is in a poll loop).
 */
import type { A2aReplayError } from '../errors.js';
import type { RecordingEntry } from '../recording/format.js';
import type { EntryDraft } from '../recording/recording-writer.js';
import type { PlannedExchange, ReplayPlan } from './lanes.js';
import type { LiveAnswer, ReplayLedger } from './ledger.js';
import type { LiveCall } from './live-exchange.js';
import {
  type ReplayPeerClock,
  type PollRole,
  RecordedTime,
  loopBoundMs,
  pollLoops,
  recordedLoopMs,
} from './poll-loops.js';

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

/** Time in one drive: a virtual peer clock's moves and poll loops, or nothing without one. */
export class ReplayTiming {
  readonly #plan: ReplayPlan;
  readonly #ledger: ReplayLedger;
  readonly #time: RecordedTime | undefined;
  readonly #roles: Map<string, PollRole>;

  constructor(plan: ReplayPlan, ledger: ReplayLedger, clock: ReplayPeerClock | undefined, waitMs: number) {
    this.#plan = plan;
    this.#ledger = ledger;
    this.#time = clock ? new RecordedTime(clock, waitMs) : undefined;
    this.#roles = clock ? pollLoops(plan) : new Map<string, PollRole>();
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

  /** Moves the clock to where it stands for a recorded action (its request, or a recorded close). */
  reach(entry: RecordingEntry): Promise<void> {
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
    const time = this.#time;
    if (!time) return;
    const ledger = this.#ledger;
    const clock = time.clock;
    const recordedMs = recordedLoopMs(role.first, ex);
    const started = clock.now();
    const bound = started + loopBoundMs(recordedMs);
    for (;;) {
      const got: EntryDraft[] = [];
      const call = drive.dispatch(
        ex,
        (draft) => got.push(draft),
        () => undefined,
      );
      await call.done;
      if (drive.infra() || call.failure) return;
      const response = got.find((d) => d.kind === 'response');
      const answer = response && { ...response, http: { ...response.http, method: ex.request.http.method } };
      const matched = answer !== undefined && ledger.wouldMatch(ex, answer as LiveAnswer);
      const next = clock.nextTimerAt();
      if (matched || next === undefined || next > bound) {
        if (matched) time.shown(ex.request);
        else if (ex.response && response) {
          const live = drive.label({ ...ex.response, ...response } as RecordingEntry) ?? 'another answer';
          ledger.timing(
            ex.response.seq,
            `timing drift: the poll loop (${role.reads} reads) ended in ${live} after ${clock.now() - started} ms ` +
              `on the peer's clock; recorded: ${drive.label(ex.response) ?? 'its answer'} after ${recordedMs} ms`,
          );
        }
        ledger.sent(ex);
        const sink = drive.keep(ex, ledger);
        for (const draft of got) sink(draft);
        return;
      }
      await time.advanceTo(next);
    }
  }
}
