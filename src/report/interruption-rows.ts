/**
 * @module report/interruption-rows
 * The interruptions the HTML report shows (docs/design.md §12, §14.9), gathered from receipt lines
 * taken one at a time: each InterruptionReceipt (the task asked for input or authorization, with
 * the hash of what it asked) and the ContinuationReceipt that ended it (who answered, how, with the
 * hash of the answer). One not continued is open, or lost with the reason and rule given.
 */
import { sealLine } from '../receipts/chain.js';
import type { InterruptionReceipt, ReceiptLogLine, SpanRef } from '../receipts/types.js';

/** One interruption as the report shows it. */
export interface InterruptionRow {
  taskId: string;
  /** `TASK_STATE_INPUT_REQUIRED` or `TASK_STATE_AUTH_REQUIRED`. */
  state: string;
  /** What the agent asked: the hash of its prompt, null when it asked with no message. */
  promptHash: string | null;
  /** When the task was seen interrupted (its status time, else when it was observed). */
  interruptedAt: string;
  /** `continued`, `open` or `lost`. */
  outcome: 'continued' | 'open' | 'lost';
  /** How it was continued (`message`, `out_of_band`, `canceled`, `failed`), or null. */
  cause: string | null;
  /** Who answered (the continuing call's principal), or null. */
  continuedBy: string | null;
  continuedAt: string | null;
  /** The hash of the answer, or null. */
  inputHash: string | null;
  /** A lost interruption's reason (`never_continued`, ...), else null. */
  lost: string | null;
  /** The observer rule that declared it lost; null when unknown (a receipt log alone). */
  rule: string | null;
  /** The InterruptionReceipt's hash. */
  receiptHash: string;
  traceId: string;
  spanId: string;
}

/** A lost interruption's verdict: its reason and rule. */
export interface InterruptionVerdict {
  reason: string;
  rule: string | null;
}

/** Interruption rows from receipt lines taken one at a time; it keeps a row per interruption, never the lines. */
export class InterruptionRows {
  readonly #rows = new Map<string, InterruptionRow>();

  add(line: ReceiptLogLine, hash: string): void {
    if (line.type === 'InterruptionReceipt') {
      this.#rows.set(hash, openRow(line, hash));
    } else if (line.type === 'ContinuationReceipt') {
      const row = this.#rows.get(line.interruption);
      if (!row) return;
      row.outcome = 'continued';
      row.cause = line.cause;
      row.continuedBy = line.principal;
      row.continuedAt = line.observedAt;
      row.inputHash = line.inputHash;
    } else if (line.type === 'ReceiptLog') {
      // A continued log carries the interruptions its predecessor left open (docs/design.md §6).
      for (const carried of line.series?.previous.interruptions ?? []) {
        const carriedHash = sealLine(carried).hash;
        this.#rows.set(carriedHash, openRow(carried, carriedHash));
      }
    }
  }

  /** The rows in the order they began; an open one is lost when `lostOf` (by its span) says so. */
  build(lostOf: (span: SpanRef) => InterruptionVerdict | null): InterruptionRow[] {
    const rows: InterruptionRow[] = [];
    for (const row of this.#rows.values()) {
      const verdict = row.outcome === 'open' ? lostOf(row) : null;
      rows.push(verdict ? { ...row, outcome: 'lost', lost: verdict.reason, rule: verdict.rule } : row);
    }
    return rows;
  }
}

/** The row of an interruption nothing has continued yet. */
function openRow(receipt: InterruptionReceipt, hash: string): InterruptionRow {
  return {
    taskId: receipt.taskId,
    state: receipt.state,
    promptHash: receipt.promptHash,
    interruptedAt: receipt.interruptedAt ?? receipt.observedAt,
    outcome: 'open',
    cause: null,
    continuedBy: null,
    continuedAt: null,
    inputHash: null,
    lost: null,
    rule: null,
    receiptHash: hash,
    traceId: receipt.span.traceId,
    spanId: receipt.span.spanId,
  };
}
