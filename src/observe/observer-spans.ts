/**
 * @module observe/observer-spans
 * Span ids and attributes of the spans the PauseObserver opens (docs/design.md §7): every id derives
 * from the recording id and the entry that opened the span, and every attribute name comes from
 * tracing/attributes, so record and replay produce the same trace.
 */
import type {
  OutsideSuspension,
  ReceiptLogVersion,
  ResumptionDraft,
  SpanRef,
  SuspensionDraft,
} from '../receipts/types.js';
import {
  ATTR_CONTEXT_ID,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_LINK_PIPELINE_SPAN_ID,
  ATTR_LINK_PIPELINE_TRACE_ID,
  ATTR_LINK_SUSPENSION_SPAN_ID,
  ATTR_LINK_SUSPENSION_TRACE_ID,
  ATTR_LOST_REASON,
  ATTR_PAUSE_CONDITIONS_HASH,
  ATTR_PAUSE_INITIATED_BY,
  ATTR_PAUSE_MODE,
  ATTR_PAUSE_PAUSED_AT,
  ATTR_PAUSE_PAUSED_UNTIL,
  ATTR_PAUSE_REASON,
  ATTR_PAUSE_VIA,
  ATTR_PRINCIPAL,
  ATTR_RECORDING_ENTRY_SEQ,
  ATTR_RESUME_CAUSE,
  ATTR_RESUME_HAD_INPUT,
  ATTR_RESUME_OUTCOME,
  ATTR_TASK_ID,
} from '../tracing/attributes.js';
import { type SpanAttributeValue, type SpanAttributes, deriveSpanId, deriveTraceId } from '../tracing/span-events.js';
import { type LostPauseReason } from './lost-pause-reasons.js';

/** Span key of a task: `task:<taskId>`. */
export const taskSpanKey = (taskId: string): string => `task:${taskId}`;
/** Span (and receipt) key of a suspension opened at entry `seq`. */
export const suspensionKey = (seq: number): string => `suspension:${seq}`;
/** Span (and receipt) key of a resume, cancel or failure opened at entry `seq`. */
export const resumeKey = (seq: number): string => `resume:${seq}`;
/** Span key of the LostPause span of a suspension. */
export const lostKey = (suspension: string): string => `lost:${suspension}`;

/**
 * A root span whose trace and span ids both derive from `key`. Each id is derived (a SHA-256) when
 * first read and kept: most tasks a recorder follows never pause and, without a span sink, their
 * ids are never read (docs/design.md §7).
 */
export function rootSpan(recordingId: string, key: string): SpanRef {
  let traceId: string | undefined;
  let spanId: string | undefined;
  return {
    get traceId(): string {
      return (traceId ??= deriveTraceId(recordingId, key));
    },
    get spanId(): string {
      return (spanId ??= deriveSpanId(recordingId, key));
    },
  };
}

/**
 * The span a pause's identity names (docs/design.md §17): its ids derive from the task id and the
 * pause's token hash (else its `pausedAt`), not from a recording, so every recorder that sees the
 * pause, or only its resume, names the same span.
 */
export function pauseSpan(taskId: string, pause: OutsideSuspension): SpanRef {
  const name = `pause:${taskId}\n${pause.resumeTokenHash ?? `pausedAt:${pause.pausedAt ?? ''}`}`;
  return { traceId: deriveTraceId(PAUSE_NAMESPACE, name), spanId: deriveSpanId(PAUSE_NAMESPACE, name) };
}

/** What pause-identity span ids derive from in place of a recording id. */
const PAUSE_NAMESPACE = 'a2a-replay/pause';

/**
 * What a proven pause's Suspension span ids derive from (docs/design.md §7, §17): the recording
 * and the entry that opened it (`recording`, the `suspension:<seq>` key, a child in its parent's
 * trace), or the pause's identity (`pause`, {@link pauseSpan}: a root of the pause's own trace), so
 * a Resume span any recorder writes for that pause links to it.
 */
export type SuspensionSpanIds = 'recording' | 'pause';

/** The Suspension span ids of a receipt log of `version`: from the pause's identity from format 5 on. */
export function suspensionSpanIdsFor(version: ReceiptLogVersion): SuspensionSpanIds {
  return version >= 5 ? 'pause' : 'recording';
}

