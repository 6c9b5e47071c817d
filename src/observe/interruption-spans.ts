/**
 * @module observe/interruption-spans
 * The Interruption and Continuation spans of docs/design.md §7, §14.9, as span events: built from
 * the drafts of the receipts they go with, so a span says what its receipt says, and carrying the
 * span ids those receipts already name (derived from the recording id and the opening entry).
 */
import type { ContinuationDraft, InterruptionDraft, SpanRef } from '../receipts/types.js';
import {
  ATTR_CONTINUATION_CAUSE,
  ATTR_CONTINUATION_INPUT_HASH,
  ATTR_INTERRUPTED_AT,
  ATTR_INTERRUPTION_PROMPT_HASH,
  ATTR_LINK_INTERRUPTION_SPAN_ID,
  ATTR_LINK_INTERRUPTION_TRACE_ID,
  ATTR_PRINCIPAL,
  ATTR_RECORDING_ENTRY_SEQ,
  ATTR_TASK_ID,
  ATTR_TASK_STATE,
} from '../tracing/attributes.js';
import type { SpanEvent } from '../tracing/span-events.js';
import { attributes, contextAttributes } from './observer-spans.js';

/**
 * The Interruption span of an interruption proven at entry `seq`: it starts and ends there (the
 * interrupted state is what it shows, as PAUSED ends a Suspension), its end waiting for the
 * receipt's hash. `parent` is the task's span when the task was known, else none (a root).
 */
export function interruptionSpanEvents(args: {
  key: string;
  draft: InterruptionDraft;
  span: SpanRef;
  parent: SpanRef | null;
  seq: number;
  at: string;
}): SpanEvent[] {
  const { key, draft, span, parent, seq, at } = args;
  return [
    {
      type: 'interruption.start',
      key,
      taskId: draft.taskId,
      at,
      span,
      parent,
      attributes: attributes([
        [ATTR_TASK_ID, draft.taskId],
        ...contextAttributes(draft.contextId),
        [ATTR_TASK_STATE, draft.state],
        [ATTR_INTERRUPTION_PROMPT_HASH, draft.promptHash],
        [ATTR_INTERRUPTED_AT, draft.interruptedAt ?? at],
        [ATTR_RECORDING_ENTRY_SEQ, seq],
      ]),
    },
    {
      type: 'interruption.end',
      key,
      at,
      attributes: attributes([
        [ATTR_TASK_ID, draft.taskId],
        [ATTR_TASK_STATE, draft.state],
      ]),
    },
  ];
}

/**
 * The Continuation span of how an interruption ended: a root linked to the Interruption span,
 * from `startAt` (the entry that continued it: the answer, the CancelTask, else the proof itself)
 * to `when`, which proved it (null seq: the end of the recording). Its attributes are its
 * receipt's: the cause, who continued it, the input's hash.
 */
export function continuationSpanEvents(args: {
  key: string;
  interruptionKey: string;
  draft: ContinuationDraft;
  contextId: string | null;
  startAt: string;
  when: { seq: number | null; at: string };
}): SpanEvent[] {
  const { key, draft, when } = args;
  const link = draft.interruptionSpan;
  return [
    {
      type: 'continuation.start',
      key,
      interruptionKey: args.interruptionKey,
      taskId: draft.taskId,
      at: args.startAt,
      span: draft.span,
      link,
      attributes: attributes([
        [ATTR_TASK_ID, draft.taskId],
        ...contextAttributes(args.contextId),
        [ATTR_LINK_INTERRUPTION_TRACE_ID, link.traceId],
        [ATTR_LINK_INTERRUPTION_SPAN_ID, link.spanId],
      ]),
    },
    {
      type: 'continuation.end',
      key,
      at: when.at,
      attributes: attributes([
        [ATTR_TASK_ID, draft.taskId],
        [ATTR_CONTINUATION_CAUSE, draft.cause],
        [ATTR_PRINCIPAL, draft.principal],
        [ATTR_CONTINUATION_INPUT_HASH, draft.inputHash],
        [ATTR_RECORDING_ENTRY_SEQ, when.seq],
      ]),
    },
  ];
}
