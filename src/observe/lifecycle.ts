/**
 * @module observe/lifecycle
 * The lifecycle rules of a suspension (docs/design.md §14.3–§14.5): pure functions from a state
 * and what was seen to the next state and the outputs it causes (receipt drafts, span events,
 * findings), and the decisions of how a pause ended or why it is lost. Nothing here keeps state
 * or reads an index; `observe/pause-observer` looks up what a rule needs, calls it and stores the
 * state it returns.
 */
import type { ResumeConditions, TaskPause } from '../protocol/types.js';
import { buildResumptionDraft, buildSuspensionDraft } from '../receipts/drafts.js';
import type { SpanRef, SuspensionVia } from '../receipts/types.js';
import { tokenHashOf } from '../recording/resume-token.js';
import type { LostPauseReason, SpanAttributes, SpanEvent } from '../tracing/span-events.js';
import type { ControlCall, EntryRef, Origin } from './facts.js';
import {
  childSpan,
  lostAttributes,
  lostKey,
  resumeEndAttributes,
  resumeKey,
  resumeStartAttributes,
  rootSpan,
  suspensionEndAttributes,
  suspensionKey,
  suspensionStartAttributes,
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

/** PauseRequested: a pending suspension whose Suspension span starts at the request. */
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
  return {
    next,
    out: [
      span({
        type: 'suspension.start',
        key,
        taskId: next.taskId,
        at: next.openAt,
        span: next.span,
        parent,
        attributes: suspensionStartAttributes(next.taskId, args.task.contextId, args.call.principal, next.openSeq),
      }),
    ],
  };
}

/**
 * A pending suspension that will never be proven: its span ends, in error when the call failed
 * (`error`), plainly when the pause it asked for turned out to be one already proven.
 */
