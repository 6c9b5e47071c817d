/**
 * @module tracing/lost-verdict-spans
 * The span events of `lost`'s verdict over a set of logs (docs/design.md §7): each lost pause a
 * `LostPause` (status ERROR) in the trace of the Suspension it condemns, a child of it and linked
 * to it; each lost interruption a `LostInterruption` linked to its Interruption span. Their ids
 * derive from the condemned span's ids, so `lost` run twice over the same logs exports the same
 * spans, and a collector or Jaeger keeps one of each.
 */
import type { SpanRef } from '../receipts/types.js';
import {
  ATTR_LOST_BEGUN,
  ATTR_LOST_VERDICT,
  ATTR_PAUSE_INITIATED_BY,
  ATTR_PAUSE_PAUSED_AT,
  ATTR_PAUSE_REASON,
  ATTR_PRINCIPAL,
  ATTR_RULE,
  ATTR_TASK_STATE,
  ATTR_INTERRUPTED_AT,
} from './attributes.js';
import type { LostInterruptionListing, LostPauseListing } from '../observe/lost-listings.js';
import { pauseSpan } from '../observe/observer-spans.js';
import type { FleetPause } from '../receipts/fleet.js';
import { type SpanAttributes, type SpanEvent, deriveSpanId, deriveTraceId } from './span-events.js';

/** A lost pause as `lost` found it, with who paused it and where it was seen to begin. */
export interface LostPauseVerdict extends LostPauseListing {
  /** Who asked for the pause (the SuspensionReceipt's `principal`), when known. */
  principal?: string | null;
  /** Where the pause was seen to begin: `file:line`. */
  begun?: readonly string[];
}

/** A lost interruption as `lost` found it, with where it was seen to begin. */
export interface LostInterruptionVerdict extends LostInterruptionListing {
  begun?: readonly string[];
}

const NAMESPACE = 'a2a-replay/lost-verdict';

/** The LostPause span of the pause whose Suspension span is `suspension`: in its trace, its id from both ids. */
export function lostVerdictSpan(suspension: SpanRef): SpanRef {
  return { traceId: suspension.traceId, spanId: deriveSpanId(NAMESPACE, `${suspension.traceId}/${suspension.spanId}`) };
}

/** The LostInterruption span of the interruption whose span is `interruption`: a root of its own trace. */
export function lostInterruptionVerdictSpan(interruption: SpanRef): SpanRef {
  const name = `interruption:${interruption.traceId}/${interruption.spanId}`;
  return { traceId: deriveTraceId(NAMESPACE, name), spanId: deriveSpanId(NAMESPACE, name) };
}

function attributesOf(pairs: ReadonlyArray<readonly [string, string | null | undefined]>): SpanAttributes {
  const out: SpanAttributes = { [ATTR_LOST_VERDICT]: true };
  for (const [name, value] of pairs) if (value !== null && value !== undefined) out[name] = value;
  return out;
}

/**
 * The span events that draw `lost`'s verdict (docs/design.md §7): one `lost` event per pause (a
 * pause never proven has no Suspension span: its LostPause is a root whose ids derive from its task
 * and start) and one `interruption.lost` event per interruption. Give them to a span sink such as
 * the SpanBridge, in order.
 */
export function lostVerdictSpanEvents(
  pauses: readonly LostPauseVerdict[],
  interruptions: readonly LostInterruptionVerdict[],
): SpanEvent[] {
  const events: SpanEvent[] = [];
  for (const p of pauses) {
    const condemned = p.span ?? {
      traceId: deriveTraceId(NAMESPACE, `unproven:${p.taskId}\n${p.since}`),
      spanId: deriveSpanId(NAMESPACE, `unproven:${p.taskId}\n${p.since}`),
    };
    const span = lostVerdictSpan(condemned);
    events.push({
      type: 'lost',
      key: `lost-verdict:${span.traceId}/${span.spanId}`,
      suspensionKey: `condemned:${condemned.traceId}/${condemned.spanId}`,
      taskId: p.taskId,
      at: p.detectedAt ?? p.since,
      since: p.since,
      span,
      link: condemned,
      reason: p.reason,
      verdict: true,
      attributes: attributesOf([
        [ATTR_RULE, p.rule],
        [ATTR_PRINCIPAL, p.principal],
        [ATTR_PAUSE_INITIATED_BY, p.initiatedBy],
        [ATTR_PAUSE_REASON, p.pauseReason],
        [ATTR_PAUSE_PAUSED_AT, p.since],
        [ATTR_LOST_BEGUN, p.begun?.join(' ')],
      ]),
    });
  }
  for (const i of interruptions) {
    const span = lostInterruptionVerdictSpan(i.span);
    events.push({
      type: 'interruption.lost',
      key: `lost-verdict:${span.traceId}/${span.spanId}`,
      interruptionKey: `condemned:${i.span.traceId}/${i.span.spanId}`,
      taskId: i.taskId,
      at: i.detectedAt ?? i.since,
      span,
      link: i.span,
      reason: i.reason,
      attributes: attributesOf([
        [ATTR_RULE, i.rule],
        [ATTR_TASK_STATE, i.state],
        [ATTR_INTERRUPTED_AT, i.since],
        [ATTR_LOST_BEGUN, i.begun?.join(' ')],
      ]),
    });
  }
  return events;
}

/** A fleet's lost pause as a verdict: its Suspension span is the one its identity names (docs/design.md §17). */
export function fleetPauseVerdict(p: FleetPause): LostPauseVerdict {
  return {
    taskId: p.taskId,
    initiatedBy: p.initiatedBy,
    reason: 'recording_ended',
    since: p.pausedAt,
    detectedAt: null,
    pauseReason: p.reason,
    span: pauseSpan(p.taskId, { pausedAt: p.pausedAt, resumeTokenHash: p.resumeTokenHash }),
    rule: null,
    principal: p.principal,
    begun: [`${p.begun.file}:${p.begun.line}`],
  };
}
