/**
 * @module observe/lifecycle
 * The transitions of a suspension (docs/design.md §14.1): pure functions from a state and what
 * was seen to the next state and the outputs it causes (receipt drafts, span events, findings).
 * Nothing here keeps state or reads an index; the rules of `observe/rules` choose which to apply
 * and `observe/observer-store` stores the state it returns.
 */
import type { ResumeConditions, TaskPause } from '../protocol/types.js';
import { timeoutMs, triggerMs } from './explanations.js';
import { buildResumptionDraft, buildSuspensionDraft } from '../receipts/drafts.js';
import type { OutsideSuspension, SpanRef, SuspensionVia } from '../receipts/types.js';
import { tokenHashOf } from '../recording/resume-token.js';
import { ATTR_METHOD_NAME } from '../tracing/attributes.js';
import type { SpanAttributes, SpanEvent } from '../tracing/span-events.js';
import type { LostPauseReason } from './lost-pause-reasons.js';
import type { EntryRef, Origin } from './fact.js';
import {
  childSpan,
  lostAttributes,
  lostKey,
  pauseSpan,
  resumeEndAttributes,
  resumeKey,
  resumeStartAttributes,
  rootSpan,
  suspensionEndAttributes,
  suspensionKey,
  suspensionStartAttributes,
  type SuspensionSpanIds,
} from './observer-spans.js';
import type {
  Closer,
  Closing,
  SuspensionClosed,
  DeadlineReached,
  SuspensionLive,
  SuspensionLost,
  ObserverOutput,
  SuspensionOpen,
  PauseCall,
  SuspensionPending,
  ResumeRace,
  ResumeSpan,
  SuspensionResuming,
  SuspensionIdentity,
} from './suspension.js';

/** What every rule may read: the recording's id (span ids derive from it, docs/design.md §7). */
export interface RuleContext {
  readonly recordingId: string;
  /** What a proven pause's Suspension span ids derive from (docs/design.md §7, §17). */
  readonly suspensionSpans: SuspensionSpanIds;
  /** False: span events are not output (nobody takes them); receipts and findings are the same. */
  readonly spans?: boolean;
}

/** The task a rule acts for: its id, context and span. */
export interface TaskView {
  readonly taskId: string;
  readonly contextId: string | null;
  readonly span: SpanRef;
}

/** A state and the outputs of moving into it. */
export interface Step<S> {
  readonly next: S;
  readonly out: ObserverOutput[];
}

const span = (event: SpanEvent): ObserverOutput => ({ type: 'span', event });

// ---- pending ----

/**
 * The Suspension span starts: at the pause call, or at the entry that first showed the pause.
 * `principal` and `method` are the pause call's: a span that starts when its pause is proven
 * still names the call it began at as its `a2a.method.name` (docs/design.md §7).
 */
function suspensionStart(
  identity: SuspensionIdentity,
  task: { contextId: string | null; call: PauseCall | undefined },
): ObserverOutput {
  const attributes = suspensionStartAttributes(
    identity.taskId,
    task.contextId,
    task.call?.principal ?? null,
    identity.openSeq,
  );
  if (task.call !== undefined) attributes[ATTR_METHOD_NAME] = task.call.method;
  return span({
    type: 'suspension.start',
    key: identity.key,
    taskId: identity.taskId,
    at: identity.openAt,
    span: identity.span,
    parent: identity.parent,
    attributes,
  });
}

/**
 * Whether a Suspension span starts before its pause is proven (docs/design.md §7): only when its
 * ids derive from the recording. Ids from the pause's identity are known at the proof, so the span
 * starts then, with the time of the call that asked for it.
 */
const startsAtCall = (ctx: RuleContext): boolean => ctx.suspensionSpans === 'recording';

/**
 * The span of a pause proven now: the one it started under (ids from the recording), or the one
 * its identity names (task id and token hash, else `pausedAt`; {@link pauseSpan}).
 */
