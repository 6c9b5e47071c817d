/**
 * @module observe/pause-observer
 * The PauseObserver (docs/design.md §2 "the key idea", §14): recording entries in, receipt drafts,
 * span events and findings out. The recorder and the replayer feed it the same way, so the same
 * entries always give the same outputs; it reads no clock, no randomness, no I/O.
 *
 * It is the coordinator of three parts: `observe/facts` reads each entry into facts,
 * `observe/rules` holds the rules as one table per suspension state (which row fires is data, and
 * every verdict names its row, §14.8) and the routing table that orders the tables a fact reaches,
 * and `observe/observer-store` keeps the states and the indexes the rules consult (through the
 * actions port of `observe/pause-actions`): tasks by id, pauses by token, peer-clock deadlines in a
 * heap, control calls by event name and task. This class hands each fact to the interruptions and
 * to the routing table, and decides what is still open at the end. Work per entry is O(1) in the
 * number of tasks (O(log n) for a deadline), and memory is bounded by what is still live plus
 * fixed-size memories of what recently ended (§14.6).
 */
import { isDeepStrictEqual } from 'node:util';
import { A2aReplayError, describeError } from '../errors.js';
import type { RecordingEntry } from '../recording/format.js';
import { type Fact, type ReadItem, tasksShownIn } from './fact.js';
import { FactReader } from './facts.js';
import { InterruptionObserver } from './interruption-observer.js';
import type { CarriedInterruption, Interruption } from './interruption.js';
import type { CallBinding } from './call-view.js';
import type { CarriedSuspension, FiredRule, OpenSuspension } from './observed-task.js';
import { ObserverStore } from './observer-store.js';
import { type SuspensionSpanIds } from './observer-spans.js';
import { statesShownIn, withConventions } from './span-conventions.js';
import { EntryMethods } from './entry-methods.js';
import { withCanonicalTimes } from './peer-times.js';
import { RESUME_CALL_RULES, RESUMING_RULES } from './rules/call-rules.js';
import { OPEN_RULES } from './rules/open-rules.js';
import { PENDING_RULES } from './rules/pending-rules.js';
import { type RuleInput, fire } from './rules/rule.js';
import { routeFact } from './rules/routing.js';
import type { ObserverOutput } from './suspension.js';

export type { ObserverOutput } from './suspension.js';
export type { CarriedSuspension, FiredRule, OpenSuspension } from './observed-task.js';

export interface ObserverOptions {
  /** The recording header's `id`: every span id derives from it (docs/design.md §7). */
  recordingId: string;
  /** The agent's name from the recording's agent card: the spans' `gen_ai.agent.name` (§7). */
  agentName?: string | undefined;
  /**
   * What a proven pause's Suspension span ids derive from (docs/design.md §7, §17): `pause` (the
   * default, receipt logs of format 5) or `recording` (a log of format 4 or earlier derived again).
   */
  suspensionSpans?: SuspensionSpanIds;
  /**
   * The peer's times in receipts, spans and pause identities in their canonical text (docs/design.md
   * §6, "Peer times"; default true); false keeps them as the peer wrote them, as logs of version 4
   * and earlier were written.
   */
  canonicalTimes?: boolean;
  /**
   * False when nobody takes span events (a recorder without a span sink): they are not built into
   * outputs, and the receipts, findings and span ids the receipts name are the same (default true).
   */
  spans?: boolean;
  /**
   * How answers are read (docs/design.md §14.11): `scan` (the default) reads an answer that can
   * say nothing about a pause or an interruption by the scan path, `full` parses every answer in
   * full, `both` reads each entry both ways and throws (`OBSERVER_MISMATCH`) where they differ.
   * The environment variable `A2A_REPLAY_SCAN_CHECK=1` makes `both` the default.
   */
  scanPath?: ScanPath;
}

/** How the observer reads answers: {@link ObserverOptions.scanPath}. */
export type ScanPath = 'scan' | 'full' | 'both';

/** The debug switch that reads every entry by both paths (docs/design.md §14.11). */
export const SCAN_CHECK_VARIABLE = 'A2A_REPLAY_SCAN_CHECK';

/** Sizes of what the observer holds (docs/design.md §14.6), for tests and diagnostics. */
export interface ObserverStats {
  /** Exchanges in flight. */
  exchanges: number;
  /** Exchanges remembered after their answer (bounded). */
  finishedExchanges: number;
  /** Tasks followed. */
  tasks: number;
  /** Finished tasks remembered (bounded). */
  retiredTasks: number;
  /** Pauses proven and not ended. */
  openSuspensions: number;
  /** Pauses whose racing resumes are not all answered. */
  resumingSuspensions: number;
  /** Ended pauses remembered by token (bounded). */
  recentlyEnded: number;
  /** Entries in the deadline heap. */
  deadlines: number;
  /** FireEvent calls remembered by event name and by task (bounded). */
  controlsByName: number;
  controlsByTask: number;
  /** Interruptions (INPUT_REQUIRED, AUTH_REQUIRED) not continued yet. */
  interruptions: number;
}

