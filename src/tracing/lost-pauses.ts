/**
 * @module tracing/lost-pauses
 * Lists lost pauses (docs/design.md §7 `LostPause`) for people: from the PauseObserver's `lost` span
 * events over a recording, or from a receipt log, where a suspension that no resumption closed
 * is lost because the log ended (`recording_ended`). Detection itself is the observer's.
 */
import { sealLine } from '../receipts/chain.js';
import type { ReceiptLogLine, SpanRef, SuspensionDraft, SuspensionReceipt } from '../receipts/types.js';
import type { LostPauseReason, SpanEvent, SpanSink } from './span-events.js';

/** One lost pause, as `a2a-replay lost` shows it. */
export interface LostPauseListing {
  taskId: string;
  /** RFC `pause.initiatedBy`, null when the pause was never proven (no receipt). */
  initiatedBy: string | null;
  reason: LostPauseReason;
  /** When the pause began: the peer's `pausedAt`, else when the pause was first seen. */
  since: string;
  /** When it was found lost (the recording entry's time); null for a receipt log. */
  detectedAt: string | null;
  /** The pause's own `reason`, if it gave one. */
  pauseReason: string | null;
  /** The Suspension span, to find it in Jaeger. */
  span: SpanRef | null;
}

/**
 * A {@link SpanSink} that keeps the `lost` events; give it the observer's suspension drafts too
 * ({@link noteSuspension}), so a listing can say who paused and since when.
 */
export class LostPauseCollector implements SpanSink {
  readonly #drafts = new Map<string, SuspensionDraft>();
  readonly #starts = new Map<string, { at: string; span: SpanRef }>();
  readonly #lost: LostPauseListing[] = [];

  /** The suspension draft the observer emitted under `key`. */
  noteSuspension(key: string, draft: SuspensionDraft): void {
    this.#drafts.set(key, draft);
  }

  handle(event: SpanEvent): void {
    if (event.type === 'suspension.start') {
      this.#starts.set(event.key, { at: event.at, span: event.span });
      return;
    }
    if (event.type !== 'lost') return;
    const draft = this.#drafts.get(event.suspensionKey);
    const start = this.#starts.get(event.suspensionKey);
    this.#lost.push({
      taskId: event.taskId,
      initiatedBy: draft?.initiatedBy ?? null,
      reason: event.reason,
      since: draft?.pausedAt ?? start?.at ?? event.at,
      detectedAt: event.at,
      pauseReason: draft?.reason ?? null,
      span: event.link,
    });
  }

  /** Lost pauses in the order they were declared. */
  get lost(): readonly LostPauseListing[] {
    return this.#lost;
  }
}

/**
 * Lost pauses of a receipt log: every SuspensionReceipt no ResumptionReceipt closes (a
 * `rejected` one attempts but does not close it, docs/design.md §6), in log order. Lines are matched by
 * the hash of their canonical form, as `suspension` names them. Checks no signature.
 */
export function lostPausesInReceiptLog(lines: Iterable<ReceiptLogLine>): LostPauseListing[] {
  const open = new Map<string, SuspensionReceipt>();
  for (const line of lines) {
    switch (line.type) {
      case 'SuspensionReceipt':
        open.set(sealLine(line).hash, line);
        break;
      case 'ResumptionReceipt':
        if (line.outcome !== 'rejected') open.delete(line.suspension);
        break;
      case 'ReceiptLog':
      case 'Checkpoint':
        break;
      default: {
        const never: never = line;
        throw new Error(`unknown receipt log line ${JSON.stringify(never)}`);
      }
    }
  }
  return [...open.values()].map((s) => ({
    taskId: s.taskId,
    initiatedBy: s.initiatedBy,
    reason: 'recording_ended',
    since: s.pausedAt,
    detectedAt: null,
    pauseReason: s.reason,
    span: s.span,
  }));
}