function provenSpan(
  ctx: RuleContext,
  identity: SuspensionIdentity,
  tokenHash: string | null,
  pausedAt: string,
): SpanRef {
  return ctx.suspensionSpans === 'recording'
    ? identity.span
    : pauseSpan(identity.taskId, { resumeTokenHash: tokenHash, pausedAt });
}

/**
 * PauseRequested: a pending suspension whose Suspension span starts at the request (with ids from
 * the recording; with ids from the pause's identity it starts when the pause is proven).
 */
export function requestPause(
  ctx: RuleContext,
  args: { task: TaskView; entry: EntryRef; call: PauseCall; parent: SpanRef | undefined },
): Step<SuspensionPending> {
  const key = suspensionKey(args.entry.seq);
  const parent = args.parent ?? args.task.span;
  const next: SuspensionPending = {
    state: 'pending',
    key,
    taskId: args.task.taskId,
    openSeq: args.entry.seq,
    openAt: args.entry.at,
    span: childSpan(ctx.recordingId, key, parent),
    parent,
    call: args.call,
  };
  if (!startsAtCall(ctx)) return { next, out: [] };
  return { next, out: [suspensionStart(next, { contextId: args.task.contextId, call: args.call })] };
}

/**
 * A pending suspension that will never be proven: its span ends, in error when the call failed
 * (`error`), plainly when the pause it asked for turned out to be one already proven. A span that
 * waited for a proof starts now, under the ids of the recording, which nothing written carries.
 */
export function endPending(
  ctx: RuleContext,
  p: SuspensionPending,
  args: { at: string; contextId: string | null; seq: number; error?: string },
): ObserverOutput[] {
  const start = startsAtCall(ctx) ? [] : [suspensionStart(p, { contextId: args.contextId, call: p.call })];
  const event: SpanEvent = {
    type: 'suspension.end',
    key: p.key,
    at: args.at,
    attributes: suspensionStartAttributes(p.taskId, args.contextId, p.call.principal, args.seq),
  };
  if (args.error !== undefined) event.error = args.error;
  return [...start, span(event)];
}

// ---- proof ----

/**
 * PausedSeen of a pause not seen before: the suspension is open and its SuspensionReceipt drafted.
 * It is the pending one of the call it answers (or the earliest pause call in flight), else a new
 * one opened by this entry (via `statusUpdate`, or `legacy-metadata` for the legacy envelope).
 */
export function prove(
  ctx: RuleContext,
  args: {
    task: TaskView;
    pending: SuspensionPending | undefined;
    entry: EntryRef;
    pause: TaskPause;
    legacy: boolean;
    origin: Origin;
    parent: SpanRef | undefined;
  },
): Step<SuspensionOpen> {
  const { task, pending, entry, pause, origin } = args;
  const out: ObserverOutput[] = [];
  let opened: SuspensionIdentity;
  if (pending) {
    opened = pending;
  } else {
    const key = suspensionKey(entry.seq);
    const parent = args.parent ?? task.span;
    opened = {
      key,
      taskId: task.taskId,
      openSeq: entry.seq,
      openAt: entry.at,
      span: childSpan(ctx.recordingId, key, parent),
      parent,
    };
  }
  const call = pending?.call;
  const tokenHash = tokenHashOf(pause.resumeToken);
  const identity = { ...opened, span: provenSpan(ctx, opened, tokenHash, pause.pausedAt) };
  if (!pending || !startsAtCall(ctx)) out.push(suspensionStart(identity, { contextId: task.contextId, call }));
  const via: SuspensionVia = args.legacy ? 'legacy-metadata' : call ? call.method : 'statusUpdate';
  const draft = buildSuspensionDraft({
    taskId: task.taskId,
    contextId: task.contextId,
    initiatedBy: pause.initiatedBy,
    principal: call?.principal ?? null,
    via,
    reason: pause.reason ?? call?.reason ?? null,
    mode: call?.mode ?? null,
    conditions: pause.conditions ?? null,
    resumeToken: pause.resumeToken,
    pausedAt: pause.pausedAt,
    pausedUntil: pause.pausedUntil ?? null,
    observedAt: entry.at,
    entries: call ? [call.seq, entry.seq] : [entry.seq],
    span: identity.span,
    callBodyRepaired: call?.bodyRepaired ?? false,
  });
  const until = pause.pausedUntil === undefined ? Number.NaN : Date.parse(pause.pausedUntil);
  const next: SuspensionOpen = {
    key: identity.key,
    taskId: identity.taskId,
    openSeq: identity.openSeq,
    openAt: identity.openAt,
    span: identity.span,
    parent: identity.parent,
    state: 'open',
    pause: {
      tokenHash,
      pausedAt: pause.pausedAt,
      pausedUntil: pause.pausedUntil ?? null,
      pausedUntilMs: Number.isNaN(until) ? undefined : until,
      conditions: pause.conditions ?? null,
    },
    provenSeq: entry.seq,
    lastPausedSeq: entry.seq,
    caughtUp: origin.kind === 'stream' ? new Set([origin.xid]) : new Set(),
    streamEnded: false,
    reached: [],
  };
  out.push(
    span({
      type: 'suspension.end',
      key: next.key,
      at: entry.at,
      attributes: suspensionEndAttributes(draft, entry.seq),
    }),
    { type: 'suspension', key: next.key, draft },
  );
  return { next, out };
}

