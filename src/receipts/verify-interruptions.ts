/**
 * @module receipts/verify-interruptions
 * What `verify` checks of the interruption and continuation receipts (docs/design.md §6, §14.9):
 * they are lines of version-5 logs only, and a ContinuationReceipt names the hash of an
 * InterruptionReceipt of the same task earlier in the log (or carried into it by its header) that no
 * continuation closed yet. The
 * open interruptions are kept, and the most recently closed ones (to say a second continuation
 * closes one already closed), so memory stays flat.
 */
import { BoundedMap } from '../bounded-map.js';
import type { LineFacts } from './examine-line.js';
import { INTERRUPTIONS_SINCE, type ReceiptLogVersion } from './types.js';
import type { VerifyFailure } from './verify-failure.js';

/** Closed interruptions remembered, as for suspensions. */
const CLOSED_INTERRUPTION_MEMORY = 65_536;

type InterruptionFacts = Extract<LineFacts, { type: 'InterruptionReceipt' | 'ContinuationReceipt' }>;

export class InterruptionLedger {
  /** Interruptions no continuation closed yet: hash → task id. */
  #open = new Map<string, string>();
  #closed = new BoundedMap<string, string>(CLOSED_INTERRUPTION_MEMORY);

  /** A copy in the same state (the verifier's fork). */
  clone(): InterruptionLedger {
    const copy = new InterruptionLedger();
    copy.#open = new Map(this.#open);
    copy.#closed = this.#closed.clone();
    return copy;
  }

  /** An interruption a continued log's header carries in: open here (docs/design.md §6, "Series"). */
  carry(hash: string, taskId: string): void {
    this.#open.set(hash, taskId);
  }

  /** The interruptions open so far, by hash and task, in the order they were opened. */
  get open(): { interruption: string; taskId: string }[] {
    return [...this.#open].map(([interruption, taskId]) => ({ interruption, taskId }));
  }

  /**
   * Checks line `n` (one that passed every other check) of a log of `version`; records what it
   * changes once it passes.
   */
  check(facts: InterruptionFacts, hash: string, n: number, version: ReceiptLogVersion): VerifyFailure | null {
    if (version < INTERRUPTIONS_SINCE)
      return {
        line: n,
        reason: 'malformed_line',
        message:
          `line ${n}: a ${facts.type} in a version-${version} log ` +
          `(they begin with version ${INTERRUPTIONS_SINCE})`,
      };
    if (facts.type === 'InterruptionReceipt') {
      this.#open.set(hash, facts.taskId);
      return null;
    }
    const { interruption } = facts;
    const task = this.#open.get(interruption);
    const fail = (message: string): VerifyFailure => ({ line: n, reason: 'unknown_interruption', message });
    if (task === undefined)
      return fail(
        this.#closed.peek(interruption) === undefined
          ? `line ${n}: the ContinuationReceipt names interruption ${interruption}, which is no open ` +
              'InterruptionReceipt earlier in this log (forged, copied from another log, or moved)'
          : `line ${n}: the ContinuationReceipt closes interruption ${interruption}, which an earlier line closed`,
      );
    if (task !== facts.taskId)
      return fail(
        `line ${n}: the ContinuationReceipt is for task ${facts.taskId}, ` +
          `but the interruption it names is of task ${task}`,
      );
    this.#open.delete(interruption);
    this.#closed.set(interruption, task);
    return null;
  }
}
