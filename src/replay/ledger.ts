/**
 * @module replay/ledger
 * The bookkeeping of one replay (docs/design.md §8): which recorded entry each live entry answers, which
 * recorded entries are still awaited, when a recorded request may be sent, and the replayed
 * entries the PauseObserver is fed. Pure: the driver tells it what was sent and what came back.
 *
 * Matching: a live entry belongs to the exchange of the recorded request the driver sent. Within
 * it, the live response pairs with the recorded response, the i-th live SSE event with the i-th
 * recorded event, and the live `end`/`error` with the recorded terminal entry (a live terminal
 * entry settles the recorded events that did not come). Each pair teaches the {@link IdMap}, and
 * the live body is mapped back to recorded ids before it is kept.
 *
 * Replayed entries carry the recorded entry's `seq`, `at` and `xid`, so a faithful peer yields the
 * recorded receipts byte for byte. A live entry with no recorded counterpart is drift; it is kept
 * right after the entry that preceded it in its exchange, under a fresh seq above the recording's
 * last, so the receipts show what it did.
 *
 * Readiness ({@link ReplayLedger.blocker}) applies the ordering rule of `lanes.ts`. An entry is
 * "settled" when a live entry answered it, the driver gave up on it, or (requests) it was sent.
 */
import { A2aReplayError } from '../errors.js';
import {
  type EntryGrpc,
  type EntryHttp,
  type EntryKind,
  REPLAY_MAX_BODY_DEPTH,
  type RecordingEntry,
} from '../recording/format.js';
import { nestsDeeperThan } from '../canonical/depth.js';
import type { JsonValue } from '../canonical/canonical-json.js';
import { type DriftEntryRef, type ExchangeDrift, describeShape, driftSeq, shapeDifferences, shapeOf } from './drift.js';

/** How a poll loop's outcome was read, when it ended in another state than recorded (docs/design.md §8). */
export type LoopTiming = Omit<Extract<ExchangeDrift, { type: 'timing' }>, 'type' | 'expected' | 'actual'>;
import type { LaneKey, PlannedExchange, ReplayPlan } from './lanes.js';
import { IgnoreSet, type NoiseRules, contentDifferences, describeContent } from './content.js';
import type { IdMap } from './substitution.js';
import { StreamHeartbeats } from './stream-heartbeats.js';

/** What the live peer answered, as the driver observed it (live ids, live timing). */
export interface LiveAnswer {
  kind: Exclude<EntryKind, 'request'>;
  http: EntryHttp;
  body?: JsonValue;
  bodyText?: string;
  sse?: { event?: string; id?: string };
  error?: string;
  /** Why the recorder could not read the live answer in full (docs/design.md §5). */
  incomplete?: string;
  /** A gRPC answer's status, message and details (docs/design.md §16). */
  grpc?: EntryGrpc;
}

const BARRIER_LANE = '\u0000barrier';

/** Sorted seqs of one lane with a cursor at the first unsettled one. */
class LaneCursor {
  readonly seqs: number[] = [];
  index = 0;

  firstUnsettled(isSettled: (seq: number) => boolean): number | undefined {
    while (this.index < this.seqs.length && isSettled(this.seqs[this.index] as number)) this.index++;
    return this.seqs[this.index];
  }
}

/** Whether `text` is JSON nested deeper than replay compares (the recorder keeps such a body as text). */
function isDeepJson(text: string): boolean {
  try {
    return nestsDeeperThan(JSON.parse(text), REPLAY_MAX_BODY_DEPTH);
  } catch {
    return false;
  }
}

interface ExchangeProgress {
  responseMatched: boolean;
  eventsMatched: number;
  terminalMatched: boolean;
  /** Seq of the last recorded entry of this exchange a live entry answered (the request at first). */
  lastSeq: number;
}

/**
 * What a gRPC answer's trailers said besides the status code (the code is part of the shape):
 * `grpc-message` and the decoded `grpc-status-details-bin`, compared as a JSON-RPC error's message
 * and `data` are, under the pointers `/grpc/message` and `/grpc/details/...` (docs/design.md §8).
 */
function grpcStatusContent(recorded: RecordingEntry, live: RecordingEntry, ignore: IgnoreSet): string[] {
  if (recorded.grpc === undefined) return [];
  const view = (grpc: EntryGrpc | undefined): JsonValue => {
    const out: { [key: string]: JsonValue } = {};
    if (grpc?.message !== undefined) out.message = grpc.message;
    if (grpc?.details !== undefined) out.details = grpc.details;
    return { grpc: out };
  };
  const r = view(recorded.grpc);
  const l = view(live.grpc);
  return describeContent(r, l, contentDifferences(r, l, ignore));
}