/** PausedSeen of the pause already open: it is PAUSED as of this entry; a stream that delivered it is caught up. */
export function seenAgain(s: SuspensionOpen, origin: Origin, entry: EntryRef): SuspensionOpen {
  const caughtUp =
    origin.kind === 'stream' && !s.caughtUp.has(origin.xid) ? new Set([...s.caughtUp, origin.xid]) : s.caughtUp;
  return { ...s, caughtUp, lastPausedSeq: Math.max(s.lastPausedSeq, entry.seq) };
}

/** Every stream that carried the task has ended. */
export function streamsEnded(s: SuspensionOpen): SuspensionOpen {
  return s.streamEnded ? s : { ...s, streamEnded: true };
}

/** The peer's clock reached one of the pause's deadlines. */
export function deadlineReached(s: SuspensionOpen, reached: DeadlineReached): SuspensionOpen {
  if (s.reached.some((r) => r.which === reached.which && r.seq > s.lastPausedSeq)) return s;
  return { ...s, reached: [...s.reached, reached] };
}

/** The peer-clock deadlines of a pause (docs/design.md §14.4): `trigger.at` and the timeout's end. */
export function deadlinesOf(s: SuspensionOpen): Array<{ which: DeadlineReached['which']; ms: number }> {
  const out: Array<{ which: DeadlineReached['which']; ms: number }> = [];
  const trigger = triggerMs(s.pause.conditions);
  if (trigger !== undefined) out.push({ which: 'trigger', ms: trigger });
  const timeout = timeoutMs(s);
  if (timeout !== undefined) out.push({ which: 'timeout', ms: timeout });
  return out;
}

/**
 * A pause an earlier recording proved, open from this one's start (docs/design.md §6, "Series"):
 * its evidence is that recording's, so its seqs are 0, before every entry of this one; `parent`
 * is the task's span in this recording (the pipeline span it was paused under is not known).
 */
export function carriedOpen(
  c: {
    key: string;
    taskId: string;
    span: SpanRef;
    resumeTokenHash: string | null;
    pausedAt: string;
    pausedUntil: string | null;
    conditions: ResumeConditions | null;
  },
  parent: SpanRef,
): SuspensionOpen {
  const until = c.pausedUntil === null ? Number.NaN : Date.parse(c.pausedUntil);
  return {
    key: c.key,
    taskId: c.taskId,
    openSeq: 0,
    openAt: c.pausedAt,
    span: c.span,
    parent,
    state: 'open',
    pause: {
      tokenHash: c.resumeTokenHash,
      pausedAt: c.pausedAt,
      pausedUntil: c.pausedUntil,
      pausedUntilMs: Number.isNaN(until) ? undefined : until,
      conditions: c.conditions,
    },
    provenSeq: 0,
    lastPausedSeq: 0,
    caughtUp: new Set(),
    streamEnded: false,
    reached: [],
  };
}

