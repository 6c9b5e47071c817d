/**
 * @module tracing/span-events
 * What the PauseObserver tells the tracing layer (docs/design.md §7), as plain data: span starts, ends
 * and lost pauses with deterministic ids and ISO times taken from recording entries. The bridge
 * in this folder turns them into OTel spans; nothing here touches OTel.
 */
import { sha256Hex } from '../digest.js';
import type { SpanRef } from '../receipts/types.js';
import type { LostInterruptionReason, LostPauseReason } from '../observe/lost-pause-reasons.js';

export type SpanAttributeValue = string | number | boolean;
export type SpanAttributes = Record<string, SpanAttributeValue>;

export type SpanEvent =
  /**
   * A task was first seen: a per-task span that parents Suspension spans without a traceparent (from
   * receipt log format 5 on, it is what those Suspension spans link to, docs/design.md §7).
   */
  | { type: 'task.start'; key: string; taskId: string; at: string; span: SpanRef; attributes: SpanAttributes }
  | { type: 'task.end'; key: string; at: string; attributes: SpanAttributes }
  /**
   * A pause was requested or first seen. `parent` is the caller's traceparent span, else the task
   * span. A span in `parent`'s trace is its child; a span whose ids derive from the pause's identity
   * (docs/design.md §7, §17) is in the pause's own trace: a root linked to `parent` (link `pipeline`).
   */
  | {
      type: 'suspension.start';
      key: string;
      taskId: string;
      at: string;
      span: SpanRef;
      parent: SpanRef;
      attributes: SpanAttributes;
    }
  /** PAUSED was observed; `receiptHash` is set just before the receipt is written. */
  | { type: 'suspension.end'; key: string; at: string; attributes: SpanAttributes; error?: string }
  /** A resume was requested or a condition fired: a new root linked to the suspension and pipeline spans. */
  | {
      type: 'resume.start';
      key: string;
      suspensionKey: string;
      taskId: string;
      at: string;
      span: SpanRef;
      links: { suspension: SpanRef; pipeline: SpanRef | null };
      attributes: SpanAttributes;
      /** The resume call's `traceparent` span: its trace gets a `ResumeCall` span (docs/design.md §7). */
      caller?: SpanRef;
    }
  | { type: 'resume.end'; key: string; at: string; attributes: SpanAttributes; error?: string }
  /** A pause that can no longer be resumed as observed: an ERROR span linked to its Suspension. */
  | {
      type: 'lost';
      key: string;
      suspensionKey: string;
      taskId: string;
      at: string;
      span: SpanRef;
      link: SpanRef;
      reason: LostPauseReason;
      attributes: SpanAttributes;
      /**
       * True when the verdict is that of a whole set of logs (`lost`, docs/design.md §7): drawn as a
       * LostPause whatever the reason, a stop verdict included, since no log given saw it end.
       */
      verdict?: true;
      /** When the pause began, where no Suspension span of this run says it: the LostPause's start. */
      since?: string;
    }
  /**
   * The task was seen interrupted (INPUT_REQUIRED, AUTH_REQUIRED; docs/design.md §14.9): the
   * Interruption span, a child of the task span (`parent`) when the task was known, else a root.
   * It ends at the same entry, `receiptHash` naming its InterruptionReceipt.
   */
  | {
      type: 'interruption.start';
      key: string;
      taskId: string;
      at: string;
      span: SpanRef;
      parent: SpanRef | null;
      attributes: SpanAttributes;
    }
  | { type: 'interruption.end'; key: string; at: string; attributes: SpanAttributes }
  /**
   * How an interruption ended (a continuation): a new root linked to its Interruption span, from
   * the entry that continued it (the answer, the CancelTask) to the one that proved it.
   */
  | {
      type: 'continuation.start';
      key: string;
      interruptionKey: string;
      taskId: string;
      at: string;
      span: SpanRef;
      link: SpanRef;
      attributes: SpanAttributes;
    }
  | { type: 'continuation.end'; key: string; at: string; attributes: SpanAttributes }
  /**
   * An interruption (INPUT_REQUIRED, AUTH_REQUIRED) that can no longer be continued as observed:
   * an ERROR span linked to the span of the interruption's receipt (docs/design.md §7, §14.9).
   */
  | {
      type: 'interruption.lost';
      key: string;
      interruptionKey: string;
      taskId: string;
      at: string;
      span: SpanRef;
      link: SpanRef;
      reason: LostInterruptionReason;
      attributes: SpanAttributes;
    };

/**
 * Where span events go: the tracing bridge (OTel spans), or anything else that wants them. A sink
 * never throws into the observer: tracing failing never breaks recording or replay.
 * `extra.receiptHash` is the hash of the receipt the ending span produced (docs/design.md §7).
 */
export interface SpanSink {
  handle(event: SpanEvent, extra?: { receiptHash?: string }): void;
}

function hexOf(text: string, chars: number): string {
  const hex = sha256Hex(text).slice(0, chars);
  // W3C forbids all-zero ids; a SHA-256 prefix of zeros is astronomically unlikely but cheap to rule out.
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/** A trace id derived from a recording id and a name (never random: record and replay agree). */
export function deriveTraceId(recordingId: string, name: string): string {
  return hexOf(`a2a-replay:trace:${recordingId}:${name}`, 32);
}

/** A span id derived from a recording id and a name such as `suspension:17`. */
export function deriveSpanId(recordingId: string, name: string): string {
  return hexOf(`a2a-replay:span:${recordingId}:${name}`, 16);
}

/** Parses a W3C `traceparent` header into the caller's span, or undefined if malformed. */
export function parseTraceparent(header: string | undefined): SpanRef | undefined {
  if (!header) return undefined;
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(header.trim());
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2] as string) || /^0+$/.test(m[3] as string)) return undefined;
  return { traceId: m[2] as string, spanId: m[3] as string };
}
