/**
 * @module report/receipt-rows
 * The rows and lane pauses a report shows of a receipt log's pauses (docs/design.md §12), gathered
 * from its lines one at a time: what each row shows, never the lines, and past the first listed
 * only the pauses still open, the rest counted by how they ended.
 */
import { AuditCollector, type AuditRow, type RulesOf, type VersionsOf } from '../receipts/audit.js';
import type { ReceiptLogLine, SpanRef } from '../receipts/types.js';
import type { PauseMode } from '../protocol/types.js';
import type { LanePause, ReportRow, UnlistedPauses } from './html-report.js';

function initiatorOf(value: string): 'client' | 'agent' | 'unspecified' {
  return value === 'PAUSE_INITIATOR_CLIENT' ? 'client' : value === 'PAUSE_INITIATOR_AGENT' ? 'agent' : 'unspecified';
}

/** What a row shows of its suspension and of the receipts that named it, gathered line by line. */
interface Observed {
  from: number;
  to: number | null;
  rejected: number[];
  /** The last receipt's seq: a row is vouched for when a checkpoint covers it. */
  lastSeq: number;
  mode: PauseMode | null;
  span: SpanRef;
  /** The task and the recording entries the SuspensionReceipt cites, as one text ({@link ShownPause}). */
  key: string;
}

/**
 * One pause as the report shows it: its audit row and its bar on the task's lane, and the key that
 * names it the same way in every log that sees it (the task and the recording entries its
 * SuspensionReceipt cites), so a recording and its receipt log can be joined (docs/design.md §12).
 */
export interface ShownPause {
  key: string;
  row: ReportRow;
  lane: LanePause;
  /** The audit row it shows: where its receipts are, by line. */
  audit: AuditRow;
}

/** How many pauses a report section lists before it only counts those that ended (docs/design.md §12). */
export const REPORT_LISTED_PAUSES = 1000;

/**
 * Report rows and lane pauses from receipt lines taken one at a time: it keeps a row per
 * suspension (the audit collector's) and what the row shows, never the lines. With `listed`, it
 * keeps the rows of the first `listed` suspensions and of every one still open (it may be lost);
 * a later one is counted by how it ended and let go as it ends, so a log of any length costs
 * those rows (and, with `keys`, the key of each pause let go, for joining it with its recording).
 */
export class ReceiptRows {
  readonly #collector = new AuditCollector();
  readonly #observed = new Map<string, Observed>();
  readonly #listed: number;
  /** The suspensions listed whatever becomes of them: the first `listed`. */
  readonly #first = new Set<string>();
  readonly #unlisted: UnlistedPauses = { count: 0, outcomes: {} };
  readonly #releasedKeys: Set<string> | undefined;

  constructor(options: { listed?: number; keys?: boolean } = {}) {
    this.#listed = options.listed ?? Number.POSITIVE_INFINITY;
    this.#releasedKeys = options.keys === true ? new Set() : undefined;
  }

  /** The pauses counted and not listed (ended ones past the first listed). */
  get unlisted(): UnlistedPauses {
    return this.#unlisted;
  }

  /** Whether a pause of this key was counted and not listed. */
  releasedKey(key: string): boolean {
    return this.#releasedKeys?.has(key) ?? false;
  }

  add(line: ReceiptLogLine, hash: string, number: number): void {
    this.#collector.onLine({ number, line, hash });
    if (line.type === 'SuspensionReceipt') {
      if (this.#first.size < this.#listed) this.#first.add(hash);
      this.#observed.set(hash, {
        from: Date.parse(line.observedAt),
        to: null,
        rejected: [],
        lastSeq: line.seq,
        mode: line.mode,
        span: line.span,
        key: `${line.taskId}\n${line.entries.join(',')}`,
      });
    } else if (line.type === 'ResumptionReceipt') {
      const o = line.suspension === null ? undefined : this.#observed.get(line.suspension);
      if (!o || line.suspension === null) return;
      o.lastSeq = line.seq;
      if (line.outcome === 'rejected') o.rejected.push(Date.parse(line.observedAt));
      else o.to = Date.parse(line.observedAt);
      if (line.outcome !== 'rejected' && !this.#first.has(line.suspension)) this.#release(line.suspension, o, line);
    }
  }

  /** Counts an ended pause past the listed ones and lets its row go. */
  #release(hash: string, o: Observed, end: ReceiptLogLine & { type: 'ResumptionReceipt' }): void {
    this.#unlisted.count++;
    this.#unlisted.outcomes[end.outcome] = (this.#unlisted.outcomes[end.outcome] ?? 0) + 1;
    this.#releasedKeys?.add(o.key);
    this.#observed.delete(hash);
    this.#collector.release(hash);
  }

  /**
   * The rows with their lost verdicts (`lostOf`: the reason, or null), verification status and,
   * given `rulesOf`, the rules that decided them (docs/design.md §14.8).
   */
  build(
    lostOf: (row: AuditRow) => string | null,
    verification: (line: number, seq: number, row: AuditRow) => ReportRow['verification'],
    rulesOf?: RulesOf,
    versionsOf?: VersionsOf,
  ): ShownPause[] {
    const shown: ShownPause[] = [];
    for (const row of this.#collector.rows({}, Number.POSITIVE_INFINITY, rulesOf, versionsOf)) {
      const o = this.#observed.get(row.suspension);
      const lost = row.outcome === 'open' ? lostOf(row) : null;
      const ended = endedText(row);
      const shownRow: ReportRow = {
        taskId: row.taskId,
        initiator: initiatorOf(row.initiatedBy),
        principal: row.principal,
        reason: row.reason,
        mode: o?.mode ?? null,
        pausedAt: row.pausedAt,
        outcome: lost !== null ? 'lost' : row.outcome,
        ended: lost !== null ? `LOST: ${lost}` : ended,
        rejected: row.rejectedAttempts,
        receiptHash: row.suspension,
        traceId: o?.span.traceId ?? null,
        spanId: o?.span.spanId ?? null,
        verification: verification(row.line, o?.lastSeq ?? 0, row),
        rules: row.rules,
        ...(row.a2aVersions === undefined ? {} : { a2aVersions: row.a2aVersions }),
      };
      const lane: LanePause = {
        from: o?.from ?? Date.parse(row.pausedAt),
        to: o?.to ?? null,
        initiator: initiatorOf(row.initiatedBy),
        reason: row.reason,
        mode: null,
        ended: row.outcome === 'open' ? null : ended,
        lost,
        rejected: o?.rejected ?? [],
      };
      shown.push({ key: o?.key ?? `${row.taskId}\n${row.suspension}`, row: shownRow, lane, audit: row });
    }
    return shown;
  }
}

/** How a row ended, as its cell says it (`resumed (explicit_resume) at …`, `still open`). */
export function endedText(row: AuditRow): string {
  if (row.outcome === 'open') return 'still open';
  return [row.outcome, row.cause ? `(${row.cause})` : '', row.closedAt ? `at ${row.closedAt}` : '']
    .filter(Boolean)
    .join(' ');
}
