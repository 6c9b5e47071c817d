/**
 * @module observe/observer-store
 * What the PauseObserver keeps (docs/design.md §14.1, §14.6) and the state changes the rules of
 * `observe/rules` ask for: tasks by id and each task's suspensions by state (`open`, `resuming`,
 * `pending`, `kept-aside`), ended pauses by token, the peer-clock deadline heap, control calls by
 * event name and task. Rules decide; the store applies a decision through the actions port it
 * implements (`observe/pause-actions`), moving a suspension from one container to the next and
 * keeping the indexes true, and stamps every verdict it emits with the id of the rule firing
 * (docs/design.md §14.8). Every field is its own. No clock, no randomness, no I/O.
 */
import type { OutsideSuspension } from '../receipts/types.js';
import type { CarriedSuspension, FiredRule, ObservedTask } from './observed-task.js';
import type { SpanEvent } from '../tracing/span-events.js';
import type { LostPauseReason } from './lost-pause-reasons.js';
import { BoundedMap } from '../bounded-map.js';
import { DeadlineHeap } from './deadline-heap.js';
import { newCloser } from './closer-call.js';
import { stamped } from './verdict-stamp.js';
import { FireAnswers } from './fire-answers.js';
import type { ControlCall, EntryRef, Fact } from './fact.js';
import type { FindingCode, ObserverFinding } from './findings.js';
import { type Evidence } from './explanations.js';
import type { PauseActions } from './pause-actions.js';
import {
  type RuleContext,
  type TaskView,
  carriedOpen,
  closedBy,
  deadlinesOf,
  finishResume,
  lose,
  outsideResumption,
  requestPause,
  resumption,
  startResume,
} from './lifecycle.js';
import { rootSpan, taskAttributes, taskSpanKey } from './observer-spans.js';
import { PeerClock } from './peer-clock.js';
import type {
  Closer,
  Closing,
  ObserverOutput,
  ResumeSpan,
  SuspensionEnded,
  SuspensionIdentity,
  SuspensionKeptAside,
  SuspensionLive,
  SuspensionOpen,
  SuspensionPending,
  SuspensionResuming,
} from './suspension.js';

/** A finished task, remembered so late sightings of it are recognised. */
interface RetiredTask {
  contextId: string | null;
  last: ObservedTask['last'];
}

export interface DeadlineItem {
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

export class ObserverStore implements PauseActions {
  readonly #ctx: RuleContext;
  readonly #tasks = new Map<string, ObservedTask>();
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
  readonly #fireAnswers = new FireAnswers(CONTROL_MEMORY);
  #advance: ControlCall | undefined;
  readonly #clock = new PeerClock();
  readonly #touched = new Set<ObservedTask>();
  /** Tasks the entry observed last showed past a pause that only a later entry can receipt. */
  readonly #awaited: string[] = [];
  /** Rules fired by the entry observed last (or by `finish`). */
  readonly #fired: FiredRule[] = [];
  #out: ObserverOutput[] = [];
  /** The rules firing, innermost last: the last one names the verdicts emitted now. */
  readonly #firing: string[] = [];

  constructor(ctx: RuleContext) {
    this.#ctx = ctx;
  }

  get ctx(): RuleContext {
    return this.#ctx;
  }

  // ---- one entry (or the end) at a time ----

