/**
 * @module observe/explanations
 * The decisions the observer's rules consult (docs/design.md §14.3–§14.5): pure functions from a
 * pause and the evidence the recording holds (control calls, the peer's clock, deadlines reached)
 * to how it ended, who caused it, and whether its deadlines or lease passed. Nothing here keeps
 * state; `observe/rules` asks, `observe/observer-store` looks the evidence up.
 */
import type { ResumeConditions } from '../protocol/types.js';
import type { LostPauseReason } from './lost-pause-reasons.js';
import type { ControlCall } from './fact.js';
import type { Closing, DeadlineReached, SuspensionIdentity, SuspensionOpen } from './suspension.js';

export function triggerMs(conditions: ResumeConditions | null): number | undefined {
  const at = conditions?.trigger?.at;
  const ms = at === undefined ? Number.NaN : Date.parse(at);
  return Number.isNaN(ms) ? undefined : ms;
}

/** When the pause's timeout ends: `pausedAt` plus its minutes. */
export function timeoutMs(s: SuspensionOpen): number | undefined {
  const timeout = s.pause.conditions?.timeout;
  if (!timeout) return undefined;
  const ms = Date.parse(s.pause.pausedAt) + timeout.durationMinutes * 60_000;
  return Number.isFinite(ms) ? ms : undefined;
}

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
  s: Pick<SuspensionIdentity, 'openSeq'> & { pause: { conditions: ResumeConditions | null } },
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