/** Racing ResumeTask calls: the task left PAUSED, and the answers will tell which call won. */
export function race(s: SuspensionOpen, r: ResumeRace): SuspensionResuming {
  return { ...s, state: 'resuming', race: r };
}

// ---- resume spans ----

/**
 * A Resume span opened by the entry that proved an end; `suffix` keeps keys unique where one entry
 * ends several pauses.
 */
export function entryResumeSpan(ctx: RuleContext, entry: { seq: number; at: string }, suffix?: string): ResumeSpan {
  const key = suffix === undefined ? resumeKey(entry.seq) : `${resumeKey(entry.seq)}:${suffix}`;
  return { key, seq: entry.seq, at: entry.at, span: rootSpan(ctx.recordingId, key), phase: 'unstarted' };
}

/** A Resume span for an end decided when the recording ended (no entry proved it). */
export function endResumeSpan(
  ctx: RuleContext,
  args: { suspension: SuspensionIdentity; at: string; seq: number },
): ResumeSpan {
  const key = `resume:end:${args.suspension.key}`;
  return { key, seq: args.seq, at: args.at, span: rootSpan(ctx.recordingId, key), phase: 'unstarted' };
}

/** The Resume span starts (linked to its Suspension and the pipeline span), unless it has. */
export function startResume(
  r: ResumeSpan,
  args: { suspension: SuspensionIdentity; principal: string | null; caller?: SpanRef | undefined },
): Step<ResumeSpan> {
  if (r.phase !== 'unstarted') return { next: r, out: [] };
  const { suspension: s, principal, caller } = args;
  const links = { suspension: s.span, pipeline: s.parent };
  return {
    next: { ...r, phase: 'started' },
    out: [
      span({
        type: 'resume.start',
        key: r.key,
        suspensionKey: s.key,
        taskId: s.taskId,
        at: r.at,
        span: r.span,
        links,
        attributes: resumeStartAttributes(s.taskId, principal, links, r.seq),
        ...(caller === undefined ? {} : { caller }),
      }),
    ],
  };
}

/** The Resume span ends (in error with `error`), if it is running. */
export function finishResume(
  r: ResumeSpan,
  args: { at: string; attributes: SpanAttributes; error?: string | undefined },
): Step<ResumeSpan> {
  if (r.phase !== 'started') return { next: r, out: [] };
  const event: SpanEvent = { type: 'resume.end', key: r.key, at: args.at, attributes: args.attributes };
  if (args.error !== undefined) event.error = args.error;
  return { next: { ...r, phase: 'ended' }, out: [span(event)] };
}

// ---- ends ----

/**
 * A ResumptionReceipt for `s` (resume.start if needed → resume.end → draft). Unless the outcome
 * is `rejected`, the caller then moves `s` to {@link closedBy}.
 */
export function resumption(args: {
  s: SuspensionIdentity;
  resume: ResumeSpan;
  closing: Closing;
  entry: { seq: number | null; at: string };
}): Step<ResumeSpan> {
  const { s, closing, entry } = args;
  const draft = buildResumptionDraft({
    taskId: s.taskId,
    cause: closing.cause,
    outcome: closing.outcome,
    errorCode: closing.errorCode,
    principal: closing.principal,
    input: closing.input,
    hadResumeInput: closing.hadResumeInput,
    continueTranscript: closing.continueTranscript,
    resumedAt: closing.resumedAt,
    inferred: closing.inferred,
    observedAt: entry.at,
    entries: closing.entries,
    span: args.resume.span,
    links: { suspension: s.span, pipeline: s.parent },
  });
  const started = startResume(args.resume, { suspension: s, principal: closing.principal });
  const error =
    closing.outcome === 'failed'
      ? `task ${s.taskId} failed while PAUSED (${closing.cause})`
      : closing.outcome === 'rejected'
        ? `resume of task ${s.taskId} rejected with ${closing.errorCode ?? 'an error'}`
        : undefined;
  const ended = finishResume(started.next, { at: entry.at, attributes: resumeEndAttributes(draft, entry.seq), error });
  return {
    next: ended.next,
    out: [...started.out, ...ended.out, { type: 'resumption', key: args.resume.key, suspensionKey: s.key, draft }],
  };
}

