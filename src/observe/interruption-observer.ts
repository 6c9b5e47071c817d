/**
 * @module observe/interruption-observer
 * Keeps the interruptions of docs/design.md §14.9 and routes each fact to the table of the state
 * it concerns (`observe/rules/interruption-rules`): the open interruptions by task and by context,
 * and the state changes the rows ask for, each emitting through the observer store so that every
 * verdict names its rule. Beside the pauses, never mixed with them. No clock, no randomness, no I/O.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { canonicalJson, hashCanonical } from '../canonical/canonical-json.js';
import { buildContinuationDraft, buildInterruptionDraft } from '../receipts/interruption-drafts.js';
import type { ContinuationCause } from '../receipts/types.js';
import type { EntryRef, Fact, FactOf, Origin } from './fact.js';
import type { LostInterruptionReason } from './lost-pause-reasons.js';
import type {
  CarriedInterruption,
  ContinuingMessage,
  Interruption,
  InterruptionActions,
  StrayMessage,
  When,
} from './interruption.js';
import { ATTR_INTERRUPTED_AT, ATTR_RECORDING_ENTRY_SEQ, ATTR_TASK_STATE } from '../tracing/attributes.js';
import { attributes, childSpan, contextAttributes, rootSpan } from './observer-spans.js';
import { continuationSpanEvents, interruptionSpanEvents } from './interruption-spans.js';
import type { ObserverStore } from './observer-store.js';
import { INTERRUPTED_RULES, NOT_INTERRUPTED_RULES } from './rules/interruption-rules.js';
import { type RecordingEnded, fire } from './rules/rule.js';

/** Span and receipt key of an interruption proven at entry `seq`. */
export const interruptionKey = (seq: number): string => `interruption:${seq}`;
/** Span and receipt key of a continuation decided at `when`. */
const continuationKey = (i: Interruption, when: When): string =>
  when.seq === null ? `continuation:end:${i.key}` : `continuation:${when.seq}:${i.taskId}`;

export class InterruptionObserver implements InterruptionActions {
  /** Open interruptions by task id, in the order they were proven. */
  readonly byTask = new Map<string, Interruption>();
  /** Task ids of the open interruptions of each context. */
  readonly #byContext = new Map<string, Set<string>>();
  /**
   * The interruption last lost of each task, until the task is seen in another state or
   * interrupted anew: a later sighting of it is that interruption, lost already.
   */
  readonly #lost = new Map<string, Interruption>();
  readonly #store: ObserverStore;

  constructor(store: ObserverStore) {
    this.#store = store;
  }

  // ---- routing ----

  /** Routes one fact, before the pause tables see it (a new task is new to both). */
  onFact(fact: Fact): void {
    const store = this.#store;
    switch (fact.type) {
      case 'InterruptedSeen': {
        const i = this.byTask.get(fact.task.taskId);
        if (i) fire(store, INTERRUPTED_RULES, { ints: this, i }, fact);
        else fire(store, NOT_INTERRUPTED_RULES, { ints: this, taskId: fact.task.taskId }, fact);
        return;
      }
      case 'StateSeen': {
        if (fact.state === 'TASK_STATE_INPUT_REQUIRED' || fact.state === 'TASK_STATE_AUTH_REQUIRED') return;
        const i = this.byTask.get(fact.task.taskId);
        if (i) fire(store, INTERRUPTED_RULES, { ints: this, i }, fact);
        this.#lost.delete(fact.task.taskId);
        return;
      }
      case 'MessageSent': {
        const named = fact.taskId === undefined ? undefined : this.byTask.get(fact.taskId);
        if (named) fire(store, INTERRUPTED_RULES, { ints: this, i: named }, fact);
        if (fact.contextId !== null) this.#inContext(fact.contextId, fact.taskId, fact);
        return;
      }
      case 'CallFailed': {
        const i = this.byTask.get(fact.taskId);
        if (i) fire(store, INTERRUPTED_RULES, { ints: this, i }, fact);
        return;
      }
      case 'TaskSeen': {
        const { taskId, contextId } = fact.task;
        if (contextId === null || this.byTask.has(taskId) || store.isKnown(taskId)) return;
        this.#inContext(contextId, taskId, fact);
        return;
      }
      default:
        return;
    }
  }

