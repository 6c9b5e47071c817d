/**
 * @module observe/observer-store
 * What the PauseObserver keeps (docs/design.md §14.1, §14.6) and the state changes the rules of
 * `observe/rules` ask for: tasks by id and each task's suspensions by state (`open`, `resuming`,
 * `pending`, `kept-aside`), ended pauses by token, the peer-clock deadline heap, control calls by
 * event name and task. Rules decide; the store applies a decision (moving a suspension from one
 * container to the next and keeping the indexes true) and stamps every verdict it emits with the id
 * of the rule firing (docs/design.md §14.8). No clock, no randomness, no I/O.
 */
import type { OutsideSuspension } from '../receipts/types.js';
import type { CarriedSuspension, FiredRule, ObservedTask, OpenSuspension } from './observed-task.js';
import { ATTR_RULE } from '../tracing/attributes.js';
import type { LostPauseReason, SpanEvent } from '../tracing/span-events.js';
import { BoundedMap } from '../bounded-map.js';
import { DeadlineHeap } from './deadline-heap.js';
import type { ControlCall, EntryRef, Fact, Origin } from './fact.js';
import type { FindingCode, ObserverFinding } from './findings.js';
import { type Evidence, type Explanation, attributeAnnounced } from './explanations.js';
import {
  type RuleContext,
  type TaskView,
  carriedOpen,
  closedBy,
  closingOf,
  deadlinesOf,
  entryResumeSpan,
  lose,
  outsideResumption,
  requestPause,
  resumption,
  startResume,
} from './lifecycle.js';
import { resumeKey, rootSpan, taskAttributes, taskSpanKey } from './observer-spans.js';
import { PeerClock } from './peer-clock.js';
import type { ResumeSignal } from './sightings.js';
import type {
  Closer,
  Closing,
  ObserverOutput,
  ResumeSpan,
  SuspensionEnded,
  SuspensionIdentity,
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

export class ObserverStore {
  readonly ctx: RuleContext;
  readonly tasks = new Map<string, ObservedTask>();
  readonly retired = new BoundedMap<string, RetiredTask>(RETIRED_MEMORY);
  readonly ended = new BoundedMap<string, SuspensionEnded>(ENDED_MEMORY);
  /** Open suspensions (key → task id), in the order they were proven. */
  readonly open = new Map<string, string>();
  /** Resuming suspensions (key → task id), in the order their race began. */
  readonly resuming = new Map<string, string>();
  readonly deadlines = new DeadlineHeap<DeadlineItem>((d) => this.tasks.get(d.taskId)?.open?.key === d.key);
  readonly fireByName = new BoundedMap<string, ControlCall>(CONTROL_MEMORY);
  readonly fireByTask = new BoundedMap<string, ControlCall>(CONTROL_MEMORY);
  fireAny: ControlCall | undefined;
  /** The tasks each answered FireEvent resumed, by the call's seq: the peer's word on what it ended. */
  readonly #fired = new BoundedMap<number, ReadonlySet<string>>(CONTROL_MEMORY);
  advance: ControlCall | undefined;
  readonly clock = new PeerClock();
  readonly touched = new Set<ObservedTask>();
  /** Tasks the entry observed last showed past a pause that only a later entry can receipt. */
  readonly awaited: string[] = [];
  /** Rules fired by the entry observed last (or by `finish`). */
  readonly fired: FiredRule[] = [];
  out: ObserverOutput[] = [];
  /** The rules firing, innermost last: the last one names the verdicts emitted now. */
  readonly #firing: string[] = [];

  constructor(ctx: RuleContext) {
    this.ctx = ctx;
  }

  // ---- rules ----

  /** Runs `apply` as rule `rule`: what it emits names the rule; the firing is recorded. */
  firing(fired: FiredRule, apply: () => void): void {
    this.fired.push(fired);
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
    const spans = this.ctx.spans !== false;
    for (const o of outputs) {
      if (o.type === 'span' && !spans) continue;
      this.out.push(rule === undefined ? this.#bound(o) : stamped(this.#bound(o), rule));
    }
  }

  #bound(o: ObserverOutput): ObserverOutput {
    if (o.type === 'interruption' || o.type === 'continuation') return o;
    if (o.type !== 'suspension' && o.type !== 'resumption') return o;
    const binding = this.tasks.get(o.draft.taskId)?.binding;
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
    if (this.ctx.spans !== false) this.out.push({ type: 'span', event });
  }

  finding(code: FindingCode, seq: number | null, field: string, message: string, taskId?: string): void {
    const finding: ObserverFinding = { code, seq, field, message };
    if (taskId !== undefined) finding.taskId = taskId;
    this.out.push({ type: 'finding', finding });
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
    const c = this.#newCloser(fact, target);
    task.closers.set(fact.xid, c);
    const caller = fact.type === 'ResumeCalled' ? fact.parent : undefined;
    if (target) c.resume = this.emitStep(startResume(c.resume, { suspension: target, principal: c.principal, caller }));
  }

  /** A control call is indexed as evidence: the latest AdvanceClock, FireEvent by name and task. */
  controlCalled(call: ControlCall): void {
    if (call.method === 'AdvanceClock') this.advance = call;
    else if (call.method === 'FireEvent') {
      this.fireAny = call;
      if (call.name !== undefined) this.fireByName.set(call.name, call);
      if (call.payloadTaskId !== undefined) this.fireByTask.set(call.payloadTaskId, call);
    }
  }

  /** A FireEvent's answer listed the tasks it resumed (`resumed`), and no other. */
  fireAnswered(call: ControlCall, resumed: readonly string[]): void {
    if (call.method === 'FireEvent') this.#fired.set(call.seq, new Set(resumed));
  }

  /**
   * `call` as evidence of an end of `taskId`'s pause: a FireEvent whose answer listed other tasks
   * only did not resume it, whatever came after (docs/design.md §14.3); undefined then.
   */
  fireFor(call: ControlCall | undefined, taskId: string): ControlCall | undefined {
    if (call === undefined) return undefined;
    const resumed = this.#fired.get(call.seq);
    return resumed === undefined || resumed.has(taskId) ? call : undefined;
  }

  #newCloser(
    fact: Extract<Fact, { type: 'ResumeCalled' | 'CancelCalled' }>,
    target: SuspensionIdentity | undefined,
  ): Closer {
    const key = resumeKey(fact.entry.seq);
    const resume: ResumeSpan = {
      key,
      seq: fact.entry.seq,
      at: fact.entry.at,
      span: rootSpan(this.ctx.recordingId, key),
      phase: 'unstarted',
    };
    const base = { xid: fact.xid, seq: fact.entry.seq, taskId: fact.taskId, principal: fact.principal, target, resume };
    return fact.type === 'ResumeCalled'
      ? {
          kind: 'resume',
          ...base,
          tokenHash: fact.tokenHash,
          input: fact.input,
          hadInput: fact.input !== undefined,
          continueTranscript: fact.continueTranscript,
          settled: undefined,
        }
      : {
          kind: 'cancel',
          ...base,
          tokenHash: null,
          input: undefined,
          hadInput: false,
          continueTranscript: null,
          settled: undefined,
        };
  }

  // ---- tasks ----

  task(taskId: string): ObservedTask {
    let task = this.tasks.get(taskId);
    if (!task) {
      const retired = this.retired.get(taskId);
      if (retired) this.retired.delete(taskId);
      task = {
        taskId,
        contextId: retired?.contextId ?? null,
        span: rootSpan(this.ctx.recordingId, taskSpanKey(taskId)),
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
      this.tasks.set(taskId, task);
    }
    this.touched.add(task);
    return task;
  }

  /** A known task (followed or retired), without creating one. */
  known(taskId: string): ObservedTask | undefined {
    return this.tasks.has(taskId) || this.retired.has(taskId) ? this.task(taskId) : undefined;
  }

  view(task: ObservedTask): TaskView {
    return { taskId: task.taskId, contextId: task.contextId, span: task.span };
  }

  /** A finished task nothing can still refer to is dropped; a bounded memory keeps its context and last pause. */
  maybeRetire(task: ObservedTask): void {
    if (!task.terminal || task.open || task.resuming.length > 0) return;
    if (task.pending.size > 0 || task.closers.size > 0 || task.streams.size > 0) return;
    if (this.tasks.get(task.taskId) !== task) return;
    this.tasks.delete(task.taskId);
    this.retired.set(task.taskId, { contextId: task.contextId, last: task.last });
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

  /** Pauses observed and not ended, in the order they were proven. */
  openSuspensions(): OpenSuspension[] {
    const list: OpenSuspension[] = [];
    for (const [key, taskId] of this.open) {
      const task = this.tasks.get(taskId);
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
    const { key, taskId, openSeq, openAt, span, parent } = s;
    task.last = { key, taskId, openSeq, openAt, span, parent, tokenHash: s.pause.tokenHash };
  }

  /** The suspension of `task` whose token hashes to `tokenHash`: live, or recently ended. */
  byToken(task: ObservedTask, tokenHash: string | null): SuspensionIdentity | undefined {
    if (tokenHash === null) return undefined;
    if (task.open?.pause.tokenHash === tokenHash) return task.open;
    const resuming = task.resuming.find((r) => r.pause.tokenHash === tokenHash);
    if (resuming) return resuming;
    return this.ended.get(endedKey(task.taskId, tokenHash));
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
    this.open.set(s.key, task.taskId);
    for (const d of deadlinesOf(s)) this.deadlines.push(d.ms, { key: s.key, taskId: task.taskId, which: d.which });
  }

  /** `s` is no longer open (it ended or races): its index entries go. */
  leaveOpen(task: ObservedTask, s: SuspensionOpen): void {
    if (task.open?.key === s.key) task.open = undefined;
    this.open.delete(s.key);
    const n = deadlinesOf(s).length - s.reached.length;
    if (n > 0) this.deadlines.retire(n);
  }

  /** `s` races: it leaves `open` for `resuming`. */
  startRace(task: ObservedTask, s: SuspensionOpen, racing: SuspensionResuming): void {
    this.leaveOpen(task, s);
    task.resuming.push(racing);
    this.resuming.set(racing.key, task.taskId);
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
    return this.emitStep(
      requestPause(this.ctx, { task: this.view(task), entry: fact.entry, call, parent: fact.parent }),
    );
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
        this.resuming.delete(live.key);
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
    if (ended.tokenHash !== null) this.ended.set(endedKey(ended.taskId, ended.tokenHash), ended);
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

  /** Closes `s` by an end the entry proved, with the inferred closing of `x` (docs/design.md §14.3). */
  closeInferred(
    task: ObservedTask,
    s: SuspensionOpen,
    x: Explanation,
    entry: EntryRef,
    origin: Origin | undefined,
  ): void {
    this.close(task, {
      suspension: s,
      resume: this.entryResume(entry, task, origin),
      closing: this.inferred(s, x, { after: [entry.seq] }),
      entry,
    });
  }

  /** A resume known only from the peer's announcement (no ResumeTask of ours won it). */
  closeFromSignal(
    task: ObservedTask,
    s: SuspensionLive,
    args: { signal: ResumeSignal; entry: EntryRef; entries: number[]; origin?: Origin },
  ): void {
    const { signal, entry, entries, origin } = args;
    const control =
      signal.cause === 'explicit_resume'
        ? undefined
        : attributeAnnounced(s, signal.cause, this.evidence(task, s, entry.at));
    const closing = closingOf({
      cause: signal.cause,
      outcome: 'resumed',
      principal: control?.principal ?? null,
      hadResumeInput: signal.hadResumeInput,
      continueTranscript: signal.continueTranscript,
      resumedAt: signal.resumedAt,
      entries: control ? [control.seq, ...entries] : entries,
    });
    const resume = origin ? this.entryResume(entry, task, origin) : entryResumeSpan(this.ctx, entry);
    this.close(task, { suspension: s, resume, closing, entry });
  }

  /**
   * A resume of a pause that began outside this recording (docs/design.md §17): a ResumptionReceipt
   * naming the pause by its identity; the task remembers it so a later sighting adds nothing.
   */
  closeOutside(
    task: ObservedTask,
    args: { outside: OutsideSuspension; resume: ResumeSpan; closing: Closing; entry: EntryRef },
  ): ResumeSpan {
    task.outsideResume = { resumedAt: args.closing.resumedAt, seq: args.entry.seq };
    return this.emitStep(outsideResumption({ taskId: task.taskId, ...args }));
  }

  lose(
    task: ObservedTask,
    s: SuspensionOpen,
    args: { reason: LostPauseReason; entry: EntryRef | null; at: string; message?: string },
  ): void {
    this.leaveOpen(task, s);
    const { reason, entry, at, message } = args;
    const step = lose(this.ctx, {
      s,
      reason,
      seq: entry?.seq ?? null,
      at,
      ...(message === undefined ? {} : { message }),
    });
    this.#remember(this.emitStep(step));
  }

  /** Closing facts of an inferred end (docs/design.md §14.3): last PAUSED sighting, proof, sighting after. */
  inferred(s: SuspensionOpen, x: Explanation, args: { after: readonly number[]; resumedAt?: string | null }): Closing {
    return closingOf({
      cause: x.cause,
      outcome: x.outcome,
      principal: x.principal,
      resumedAt: args.resumedAt ?? null,
      inferred: true,
      entries: [s.lastPausedSeq, ...x.entries, ...args.after],
    });
  }

  evidence(task: ObservedTask, s: SuspensionLive, at: string): Evidence {
    const onEvent = s.pause.conditions?.onEvent;
    return {
      fireByName: onEvent === undefined ? undefined : this.fireFor(this.fireByName.get(onEvent), task.taskId),
      fireByTask: this.fireFor(this.fireByTask.get(task.taskId), task.taskId),
      fireAny: this.fireFor(this.fireAny, task.taskId),
      advance: this.advance,
      now: this.clock.nowAt(at),
    };
  }

  /** A resume span for the entry that proved an end; ListTasks and control answers end several pauses at once. */
  entryResume(entry: EntryRef, task: ObservedTask, origin: Origin | undefined): ResumeSpan {
    const multi = origin === undefined || (origin.kind === 'snapshot' && origin.multi);
    return entryResumeSpan(this.ctx, entry, multi ? task.taskId : undefined);
  }
}

/**
 * A verdict named by its rule: receipt outputs carry `rule`; Suspension, Resume and LostPause
 * span ends carry it as an attribute.
 */
/** The span events that carry the rule of their verdict (docs/design.md §7). */
const RULED_SPAN_EVENTS: ReadonlySet<SpanEvent['type']> = new Set([
  'suspension.end',
  'resume.end',
  'lost',
  'interruption.end',
  'continuation.end',
  'interruption.lost',
]);

function stamped(o: ObserverOutput, rule: string): ObserverOutput {
  switch (o.type) {
    case 'suspension':
    case 'resumption':
    case 'interruption':
    case 'continuation':
    case 'interruption-lost':
      return o.rule === undefined ? { ...o, rule } : o;
    case 'span': {
      const e = o.event;
      if (!RULED_SPAN_EVENTS.has(e.type)) return o;
      if (e.attributes[ATTR_RULE] !== undefined) return o;
      // `{...e.attributes, [ATTR_RULE]: rule}`, built by assignment into one new object.
      const attributes = Object.assign({}, e.attributes);
      attributes[ATTR_RULE] = rule;
      return { type: 'span', event: { ...e, attributes } };
    }
    case 'finding':
      return o;
    default: {
      const never: never = o;
      return never;
    }
  }
}

export function endedKey(taskId: string, tokenHash: string): string {
  return `${taskId}\n${tokenHash}`;
}
