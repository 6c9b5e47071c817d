/**
 * @module observe/pause-observer
 * The PauseObserver (docs/design.md §2 "the key idea", §14): recording entries in, receipt drafts,
 * span events and findings out. The recorder and the replayer feed it the same way, so the same
 * entries always give the same outputs; it reads no clock, no randomness, no I/O.
 *
 * It is the coordinator of three parts: `observe/facts` reads each entry into facts,
 * `observe/rules` holds the rules as one table per suspension state (which row fires is data, and
 * every verdict names its row, §14.8), and `observe/observer-store` keeps the states and the
 * indexes the rules consult: tasks by id, pauses by token, peer-clock deadlines in a heap, control
 * calls by event name and task. This class only routes each fact to the table of the state it is
 * about. Work per entry is O(1) in the number of tasks (O(log n) for a deadline), and memory is
 * bounded by what is still live plus fixed-size memories of what recently ended (§14.6).
 */
import { describeError } from '../errors.js';
import { TERMINAL_STATES } from '../protocol/types.js';
import type { RecordingEntry } from '../recording/format.js';
import { type ControlCall, type EntryRef, type Fact, type FactOf, type ReadItem, tasksShownIn } from './fact.js';
import { FactReader } from './facts.js';
import { InterruptionObserver } from './interruption-observer.js';
import type { CarriedInterruption, Interruption } from './interruption.js';
import type { CallBinding } from './call-view.js';
import type { CarriedSuspension, FiredRule, OpenSuspension } from './observed-task.js';
import { ObserverStore } from './observer-store.js';
import { type SuspensionSpanIds, taskAttributes, taskSpanKey } from './observer-spans.js';
import { statesShownIn, withConventions } from './span-conventions.js';
import { EntryMethods } from './entry-methods.js';
import { withCanonicalTimes } from './peer-times.js';
import { RESUME_CALL_RULES, RESUMING_RULES } from './rules/call-rules.js';
import { OPEN_RULES, aimsAt, authoritative } from './rules/open-rules.js';
import { KEPT_ASIDE_RULES, PENDING_RULES, knownPause } from './rules/pending-rules.js';
import { type RuleInput, fire } from './rules/rule.js';
import { TASK_RULES } from './rules/task-rules.js';
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
}

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
  readonly #reader = new FactReader();
  readonly #canonicalTimes: boolean;
  readonly #store: ObserverStore;
  /** The interruptions (INPUT_REQUIRED, AUTH_REQUIRED), kept apart from the pauses (docs/design.md §14.9). */
  readonly #interruptions: InterruptionObserver;
  /** What the entry observed last was read into: the tasks it showed ({@link tasksShown}). */
  #lastItems: readonly ReadItem[] = [];

  readonly #agentName: string | undefined;
  readonly #methods = new EntryMethods();

  constructor(options: ObserverOptions) {
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
    store.out = out;
    store.fired.length = 0;
    const request = this.#methods.requestOf(entry);
    const items = this.#reader.read(entry, request);
    this.#lastItems = items;
    if (store.awaited.length > 0) store.awaited.length = 0;
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
    for (const task of store.touched) store.maybeRetire(task);
    store.touched.clear();
    return out;
  }

  /** The semantic-convention attributes of the spans the entry (or the end) caused (docs/design.md §7). */
  #conventions(out: ObserverOutput[], method: string | undefined, items: readonly ReadItem[]): void {
    if (!out.some((o) => o.type === 'span')) return;
    const tasks = this.#store.tasks;
    withConventions(out, {
      method,
      states: statesShownIn(items),
      contextOf: (taskId) => tasks.get(taskId)?.contextId ?? null,
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
    store.out = out;
    store.fired.length = 0;
    try {
      const end: RuleInput = { type: 'RecordingEnded', at, now: store.clock.nowAt(at) };
      this.#interruptions.finish(end);
      for (const [key, taskId] of [...store.open]) {
        const task = store.tasks.get(taskId);
        const s = task?.open;
        if (task && s?.key === key) fire(store, OPEN_RULES, { task, s }, end);
      }
      for (const [key, taskId] of [...store.resuming]) {
        const task = store.tasks.get(taskId);
        const s = task?.resuming.find((r) => r.key === key);
        if (task && s) fire(store, RESUMING_RULES, { task, s }, end);
      }
      for (const task of store.tasks.values()) {
        for (const s of [...task.pending.values()]) fire(store, PENDING_RULES, { task, s }, end);
        for (const closer of [...task.closers.values()]) fire(store, RESUME_CALL_RULES, { task, closer }, end);
        task.closers.clear();
      }
      for (const task of store.tasks.values()) {
        if (task.spanPhase === 'started') {
          task.spanPhase = 'ended';
          store.span({
            type: 'task.end',
            key: taskSpanKey(task.taskId),
            at,
            attributes: taskAttributes(task.taskId, task.contextId, null),
          });
        }
      }
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
    this.#store.touched.clear();
  }

  /**
   * Opens interruptions an earlier recording left open (docs/design.md §6 "Series", §14.9), before
   * the first entry: the continuation this recording shows pairs with them. Throws on a task given twice.
   */
  carryInterruptions(interruptions: readonly CarriedInterruption[]): void {
    for (const c of interruptions) this.#interruptions.carry(c);
    this.#store.touched.clear();
  }

  /** Interruptions observed and not continued, in the order they opened, each with its task's binding. */
  openInterruptions(): ReadonlyArray<{ interruption: Interruption; binding: CallBinding }> {
    return this.#interruptions.openInterruptions().map((interruption) => ({
      interruption,
      binding: this.#store.tasks.get(interruption.taskId)?.binding ?? 'JSONRPC',
    }));
  }

  /** Pauses observed and not ended, in the order they were proven. */
  openSuspensions(): ReadonlyArray<OpenSuspension> {
    return this.#store.openSuspensions();
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
    const task = this.#store.tasks.get(taskId);
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
      tasks: this.#store.tasks.size,
      retiredTasks: this.#store.retired.size,
      openSuspensions: this.#store.open.size,
      resumingSuspensions: this.#store.resuming.size,
      recentlyEnded: this.#store.ended.size,
      deadlines: this.#store.deadlines.size,
      controlsByName: this.#store.fireByName.size,
      controlsByTask: this.#store.fireByTask.size,
      interruptions: this.#interruptions.byTask.size,
    };
  }

  /** Rules fired by the entry observed last, or by {@link finish}, in firing order (docs/design.md §14.8). */
  get firedRules(): readonly FiredRule[] {
    return this.#store.fired;
  }

  // ---- routing: each fact to the table of the state it is about ----

  #onFact(fact: Fact): void {
    const store = this.#store;
    this.#interruptions.onFact(fact);
    switch (fact.type) {
      case 'MessageSent':
      case 'InterruptedSeen':
        return; // interruptions only
      case 'PauseRequested': {
        const known = store.tasks.get(fact.taskId);
        if (known) known.binding = fact.binding;
        const task = store.task(fact.taskId);
        if (!task.terminal && task.open) fire(store, OPEN_RULES, { task, s: task.open }, fact);
        else fire(store, TASK_RULES, { taskId: task.taskId, task }, fact);
        return;
      }
      case 'ResumeCalled':
      case 'CancelCalled':
        store.closerCalled(fact);
        return;
      case 'ControlCalled':
        store.controlCalled(fact.call);
        return;
      case 'TaskSeen': {
        const task = store.task(fact.task.taskId);
        task.binding = fact.binding;
        if (fact.task.contextId !== null && task.contextId === null) task.contextId = fact.task.contextId;
        store.startTask(task, fact.entry);
        for (const time of fact.times) store.clock.report(time, fact.entry.at);
        if (fact.stream !== undefined && !task.terminal) task.streams.add(fact.stream);
        return;
      }
      case 'PausedSeen':
        this.#onPausedSeen(fact);
        return;
      case 'ResumeAnnounced':
      case 'StateSeen': {
        const task = store.task(fact.task.taskId);
        if (task.terminal) return;
        if (task.open) fire(store, OPEN_RULES, { task, s: task.open }, fact);
        else if (fact.type === 'ResumeAnnounced') fire(store, TASK_RULES, { taskId: task.taskId, task }, fact);
        if (fact.type === 'StateSeen' && TERMINAL_STATES.has(fact.state) && authoritative(task, fact.origin))
          store.endTask(task, fact.entry);
        return;
      }
      case 'WorkSeen': {
        const task = store.task(fact.task.taskId);
        if (task.open) fire(store, OPEN_RULES, { task, s: task.open }, fact);
        return;
      }
      case 'PauseAnswered': {
        const task = store.task(fact.taskId);
        const kept = task.keptAside.get(fact.xid);
        if (kept) fire(store, KEPT_ASIDE_RULES, { task, s: kept }, fact);
        const s = task.pending.get(fact.xid);
        if (s) fire(store, PENDING_RULES, { task, s }, fact);
        return;
      }
      case 'ResumeAnswered':
        this.#onResumeAnswered(fact);
        return;
      case 'CancelAnswered': {
        const task = store.tasks.get(fact.taskId);
        const closer = task?.closers.get(fact.xid);
        if (!task || !closer) return;
        task.closers.delete(fact.xid);
        store.touched.add(task);
        fire(store, RESUME_CALL_RULES, { task, closer }, fact);
        return;
      }
      case 'CallFailed':
        this.#onCallFailed(fact);
        return;
      case 'ControlAnswered':
        this.#onControlAnswered(fact);
        return;
      case 'StreamEnded':
        for (const taskId of fact.tasks) {
          const task = store.tasks.get(taskId);
          if (!task) continue;
          store.touched.add(task);
          task.streams.delete(fact.xid);
          if (task.open) fire(store, OPEN_RULES, { task, s: task.open }, fact);
        }
        return;
      default: {
        const never: never = fact;
        return never;
      }
    }
  }

  /**
   * PAUSED was seen: a pause call kept aside or pending that it answers decides first, then the
   * open pause (the same pause seen again, or a new token that ended it), then the pending call it
   * proves, else the agent parked on its own.
   */
  #onPausedSeen(fact: FactOf<'PausedSeen'>): void {
    const store = this.#store;
    const task = store.task(fact.task.taskId);
    if (task.terminal) return;
    const { entry, pause, origin } = fact;
    store.clock.report(pause.pausedAt, entry.at);
    const known = knownPause(store, task, fact);
    const answered = origin.kind === 'answer' ? origin.xid : undefined;
    const kept = answered === undefined ? undefined : task.keptAside.get(answered);
    if (kept) fire(store, KEPT_ASIDE_RULES, { task, s: kept }, fact);
    const own = answered === undefined ? undefined : task.pending.get(answered);
    if (known) {
      if (own) fire(store, PENDING_RULES, { task, s: own }, fact);
      if (task.open?.key === known.key) fire(store, OPEN_RULES, { task, s: task.open }, fact);
      return;
    }
    if (task.open) fire(store, OPEN_RULES, { task, s: task.open }, fact);
    const pending = own ?? task.pending.values().next().value;
    if (pending) fire(store, PENDING_RULES, { task, s: pending }, fact);
    else fire(store, TASK_RULES, { taskId: task.taskId, task }, fact);
  }

  #onResumeAnswered(fact: FactOf<'ResumeAnswered'>): void {
    const store = this.#store;
    const task = store.task(fact.taskId);
    const closer = task.closers.get(fact.xid);
    task.closers.delete(fact.xid);
    store.clock.report(fact.resumedAt, fact.entry.at);
    if (!closer || closer.settled !== undefined) return; // the stream told first; this answer adds nothing
    const racing = task.resuming.find((r) => r.race.candidates.has(fact.xid));
    if (racing) fire(store, RESUMING_RULES, { task, s: racing, closer }, fact);
    else if (task.open && aimsAt(closer, task.open)) fire(store, OPEN_RULES, { task, s: task.open, closer }, fact);
    else fire(store, RESUME_CALL_RULES, { task, closer }, fact);
  }

  #onCallFailed(fact: FactOf<'CallFailed'>): void {
    const store = this.#store;
    const task = store.known(fact.taskId);
    if (!task) return;
    if (task.open) fire(store, OPEN_RULES, { task, s: task.open }, fact);
    const closer = task.closers.get(fact.xid);
    if (closer) {
      task.closers.delete(fact.xid);
      fire(store, RESUME_CALL_RULES, { task, closer }, fact);
    }
    const kept = task.keptAside.get(fact.xid);
    if (kept) fire(store, KEPT_ASIDE_RULES, { task, s: kept }, fact);
    const pending = task.pending.get(fact.xid);
    if (pending) fire(store, PENDING_RULES, { task, s: pending }, fact);
  }

  #onControlAnswered(fact: FactOf<'ControlAnswered'>): void {
    const store = this.#store;
    const { entry, call } = fact;
    if (fact.now !== undefined) {
      store.clock.report(fact.now, entry.at);
      this.#deadlinesDue(call, entry);
    }
    if (fact.resumed === undefined) return;
    store.fireAnswered(call, fact.resumed);
    for (const taskId of new Set(fact.resumed)) {
      const task = store.known(taskId);
      if (task?.open) fire(store, OPEN_RULES, { task, s: task.open }, fact);
      else fire(store, TASK_RULES, { taskId, task }, fact);
    }
  }

  /** The peer's clock moved: every open pause whose deadline it reached gets that proof (docs/design.md §14.4). */
  #deadlinesDue(call: ControlCall, entry: EntryRef): void {
    const store = this.#store;
    const now = store.clock.latestMs;
    if (Number.isNaN(now)) return;
    for (const due of store.deadlines.popDue(now)) {
      const task = store.tasks.get(due.item.taskId);
      const s = task?.open;
      if (!task || s?.key !== due.item.key) continue;
      store.touched.add(task);
      fire(store, OPEN_RULES, { task, s }, { type: 'DeadlineDue', entry, call, which: due.item.which });
    }
  }
}