export function endPending(
  p: SuspensionPending,
  args: { at: string; contextId: string | null; seq: number; error?: string },
): ObserverOutput[] {
  const event: SpanEvent = {
    type: 'suspension.end',
    key: p.key,
    at: args.at,
    attributes: suspensionStartAttributes(p.taskId, args.contextId, p.call.principal, args.seq),
  };
  if (args.error !== undefined) event.error = args.error;
  return [span(event)];
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
  let identity: SuspensionIdentity;
  if (pending) {
    identity = pending;
  } else {
    const key = suspensionKey(entry.seq);
    const parent = args.parent ?? task.span;
    identity = {
      key,
      taskId: task.taskId,
      openSeq: entry.seq,
      openAt: entry.at,
      span: childSpan(ctx.recordingId, key, parent),
      parent,
    };
    out.push(
      span({
        type: 'suspension.start',
        key,
        taskId: task.taskId,
        at: identity.openAt,
        span: identity.span,
        parent,
        attributes: suspensionStartAttributes(task.taskId, task.contextId, null, identity.openSeq),
      }),
    );
  }
  const call = pending?.call;
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
      tokenHash: tokenHashOf(pause.resumeToken),
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

function triggerMs(conditions: ResumeConditions | null): number | undefined {
  const at = conditions?.trigger?.at;
  const ms = at === undefined ? Number.NaN : Date.parse(at);
  return Number.isNaN(ms) ? undefined : ms;
}

/** When the pause's timeout ends: `pausedAt` plus its minutes. */
function timeoutMs(s: SuspensionOpen): number | undefined {
  const timeout = s.pause.conditions?.timeout;
  if (!timeout) return undefined;
  const ms = Date.parse(s.pause.pausedAt) + timeout.durationMinutes * 60_000;
  return Number.isFinite(ms) ? ms : undefined;
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
  args: { suspension: SuspensionIdentity; principal: string | null },
): Step<ResumeSpan> {
  if (r.phase !== 'unstarted') return { next: r, out: [] };
  const { suspension: s, principal } = args;
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

// ---- decisions ----

/** What the recording holds that may have ended a pause: looked up by the caller in its indexes. */
export interface Evidence {
  /** The latest FireEvent named the pause's `onEvent`. */
  readonly fireByName: ControlCall | undefined;
  /** The latest FireEvent whose `payload.taskId` names the task. */
  readonly fireByTask: ControlCall | undefined;
  /** The latest FireEvent of any name. */
  readonly fireAny: ControlCall | undefined;
  /** The latest AdvanceClock. */
  readonly advance: ControlCall | undefined;
  /** The peer's clock as estimated at this entry (NaN before any report). */
  readonly now: number;
}

/**
 * The control call that fired a resume the peer announced with `cause` (docs/design.md §14.3
 * "attribution"): the latest one after the pause opened that can have done it.
 */
export function attributeAnnounced(
  s: SuspensionIdentity & { pause: { conditions: ResumeConditions | null } },
  cause: Closing['cause'],
  ev: Evidence,
): ControlCall | undefined {
  const after = (c: ControlCall | undefined): ControlCall | undefined =>
    c !== undefined && c.seq > s.openSeq ? c : undefined;
  const conditions = s.pause.conditions;
  switch (cause) {
    case 'timeout':
      return after(ev.advance);
    case 'condition_fired':
      if (conditions?.onEvent !== undefined) return after(ev.fireByName);
      if (conditions?.trigger) return after(ev.advance);
      return after(ev.fireAny);
    case 'external_event':
      return after(ev.fireByTask) ?? (conditions?.onEvent !== undefined ? after(ev.fireByName) : after(ev.fireAny));
    case 'explicit_resume':
    case 'canceled':
    case 'failure':
      return undefined;
    default: {
      const never: never = cause;
      return never;
    }
  }
}

/** How a pause ended, as far as the recording proves it: cause, outcome, who, and the entries that prove it. */
export interface Explanation {
  readonly cause: Closing['cause'];
  readonly outcome: Closing['outcome'];
  readonly principal: string | null;
  readonly entries: readonly number[];
}

/** The cause a FireEvent had on a pause it resumed (its answer listed the task). */
export function causeOfFire(s: SuspensionOpen, call: ControlCall): Explanation {
  const onEvent = s.pause.conditions?.onEvent;
  const cause =
    onEvent !== undefined && call.name === onEvent
      ? 'condition_fired'
      : call.payloadTaskId === s.taskId
        ? 'external_event'
        : 'condition_fired';
  return { cause, outcome: 'resumed', principal: call.principal, entries: [call.seq] };
}

/**
 * Why a task seen FAILED while paused failed (docs/design.md §14.3): its timeout with
 * `onTimeout: fail` when the peer's clock reached it (by the status timestamp, a clock report
 * or the estimate), cause `timeout`; otherwise cause `failure`.
 */
export function explainFailure(s: SuspensionOpen, seen: { timestamp: string | undefined }, ev: Evidence): Explanation {
  const timeout = s.pause.conditions?.timeout;
  const deadline = timeoutMs(s);
  if (timeout?.onTimeout === 'fail' && deadline !== undefined) {
    const reached = s.reached.find((r) => r.which === 'timeout' && r.seq > s.lastPausedSeq);
    if (reached) return { cause: 'timeout', outcome: 'failed', principal: reached.principal, entries: reached.entries };
    const stamped = seen.timestamp === undefined ? Number.NaN : Date.parse(seen.timestamp);
    if (stamped >= deadline || ev.now >= deadline) {
      const advance = ev.advance !== undefined && ev.advance.seq > s.openSeq ? ev.advance : undefined;
      return {
        cause: 'timeout',
        outcome: 'failed',
        principal: advance?.principal ?? null,
        entries: advance ? [advance.seq] : [],
      };
    }
  }
  return { cause: 'failure', outcome: 'failed', principal: null, entries: [] };
}

/**
 * How a pause ended that the peer did not announce, when it is seen in `state` (WORKING, or later)
 * after only its PAUSED "before" (docs/design.md §14.3): the earliest proof after the last PAUSED
 * sighting, else the pause's own declared conditions; undefined when nothing can explain it.
 */
export function explainUnseenResume(s: SuspensionOpen, ev: Evidence): Explanation | undefined {
  const since = s.lastPausedSeq;
  const conditions = s.pause.conditions;
  const candidates: Array<Explanation & { seq: number }> = [];
  const fire = (c: ControlCall | undefined, cause: Closing['cause']): void => {
    if (c !== undefined && c.seq > since)
      candidates.push({ cause, outcome: 'resumed', principal: c.principal, entries: [c.seq], seq: c.seq });
  };
  if (conditions?.onEvent !== undefined) fire(ev.fireByName, 'condition_fired');
  fire(ev.fireByTask, 'external_event');
  for (const r of s.reached) {
    if (r.seq <= since) continue;
    if (r.which === 'trigger') candidates.push({ ...fromReached(r, 'condition_fired'), seq: r.seq });
    else if (conditions?.timeout?.onTimeout === 'resume') candidates.push({ ...fromReached(r, 'timeout'), seq: r.seq });
  }
  candidates.sort((a, b) => a.seq - b.seq);
  const first = candidates[0];
  if (first) return { cause: first.cause, outcome: first.outcome, principal: first.principal, entries: first.entries };
  const advance = ev.advance !== undefined && ev.advance.seq > since ? ev.advance : undefined;
  const byClock = (cause: Closing['cause']): Explanation => ({
    cause,
    outcome: 'resumed',
    principal: advance?.principal ?? null,
    entries: advance ? [advance.seq] : [],
  });
  const trigger = triggerMs(conditions);
  if (trigger !== undefined && ev.now >= trigger) return byClock('condition_fired');
  const timeout = timeoutMs(s);
  if (conditions?.timeout?.onTimeout === 'resume' && timeout !== undefined && ev.now >= timeout)
    return byClock('timeout');
  // The peer declared how it resumes by itself; the recording does not hold what fired it.
  if (conditions?.onEvent !== undefined || conditions?.trigger !== undefined)
    return { cause: 'condition_fired', outcome: 'resumed', principal: null, entries: [] };
  return undefined;
}

function fromReached(r: DeadlineReached, cause: Closing['cause']): Explanation {
  return { cause, outcome: 'resumed', principal: r.principal, entries: r.entries };
}

/**
 * What the end of the recording makes of a pause still open (docs/design.md §14.5): closed by a
 * deadline the peer's clock reached (trigger → condition_fired, timeout → its `onTimeout`), or
 * lost: `paused_until_passed` when its lease passed, `stream_ended` when every stream that carried
 * it ended, else `recording_ended`.
 */
export function atRecordingEnd(
  s: SuspensionOpen,
  now: number,
): { kind: 'close'; explanation: Explanation } | { kind: 'lose'; reason: LostPauseReason } {
  const conditions = s.pause.conditions;
  const reached = s.reached.filter((r) => r.seq > s.lastPausedSeq);
  const first = reached[0];
  if (first) {
    if (first.which === 'trigger') return { kind: 'close', explanation: fromReached(first, 'condition_fired') };
    const outcome = conditions?.timeout?.onTimeout === 'resume' ? 'resumed' : 'failed';
    return { kind: 'close', explanation: { ...fromReached(first, 'timeout'), outcome } };
  }
  if (s.pause.pausedUntilMs !== undefined && now > s.pause.pausedUntilMs)
    return { kind: 'lose', reason: 'paused_until_passed' };
  return { kind: 'lose', reason: s.streamEnded ? 'stream_ended' : 'recording_ended' };
}

/** The lease rule (docs/design.md §14.5): the pause is still PAUSED after its `pausedUntil` passed. */
export function leasePassed(s: SuspensionOpen, now: number): boolean {
  return s.pause.pausedUntilMs !== undefined && now > s.pause.pausedUntilMs;
}
