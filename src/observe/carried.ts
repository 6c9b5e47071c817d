/**
 * @module observe/carried
 * The pauses a recording carries in from the one it continues (docs/design.md §6, "Series"): the
 * SuspensionReceipts its log left open, each keyed by its hash, in the form the observer opens
 * them ({@link PauseObserver.carry}). Pure.
 */
import { suspensionHash } from '../receipts/series-link.js';
import type { SuspensionReceipt } from '../receipts/types.js';
import type { CarriedSuspension, OpenSuspension } from './observed-task.js';

/** A carried pause and the hash of its receipt in the earlier log (null when it has none: no key). */
export type CarriedPause = CarriedSuspension & { receiptHash: string | null };

/** The key a carried pause goes by: its receipt's hash, else its span's, unlike any key of this recording. */
function carriedKey(id: string): string {
  return `carried:${id}`;
}

/** The pauses open at the end of an earlier log, from their SuspensionReceipts. */
export function carriedFromReceipts(receipts: readonly SuspensionReceipt[]): CarriedPause[] {
  return receipts.map((r) => {
    const receiptHash = suspensionHash(r);
    return {
      key: carriedKey(receiptHash),
      taskId: r.taskId,
      contextId: r.contextId,
      resumeTokenHash: r.resumeTokenHash,
      pausedAt: r.pausedAt,
      pausedUntil: r.pausedUntil,
      conditions: r.conditions,
      span: r.span,
      binding: r.binding,
      receiptHash,
    };
  });
}

/** The pauses an observer of an earlier recording left open (no receipt log: no hashes). */
export function carriedFromObserver(open: readonly OpenSuspension[]): CarriedPause[] {
  return open.map(({ provenSeq: _proven, key: _key, ...s }) => ({
    ...s,
    key: carriedKey(`${s.span.traceId}:${s.span.spanId}`),
    receiptHash: null,
  }));
}
