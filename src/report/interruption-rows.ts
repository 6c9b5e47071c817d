/**
 * @module report/interruption-rows
 * The interruptions the HTML report shows (docs/design.md §12, §14.9), gathered from receipt lines
 * taken one at a time: each InterruptionReceipt (the task asked for input or authorization, with
 * the hash of what it asked) and the ContinuationReceipt that ended it (who answered, how, with the
 * hash of the answer). One not continued is open, or lost with the reason and rule given.
 */
import { sealLine } from '../receipts/chain.js';
import type { VersionsOf } from '../receipts/audit.js';
import { InterruptionAuditCollector } from '../receipts/interruption-audit.js';
import type { ReceiptLogLine, SpanRef } from '../receipts/types.js';

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
  /** The A2A versions of its exchanges, from a recording with one other than 1.0 (docs/design.md §14.10). */
  a2aVersions?: string[];
}

/** A lost interruption's verdict: its reason and rule. */
export interface InterruptionVerdict {
  reason: string;
  rule: string | null;
}

/**
 * Interruption rows from receipt lines taken one at a time: the audit's own collector
 * (receipts/interruption-audit) keeps a row per interruption, never the lines; a continued log's
 * header adds the interruptions its predecessor left open (docs/design.md §6).
 */
export class InterruptionRows {
  readonly #audit = new InterruptionAuditCollector();

  add(line: ReceiptLogLine, hash: string, number: number): void {
    if (line.type !== 'ReceiptLog') {
      this.#audit.onLine({ line, hash, number });
      return;
    }
    for (const carried of line.series?.previous.interruptions ?? [])
      this.#audit.onLine({ line: carried, hash: sealLine(carried).hash, number });
  }

  /**
   * The rows in the order they began; an open one is lost when `lostOf` (by its span) says so;
   * `versionsOf` names each row's A2A versions.
   */
  build(lostOf: (span: SpanRef) => InterruptionVerdict | null, versionsOf?: VersionsOf): InterruptionRow[] {
    return this.#audit.rows(undefined, Number.POSITIVE_INFINITY, versionsOf).map((r) => {
      const verdict = r.outcome === 'open' ? lostOf(r.span) : null;
      return {
        ...(r.a2aVersions === undefined ? {} : { a2aVersions: r.a2aVersions }),
        taskId: r.taskId,
        state: r.state,
        promptHash: r.promptHash,
        interruptedAt: r.interruptedAt,
        outcome: verdict ? 'lost' : r.outcome,
        cause: r.cause,
        continuedBy: r.continuedBy,
        continuedAt: r.continuedAt,
        inputHash: r.inputHash,
        lost: verdict?.reason ?? null,
        rule: verdict?.rule ?? null,
        receiptHash: r.interruption,
        traceId: r.span.traceId,
        spanId: r.span.spanId,
      };
    });
  }
}
