/**
 * @module logs/series-audit
 * The audit rows of a series of receipt logs, read as one log (docs/design.md §6, "Series"): the
 * series is verified, and every log's lines go in series order to one collector, so a pause begun
 * in one log and resumed in a later one is one row, ended. A row's `line` and `closedAtLine` are
 * lines of the log that holds each receipt.
 */
import { AuditCollector, type AuditFilter, type AuditRow } from '../receipts/audit.js';
import type { Keyring } from '../receipts/keys.js';
import type { Checkpoint } from '../receipts/types.js';
import { type SeriesResult, verifySeries } from '../receipts/series.js';

/** The series verified, and its rows (none when it does not verify). */
export async function auditSeries(
  files: readonly string[],
  options: {
    keyring: Keyring;
    allowOpen?: boolean;
    allowTornTail?: boolean;
    agentPrincipals?: readonly string[];
    filter?: AuditFilter;
    /** The series' head and the log it is checked against (src/logs/series-head.ts). */
    anchorAt?: { path: string; checkpoint: Checkpoint };
  },
): Promise<{ series: SeriesResult; rows: AuditRow[] }> {
  const collector = new AuditCollector({ agentPrincipals: [...(options.agentPrincipals ?? [])] });
  const series = await verifySeries(
    files,
    {
      keyring: options.keyring,
      allowOpen: options.allowOpen ?? false,
      allowTornTail: options.allowTornTail ?? false,
      ...(options.anchorAt ? { anchorAt: options.anchorAt } : {}),
    },
    (_path, line) => collector.onLine(line),
  );
  return { series, rows: series.ok ? collector.rows(options.filter ?? {}) : [] };
}
