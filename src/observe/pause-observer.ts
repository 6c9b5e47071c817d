/**
 * @module observe/pause-observer
 * The PauseObserver (docs/design.md §2 "the key idea", §14): recording entries in, receipt drafts,
 * span events and findings out. The recorder and the replayer feed it the same way, so the same
 * entries always give the same outputs; it reads no clock, no randomness, no I/O.
 *
 * It is the coordinator of three parts: `observe/facts` reads each entry into facts,
 * `observe/lifecycle` holds the rules (pure functions from a suspension's state and a fact to its
 * next state and outputs), and this class keeps the states and the indexes the rules consult:
 * tasks by id, pauses by token, peer-clock deadlines in a heap, control calls by event name and
 * task. Work per entry is O(1) in the number of tasks (O(log n) for a deadline), and memory is
 * bounded by what is still live plus fixed-size memories of what recently ended (§14.6).
 */
import { describeError } from '../errors.js';
import type { Binding } from '../protocol/rest-binding.js';
import { TERMINAL_STATES, type TaskState } from '../protocol/types.js';
import type { SpanRef } from '../receipts/types.js';
import type { RecordingEntry } from '../recording/format.js';
import { tokenHashOf } from '../recording/resume-token.js';
import type { LostPauseReason, SpanEvent } from '../tracing/span-events.js';
import { BoundedMap } from '../bounded-map.js';
import { DeadlineHeap } from './deadline-heap.js';
import {
  type ControlCall,
  type EntryRef,
  type Fact,
  FactReader,
  type Origin,
  RULE_ERRORS,
  type ReadItem,
} from './facts.js';
import type { FindingCode, ObserverFinding } from './findings.js';
import {
  type Evidence,
  type Explanation,
  type RuleContext,
  type TaskView,
  atRecordingEnd,
  attributeAnnounced,
  causeOfFire,
  closedBy,
  closingOf,
  closingOfCall,
  deadlineReached,
  deadlinesOf,
  endPending,
  endResumeSpan,
  entryResumeSpan,
  explainFailure,
  explainUnseenResume,
  finishResume,
  leasePassed,
  lose,
  prove,
  race,
  requestPause,
  resumption,
  seenAgain,
  startResume,
  streamsEnded,
} from './lifecycle.js';
import { resumeKey, rootSpan, taskAttributes, taskSpanKey } from './observer-spans.js';
import { PeerClock } from './peer-clock.js';
import type { ResumeSignal } from './sightings.js';
import type {
  Closer,
  Closing,
  ObserverOutput,
  PauseCall,
  ResumeSpan,
  SpanPhase,
  SuspensionEnded,
  SuspensionIdentity,
  SuspensionLive,
  SuspensionOpen,
  SuspensionPending,
  SuspensionResuming,
} from './suspension.js';

export type { ObserverOutput } from './suspension.js';

export interface ObserverOptions {
  /** The recording header's `id`: every span id derives from it (docs/design.md §7). */
  recordingId: string;
}

/** A pause that was observed and has not ended. */
export interface OpenSuspension {
  key: string;
  taskId: string;
  contextId: string | null;
  resumeTokenHash: string | null;
  pausedAt: string;
  pausedUntil: string | null;
  /** Seq of the entry that proved the pause. */
  provenSeq: number;
  span: SpanRef;
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
}

/** What the observer knows of one task it follows. */
interface TaskRecord {
  readonly taskId: string;
  contextId: string | null;
  readonly span: SpanRef;
  spanPhase: SpanPhase;
  terminal: boolean;
  /** Open streams carrying the task. */
  readonly streams: Set<string>;
  open: SuspensionOpen | undefined;
  resuming: SuspensionResuming[];
  /** The latest pause proven, in whatever state it is now. */
  last: (SuspensionIdentity & { tokenHash: string | null }) | undefined;
  /** Pause calls in flight, by exchange id, in request order. */
  readonly pending: Map<string, SuspensionPending>;
  /**
   * Pause calls made while a pause was open, by exchange id: they open nothing (no span) unless
   * their answer shows a new pause, which they then made (the open one ended unseen).
   */
  readonly asked: Map<string, { fact: Extract<Fact, { type: 'PauseRequested' }>; peerBeforeMs: number }>;
  /** ResumeTask / CancelTask calls in flight, by exchange id. */
  readonly closers: Map<string, Closer>;
  /** The binding of the latest A2A exchange that named or showed the task: its receipts carry it. */
  binding: Binding;
}

/** A finished task, remembered so late sightings of it are recognised. */
interface RetiredTask {
  contextId: string | null;
  last: TaskRecord['last'];
}

interface DeadlineItem {
  key: string;
  taskId: string;
  which: 'trigger' | 'timeout';
}

/** Finished tasks remembered (docs/design.md §14.6). */
const RETIRED_MEMORY = 4096;
/** Ended pauses remembered by token, for late rejected resumes and duplicate sightings. */
const ENDED_MEMORY = 4096;
/** FireEvent calls remembered by event name and by `payload.taskId`. */
const CONTROL_MEMORY = 1024;

/**
 * Turns recording entries into receipt drafts and span events (docs/design.md §2, §6, §7, §14).
 * Feed every entry once, in `seq` order, then call {@link finish}. Never throws: bad input becomes
 * a `finding` output and the observer carries on.
 */
/**
 * Whether a pause call only found `pause` in force rather than made it: a PauseTask makes a
 * client's pause, so one initiated by the agent was not its; and a pause the peer says began
 * before a time it had already stated when the call was made cannot be that call's (an
 * AwaitTaskResumption reaching an agent that had parked on its own).
 */
function foundOnly(call: PauseCall, pause: { initiatedBy: string; pausedAt: string }): boolean {
  if (call.method === 'PauseTask' && pause.initiatedBy !== 'PAUSE_INITIATOR_CLIENT') return true;
  const began = Date.parse(pause.pausedAt);
  return !Number.isNaN(call.peerBeforeMs) && !Number.isNaN(began) && began < call.peerBeforeMs;
}