/**
 * A ResumptionReceipt for a pause this observer never saw begin (docs/design.md §17): it began
 * outside this recording, and the draft names it by its identity (`outside`). Its Resume span links
 * to the Suspension span that identity derives ({@link pauseSpan}).
 */
export function outsideResumption(args: {
  taskId: string;
  outside: OutsideSuspension;
  resume: ResumeSpan;
  closing: Closing;
  entry: { seq: number; at: string };
}): Step<ResumeSpan> {
  const { taskId, outside, resume, entry } = args;
  const span = pauseSpan(taskId, outside);
  const s: SuspensionIdentity = {
    key: `outside:${resume.key}`,
    taskId,
    openSeq: entry.seq,
    openAt: entry.at,
    span,
    parent: span,
  };
  const step = resumption({ s, resume, closing: args.closing, entry });
  const out = step.out.map((o): ObserverOutput =>
    o.type === 'resumption' ? { ...o, suspensionKey: null, outside: { ...outside } } : o,
  );
  return { next: step.next, out };
}

/** A live suspension closed by the resumption under `resumeKey`. */
export function closedBy(s: SuspensionLive, resumeKey: string): SuspensionClosed {
  return {
    state: 'closed',
    key: s.key,
    taskId: s.taskId,
    openSeq: s.openSeq,
    openAt: s.openAt,
    span: s.span,
    parent: s.parent,
    tokenHash: s.pause.tokenHash,
    closedBy: resumeKey,
  };
}

/** An open pause declared lost (docs/design.md §14.5): one `lost` span event and one finding. */
export function lose(
  ctx: RuleContext,
  args: { s: SuspensionOpen; reason: LostPauseReason; seq: number | null; at: string; message?: string },
): Step<SuspensionLost> {
  const { s, reason } = args;
  const key = lostKey(s.key);
  const next: SuspensionLost = {
    state: 'lost',
    key: s.key,
    taskId: s.taskId,
    openSeq: s.openSeq,
    openAt: s.openAt,
    span: s.span,
    parent: s.parent,
    tokenHash: s.pause.tokenHash,
    reason,
  };
  return {
    next,
    out: [
      span({
        type: 'lost',
        key,
        suspensionKey: s.key,
        taskId: s.taskId,
        at: args.at,
        span: rootSpan(ctx.recordingId, key),
        link: s.span,
        reason,
        attributes: lostAttributes(s.taskId, reason, s.span, args.seq),
      }),
      {
        type: 'finding',
        finding: {
          code: 'lost-pause',
          seq: args.seq,
          field: 'entry',
          message: `pause ${s.key} of task ${s.taskId} is lost (${reason})${args.message ? `: ${args.message}` : ''}`,
          taskId: s.taskId,
        },
      },
    ],
  };
}

/** Closing facts of an end no call of ours brought about (cancel, failure, an announced or inferred resume). */
export function closingOf(
  partial: Pick<Closing, 'cause' | 'outcome' | 'principal' | 'resumedAt' | 'entries'> &
    Partial<Pick<Closing, 'hadResumeInput' | 'continueTranscript' | 'inferred'>>,
): Closing {
  return {
    errorCode: null,
    input: undefined,
    hadResumeInput: false,
    continueTranscript: null,
    inferred: false,
    ...partial,
  };
}

/** Closing facts of an end brought about by the call `c`: its principal, input and `continueTranscript` count. */
export function closingOfCall(
  c: Closer,
  args: Pick<Closing, 'cause' | 'outcome' | 'resumedAt' | 'entries'> & { errorCode?: number | null },
): Closing {
  return {
    cause: args.cause,
    outcome: args.outcome,
    errorCode: args.errorCode ?? null,
    principal: c.principal,
    input: c.input,
    hadResumeInput: c.hadInput,
    continueTranscript: c.continueTranscript,
    resumedAt: args.resumedAt,
    inferred: false,
    entries: args.entries,
  };
}