/** A span inside `parent`'s trace whose span id derives from `key`. */
export function childSpan(recordingId: string, key: string, parent: SpanRef): SpanRef {
  return { traceId: parent.traceId, spanId: deriveSpanId(recordingId, key) };
}

/** Attributes from pairs, leaving out absent values (OTel attributes cannot be null). */
export function attributes(
  pairs: ReadonlyArray<readonly [string, SpanAttributeValue | null | undefined]>,
): SpanAttributes {
  const out: SpanAttributes = {};
  for (const [name, value] of pairs) if (value !== null && value !== undefined) out[name] = value;
  return out;
}

export function contextAttributes(contextId: string | null): Array<[string, string | null]> {
  return [
    [ATTR_CONTEXT_ID, contextId],
    [ATTR_GEN_AI_CONVERSATION_ID, contextId],
  ];
}

export function taskAttributes(taskId: string, contextId: string | null, seq: number | null): SpanAttributes {
  return attributes([[ATTR_TASK_ID, taskId], ...contextAttributes(contextId), [ATTR_RECORDING_ENTRY_SEQ, seq]]);
}

export function suspensionStartAttributes(
  taskId: string,
  contextId: string | null,
  principal: string | null,
  seq: number,
): SpanAttributes {
  return attributes([
    [ATTR_TASK_ID, taskId],
    ...contextAttributes(contextId),
    [ATTR_PRINCIPAL, principal],
    [ATTR_RECORDING_ENTRY_SEQ, seq],
  ]);
}

export function suspensionEndAttributes(draft: SuspensionDraft, seq: number): SpanAttributes {
  return attributes([
    [ATTR_TASK_ID, draft.taskId],
    ...contextAttributes(draft.contextId),
    [ATTR_PAUSE_INITIATED_BY, draft.initiatedBy],
    [ATTR_PAUSE_REASON, draft.reason],
    [ATTR_PAUSE_VIA, draft.via],
    [ATTR_PAUSE_MODE, draft.mode],
    [ATTR_PAUSE_CONDITIONS_HASH, draft.conditionsHash],
    [ATTR_PAUSE_PAUSED_AT, draft.pausedAt],
    [ATTR_PAUSE_PAUSED_UNTIL, draft.pausedUntil],
    [ATTR_PRINCIPAL, draft.principal],
    [ATTR_RECORDING_ENTRY_SEQ, seq],
  ]);
}

function linkAttributes(suspension: SpanRef, pipeline: SpanRef | null): Array<[string, string | null]> {
  return [
    [ATTR_LINK_SUSPENSION_TRACE_ID, suspension.traceId],
    [ATTR_LINK_SUSPENSION_SPAN_ID, suspension.spanId],
    [ATTR_LINK_PIPELINE_TRACE_ID, pipeline?.traceId ?? null],
    [ATTR_LINK_PIPELINE_SPAN_ID, pipeline?.spanId ?? null],
  ];
}

export function resumeStartAttributes(
  taskId: string,
  principal: string | null,
  links: { suspension: SpanRef; pipeline: SpanRef | null },
  seq: number,
): SpanAttributes {
  return attributes([
    [ATTR_TASK_ID, taskId],
    [ATTR_PRINCIPAL, principal],
    ...linkAttributes(links.suspension, links.pipeline),
    [ATTR_RECORDING_ENTRY_SEQ, seq],
  ]);
}

export function resumeEndAttributes(draft: ResumptionDraft, seq: number | null): SpanAttributes {
  return attributes([
    [ATTR_TASK_ID, draft.taskId],
    [ATTR_RESUME_CAUSE, draft.cause],
    [ATTR_RESUME_OUTCOME, draft.outcome],
    [ATTR_RESUME_HAD_INPUT, draft.hadResumeInput],
    [ATTR_PRINCIPAL, draft.principal],
    [ATTR_RECORDING_ENTRY_SEQ, seq],
  ]);
}

export function lostAttributes(
  taskId: string,
  reason: LostPauseReason,
  suspension: SpanRef,
  seq: number | null,
): SpanAttributes {
  return attributes([
    [ATTR_TASK_ID, taskId],
    [ATTR_LOST_REASON, reason],
    [ATTR_LINK_SUSPENSION_TRACE_ID, suspension.traceId],
    [ATTR_LINK_SUSPENSION_SPAN_ID, suspension.spanId],
    [ATTR_RECORDING_ENTRY_SEQ, seq],
  ]);
}