export class ReplayLedger {
  readonly plan: ReplayPlan;
  readonly ids: IdMap;
  readonly #replayed = new Map<number, RecordingEntry>();
  readonly #extras = new Map<number, RecordingEntry[]>();
  readonly #abandoned = new Map<number, string>();
  readonly #drift: ExchangeDrift[] = [];
  readonly #progress = new Map<string, ExchangeProgress>();
  readonly #lanes = new Map<string, LaneCursor>();
  readonly #all = new LaneCursor();
  /** The barrier exchanges' entries, if the recording has any. */
  readonly #barriers: LaneCursor | undefined;
  /** The answers that named a task created (`PlannedExchange.created`). */
  readonly #creations = new LaneCursor();
  /** The seqs of the requests that created a task. */
  readonly #creates = new Set<number>();
  readonly #bySeq = new Map<number, RecordingEntry>();
  readonly #byXid = new Map<string, PlannedExchange>();
  #liveCount = 0;
  /** Called whenever a recorded entry becomes settled. */
  onSettle: ((seq: number) => void) | undefined;
  readonly #noise: NoiseRules;
  readonly #ignore: readonly string[];
  readonly #ignoreSets = new Map<string | null, IgnoreSet>();
  /** Recorded answers kept but never compared (a poll loop's reads before its last). */
  readonly #uncompared = new Set<number>();
  /** Recorded answers whose difference, if any, is a poll loop's timing. */
  readonly #timing = new Map<number, LoopTiming>();
  /** Recorded heartbeats a live stream showed the state of with fewer of them (src/replay/stream-heartbeats.ts). */
  readonly #covered = new Set<number>();
  readonly #heartbeats = new StreamHeartbeats();

  /** Seqs for live entries with no recorded counterpart, shared by the segments of one drive. */
  readonly #extraSeqs: { next: number };