export class PauseObserver {
  readonly #ctx: RuleContext;
  readonly #reader = new FactReader();
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #retired = new BoundedMap<string, RetiredTask>(RETIRED_MEMORY);
  readonly #ended = new BoundedMap<string, SuspensionEnded>(ENDED_MEMORY);
  /** Open suspensions (key → task id), in the order they were proven. */
  readonly #open = new Map<string, string>();
  /** Resuming suspensions (key → task id), in the order their race began. */
  readonly #resuming = new Map<string, string>();
  readonly #deadlines = new DeadlineHeap<DeadlineItem>((d) => this.#tasks.get(d.taskId)?.open?.key === d.key);
  readonly #fireByName = new BoundedMap<string, ControlCall>(CONTROL_MEMORY);
  readonly #fireByTask = new BoundedMap<string, ControlCall>(CONTROL_MEMORY);
  #fireAny: ControlCall | undefined;
  #advance: ControlCall | undefined;
  readonly #clock = new PeerClock();
  readonly #touched = new Set<TaskRecord>();
  #out: ObserverOutput[] = [];
  /** What the entry observed last was read into: the tasks it showed ({@link tasksShown}). */
  #lastItems: readonly ReadItem[] = [];
  /** Tasks the entry observed last showed past a pause that only a later entry can receipt. */
  readonly #awaited: string[] = [];

  constructor(options: ObserverOptions) {
    this.#ctx = { recordingId: options.recordingId };
  }