  /** What is emitted from now on goes to `out`; the rules fired and the tasks awaited start afresh. */
  begin(out: ObserverOutput[]): void {
    this.#out = out;
    this.#fired.length = 0;
    if (this.#awaited.length > 0) this.#awaited.length = 0;
  }

  /** The entry is done: each finished task it touched that nothing can still refer to is retired. */
  end(): void {
    for (const task of this.#touched) this.#maybeRetire(task);
    this.#touched.clear();
  }

  /** Pauses carried in before the first entry touch nothing an entry retires. */
  untouch(): void {
    this.#touched.clear();
  }

  /** Tasks the entry observed last showed past a pause that only a later entry can receipt. */
  get awaited(): readonly string[] {
    return this.#awaited;
  }

  /** Rules fired by the entry observed last (or by `finish`), in firing order. */
  get fired(): readonly FiredRule[] {
    return this.#fired;
  }

  awaitLater(task: ObservedTask): void {
    this.#awaited.push(task.taskId);
  }

  /** What the store holds (docs/design.md §14.6). */
  sizes() {
    return {
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

  // ---- the peer's clock ----

  /** The peer stated `time` in an entry at `at`. */
  reportTime(time: string, at: string): void {
    this.#clock.report(time, at);
  }

  nowAt(at: string): number {
    return this.#clock.nowAt(at);
  }

  peerNowMs(): number {
    return this.#clock.latestMs;
  }

  /** The deadlines of open pauses the peer's clock has reached now, each once, earliest first. */
  dueDeadlines(): readonly DeadlineItem[] {
    const now = this.#clock.latestMs;
    return Number.isNaN(now) ? [] : this.#deadlines.popDue(now).map((d) => d.item);
  }

  // ---- rules ----

  /** Runs `apply` as rule `rule`: what it emits names the rule; the firing is recorded. */
  firing(fired: FiredRule, apply: () => void): void {
    this.#fired.push(fired);
    this.#firing.push(fired.rule);
    try {
      apply();
    } finally {
      this.#firing.pop();
    }
  }

  // ---- outputs ----

  /** Receipt drafts take their task's binding (docs/design.md §15); verdicts name their rule. */
  emit(outputs: readonly ObserverOutput[]): void {
    const rule = this.#firing.at(-1);
    const spans = this.#ctx.spans !== false;
    for (const o of outputs) {
      if (o.type === 'span' && !spans) continue;
      this.#out.push(rule === undefined ? this.#bound(o) : stamped(this.#bound(o), rule));
    }
  }

  #bound(o: ObserverOutput): ObserverOutput {
    if (o.type === 'interruption' || o.type === 'continuation') return o;
    if (o.type !== 'suspension' && o.type !== 'resumption') return o;
    const binding = this.#tasks.get(o.draft.taskId)?.binding;
    if (binding === undefined || binding === o.draft.binding) return o;
    return o.type === 'suspension'
      ? { ...o, draft: { ...o.draft, binding } }
      : { ...o, draft: { ...o.draft, binding } };
  }

  emitStep<S>(step: { next: S; out: ObserverOutput[] }): S {
    this.emit(step.out);
    return step.next;
  }

  span(event: SpanEvent): void {
    if (this.#ctx.spans !== false) this.#out.push({ type: 'span', event });
  }

  finding(code: FindingCode, seq: number | null, field: string, message: string, taskId?: string): void {
    const finding: ObserverFinding = { code, seq, field, message };
    if (taskId !== undefined) finding.taskId = taskId;
    this.#out.push({ type: 'finding', finding });
  }

  // ---- calls ----

  /** A ResumeTask / CancelTask request: a call in flight that may close a pause; its Resume span starts. */
  closerCalled(fact: Extract<Fact, { type: 'ResumeCalled' | 'CancelCalled' }>): void {
    const task = this.task(fact.taskId);
    task.binding = fact.binding;
    // A resume is aimed by its token, never by order: a token that names no pause of this recording
    // aims at a pause outside it, not at the one open here (docs/design.md §14.3).
    const target =
      fact.type === 'ResumeCalled'
        ? fact.tokenHash === null
          ? (task.open ?? task.last)
          : this.byToken(task, fact.tokenHash)
        : task.open;
    const c = newCloser(this.#ctx.recordingId, fact, target);
    task.closers.set(fact.xid, c);
    const caller = fact.type === 'ResumeCalled' ? fact.parent : undefined;
    if (target) c.resume = this.emitStep(startResume(c.resume, { suspension: target, principal: c.principal, caller }));
  }

  /** A control call indexed as evidence (latest AdvanceClock, FireEvent); an answer's `resumed` (fire-answers). */
  controlCalled(call: ControlCall, resumed?: readonly string[]): void {
    if (resumed !== undefined) this.#fireAnswers.answered(call, resumed);
    else if (call.method === 'AdvanceClock') this.#advance = call;
    else if (call.method === 'FireEvent') {
      this.#fireAny = call;
      if (call.name !== undefined) this.#fireByName.set(call.name, call);
      if (call.payloadTaskId !== undefined) this.#fireByTask.set(call.payloadTaskId, call);
    }
  }

  // ---- tasks ----

  task(taskId: string): ObservedTask {
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
        keptAside: new Map(),
        closers: new Map(),
        binding: 'JSONRPC',
        outsideResume: undefined,
      };
      this.#tasks.set(taskId, task);
    }
    this.#touched.add(task);
    return task;
  }

  /** The task, when the observer follows it now (not retired), without touching it. */
  followed(taskId: string): ObservedTask | undefined {
    return this.#tasks.get(taskId);
  }

  /** Whether the observer follows the task or remembers it finished. */
  isKnown(taskId: string): boolean {
    return this.#tasks.has(taskId) || this.#retired.has(taskId);
  }

  /** The entry concerns `task`: it may retire once the entry is done. */
  touch(task: ObservedTask): void {
    this.#touched.add(task);
  }

  /** Every task followed now, in the order it was first seen. */
  followedTasks(): IterableIterator<ObservedTask> {
    return this.#tasks.values();
  }

  /** The open and the resuming pauses as indexed now (key, task id), each in its order. */
  liveIndex(): { open: Array<[string, string]>; resuming: Array<[string, string]> } {
    return { open: [...this.#open], resuming: [...this.#resuming] };
  }

  /** A task was shown (docs/design.md §14.1): its binding, context, span, the times it stated, its stream. */
  taskSeen(fact: Extract<Fact, { type: 'TaskSeen' }>): void {
    const task = this.task(fact.task.taskId);
    task.binding = fact.binding;
    if (fact.task.contextId !== null && task.contextId === null) task.contextId = fact.task.contextId;
    this.startTask(task, fact.entry);
    for (const time of fact.times) this.#clock.report(time, fact.entry.at);
    if (fact.stream !== undefined && !task.terminal) task.streams.add(fact.stream);
  }

  /** A pause call: its task takes the call's binding when followed already. */
  pauseCalled(fact: Extract<Fact, { type: 'PauseRequested' }>): ObservedTask {
    const known = this.#tasks.get(fact.taskId);
    if (known) known.binding = fact.binding;
    return this.task(fact.taskId);
  }

  /** The resume or cancel call `xid` on `task` is answered (or failed): it leaves the calls in flight. */
  takeCall(task: ObservedTask, xid: string): Closer | undefined {
    const closer = task.closers.get(xid);
    task.closers.delete(xid);
    return closer;
  }

  /** A stream that carried `task` ended. */
  streamEnded(task: ObservedTask, xid: string): void {
    this.#touched.add(task);
    task.streams.delete(xid);
  }

  /** The end of the recording: every task span still open ends (docs/design.md §14.5). */
  endSpans(at: string): void {
    for (const task of this.#tasks.values()) {
      if (task.spanPhase !== 'started') continue;
      task.spanPhase = 'ended';
      this.span({
        type: 'task.end',
        key: taskSpanKey(task.taskId),
        at,
        attributes: taskAttributes(task.taskId, task.contextId, null),
      });
    }
  }

  /** A known task (followed or retired), without creating one. */
  known(taskId: string): ObservedTask | undefined {
    return this.#tasks.has(taskId) || this.#retired.has(taskId) ? this.task(taskId) : undefined;
  }

  /** A finished task nothing can still refer to is dropped; a bounded memory keeps its context and last pause. */
  #maybeRetire(task: ObservedTask): void {
    if (!task.terminal || task.open || task.resuming.length > 0) return;
    if (task.pending.size > 0 || task.closers.size > 0 || task.streams.size > 0) return;
    if (this.#tasks.get(task.taskId) !== task) return;
    this.#tasks.delete(task.taskId);
    this.#retired.set(task.taskId, { contextId: task.contextId, last: task.last });
  }

  startTask(task: ObservedTask, entry: EntryRef): void {
    if (task.spanPhase !== 'unstarted') return;
    task.spanPhase = 'started';
    this.span({
      type: 'task.start',
      key: taskSpanKey(task.taskId),
      taskId: task.taskId,
      at: entry.at,
      span: task.span,
      attributes: taskAttributes(task.taskId, task.contextId, entry.seq),
    });
  }

  endTask(task: ObservedTask, entry: { seq: number | null; at: string }): void {
    task.terminal = true;
    if (task.spanPhase !== 'started') return;
    task.spanPhase = 'ended';
    this.span({
      type: 'task.end',
      key: taskSpanKey(task.taskId),
      at: entry.at,
      attributes: taskAttributes(task.taskId, task.contextId, entry.seq),
    });
  }

  // ---- suspensions: lookups and state changes ----

  /**
   * Opens a pause an earlier recording proved (see {@link CarriedSuspension}): its evidence is that
   * recording's, so its seqs are 0 (before every entry of this one) and no span starts for it.
   * Its task must not hold a pause yet.
   */
  carry(c: CarriedSuspension): void {
    const task = this.task(c.taskId);
    if (task.open || task.resuming.length > 0)
      throw new Error(`task ${c.taskId} already holds an open pause: one pause per task is carried`);
    if (c.contextId !== null) task.contextId = c.contextId;
    task.binding = c.binding;
    const s = carriedOpen(c, task.span);
    this.setOpen(task, s);
    this.setLast(task, s);
  }

  /** The suspension of `task` whose token hashes to `tokenHash`: live, or recently ended. */
  byToken(task: ObservedTask, tokenHash: string | null): SuspensionIdentity | undefined {
    if (tokenHash === null) return undefined;
    if (task.open?.pause.tokenHash === tokenHash) return task.open;
    const resuming = task.resuming.find((r) => r.pause.tokenHash === tokenHash);
    if (resuming) return resuming;
    return this.#ended.get(endedKey(task.taskId, tokenHash));
  }

  /** ResumeTask calls in flight that may resume `s` (its token, or any when it has none). */
  resumeCalls(task: ObservedTask, s: SuspensionLive): Closer[] {
    const tokenHash = s.pause.tokenHash;
    return [...task.closers.values()].filter(
      (c) => c.kind === 'resume' && c.settled === undefined && (tokenHash === null || c.tokenHash === tokenHash),
    );
  }

  setOpen(task: ObservedTask, s: SuspensionOpen): void {
    const before = task.open;
    task.open = s;
    if (before?.key === s.key) return;
    this.#open.set(s.key, task.taskId);
    for (const d of deadlinesOf(s)) this.#deadlines.push(d.ms, { key: s.key, taskId: task.taskId, which: d.which });
  }

  /** `s` is no longer open (it ended or races): its index entries go. */
  leaveOpen(task: ObservedTask, s: SuspensionOpen): void {
    if (task.open?.key === s.key) task.open = undefined;
    this.#open.delete(s.key);
    const n = deadlinesOf(s).length - s.reached.length;
    if (n > 0) this.#deadlines.retire(n);
  }

  setLast(task: ObservedTask, s: SuspensionOpen): void {
    const { key, taskId, openSeq, openAt, span, parent } = s;
    task.last = { key, taskId, openSeq, openAt, span, parent, tokenHash: s.pause.tokenHash };
  }

  pend(task: ObservedTask, s: SuspensionPending): void {
    task.pending.set(s.call.xid, s);
  }

  keepAside(task: ObservedTask, s: SuspensionKeptAside): void {
    task.keptAside.set(s.xid, s);
  }

  dropCall(task: ObservedTask, xid: string): void {
    task.pending.delete(xid);
    task.keptAside.delete(xid);
  }

  narrowRace(task: ObservedTask, s: SuspensionResuming): void {
    task.resuming = task.resuming.map((x) => (x.key === s.key ? s : x));
  }

  endCallSpan(call: Closer, at: string, error: string | undefined): void {
    call.resume = this.emitStep(finishResume(call.resume, { at, attributes: {}, error }));
  }

  /** `s` races: it leaves `open` for `resuming`. */
  startRace(task: ObservedTask, s: SuspensionOpen, racing: SuspensionResuming): void {
    this.leaveOpen(task, s);
    task.resuming.push(racing);
    this.#resuming.set(racing.key, task.taskId);
  }

  /** The pending suspension of a pause call: its Suspension span starts at the call. */
  requestPause(
    task: ObservedTask,
    fact: Extract<Fact, { type: 'PauseRequested' }>,
    peerBeforeMs: number,
  ): SuspensionPending {
    this.startTask(task, fact.entry);
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
    return this.emitStep(requestPause(this.#ctx, { task: viewOf(task), entry: fact.entry, call, parent: fact.parent }));
  }

  /** Emits a resumption for `suspension` with its resume span; closes it unless the outcome is `rejected`. */
  close(
    task: ObservedTask,
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
      if (live.state === 'open') this.leaveOpen(task, live);
      else {
        task.resuming = task.resuming.filter((x) => x.key !== live.key);
        this.#resuming.delete(live.key);
      }
      this.#remember(closedBy(live, r.key));
    }
    return this.emitStep(resumption({ s, resume: r, closing, entry }));
  }

  #liveOf(task: ObservedTask, key: string): SuspensionLive | undefined {
    if (task.open?.key === key) return task.open;
    return task.resuming.find((x) => x.key === key);
  }

  #remember(ended: SuspensionEnded): void {
    if (ended.tokenHash !== null) this.#ended.set(endedKey(ended.taskId, ended.tokenHash), ended);
  }

  /** Closes `suspension` with the call `call`: the call's resume span carries the resumption. */
  closeWithCall(
    task: ObservedTask,
    args: { suspension: SuspensionIdentity; call: Closer; closing: Closing; entry: { seq: number | null; at: string } },
  ): void {
    const { call, closing } = args;
    call.resume = this.close(task, { ...args, resume: call.resume });
    if (closing.outcome !== 'rejected') call.settled = args.suspension.key;
  }

  /**
   * A resume of a pause that began outside this recording (docs/design.md §17): a ResumptionReceipt
   * naming the pause by its identity; the task remembers it so a later sighting adds nothing.
   */
  closeOutside(
    task: ObservedTask,
    args: { outside: OutsideSuspension; resume: ResumeSpan; closing: Closing; entry: EntryRef; call?: Closer },
  ): void {
    const { call, ...rest } = args;
    task.outsideResume = { resumedAt: args.closing.resumedAt, seq: args.entry.seq };
    const resume = this.emitStep(outsideResumption({ taskId: task.taskId, ...rest }));
    if (call) {
      call.resume = resume;
      call.settled = `outside:${resume.key}`;
    }
  }

  lose(
    task: ObservedTask,
    s: SuspensionOpen,
    args: { reason: LostPauseReason; entry: EntryRef | null; at: string; message?: string },
  ): void {
    this.leaveOpen(task, s);
    const { reason, entry, at, message } = args;
    const step = lose(this.#ctx, {
      s,
      reason,
      seq: entry?.seq ?? null,
      at,
      ...(message === undefined ? {} : { message }),
    });
    this.#remember(this.emitStep(step));
  }

  evidence(task: ObservedTask, s: SuspensionLive, at: string): Evidence {
    const onEvent = s.pause.conditions?.onEvent;
    const fireByName =
      onEvent === undefined ? undefined : this.#fireAnswers.evidenceFor(this.#fireByName.get(onEvent), task.taskId);
    return { ...this.outsideEvidence(task.taskId, at), fireByName };
  }

  /** The latest FireEvent call whose payload named the task. */
  controlOnTask(taskId: string): ControlCall | undefined {
    return this.#fireByTask.get(taskId);
  }

  outsideEvidence(taskId: string, at: string): Evidence {
    return {
      fireByName: undefined,
      fireByTask: this.#fireAnswers.evidenceFor(this.#fireByTask.get(taskId), taskId),
      fireAny: this.#fireAnswers.evidenceFor(this.#fireAny, taskId),
      advance: this.#advance,
      now: this.#clock.nowAt(at),
    };
  }
}

/** What the lifecycle steps read of a task. */
const viewOf = (task: ObservedTask): TaskView => ({ taskId: task.taskId, contextId: task.contextId, span: task.span });

export function endedKey(taskId: string, tokenHash: string): string {
  return `${taskId}\n${tokenHash}`;
}
