/**
 * @module receipts/interruption-audit
 * Who answered which prompt, when and with what (docs/design.md §6, §14.9): one row per
 * InterruptionReceipt of a version-5 log, closed by its ContinuationReceipt, built from lines as
 * the verifier accepts them (feed it as the verifier's `onLine`), so a tampered log is reported,
 * never audited.
 */
import type { VerifiedLine } from './verify.js';
import type { VersionsOf } from './audit.js';
import type { ContinuationCause, InterruptedState, ReceiptBinding, SpanRef } from './types.js';

export interface InterruptionAuditRow {
  kind: 'interruption';
  /** Line and hash of the InterruptionReceipt. */
  line: number;
  interruption: string;
  taskId: string;
  contextId: string | null;
  state: InterruptedState;
  /** Hash of the agent's prompt, null when it sent none. */
  promptHash: string | null;
  /** The peer's status time, else when the recorder saw it. */
  interruptedAt: string;
  binding: ReceiptBinding;
  /** `continued` once a ContinuationReceipt closed it, else `open`. */
  outcome: 'continued' | 'open';
  cause: ContinuationCause | null;
  /** Who continued it: the message's sender, the control call's, the CancelTask's. */
  continuedBy: string | null;
  continuedAt: string | null;
  /** Hash of the continuing message's parts. */
  inputHash: string | null;
  continuedAtLine: number | null;
  /** Whether a valid checkpoint covers its receipts (false only after the last one, with `allowOpen`). */
  vouched: boolean;
  /** The Interruption span its receipt names: where it is in Jaeger (docs/design.md §7). */
  span: SpanRef;
  /** The A2A versions of the interruption's and its continuation's exchanges, as an audit row's. */
  a2aVersions?: string[];
}

export class InterruptionAuditCollector {
  readonly #rows = new Map<string, InterruptionAuditRow>();
  readonly #lastSeq = new Map<InterruptionAuditRow, number>();
  readonly #entries = new Map<InterruptionAuditRow, number[]>();
  #orphans = 0;

  readonly onLine = (verified: VerifiedLine): void => {
    const { line, hash, number } = verified;
    if (line.type === 'InterruptionReceipt') {
      const row: InterruptionAuditRow = {
        kind: 'interruption',
        line: number,
        interruption: hash,
        taskId: line.taskId,
        contextId: line.contextId,
        state: line.state,
        promptHash: line.promptHash,
        interruptedAt: line.interruptedAt ?? line.observedAt,
        binding: line.binding,
        outcome: 'open',
        cause: null,
        continuedBy: null,
        continuedAt: null,
        inputHash: null,
        continuedAtLine: null,
        vouched: true,
        span: line.span,
      };
      this.#rows.set(hash, row);
      this.#entries.set(row, [...line.entries]);
      this.#lastSeq.set(row, line.seq);
    } else if (line.type === 'ContinuationReceipt') {
      const row = this.#rows.get(line.interruption);
      if (!row) {
        this.#orphans++;
        return;
      }
      this.#lastSeq.set(row, line.seq);
      this.#entries.get(row)?.push(...line.entries);
      row.outcome = 'continued';
      row.cause = line.cause;
      row.continuedBy = line.principal;
      row.continuedAt = line.observedAt;
      row.inputHash = line.inputHash;
      row.continuedAtLine = number;
    }
  };

  /** Continuations naming an interruption this log does not hold. */
  get orphans(): number {
    return this.#orphans;
  }

  /**
   * Rows in log order, of `taskId` when given; `vouched` is how many receipts a checkpoint covers;
   * `versionsOf` gives each row its A2A versions.
   */
  rows(taskId?: string, vouched = Number.POSITIVE_INFINITY, versionsOf?: VersionsOf): InterruptionAuditRow[] {
    return [...this.#rows.values()]
      .filter((r) => taskId === undefined || r.taskId === taskId)
      .map((r) => {
        const row: InterruptionAuditRow = { ...r, vouched: (this.#lastSeq.get(r) ?? 0) <= vouched };
        if (versionsOf) row.a2aVersions = versionsOf(this.#entries.get(r) ?? []);
        return row;
      });
  }
}