  /** Observes one entry; call once per entry, in `seq` order. */
  observe(entry: RecordingEntry): ObserverOutput[] {
    const out: ObserverOutput[] = [];
    this.#out = out;
    const items = this.#reader.read(entry);
    this.#lastItems = items;
    if (this.#awaited.length > 0) this.#awaited.length = 0;
    try {
      for (const item of items) {
        if (item.type === 'finding') out.push(item);
        else this.#onFact(item);
      }
    } catch (error) {
      this.#finding(
        'observer-error',
        entry.seq,
        'entry',
        `could not observe entry ${entry.seq}: ${describeError(error)}`,
      );
    }
    for (const task of this.#touched) this.#maybeRetire(task);
    this.#touched.clear();
    return out;
  }

  /**
   * The end of the recording or stream (docs/design.md §14.5): each pause still open is closed by
   * a deadline the peer's clock reached, or lost (paused_until_passed, stream_ended,
   * recording_ended); racing resumes are settled; every span still open is ended. `at` is the
   * time of the end (for replays, the last entry's `at`).
   */
  finish(at: string): ObserverOutput[] {
    const out: ObserverOutput[] = [];
    this.#out = out;
    try {
      const now = this.#clock.nowAt(at);
      for (const [key, taskId] of [...this.#open]) {
        const task = this.#tasks.get(taskId);
        const s = task?.open;
        if (!task || s?.key !== key) continue;
        const verdict = atRecordingEnd(s, now);
        if (verdict.kind === 'close') {
          const x = verdict.explanation;
          const r = endResumeSpan(this.#ctx, { suspension: s, at, seq: x.entries.at(-1) ?? s.lastPausedSeq });
          this.#close(task, {
            suspension: s,
            resume: r,
            closing: this.#inferred(s, x, { after: [] }),
            entry: { seq: null, at },
          });
        } else {
          this.#lose(task, s, { reason: verdict.reason, entry: null, at });
        }
      }
      for (const [key, taskId] of [...this.#resuming]) {
        const task = this.#tasks.get(taskId);
        const s = task?.resuming.find((r) => r.key === key);
        if (task && s)
          this.#closeFromSignal(task, s, {
            signal: s.race.signal,
            entry: { seq: s.race.seq, at: s.race.at },
            entries: [s.race.seq],
          });
      }
      for (const task of this.#tasks.values()) {
        for (const p of task.pending.values())
          this.#emit(
            endPending(p, {
              at,
              contextId: null,
              seq: p.call.seq,
              error: 'no answer to the pause call before the recording ended',
            }),
          );
        task.pending.clear();
        for (const c of task.closers.values()) {
          const what = c.kind === 'resume' ? 'ResumeTask' : 'CancelTask';
          this.#emitStep(
            finishResume(c.resume, { at, attributes: {}, error: `no answer to ${what} before the recording ended` }),
          );
        }
        task.closers.clear();
      }
      for (const task of this.#tasks.values()) {
        if (task.spanPhase === 'started') {
          task.spanPhase = 'ended';
          this.#span({
            type: 'task.end',
            key: taskSpanKey(task.taskId),
            at,
            attributes: taskAttributes(task.taskId, task.contextId, null),
          });
        }
      }
    } catch (error) {
      this.#finding('observer-error', null, 'finish', `could not finish: ${describeError(error)}`);
    }
    return out;
  }

  /** Pauses observed and not ended, in the order they were proven. */
  openSuspensions(): ReadonlyArray<OpenSuspension> {
    const list: OpenSuspension[] = [];
    for (const [key, taskId] of this.#open) {
      const task = this.#tasks.get(taskId);
      const s = task?.open;
      if (!task || s?.key !== key) continue;
      list.push({
        key: s.key,
        taskId: s.taskId,
        contextId: task.contextId,
        resumeTokenHash: s.pause.tokenHash,
        pausedAt: s.pause.pausedAt,
        pausedUntil: s.pause.pausedUntil,
        provenSeq: s.provenSeq,
        span: s.span,
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
    for (const item of this.#lastItems) {
      switch (item.type) {
        case 'TaskSeen':
          each(item.task.taskId);
          break;
        case 'ResumeAnswered':
        case 'CancelAnswered':
        case 'CallFailed':
          each(item.taskId);
          break;
        case 'ControlAnswered':
          for (const taskId of item.resumed ?? []) each(taskId);
          break;
        default:
          break;
      }
    }
  }

  /**
   * Tasks the entry observed last showed past a pause whose receipt only a later entry can make
   * (docs/design.md §5): a poll showing the task resumed while a stream carries it (the stream
   * tells how), or while a ResumeTask is in flight (its answer tells), and a stream showing it
   * resumed while several ResumeTask calls race (their answers tell who won). Valid until the
   * next `observe`.
   */
  get awaited(): readonly string[] {
    return this.#awaited;
  }

  /** Whether the observer still waits for a later entry to receipt how `taskId`'s pause ended. */
  awaits(taskId: string): boolean {
    const task = this.#tasks.get(taskId);
    if (!task) return false;
    if (task.resuming.length > 0) return true;
    const open = task.open;
    return open !== undefined && (task.streams.size > 0 || this.#resumeCalls(task, open).length > 0);
  }

  /** What the observer holds right now (docs/design.md §14.6); for tests and diagnostics. */
  stats(): ObserverStats {
    const reader = this.#reader.size;
    return {
      exchanges: reader.exchanges,
      finishedExchanges: reader.finishedExchanges,
      tasks: this.#tasks.size,
      retiredTasks: this.#retired.size,
      openSuspensions: this.#open.size,
      resumingSuspensions: this.#resuming.size,
      recentlyEnded: this.#ended.size,
      deadlines: this.#deadlines.size,
      controlsByName: this.#fireByName.size,
      controlsByTask: this.#fireByTask.size,
    };
  }

  // ---- outputs ----

  /** Receipt drafts take their task's binding (docs/design.md §15). */
  #emit(outputs: readonly ObserverOutput[]): void {
    for (const o of outputs) {
      if (o.type === 'suspension' || o.type === 'resumption') {
        const binding = this.#tasks.get(o.draft.taskId)?.binding;
        if (binding !== undefined && binding !== o.draft.binding) {
          this.#out.push(
            o.type === 'suspension'
              ? { ...o, draft: { ...o.draft, binding } }
              : { ...o, draft: { ...o.draft, binding } },
          );
          continue;
        }
      }
      this.#out.push(o);
    }
  }

  #emitStep<S>(step: { next: S; out: ObserverOutput[] }): S {
    this.#emit(step.out);
    return step.next;
  }

  #span(event: SpanEvent): void {
    this.#out.push({ type: 'span', event });
  }

  #finding(code: FindingCode, seq: number | null, field: string, message: string, taskId?: string): void {
    const finding: ObserverFinding = { code, seq, field, message };
    if (taskId !== undefined) finding.taskId = taskId;
    this.#out.push({ type: 'finding', finding });
  }

  // ---- tasks ----

  #task(taskId: string): TaskRecord {
    let task = this.#tasks.get(taskId);
    if (!task) {
      const retired = this.#retired.get(taskId);
      if (retired) this.#retired.delete(taskId);
      task = {
        taskId,
        contextId: retired?.contextId ?? null,
        span: rootSpan(this.#ctx.recordingId, taskSpanKey(taskId)),
        spanPhase: retired ? 'ended' : 'unstarted',
        terminal: retired !== undefined,
        streams: new Set(),
        open: undefined,
        resuming: [],
        last: retired?.last,
        pending: new Map(),
        asked: new Map(),
        closers: new Map(),
        binding: 'JSONRPC',
      };
      this.#tasks.set(taskId, task);
    }
    this.#touched.add(task);
    return task;
  }

  /** A known task (followed or retired), without creating one. */
  #known(taskId: string): TaskRecord | undefined {
    return this.#tasks.has(taskId) || this.#retired.has(taskId) ? this.#task(taskId) : undefined;
  }

  #view(task: TaskRecord): TaskView {
    return { taskId: task.taskId, contextId: task.contextId, span: task.span };
  }

  /** A finished task nothing can still refer to is dropped; a bounded memory keeps its context and last pause. */
  #maybeRetire(task: TaskRecord): void {
    if (!task.terminal || task.open || task.resuming.length > 0) return;
    if (task.pending.size > 0 || task.closers.size > 0 || task.streams.size > 0) return;
    if (this.#tasks.get(task.taskId) !== task) return;
    this.#tasks.delete(task.taskId);
    this.#retired.set(task.taskId, { contextId: task.contextId, last: task.last });
  }

  #startTask(task: TaskRecord, entry: EntryRef): void {
    if (task.spanPhase !== 'unstarted') return;
    task.spanPhase = 'started';
    this.#span({
      type: 'task.start',
      key: taskSpanKey(task.taskId),
      taskId: task.taskId,
      at: entry.at,
      span: task.span,
      attributes: taskAttributes(task.taskId, task.contextId, entry.seq),
    });
  }

  #endTask(task: TaskRecord, entry: EntryRef): void {
    task.terminal = true;
    if (task.spanPhase !== 'started') return;
    task.spanPhase = 'ended';
    this.#span({
      type: 'task.end',
      key: taskSpanKey(task.taskId),
      at: entry.at,
      attributes: taskAttributes(task.taskId, task.contextId, entry.seq),
    });
  }

  // ---- suspensions: lookups and state changes ----

  /** The suspension of `task` whose token hashes to `tokenHash`: live, or recently ended. */
  #byToken(task: TaskRecord, tokenHash: string | null): SuspensionIdentity | undefined {
    if (tokenHash === null) return undefined;
    if (task.open?.pause.tokenHash === tokenHash) return task.open;
    const resuming = task.resuming.find((r) => r.pause.tokenHash === tokenHash);
    if (resuming) return resuming;
    return this.#ended.get(endedKey(task.taskId, tokenHash));
  }

  #setOpen(task: TaskRecord, s: SuspensionOpen): void {
    const before = task.open;
    task.open = s;
    if (before?.key === s.key) return;
    this.#open.set(s.key, task.taskId);
    for (const d of deadlinesOf(s)) this.#deadlines.push(d.ms, { key: s.key, taskId: task.taskId, which: d.which });
  }

  /** `s` is no longer open (it ended or races): its index entries go. */
  #leaveOpen(task: TaskRecord, s: SuspensionOpen): void {
    if (task.open?.key === s.key) task.open = undefined;
    this.#open.delete(s.key);
    const n = deadlinesOf(s).length - s.reached.length;
    if (n > 0) this.#deadlines.retire(n);
  }

  #remember(ended: SuspensionEnded): void {
    if (ended.tokenHash !== null) this.#ended.set(endedKey(ended.taskId, ended.tokenHash), ended);
  }

  /** Emits a resumption for `suspension` with its resume span; closes it unless the outcome is `rejected`. */
  #close(
    task: TaskRecord,
    args: {
      suspension: SuspensionIdentity;
      resume: ResumeSpan;
      closing: Closing;
      entry: { seq: number | null; at: string };
    },
  ): ResumeSpan {
    const { suspension: s, resume: r, closing, entry } = args;
    const live = this.#liveOf(task, s.key);
    if (closing.outcome !== 'rejected' && live) {
      if (live.state === 'open') this.#leaveOpen(task, live);
      else {
        task.resuming = task.resuming.filter((x) => x.key !== live.key);
        this.#resuming.delete(live.key);
      }
      this.#remember(closedBy(live, r.key));
    }
    return this.#emitStep(resumption({ s, resume: r, closing, entry }));
  }

  #liveOf(task: TaskRecord, key: string): SuspensionLive | undefined {
    if (task.open?.key === key) return task.open;
    return task.resuming.find((x) => x.key === key);
  }

  /** Closes `suspension` with the call `call`: the call's resume span carries the resumption. */
  #closeWithCall(
    task: TaskRecord,
    args: { suspension: SuspensionIdentity; call: Closer; closing: Closing; entry: { seq: number | null; at: string } },
  ): void {
    const { call, closing } = args;
    call.resume = this.#close(task, { ...args, resume: call.resume });
    if (closing.outcome !== 'rejected') call.settled = args.suspension.key;
  }

  #lose(
    task: TaskRecord,
    s: SuspensionOpen,
    args: { reason: LostPauseReason; entry: EntryRef | null; at: string; message?: string },
  ): void {
    this.#leaveOpen(task, s);
    const { reason, entry, at, message } = args;
    const step = lose(this.#ctx, {
      s,
      reason,
      seq: entry?.seq ?? null,
      at,
      ...(message === undefined ? {} : { message }),
    });
    this.#remember(this.#emitStep(step));
  }

  /** Closing facts of an inferred end (docs/design.md §14.3): last PAUSED sighting, proof, sighting after. */
  #inferred(s: SuspensionOpen, x: Explanation, args: { after: readonly number[]; resumedAt?: string | null }): Closing {
    return closingOf({
      cause: x.cause,
      outcome: x.outcome,
      principal: x.principal,
      resumedAt: args.resumedAt ?? null,
      inferred: true,
      entries: [s.lastPausedSeq, ...x.entries, ...args.after],
    });
  }

  #evidence(task: TaskRecord, s: SuspensionLive, at: string): Evidence {
    const onEvent = s.pause.conditions?.onEvent;
    return {
      fireByName: onEvent === undefined ? undefined : this.#fireByName.get(onEvent),
      fireByTask: this.#fireByTask.get(task.taskId),
      fireAny: this.#fireAny,
      advance: this.#advance,
      now: this.#clock.nowAt(at),
    };
  }

  /** A resume span for the entry that proved an end; ListTasks and control answers end several pauses at once. */
  #entryResume(entry: EntryRef, task: TaskRecord, origin: Origin | undefined): ResumeSpan {
    const multi = origin === undefined || (origin.kind === 'snapshot' && origin.multi);
    return entryResumeSpan(this.#ctx, entry, multi ? task.taskId : undefined);
  }

  // ---- facts ----

  #onFact(fact: Fact): void {
    switch (fact.type) {
      case 'PauseRequested':
      case 'ResumeCalled':
      case 'CancelCalled': {
        const known = this.#tasks.get(fact.taskId);
        if (known) known.binding = fact.binding;
        break;
      }
      case 'TaskSeen':
        this.#task(fact.task.taskId).binding = fact.binding;
        break;
      default:
        break;
    }
    switch (fact.type) {
      case 'PauseRequested':
        this.#onPauseRequested(fact);
        return;
      case 'ResumeCalled':
        this.#onResumeCalled(fact);
        return;
      case 'CancelCalled': {
        const task = this.#task(fact.taskId);
        const target = task.open;
        const c = this.#newCloser('cancel', fact, target);
        task.closers.set(fact.xid, c);
        if (target) c.resume = this.#emitStep(startResume(c.resume, { suspension: target, principal: c.principal }));
        return;
      }
      case 'ControlCalled': {
        const call = fact.call;
        if (call.method === 'AdvanceClock') this.#advance = call;
        else if (call.method === 'FireEvent') {
          this.#fireAny = call;
          if (call.name !== undefined) this.#fireByName.set(call.name, call);
          if (call.payloadTaskId !== undefined) this.#fireByTask.set(call.payloadTaskId, call);
        }
        return;
      }
      case 'TaskSeen': {
        const task = this.#task(fact.task.taskId);
        if (fact.task.contextId !== null && task.contextId === null) task.contextId = fact.task.contextId;
        this.#startTask(task, fact.entry);
        for (const time of fact.times) this.#clock.report(time, fact.entry.at);
        if (fact.stream !== undefined && !task.terminal) task.streams.add(fact.stream);
        return;
      }
      case 'PausedSeen':
        this.#onPausedSeen(fact);
        return;
      case 'ResumeAnnounced':
        this.#onResumeAnnounced(fact);
        return;
      case 'StateSeen':
        this.#onStateSeen(fact);
        return;
      case 'WorkSeen': {
        const task = this.#task(fact.task.taskId);
        const open = task.open;
        if (open && open.caughtUp.has(fact.stream)) {
          this.#lose(task, open, {
            reason: 'pause_ignored',
            entry: fact.entry,
            at: fact.entry.at,
            message: `task ${task.taskId} delivered an artifact while PAUSED: the pause was ignored`,
          });
        }
        return;
      }
      case 'PauseAnswered': {
        const task = this.#task(fact.taskId);
        task.asked.delete(fact.xid);
        const left = task.pending.get(fact.xid);
        if (left) {
          task.pending.delete(fact.xid);
          this.#emit(
            endPending(left, {
              at: fact.entry.at,
              contextId: null,
              seq: left.call.seq,
              error: `task ${fact.taskId} cannot be paused in its state`,
            }),
          );
        }
        return;
      }
      case 'ResumeAnswered':
        this.#onResumeAnswered(fact);
        return;
      case 'CancelAnswered': {
        const task = this.#tasks.get(fact.taskId);
        const c = task?.closers.get(fact.xid);
        if (!task || !c) return;
        task.closers.delete(fact.xid);
        this.#touched.add(task);
        if (c.settled === undefined) {
          const error = fact.state === 'TASK_STATE_CANCELED' ? undefined : `CancelTask answered ${fact.state}`;
          c.resume = this.#emitStep(finishResume(c.resume, { at: fact.entry.at, attributes: {}, error }));
        }
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
          const task = this.#tasks.get(taskId);
          if (!task) continue;
          this.#touched.add(task);
          task.streams.delete(fact.xid);
          if (task.open && task.streams.size === 0) task.open = streamsEnded(task.open);
        }
        return;
      default: {
        const never: never = fact;
        return never;
      }
    }
  }

  #newCloser(
    kind: Closer['kind'],
    fact: Extract<Fact, { type: 'ResumeCalled' | 'CancelCalled' }>,
    target: SuspensionIdentity | undefined,
  ): Closer {
    const key = resumeKey(fact.entry.seq);
    const resume: ResumeSpan = {
      key,
      seq: fact.entry.seq,
      at: fact.entry.at,
      span: rootSpan(this.#ctx.recordingId, key),
      phase: 'unstarted',
    };
    const base = { xid: fact.xid, seq: fact.entry.seq, taskId: fact.taskId, principal: fact.principal, target, resume };
    return fact.type === 'ResumeCalled'
      ? {
          kind,
          ...base,
          tokenHash: fact.tokenHash,
          input: fact.input,
          hadInput: fact.input !== undefined,
          continueTranscript: fact.continueTranscript,
          settled: undefined,
        }
      : {
          kind,
          ...base,
          tokenHash: null,
          input: undefined,
          hadInput: false,
          continueTranscript: null,
          settled: undefined,
        };
  }

  #onPauseRequested(fact: Extract<Fact, { type: 'PauseRequested' }>): void {
    const task = this.#task(fact.taskId);
    // A pause call on a finished task opens nothing: the peer refuses it. On a paused task it is
    // kept aside: the peer answers with the pause in force (then it opens nothing), or, when that
    // pause ended unseen (its timeout reached), with the new pause the call made (#onPausedSeen).
    if (task.terminal) return;
    const peerBeforeMs = this.#clock.latestMs;
    if (task.open) {
      task.asked.set(fact.xid, { fact, peerBeforeMs });
      return;
    }
    task.pending.set(fact.xid, this.#requestPause(task, fact, peerBeforeMs));
  }

  /** The pending suspension of a pause call: its Suspension span starts at the call. */
  #requestPause(
    task: TaskRecord,
    fact: Extract<Fact, { type: 'PauseRequested' }>,
    peerBeforeMs: number,
  ): SuspensionPending {
    this.#startTask(task, fact.entry);
    const call = {
      xid: fact.xid,
      seq: fact.entry.seq,
      method: fact.method,
      mode: fact.mode,
      reason: fact.reason,
      principal: fact.principal,
      bodyRepaired: fact.bodyRepaired,
      peerBeforeMs,
    };
    return this.#emitStep(
      requestPause(this.#ctx, { task: this.#view(task), entry: fact.entry, call, parent: fact.parent }),
    );
  }

  #onResumeCalled(fact: Extract<Fact, { type: 'ResumeCalled' }>): void {
    const task = this.#task(fact.taskId);
    const target = this.#byToken(task, fact.tokenHash) ?? task.open ?? task.last;
    const c = this.#newCloser('resume', fact, target);
    task.closers.set(fact.xid, c);
    if (target) c.resume = this.#emitStep(startResume(c.resume, { suspension: target, principal: c.principal }));
  }

  #onPausedSeen(fact: Extract<Fact, { type: 'PausedSeen' }>): void {
    const task = this.#task(fact.task.taskId);
    if (task.terminal) return;
    const { entry, pause, origin } = fact;
    this.#clock.report(pause.pausedAt, entry.at);
    const tokenHash = tokenHashOf(pause.resumeToken);
    const known = this.#byToken(task, tokenHash);
    const asked = origin.kind === 'answer' ? task.asked.get(origin.xid) : undefined;
    if (asked) task.asked.delete(asked.fact.xid);
    // A call made while a pause was open that is answered with a new pause made it.
    const own =
      origin.kind === 'answer'
        ? (task.pending.get(origin.xid) ??
          (asked && !known ? this.#requestPause(task, asked.fact, asked.peerBeforeMs) : undefined))
        : undefined;
    if (known) {
      if (own) {
        task.pending.delete(own.call.xid);
        if (own.key !== known.key)
          this.#emit(endPending(own, { at: entry.at, contextId: task.contextId, seq: entry.seq }));
      }
      const open = task.open;
      if (open?.key !== known.key) return;
      const again = seenAgain(open, origin, entry);
      this.#setOpen(task, again);
      if (leasePassed(again, this.#clock.nowAt(entry.at))) {
        this.#lose(task, again, {
          reason: 'paused_until_passed',
          entry,
          at: entry.at,
          message: `task ${task.taskId} is still PAUSED after its pausedUntil ${again.pause.pausedUntil ?? ''} passed`,
        });
      }
      return;
    }
    const open = task.open;
    if (open) this.#onNewToken(task, open, fact);
    let pending = own ?? task.pending.values().next().value;
    if (pending && foundOnly(pending.call, pause)) {
      // The pause was in force before the call: the agent's own, proven as such; the call only
      // found it.
      task.pending.delete(pending.call.xid);
      this.#emit(endPending(pending, { at: entry.at, contextId: task.contextId, seq: entry.seq }));
      pending = undefined;
    }
    const proven = this.#emitStep(
      prove(this.#ctx, {
        task: this.#view(task),
        pending,
        entry,
        pause,
        legacy: fact.legacy,
        origin,
        parent: fact.parent,
      }),
    );
    if (pending) task.pending.delete(pending.call.xid);
    this.#setOpen(task, proven);
    task.last = { ...identityOf(proven), tokenHash: proven.pause.tokenHash };
  }

  /**
   * The task is PAUSED with a new token while `open` was never seen to end. Tokens are
   * consume-once, so the old pause did end: by what the recording proves (docs/design.md §14.3),
   * else it is lost as ignored.
   */
  #onNewToken(task: TaskRecord, open: SuspensionOpen, fact: Extract<Fact, { type: 'PausedSeen' }>): void {
    const { entry, origin } = fact;
    const consecutive = origin.kind === 'stream' && open.caughtUp.has(origin.xid);
    if (!consecutive) {
      const x = explainUnseenResume(open, this.#evidence(task, open, entry.at));
      if (x) {
        this.#close(task, {
          suspension: open,
          resume: this.#entryResume(entry, task, origin),
          closing: this.#inferred(open, x, { after: [entry.seq] }),
          entry,
        });
        return;
      }
    }
    this.#finding(
      'impossible-transition',
      entry.seq,
      'pause.resumeToken',
      `task ${task.taskId} is PAUSED again with a new resume token, but the pause ${open.key} was never seen to end`,
      task.taskId,
    );
    this.#lose(task, open, {
      reason: 'pause_ignored',
      entry,
      at: entry.at,
      message: `task ${task.taskId} left pause ${open.key} without an observed resume`,
    });
  }

  /** A snapshot decides how a pause ended only when no stream carries the task: a stream is the authority on order. */
  #authoritative(task: TaskRecord, origin: Origin): boolean {
    return origin.kind !== 'snapshot' || task.streams.size === 0;
  }

  #onResumeAnnounced(fact: Extract<Fact, { type: 'ResumeAnnounced' }>): void {
    const task = this.#task(fact.task.taskId);
    if (task.terminal) return;
    if (!this.#authoritative(task, fact.origin)) {
      if (task.open) this.#awaited.push(task.taskId);
      return;
    }
    const open = task.open;
    if (open && fact.origin.kind !== 'stream' && Date.parse(fact.signal.resumedAt) < Date.parse(open.pause.pausedAt)) {
      // Metadata of an earlier resume still on the task: it says nothing about this pause.
      const { entry, origin, field } = fact;
      const seen = { type: 'StateSeen', entry, task: fact.task, state: 'TASK_STATE_WORKING', origin, field } as const;
      this.#onLeftPause(task, open, { ...seen, timestamp: undefined });
      return;
    }
    if (open) {
      this.#onResumeSignal(task, open, fact.signal, fact.entry, fact.origin);
      return;
    }
    if (!task.last && task.resuming.length === 0) {
      this.#finding(
        'unmatched-resume',
        fact.entry.seq,
        `${fact.field}.metadata`,
        `task ${task.taskId} announces a resume, but no pause of it was observed`,
        task.taskId,
      );
    }
  }

  #onResumeSignal(task: TaskRecord, s: SuspensionOpen, signal: ResumeSignal, entry: EntryRef, origin: Origin): void {
    if (signal.cause === 'explicit_resume') {
      const candidates = this.#resumeCalls(task, s);
      const only = candidates.length === 1 ? candidates[0] : undefined;
      if (only) {
        const closing = closingOfCall(only, {
          cause: signal.cause,
          outcome: 'resumed',
          resumedAt: signal.resumedAt,
          entries: [only.seq, entry.seq],
        });
        this.#closeWithCall(task, { suspension: s, call: only, closing, entry });
        return;
      }
      if (candidates.length > 1) {
        // Racing resumes: the task left PAUSED, but which call won is told by the answers.
        const racing = race(s, {
          seq: entry.seq,
          at: entry.at,
          signal,
          candidates: new Set(candidates.map((c) => c.xid)),
        });
        this.#leaveOpen(task, s);
        task.resuming.push(racing);
        this.#resuming.set(racing.key, task.taskId);
        this.#awaited.push(task.taskId);
        return;
      }
    }
    this.#closeFromSignal(task, s, { signal, entry, entries: [entry.seq], origin });
  }

  /** ResumeTask calls in flight that may resume `s` (its token, or any when it has none). */
  #resumeCalls(task: TaskRecord, s: SuspensionLive): Closer[] {
    const tokenHash = s.pause.tokenHash;
    return [...task.closers.values()].filter(
      (c) => c.kind === 'resume' && c.settled === undefined && (tokenHash === null || c.tokenHash === tokenHash),
    );
  }

  /** A resume known only from the peer's announcement (no ResumeTask of ours won it). */
  #closeFromSignal(
    task: TaskRecord,
    s: SuspensionLive,
    args: { signal: ResumeSignal; entry: EntryRef; entries: number[]; origin?: Origin },
  ): void {
    const { signal, entry, entries, origin } = args;
    const control =
      signal.cause === 'explicit_resume'
        ? undefined
        : attributeAnnounced(s, signal.cause, this.#evidence(task, s, entry.at));
    const closing = closingOf({
      cause: signal.cause,
      outcome: 'resumed',
      principal: control?.principal ?? null,
      hadResumeInput: signal.hadResumeInput,
      continueTranscript: signal.continueTranscript,
      resumedAt: signal.resumedAt,
      entries: control ? [control.seq, ...entries] : entries,
    });
    const resume = origin ? this.#entryResume(entry, task, origin) : entryResumeSpan(this.#ctx, entry);
    this.#close(task, { suspension: s, resume, closing, entry });
  }

  #onStateSeen(fact: Extract<Fact, { type: 'StateSeen' }>): void {
    const task = this.#task(fact.task.taskId);
    if (task.terminal) return;
    if (!this.#authoritative(task, fact.origin)) {
      if (task.open) this.#awaited.push(task.taskId);
      return;
    }
    const open = task.open;
    if (open) this.#onLeftPause(task, open, fact);
    if (TERMINAL_STATES.has(fact.state)) this.#endTask(task, fact.entry);
  }

  /** The task is seen in a state other than PAUSED while `s` is open (docs/design.md §14.3). */
  #onLeftPause(task: TaskRecord, s: SuspensionOpen, fact: Extract<Fact, { type: 'StateSeen' }>): void {
    const { entry, origin, state, field } = fact;
    const onStream = origin.kind === 'stream';
    const caughtUp = !onStream || s.caughtUp.has(origin.xid);
    /** The transition out of PAUSED was seen as one step: the next state on a stream that delivered the pause. */
    const consecutive = onStream && caughtUp;
    switch (state) {
      case 'TASK_STATE_WORKING':
      case 'TASK_STATE_INPUT_REQUIRED':
      case 'TASK_STATE_AUTH_REQUIRED':
      case 'TASK_STATE_COMPLETED':
      case 'TASK_STATE_REJECTED': {
        const terminal = state === 'TASK_STATE_COMPLETED' || state === 'TASK_STATE_REJECTED';
        if (consecutive) {
          const message =
            state === 'TASK_STATE_WORKING'
              ? `task ${task.taskId} kept working while PAUSED`
              : terminal
                ? `task ${task.taskId} reached ${state} while PAUSED: the pause was ignored`
                : `task ${task.taskId} moved to ${state} while PAUSED without a resume`;
          this.#lose(task, s, { reason: 'pause_ignored', entry, at: entry.at, message });
          return;
        }
        // A stream that has not delivered the pause yet shows older news, unless the task ended:
        // then it was resumed unseen (a deadline reached, an event, a resume) or the pause was
        // ignored, which is what the recording's evidence decides, as for a poll (#inferEnd).
        if (onStream && !terminal) return;
        this.#inferEnd(task, s, state, entry, origin);
        return;
      }
      case 'TASK_STATE_CANCELED': {
        const closer =
          (origin.kind === 'answer' ? task.closers.get(origin.xid) : undefined) ??
          [...task.closers.values()].find((c) => c.kind === 'cancel' && c.settled === undefined);
        const closing = closingOf({
          cause: 'canceled',
          outcome: 'canceled',
          principal: closer?.principal ?? null,
          resumedAt: fact.timestamp ?? null,
          inferred: origin.kind === 'snapshot',
          entries: closer ? [closer.seq, entry.seq] : [entry.seq],
        });
        if (closer) this.#closeWithCall(task, { suspension: s, call: closer, closing, entry });
        else this.#close(task, { suspension: s, resume: this.#entryResume(entry, task, origin), closing, entry });
        return;
      }
      case 'TASK_STATE_FAILED': {
        const x = explainFailure(s, { timestamp: fact.timestamp }, this.#evidence(task, s, entry.at));
        const inferred = !consecutive && origin.kind !== 'answer';
        const closing = inferred
          ? this.#inferred(s, x, { after: [entry.seq], resumedAt: fact.timestamp ?? null })
          : closingOf({
              cause: x.cause,
              outcome: x.outcome,
              principal: x.principal,
              resumedAt: fact.timestamp ?? null,
              entries: [...x.entries, entry.seq],
            });
        this.#close(task, { suspension: s, resume: this.#entryResume(entry, task, origin), closing, entry });
        return;
      }
      case 'TASK_STATE_SUBMITTED':
      case 'TASK_STATE_UNSPECIFIED':
        if (caughtUp) {
          if (!onStream) {
            this.#finding(
              'impossible-transition',
              entry.seq,
              `${field}.status.state`,
              `task ${task.taskId} is ${state} while PAUSED: a task never returns to ${state}`,
              task.taskId,
            );
          }
          this.#lose(task, s, {
            reason: 'pause_ignored',
            entry,
            at: entry.at,
            message: `task ${task.taskId} moved to ${state} while PAUSED without a resume`,
          });
        }
        return;
      case 'TASK_STATE_PAUSED':
        return;
      default: {
        const never: never = state;
        return never;
      }
    }
  }

  /**
   * A snapshot shows the task past its pause, and no A2A message stated how it left PAUSED: the
   * end is inferred from what the recording proves (docs/design.md §14.3), or the pause is lost as
   * ignored when nothing can explain it. A ResumeTask still in flight will tell itself.
   */
  #inferEnd(task: TaskRecord, s: SuspensionOpen, state: TaskState, entry: EntryRef, origin: Origin): void {
    if (this.#resumeCalls(task, s).length > 0) {
      this.#awaited.push(task.taskId);
      return;
    }
    const x = explainUnseenResume(s, this.#evidence(task, s, entry.at));
    if (x) {
      this.#close(task, {
        suspension: s,
        resume: this.#entryResume(entry, task, origin),
        closing: this.#inferred(s, x, { after: [entry.seq] }),
        entry,
      });
      return;
    }
    const how = state === 'TASK_STATE_WORKING' ? 'is WORKING' : `is ${state}`;
    this.#lose(task, s, {
      reason: 'pause_ignored',
      entry,
      at: entry.at,
      message: `task ${task.taskId} ${how} and nothing in the recording can have resumed it`,
    });
  }

  #onResumeAnswered(fact: Extract<Fact, { type: 'ResumeAnswered' }>): void {
    const { entry, taskId } = fact;
    const task = this.#task(taskId);
    const closer = task.closers.get(fact.xid);
    task.closers.delete(fact.xid);
    this.#clock.report(fact.resumedAt, entry.at);
    if (!closer || closer.settled !== undefined) return; // the stream told first; this answer adds nothing
    const racing = task.resuming.find((r) => r.race.candidates.has(fact.xid));
    if (racing) {
      const closing = closingOfCall(closer, {
        cause: fact.cause,
        outcome: 'resumed',
        resumedAt: fact.resumedAt,
        entries: [closer.seq, racing.race.seq, entry.seq],
      });
      this.#closeWithCall(task, { suspension: racing, call: closer, closing, entry });
      return;
    }
    const s = task.open;
    if (!s) {
      this.#finding(
        'unmatched-resume',
        entry.seq,
        'body.result',
        `ResumeTask on task ${taskId} succeeded, but no open pause of it was observed`,
        taskId,
      );
      closer.resume = this.#emitStep(finishResume(closer.resume, { at: entry.at, attributes: {} }));
      return;
    }
    if (closer.tokenHash !== null && s.pause.tokenHash !== null && closer.tokenHash !== s.pause.tokenHash) {
      this.#finding(
        'unmatched-resume',
        entry.seq,
        'body.params.resumeToken',
        `ResumeTask on task ${taskId} succeeded with a token that is not the token of pause ${s.key}`,
        taskId,
      );
    }
    const closing = closingOfCall(closer, {
      cause: fact.cause,
      outcome: 'resumed',
      resumedAt: fact.resumedAt,
      entries: [closer.seq, entry.seq],
    });
    this.#closeWithCall(task, { suspension: s, call: closer, closing, entry });
  }

  #onCallFailed(fact: Extract<Fact, { type: 'CallFailed' }>): void {
    const task = this.#known(fact.taskId);
    if (!task) return;
    const { entry, code } = fact;
    if (code === RULE_ERRORS.TASK_NOT_FOUND && task.open) {
      this.#lose(task, task.open, {
        reason: 'task_gone',
        entry,
        at: entry.at,
        message: `${fact.method} on task ${task.taskId} answered -32001 (task not found) while it was PAUSED`,
      });
    }
    const closer = task.closers.get(fact.xid);
    if (closer) {
      task.closers.delete(fact.xid);
      if (fact.unreadable)
        closer.resume = this.#emitStep(finishResume(closer.resume, { at: entry.at, attributes: {}, error: fact.why }));
      else this.#closerFailed(task, closer, entry, code);
    }
    task.asked.delete(fact.xid);
    const pending = task.pending.get(fact.xid);
    if (pending) {
      task.pending.delete(fact.xid);
      this.#emit(endPending(pending, { at: entry.at, contextId: null, seq: pending.call.seq, error: fact.why }));
    }
  }

  #closerFailed(task: TaskRecord, closer: Closer, entry: EntryRef, code: number | undefined): void {
    const rejectable =
      closer.kind === 'resume' &&
      (code === RULE_ERRORS.RESUME_TOKEN_MISMATCH || code === RULE_ERRORS.INVALID_TASK_STATE);
    const target = rejectable
      ? (this.#byToken(task, closer.tokenHash) ?? closer.target ?? task.open ?? task.last)
      : undefined;
    if (target && code !== undefined) {
      const closing = closingOfCall(closer, {
        cause: 'explicit_resume',
        outcome: 'rejected',
        resumedAt: null,
        entries: [closer.seq, entry.seq],
        errorCode: code,
      });
      this.#closeWithCall(task, { suspension: target, call: closer, closing, entry });
    } else {
      const what = closer.kind === 'resume' ? 'ResumeTask' : 'CancelTask';
      const error = code === undefined ? `${what} got no answer` : `${what} failed with ${code}`;
      closer.resume = this.#emitStep(finishResume(closer.resume, { at: entry.at, attributes: {}, error }));
    }
    // A loser of a resume race is out; the last candidate standing won.
    for (const s of [...task.resuming]) {
      if (!s.race.candidates.has(closer.xid)) continue;
      const candidates = new Set([...s.race.candidates].filter((xid) => xid !== closer.xid));
      const updated: SuspensionResuming = { ...s, race: { ...s.race, candidates } };
      task.resuming = task.resuming.map((x) => (x.key === s.key ? updated : x));
      const at = { seq: s.race.seq, at: s.race.at };
      if (candidates.size === 1) {
        const [xid] = candidates;
        const winner = xid === undefined ? undefined : task.closers.get(xid);
        if (winner) {
          const closing = closingOfCall(winner, {
            cause: updated.race.signal.cause,
            outcome: 'resumed',
            resumedAt: updated.race.signal.resumedAt,
            entries: [winner.seq, updated.race.seq],
          });
          this.#closeWithCall(task, { suspension: updated, call: winner, closing, entry: at });
        }
      } else if (candidates.size === 0) {
        this.#closeFromSignal(task, updated, { signal: updated.race.signal, entry: at, entries: [updated.race.seq] });
      }
    }
  }

  #onControlAnswered(fact: Extract<Fact, { type: 'ControlAnswered' }>): void {
    const { entry, call } = fact;
    if (fact.now !== undefined) {
      this.#clock.report(fact.now, entry.at);
      this.#deadlinesDue(call, entry);
    }
    if (fact.resumed === undefined) return;
    for (const taskId of new Set(fact.resumed)) {
      const task = this.#known(taskId);
      const s = task?.open;
      if (task && s) {
        const x = causeOfFire(s, call);
        this.#close(task, {
          suspension: s,
          resume: this.#entryResume(entry, task, undefined),
          closing: this.#inferred(s, x, { after: [entry.seq] }),
          entry,
        });
      } else if (!task?.last) {
        this.#finding(
          'unmatched-resume',
          entry.seq,
          'body.result.resumed',
          `FireEvent ${JSON.stringify(call.name ?? '')} resumed task ${taskId}, but no pause of it was observed`,
          taskId,
        );
      }
    }
  }

  /** The peer's clock moved: every open pause whose deadline it reached gets that proof (docs/design.md §14.4). */
  #deadlinesDue(call: ControlCall, entry: EntryRef): void {
    const now = this.#clock.latestMs;
    if (Number.isNaN(now)) return;
    for (const due of this.#deadlines.popDue(now)) {
      const task = this.#tasks.get(due.item.taskId);
      const s = task?.open;
      if (!task || s?.key !== due.item.key) continue;
      this.#touched.add(task);
      const next = deadlineReached(s, {
        which: due.item.which,
        entries: [call.seq, entry.seq],
        principal: call.method === 'AdvanceClock' ? call.principal : null,
        seq: entry.seq,
        at: entry.at,
      });
      task.open = next;
    }
  }
}

function endedKey(taskId: string, tokenHash: string): string {
  return `${taskId}\n${tokenHash}`;
}

function identityOf(s: SuspensionIdentity): SuspensionIdentity {
  return { key: s.key, taskId: s.taskId, openSeq: s.openSeq, openAt: s.openAt, span: s.span, parent: s.parent };
}