  /**
   * `noise`: per-method ignored paths; `ignore`: paths ignored for every method (`--ignore`);
   * `extraSeqs`: where extra live entries are numbered (default above the plan's last seq).
   */
  constructor(
    plan: ReplayPlan,
    ids: IdMap,
    noise: NoiseRules = {},
    ignore: readonly string[] = [],
    extraSeqs?: { next: number },
  ) {
    this.plan = plan;
    this.ids = ids;
    this.#noise = noise;
    this.#ignore = ignore;
    let max = 0;
    for (const e of plan.entries) {
      this.#bySeq.set(e.seq, e);
      this.#all.seqs.push(e.seq);
      const lane = plan.laneOfSeq.get(e.seq) ?? BARRIER_LANE;
      let cursor = this.#lanes.get(lane);
      if (!cursor) this.#lanes.set(lane, (cursor = new LaneCursor()));
      cursor.seqs.push(e.seq);
      max = Math.max(max, e.seq);
    }
    for (const ex of plan.exchanges) {
      this.#byXid.set(ex.xid, ex);
      this.#progress.set(ex.xid, {
        responseMatched: false,
        eventsMatched: 0,
        terminalMatched: false,
        lastSeq: ex.request.seq,
      });
      if (ex.created) {
        this.#creates.add(ex.request.seq);
        this.#creations.seqs.push(ex.created.seq);
      }
    }
    this.#creations.seqs.sort((a, b) => a - b);
    this.#extraSeqs = extraSeqs ?? { next: max + 1 };
    this.#barriers = this.#lanes.get(BARRIER_LANE);
  }

  /** Live entries observed so far (matched or extra). */
  get liveCount(): number {
    return this.#liveCount;
  }

  /** Recorded entries settled so far. */
  get settledCount(): number {
    return this.#replayed.size + this.#abandoned.size + this.#covered.size;
  }

  isSettled = (seq: number): boolean => this.#replayed.has(seq) || this.#abandoned.has(seq) || this.#covered.has(seq);

  /** True once every recorded entry is settled. */
  get complete(): boolean {
    return this.#all.firstUnsettled(this.isSettled) === undefined;
  }

  /**
   * The recorded entry that must settle before `ex`'s request may be sent, or undefined when it may
   * be sent now (the ordering rule of `lanes.ts`).
   */
  blocker(ex: PlannedExchange): RecordingEntry | undefined {
    return this.blockerAt(ex.request.seq, ex.lane);
  }

  /**
   * What recorded position `s` of `lane` waits for (the rule of `lanes.ts`): every entry when a
   * barrier; else its lane's, the barriers', and for a request creating a task, the answers that
   * named the tasks created before it.
   */
  #awaitedBy(s: number, lane: LaneKey | null): LaneCursor[] {
    if (lane === null) return [this.#all];
    const cursors = [this.#lanes.get(lane), this.#barriers, this.#creates.has(s) ? this.#creations : undefined];
    return cursors.filter((c) => c !== undefined);
  }

  /** The first unsettled entry that must settle before recorded position `s` of `lane` is due. */
  blockerAt(s: number, lane: LaneKey | null): RecordingEntry | undefined {
    // The first unsettled entry of the cursors awaited, whichever comes first: it blocks when it
    // comes before `s` (no other one then can come before it and after `s`).
    let blocking: number | undefined;
    for (const cursor of this.#awaitedBy(s, lane)) {
      const first = cursor.firstUnsettled(this.isSettled);
      if (first !== undefined && (blocking === undefined || first < blocking)) blocking = first;
    }
    return blocking !== undefined && blocking < s ? this.#bySeq.get(blocking) : undefined;
  }

  /** True once a live terminal entry (`end` / `error`) came for `ex`. */
  ended(ex: PlannedExchange): boolean {
    return this.#progress.get(ex.xid)?.terminalMatched ?? false;
  }

  /** Unsettled entries with seq < `before` that position `before` of `lane` waits for, oldest first. */
  unsettledBefore(before: number, lane: LaneKey | null): RecordingEntry[] {
    // From each cursor's first unsettled entry, not from the recording's start: a long replay
    // that times out often must not rescan what settled long ago.
    const seqs: number[] = [];
    for (const cursor of this.#awaitedBy(before, lane)) {
      const from = cursor.firstUnsettled(this.isSettled);
      if (from === undefined) continue;
      for (let i = cursor.index; i < cursor.seqs.length; i++) {
        const seq = cursor.seqs[i] as number;
        if (seq >= before) break;
        if (!this.isSettled(seq)) seqs.push(seq);
      }
    }
    seqs.sort((a, b) => a - b);
    return seqs.map((seq) => this.#bySeq.get(seq) as RecordingEntry);
  }

  /** The driver sent `ex`'s request: it settles as the recorded request itself. */
  sent(ex: PlannedExchange): void {
    const was = this.isSettled(ex.request.seq);
    this.#replayed.set(ex.request.seq, ex.request);
    if (!was) this.onSettle?.(ex.request.seq);
  }

  /** Gives up waiting for a recorded entry (a deadline passed, or its request was never sent). */
  abandon(seq: number, reason: string): void {
    if (this.isSettled(seq)) return;
    this.#abandoned.set(seq, reason);
    this.onSettle?.(seq);
  }

  /** The live answer to recorded entry `seq` is kept and never compared (docs/design.md §8, poll loops). */
  uncompared(seq: number): void {
    this.#uncompared.add(seq);
  }

  /** A difference of the live answer to recorded entry `seq` is a poll loop's `timing`, said as such. */
  timing(seq: number, timing: LoopTiming): void {
    this.#timing.set(seq, timing);
  }

  /** Whether `answer` would answer `ex`'s recorded response with no difference; nothing is kept or learnt. */
  wouldMatch(ex: PlannedExchange, answer: LiveAnswer): boolean {
    const recorded = ex.response;
    if (!recorded || answer.kind !== 'response' || recorded.cut !== undefined) return false;
    const entry: RecordingEntry = {
      seq: recorded.seq,
      at: recorded.at,
      xid: ex.xid,
      kind: answer.kind,
      http: answer.http,
    };
    if (answer.body !== undefined) entry.body = this.ids.answerToRecorded(answer.body);
    if (answer.bodyText !== undefined) entry.bodyText = answer.bodyText;
    if (shapeDifferences(shapeOf(recorded), shapeOf(entry)).length > 0) return false;
    return this.content(ex, recorded, entry).length === 0;
  }

  /**
   * A live entry answering `ex`. Returns the replayed entry (recorded identity, ids mapped back),
   * or undefined for a stream's heartbeat beyond the recorded ones (dropped, not drift).
   */
  live(ex: PlannedExchange, answer: LiveAnswer): RecordingEntry | undefined {
    const progress = this.#progress.get(ex.xid);
    if (!progress) throw new A2aReplayError('INVALID_ARGUMENT', `no planned exchange ${ex.xid}`);
    this.#liveCount++;
    let recorded: RecordingEntry | undefined;
    switch (answer.kind) {
      case 'response':
        if (!progress.responseMatched && ex.response) recorded = ex.response;
        progress.responseMatched = true;
        break;
      case 'event': {
        const placed = this.#heartbeats.place(ex, progress.eventsMatched, answer.body);
        if (placed.kind === 'drop') return undefined;
        recorded = ex.events[placed.index];
        progress.eventsMatched = placed.index + 1;
        break;
      }
      case 'end':
      case 'error':
        if (!progress.terminalMatched && ex.terminal) recorded = ex.terminal;
        progress.terminalMatched = true;
        break;
      default: {
        const never: never = answer.kind;
        throw new A2aReplayError('INVALID_ARGUMENT', `unknown live entry kind ${String(never)}`);
      }
    }
    if (recorded && this.#replayed.has(recorded.seq)) recorded = undefined;
    if (recorded) this.ids.learnAnswer(recorded.body, answer.body);
    const body = answer.body === undefined ? undefined : this.ids.answerToRecorded(answer.body);
    const anchor = recorded ?? this.#bySeq.get(progress.lastSeq) ?? ex.request;
    const entry: RecordingEntry = {
      seq: recorded ? recorded.seq : this.#extraSeqs.next++,
      at: anchor.at,
      xid: ex.xid,
      kind: answer.kind,
      http: answer.http,
    };
    if (body !== undefined) entry.body = body;
    if (answer.bodyText !== undefined) entry.bodyText = answer.bodyText;
    if (answer.sse !== undefined) entry.sse = answer.sse;
    if (answer.error !== undefined) entry.error = answer.error;
    if (answer.incomplete !== undefined) entry.incomplete = answer.incomplete;
    // A gRPC error's message and details name live ids as a JSON-RPC error's do.
    if (answer.grpc !== undefined) entry.grpc = this.ids.toRecorded(answer.grpc as JsonValue) as EntryGrpc;

    if (recorded) {
      const was = this.isSettled(recorded.seq);
      this.#abandoned.delete(recorded.seq);
      this.#covered.delete(recorded.seq);
      if (answer.kind === 'event') this.#cover(ex, progress.eventsMatched - 1);
      this.#replayed.set(recorded.seq, entry);
      if (!was) this.onSettle?.(recorded.seq);
      progress.lastSeq = Math.max(progress.lastSeq, recorded.seq);
      // A body the recording keeps cut (its head) is compared by kind and status only: what it
      // held past the head is not in the recording (docs/design.md §8).
      const differences = this.#uncompared.has(recorded.seq)
        ? []
        : recorded.cut !== undefined
          ? shapeDifferences(shapeOf(recorded), shapeOf({ kind: entry.kind, http: entry.http }))
          : [...shapeDifferences(shapeOf(recorded), shapeOf(entry)), ...this.content(ex, recorded, entry)];
      const timing = differences.length > 0 ? this.#timing.get(recorded.seq) : undefined;
      if (timing !== undefined)
        this.#drift.push({ type: 'timing', expected: this.ref(recorded), actual: this.ref(entry), ...timing });
      else if (differences.length > 0)
        this.#drift.push({ type: 'mismatch', expected: this.ref(recorded), actual: this.ref(entry), differences });
    } else {
      const list = this.#extras.get(anchor.seq) ?? [];
      list.push(entry);
      this.#extras.set(anchor.seq, list);
      const closest = this.closest(ex, entry);
      this.#drift.push({
        type: 'extra',
        actual: this.ref(entry),
        closest: closest ? this.ref(closest) : null,
        differences: closest ? shapeDifferences(shapeOf(closest), shapeOf(entry)) : [],
      });
    }
    if (answer.kind === 'end' || answer.kind === 'error') {
      // The live exchange is over: what it did not send will not come.
      if (!progress.responseMatched && ex.response)
        this.abandon(ex.response.seq, `the live exchange ended (${answer.kind}) without it`);
      for (const e of ex.events.slice(progress.eventsMatched))
        this.abandon(e.seq, `the live stream ended (${answer.kind}) before it`);
    }
    return entry;
  }

  /** Settles the recorded heartbeats after event `index` of `ex` that the live stream has shown the state of. */
  #cover(ex: PlannedExchange, index: number): void {
    for (const i of this.#heartbeats.covered(ex, index)) {
      const seq = (ex.events[i] as RecordingEntry).seq;
      if (this.isSettled(seq)) continue;
      this.#covered.add(seq);
      this.onSettle?.(seq);
    }
  }

  /** Content differences of a live entry from the recorded one it answers (docs/design.md §8). */
  content(ex: PlannedExchange, recorded: RecordingEntry, live: RecordingEntry): string[] {
    let ignore = this.#ignoreSets.get(ex.method);
    if (!ignore) {
      ignore = IgnoreSet.forMethod(ex.method, this.#noise, this.#ignore);
      this.#ignoreSets.set(ex.method, ignore);
    }
    const status = grpcStatusContent(recorded, live, ignore);
    if (recorded.kind !== 'response' && recorded.kind !== 'event') return status;
    if (recorded.grpc !== undefined && recorded.body === undefined && live.body === undefined) return status;
    if (recorded.body === undefined && live.body === undefined) {
      return recorded.bodyText !== live.bodyText ? ['content: the body text differs'] : [];
    }
    // JSON recorded, text live (not JSON, or more than replay compares): say what came instead.
    if (recorded.body !== undefined && live.body === undefined && live.bodyText !== undefined) {
      const text = live.bodyText.length > 120 ? `${live.bodyText.slice(0, 117)}...` : live.bodyText;
      const why = isDeepJson(live.bodyText)
        ? `the live body nests deeper than ${REPLAY_MAX_BODY_DEPTH} levels, more than replay compares: `
        : '';
      return [`content: JSON recorded, text live: ${why}${JSON.stringify(text)}`];
    }
    return [
      ...describeContent(recorded.body, live.body, contentDifferences(recorded.body, live.body, ignore)),
      ...status,
    ];
  }

  /** The driver waited `waitedMs` for `waitingFor` before acting on `at` (a request, or a recorded close), in vain. */
  timedOut(at: RecordingEntry, waitingFor: RecordingEntry, waitedMs: number): void {
    this.#drift.push({ type: 'timeout', request: this.ref(at), waitingFor: this.ref(waitingFor), waitedMs });
  }

  /** The recorded entry of `ex` closest to a live extra: same kind, fewest shape differences. */
  closest(ex: PlannedExchange, live: RecordingEntry): RecordingEntry | undefined {
    const same = [ex.response, ...ex.events, ex.terminal].filter(
      (e): e is RecordingEntry => e !== undefined && e.kind === live.kind,
    );
    const liveShape = shapeOf(live);
    let best: RecordingEntry | undefined;
    let bestScore = Infinity;
    for (const e of same) {
      const score = shapeDifferences(shapeOf(e), liveShape).length;
      if (score < bestScore) {
        best = e;
        bestScore = score;
      }
    }
    return best ?? ex.terminal ?? ex.events.at(-1) ?? ex.response ?? ex.request;
  }

  /** A report reference to an entry. */
  ref(entry: RecordingEntry): DriftEntryRef {
    const ex = this.#byXid.get(entry.xid);
    return {
      seq: entry.seq,
      xid: entry.xid,
      kind: entry.kind,
      method: ex?.method ?? null,
      lane: ex?.lane ?? null,
      shape: describeShape(shapeOf(entry)),
    };
  }

  /**
   * Ends the replay: every recorded entry still unanswered becomes a `missing` drift (with the
   * reason it was given up, if any). Returns all drift, in recorded order.
   */
  finish(): ExchangeDrift[] {
    const drift = [...this.#drift];
    for (const e of this.plan.entries) {
      if (this.#replayed.has(e.seq) || this.#covered.has(e.seq)) continue;
      const reason =
        this.#abandoned.get(e.seq) ?? (e.kind === 'request' ? 'the request was not sent' : 'no live entry answered it');
      drift.push({ type: 'missing', expected: this.ref(e), reason });
    }
    return drift.sort((a, b) => driftSeq(a) - driftSeq(b));
  }

  /** The replayed entries in recorded order, extras right after the entry they followed. */
  replayed(): RecordingEntry[] {
    const out: RecordingEntry[] = [];
    for (const e of this.plan.entries) {
      const r = this.#replayed.get(e.seq);
      if (r) out.push(r);
      const extras = this.#extras.get(e.seq);
      if (extras) out.push(...extras);
    }
    return out;
  }

  /** Replayed entries of one lane in recorded order (for timelines). */
  replayedOf(lane: LaneKey | null): RecordingEntry[] {
    return this.replayed().filter((e) => (this.#byXid.get(e.xid)?.lane ?? null) === lane);
  }
}