/**
 * Turns recording entries into receipt drafts and span events (docs/design.md §2, §6, §7, §14).
 * Feed every entry once, in `seq` order, then call {@link finish}.
 *
 * Its contract: it never throws (bad input becomes a `finding` output and the observer carries
 * on); it is pure in what it is fed (the same entries give the same outputs, byte for byte, in
 * record and replay); it does no I/O and reads no clock and no randomness. Which rule decides what
 * is the tables of `observe/rules`; every verdict names its rule (docs/design.md §14.8).
 */
export class PauseObserver {
  readonly #reader: FactReader;
  /** With `scanPath: 'both'`, the reader that parses every answer in full beside {@link #reader}. */
  readonly #fullReader: FactReader | undefined;
  readonly #canonicalTimes: boolean;
  readonly #store: ObserverStore;
  /** The interruptions (INPUT_REQUIRED, AUTH_REQUIRED), kept apart from the pauses (docs/design.md §14.9). */
  readonly #interruptions: InterruptionObserver;
  /** What the entry observed last was read into: the tasks it showed ({@link tasksShown}). */
  #lastItems: readonly ReadItem[] = [];

  readonly #agentName: string | undefined;
  readonly #methods = new EntryMethods();

  constructor(options: ObserverOptions) {
    const scan = options.scanPath ?? (process.env[SCAN_CHECK_VARIABLE] === '1' ? 'both' : 'scan');
    this.#reader = new FactReader(scan !== 'full');
    this.#fullReader = scan === 'both' ? new FactReader(false) : undefined;
    this.#canonicalTimes = options.canonicalTimes ?? true;
    this.#store = new ObserverStore({
      recordingId: options.recordingId,
      suspensionSpans: options.suspensionSpans ?? 'pause',
      spans: options.spans ?? true,
    });
    this.#agentName = options.agentName;
    this.#interruptions = new InterruptionObserver(this.#store);
  }

  /** Observes one entry; call once per entry, in `seq` order. */
  observe(entry: RecordingEntry): ObserverOutput[] {
    const store = this.#store;
    const out: ObserverOutput[] = [];
    store.begin(out);
    const request = this.#methods.requestOf(entry);
    const items = this.#read(entry, request);
    this.#lastItems = items;
    // Only span attributes name the method (docs/design.md §7): without spans it is not followed.
    const method = store.ctx.spans !== false ? this.#methods.methodOf(entry, request) : undefined;
    try {
      for (const item of items) {
        if (item.type === 'finding') out.push(item);
        else this.#onFact(this.#canonicalTimes ? withCanonicalTimes(item) : item);
      }
    } catch (error) {
      store.finding(
        'observer-error',
        entry.seq,
        'entry',
        `could not observe entry ${entry.seq}: ${describeError(error)}`,
      );
    }
    this.#conventions(out, method, items);
    store.end();
    return out;
  }

  /** The entry's facts and findings; with both readers, the same from each or an error. */
  #read(entry: RecordingEntry, request: ReturnType<EntryMethods['requestOf']>): ReadItem[] {
    const items = this.#reader.read(entry, request);
    if (this.#fullReader === undefined) return items;
    const full = this.#fullReader.read(entry, request);
    if (isDeepStrictEqual(items, full)) return items;
    throw new A2aReplayError(
      'OBSERVER_MISMATCH',
      `entry ${String(entry.seq)}: the scan path read ${JSON.stringify(items)}, the full parse ${JSON.stringify(full)}`,
    );
  }

  /** Each fact to the interruption tables, then to the pause tables by the routing table (docs/design.md §14.8). */
  #onFact(fact: Fact): void {
    this.#interruptions.onFact(fact);
    routeFact(this.#store, fact);
  }

  /** The semantic-convention attributes of the spans the entry (or the end) caused (docs/design.md §7). */
  #conventions(out: ObserverOutput[], method: string | undefined, items: readonly ReadItem[]): void {
    if (!out.some((o) => o.type === 'span')) return;
    const store = this.#store;
    withConventions(out, {
      method,
      states: statesShownIn(items),
      contextOf: (taskId) => store.followed(taskId)?.contextId ?? null,
      agentName: this.#agentName,
    });
  }

  /**
   * The end of the recording or stream (docs/design.md §14.5): each pause still open is closed by
   * a deadline the peer's clock reached, or lost (paused_until_passed, stream_ended,
   * recording_ended); racing resumes are settled; every span still open is ended. `at` is the
   * time of the end (for replays, the last entry's `at`).
   */
  finish(at: string): ObserverOutput[] {
    const store = this.#store;
    const out: ObserverOutput[] = [];
    store.begin(out);
    try {
      const end: RuleInput = { type: 'RecordingEnded', at, now: store.nowAt(at) };
      this.#interruptions.finish(end);
      const live = store.liveIndex();
      for (const [key, taskId] of live.open) {
        const task = store.followed(taskId);
        const s = task?.open;
        if (task && s?.key === key) fire(store, OPEN_RULES, { task, s }, end);
      }
      for (const [key, taskId] of live.resuming) {
        const task = store.followed(taskId);
        const s = task?.resuming.find((r) => r.key === key);
        if (task && s) fire(store, RESUMING_RULES, { task, s }, end);
      }
      for (const task of store.followedTasks()) {
        for (const s of [...task.pending.values()]) fire(store, PENDING_RULES, { task, s }, end);
        for (const closer of [...task.closers.values()]) {
          store.takeCall(task, closer.xid);
          fire(store, RESUME_CALL_RULES, { task, closer }, end);
        }
      }
      store.endSpans(at);
    } catch (error) {
      store.finding('observer-error', null, 'finish', `could not finish: ${describeError(error)}`);
    }
    this.#conventions(out, undefined, []);
    return out;
  }

  /**
   * Opens pauses an earlier recording left open (a restarted recorder's, docs/design.md §6
   * "Series"), before the first entry: a resume this recording shows pairs with them by the rules
   * of §14. Throws on a task given twice.
   */
  carry(suspensions: readonly CarriedSuspension[]): void {
    for (const c of suspensions) this.#store.carry(c);
    this.#store.untouch();
  }

  /**
   * Opens interruptions an earlier recording left open (docs/design.md §6 "Series", §14.9), before
   * the first entry: the continuation this recording shows pairs with them. Throws on a task given twice.
   */
  carryInterruptions(interruptions: readonly CarriedInterruption[]): void {
    for (const c of interruptions) this.#interruptions.carry(c);
    this.#store.untouch();
  }

  /** Interruptions observed and not continued, in the order they opened, each with its task's binding. */
  openInterruptions(): ReadonlyArray<{ interruption: Interruption; binding: CallBinding }> {
    return this.#interruptions.openInterruptions().map((interruption) => ({
      interruption,
      binding: this.#store.followed(interruption.taskId)?.binding ?? 'JSONRPC',
    }));
  }

  /** Pauses observed and not ended, in the order they were proven. */
  openSuspensions(): ReadonlyArray<OpenSuspension> {
    const list: OpenSuspension[] = [];
    for (const [key, taskId] of this.#store.liveIndex().open) {
      const task = this.#store.followed(taskId);
      const s = task?.open;
      if (!task || s?.key !== key) continue;
      list.push({
        key: s.key,
        taskId: s.taskId,
        contextId: task.contextId,
        resumeTokenHash: s.pause.tokenHash,
        pausedAt: s.pause.pausedAt,
        pausedUntil: s.pause.pausedUntil,
        conditions: s.pause.conditions,
        provenSeq: s.provenSeq,
        span: s.span,
        binding: task.binding,
      });
    }
    return list;
  }

  /**
   * Calls `each` with the id of every task the entry observed last showed a client: a sighting of
   * it (a task, a status or artifact update, a pause answer), a ResumeTask or CancelTask answer,
   * an error answer to a call on it, a FireEvent answer that resumed it. A request shows nothing.
   * What "shows a pause or resume" means for "durable before acknowledged" (docs/design.md §5).
   */
  tasksShown(each: (taskId: string) => void): void {
    tasksShownIn(this.#lastItems, each);
  }

  /**
   * Tasks the entry observed last showed past a pause whose receipt only a later entry can make
   * (docs/design.md §5): a poll showing the task resumed while a stream carries it (the stream
   * tells how), or while a ResumeTask is in flight (its answer tells), and a stream showing it
   * resumed while several ResumeTask calls race (their answers tell who won). Valid until the
   * next `observe`.
   */
  get awaited(): readonly string[] {
    return this.#store.awaited;
  }

  /** Whether the observer still waits for a later entry to receipt how `taskId`'s pause ended. */
  awaits(taskId: string): boolean {
    const task = this.#store.followed(taskId);
    if (!task) return false;
    if (task.resuming.length > 0) return true;
    const open = task.open;
    return open !== undefined && (task.streams.size > 0 || this.#store.resumeCalls(task, open).length > 0);
  }

  /** What the observer holds right now (docs/design.md §14.6); for tests and diagnostics. */
  stats(): ObserverStats {
    const reader = this.#reader.size;
    return {
      exchanges: reader.exchanges,
      finishedExchanges: reader.finishedExchanges,
      ...this.#store.sizes(),
      interruptions: this.#interruptions.byTask.size,
    };
  }

  /** Rules fired by the entry observed last, or by {@link finish}, in firing order (docs/design.md §14.8). */
  get firedRules(): readonly FiredRule[] {
    return this.#store.fired;
  }
}