  /** The end of the recording: every interruption still open is continued by its answer, or lost. */
  finish(end: RecordingEnded): void {
    for (const i of [...this.byTask.values()]) fire(this.#store, INTERRUPTED_RULES, { ints: this, i }, end);
  }

  /** Fires the interruptions of `contextId` other than `taskId`'s. */
  #inContext(contextId: string, taskId: string | undefined, fact: Fact): void {
    const tasks = this.#byContext.get(contextId);
    if (!tasks) return;
    for (const other of [...tasks]) {
      const i = this.byTask.get(other);
      if (i && other !== taskId) fire(this.#store, INTERRUPTED_RULES, { ints: this, i }, fact);
    }
  }

  // ---- reads ----

  /** Whether `origin` is a stream that carried the task before the interruption and has not delivered it. */
  behindOn(i: Interruption, origin: Origin): boolean {
    return origin.kind === 'stream' && i.behind.has(origin.xid);
  }

  samePrompt(i: Interruption, prompt: JsonValue | null): boolean {
    if (i.carriedPromptHash !== undefined)
      return i.carriedPromptHash === (prompt === null ? null : hashCanonical(prompt));
    if (i.prompt === null || prompt === null) return i.prompt === prompt;
    return canonicalJson(i.prompt) === canonicalJson(prompt);
  }

  lostSeenAgain(fact: FactOf<'InterruptedSeen'>): boolean {
    const lost = this.#lost.get(fact.task.taskId);
    return (
      lost !== undefined &&
      lost.state === fact.state &&
      lost.interruptedAt === (fact.timestamp ?? null) &&
      this.samePrompt(lost, fact.prompt)
    );
  }

  // ---- state changes ----

  /**
   * Opens an interruption an earlier recording left open, before the first entry (docs/design.md
   * §6, "Series"): the continuation this recording shows pairs with it.
   */
  carry(c: CarriedInterruption): void {
    if (this.byTask.has(c.taskId))
      throw new Error(`task ${c.taskId} already holds an open interruption: one interruption per task is carried`);
    const task = this.#store.task(c.taskId);
    if (c.contextId !== null) task.contextId = c.contextId;
    task.binding = c.binding;
    this.byTask.set(c.taskId, {
      key: c.key,
      taskId: c.taskId,
      contextId: c.contextId,
      state: c.state,
      prompt: null,
      carriedPromptHash: c.promptHash,
      interruptedAt: c.interruptedAt,
      openSeq: 0,
      openAt: c.openAt,
      span: c.span,
      caughtUp: new Set(),
      behind: new Set(),
      answer: undefined,
      stray: undefined,
    });
    if (c.contextId !== null) {
      const tasks = this.#byContext.get(c.contextId) ?? new Set<string>();
      tasks.add(c.taskId);
      this.#byContext.set(c.contextId, tasks);
    }
  }

  /** The interruptions open now, in the order they opened (what a continuing recorder carries). */
  openInterruptions(): Interruption[] {
    return [...this.byTask.values()];
  }

  /** The task was seen interrupted: an interruption opens and its receipt is drafted. */
  open(fact: FactOf<'InterruptedSeen'>): void {
    const store = this.#store;
    const { taskId } = fact.task;
    const task = store.followed(taskId);
    const contextId = fact.task.contextId ?? task?.contextId ?? null;
    const key = interruptionKey(fact.entry.seq);
    const span = task ? childSpan(store.ctx.recordingId, key, task.span) : rootSpan(store.ctx.recordingId, key);
    const delivering = fact.origin.kind === 'stream' ? fact.origin.xid : undefined;
    const behind = new Set([...(task?.streams ?? [])].filter((xid) => xid !== delivering));
    const i: Interruption = {
      key,
      taskId,
      contextId,
      state: fact.state,
      prompt: fact.prompt,
      interruptedAt: fact.timestamp ?? null,
      openSeq: fact.entry.seq,
      openAt: fact.entry.at,
      span,
      caughtUp: new Set(delivering === undefined ? [] : [delivering]),
      behind,
      answer: undefined,
      stray: undefined,
    };
    this.byTask.set(taskId, i);
    this.#lost.delete(taskId);
    if (contextId !== null) {
      const tasks = this.#byContext.get(contextId) ?? new Set<string>();
      tasks.add(taskId);
      this.#byContext.set(contextId, tasks);
    }
    const draft = buildInterruptionDraft({
      taskId,
      contextId,
      state: fact.state,
      prompt: fact.prompt,
      interruptedAt: i.interruptedAt,
      observedAt: fact.entry.at,
      entries: [fact.entry.seq],
      span,
      binding: task?.binding ?? 'JSONRPC',
    });
    const spans = interruptionSpanEvents({ key, draft, span, parent: task?.span ?? null, ...fact.entry });
    store.emit([...spans.map((event) => ({ type: 'span' as const, event })), { type: 'interruption', key, draft }]);
  }

  answered(i: Interruption, message: ContinuingMessage): void {
    i.answer = message;
  }

  strayMessage(i: Interruption, message: StrayMessage): void {
    i.stray ??= message;
  }

  answerRefused(i: Interruption): void {
    i.answer = undefined;
  }

  seenAgain(i: Interruption, origin: Origin): void {
    if (origin.kind !== 'stream') return;
    i.caughtUp.add(origin.xid);
    i.behind.delete(origin.xid);
  }

  /** The client's answer continued it: the message's principal and input hash. */
  continueByMessage(i: Interruption, when: When): void {
    const answer = i.answer;
    if (!answer) return;
    this.#continue(i, when, {
      cause: 'message',
      principal: answer.principal,
      input: answer.parts,
      from: [answer.seq],
      startAt: answer.at,
    });
  }

  /** The task ended while interrupted: the CancelTask in flight, if any, continued it. */
  continueByEnd(i: Interruption, entry: EntryRef, cause: 'canceled' | 'failed'): void {
    const cancel =
      cause === 'canceled'
        ? [...(this.#store.followed(i.taskId)?.closers.values() ?? [])].find((c) => c.kind === 'cancel')
        : undefined;
    this.#continue(i, entry, {
      cause,
      principal: cancel?.principal ?? null,
      input: null,
      from: cancel ? [cancel.seq] : [],
      startAt: cancel?.resume.at ?? entry.at,
    });
  }

  /** AUTH_REQUIRED moved on with no message: credentials came out of band (a control call naming the task). */
  continueOutOfBand(i: Interruption, entry: EntryRef): void {
    const control = this.#store.controlOnTask(i.taskId);
    const after = control !== undefined && control.seq > i.openSeq ? control : undefined;
    this.#continue(i, entry, {
      cause: 'out_of_band',
      principal: after?.principal ?? null,
      input: null,
      from: after ? [after.seq] : [],
      startAt: entry.at,
    });
  }

  #continue(
    i: Interruption,
    when: When,
    how: {
      cause: ContinuationCause;
      principal: string | null;
      input: JsonValue | null;
      from: number[];
      /** Where its span starts: the entry that continued it. */
      startAt: string;
    },
  ): void {
    this.#close(i);
    const store = this.#store;
    const key = continuationKey(i, when);
    const draft = buildContinuationDraft({
      taskId: i.taskId,
      cause: how.cause,
      principal: how.principal,
      input: how.input,
      observedAt: when.at,
      entries: [i.openSeq, ...how.from, ...(when.seq === null ? [] : [when.seq])],
      span: rootSpan(store.ctx.recordingId, key),
      interruptionSpan: i.span,
      binding: store.followed(i.taskId)?.binding ?? 'JSONRPC',
    });
    const spans = continuationSpanEvents({
      key,
      interruptionKey: i.key,
      draft,
      contextId: i.contextId,
      startAt: how.startAt,
      when,
    });
    store.emit([
      ...spans.map((event) => ({ type: 'span' as const, event })),
      { type: 'continuation', key, interruptionKey: i.key, draft },
    ]);
  }

  /** It can no longer be continued as observed. */
  lose(i: Interruption, reason: LostInterruptionReason, when: When): void {
    this.#close(i);
    this.#lost.set(i.taskId, i);
    const store = this.#store;
    const key = `lost:${i.key}`;
    store.emit([
      {
        type: 'span',
        event: {
          type: 'interruption.lost',
          key,
          interruptionKey: i.key,
          taskId: i.taskId,
          at: when.at,
          span: rootSpan(store.ctx.recordingId, key),
          link: i.span,
          reason,
          attributes: attributes([
            [ATTR_TASK_STATE, i.state],
            ...contextAttributes(i.contextId),
            [ATTR_INTERRUPTED_AT, i.openAt],
            [ATTR_RECORDING_ENTRY_SEQ, when.seq],
          ]),
        },
      },
      {
        type: 'interruption-lost',
        interruptionKey: i.key,
        taskId: i.taskId,
        contextId: i.contextId,
        reason,
        seq: when.seq,
        at: when.at,
      },
    ]);
    store.finding(
      'lost-interruption',
      when.seq,
      'entry',
      `interruption ${i.key} of task ${i.taskId} (${i.state}) is lost (${reason})`,
      i.taskId,
    );
  }

  #close(i: Interruption): void {
    this.byTask.delete(i.taskId);
    if (i.contextId === null) return;
    const tasks = this.#byContext.get(i.contextId);
    tasks?.delete(i.taskId);
    if (tasks?.size === 0) this.#byContext.delete(i.contextId);
  }
}
