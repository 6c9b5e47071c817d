/**
 * @module observe/carried
 * The pauses and interruptions a recording carries in from the one it continues (docs/design.md
 * §6, "Series"): the SuspensionReceipts and InterruptionReceipts its log left open, each keyed by
 * its hash, in the form the observer opens them ({@link PauseObserver.carry},
 * {@link PauseObserver.carryInterruptions}). Pure.
 */
import { interruptionHash, suspensionHash } from '../receipts/series-link.js';
import type { InterruptionReceipt, SuspensionReceipt } from '../receipts/types.js';
import { hashCanonical } from '../canonical/canonical-json.js';
import type { CarriedInterruption, Interruption } from './interruption.js';
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

/** A carried interruption and the hash of its receipt in the earlier log (null when it has none: no key). */
export type CarriedOpenInterruption = CarriedInterruption & { receiptHash: string | null };

/** The interruptions open at the end of an earlier log, from their InterruptionReceipts. */
export function carriedInterruptionsFromReceipts(receipts: readonly InterruptionReceipt[]): CarriedOpenInterruption[] {
  return receipts.map((r) => {
    const receiptHash = interruptionHash(r);
    return {
      key: carriedKey(receiptHash),
      taskId: r.taskId,
      contextId: r.contextId,
      state: r.state,
      promptHash: r.promptHash,
      interruptedAt: r.interruptedAt,
      openAt: r.observedAt,
      span: r.span,
      binding: r.binding,
      receiptHash,
    };
  });
}

/** The interruptions an observer of an earlier recording left open (no receipt log: no hashes). */
export function carriedInterruptionsFromObserver(
  open: readonly { interruption: Interruption; binding: CarriedInterruption['binding'] }[],
): CarriedOpenInterruption[] {
  return open.map(({ interruption: i, binding }) => ({
    key: carriedKey(`${i.span.traceId}:${i.span.spanId}`),
    taskId: i.taskId,
    contextId: i.contextId,
    state: i.state,
    promptHash:
      i.carriedPromptHash !== undefined ? i.carriedPromptHash : i.prompt === null ? null : hashCanonical(i.prompt),
    interruptedAt: i.interruptedAt,
    openAt: i.openAt,
    span: i.span,
    binding,
    receiptHash: null,
  }));
}
