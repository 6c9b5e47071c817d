/**
 * @module cli/series-audit
 * `audit LOG LOG... | audit DIR`: the audit rows of a series of receipt logs, read as one log
 * (docs/design.md §6, "Series"): the series is verified, and every log's lines go in series order
 * to one collector, so a pause begun in one log and resumed in a later one is one row, ended. A
 * row's `line` and `closedAtLine` are lines of the log that holds each receipt.
 */
import { printable } from '../src/printable.js';
import { AuditCollector, type AuditFilter, type AuditRow } from '../src/receipts/audit.js';
import { seriesFiles, verifySeries } from '../src/receipts/series.js';
import { A2aReplayError } from '../src/errors.js';
import { CliExit, EXIT, writeLines } from './io.js';
import { type KeyOptions, type OpenEndOptions, loadVerifyInputs, openEnd } from './options.js';

/** Audits the series given; prints as `audit` prints one log (`tableLines`). */
export async function auditSeries(
  logs: readonly string[],
  options: KeyOptions & OpenEndOptions & { json?: boolean; agentPrincipal: string[] },
  filter: AuditFilter,
  tableLines: (rows: readonly AuditRow[]) => Iterable<string>,
): Promise<void> {
  if (options.checkpoint !== undefined || options.recording !== undefined)
    throw new CliExit(EXIT.usage, '--checkpoint and --recording apply to one log, not to a series');
  let files: string[];
  try {
    files = await seriesFiles(logs);
  } catch (error) {
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, error.message);
    throw error;
  }
  const inputs = await loadVerifyInputs(files[0]!, options);
  const collector = new AuditCollector({ agentPrincipals: options.agentPrincipal });
  const series = await verifySeries(files, { keyring: inputs.keyring, ...openEnd(options) }, (_path, line) =>
    collector.onLine(line),
  );
  if (!series.ok) {
    process.stderr.write(`a2a-replay: not audited: series INVALID: ${printable(series.error?.message ?? '')}\n`);
    throw new CliExit(EXIT.drift, '');
  }
  const rows = collector.rows(filter);
  if (options.json) {
    // As one log's rows: each says its kind (audit --kind, docs/design.md §14.9).
    process.stdout.write(`${JSON.stringify(rows.map((row) => ({ kind: 'pause', ...row })))}\n`);
    return;
  }
  await writeLines(tableLines(rows));
  const count = `${rows.length} suspension${rows.length === 1 ? '' : 's'}`;
  process.stderr.write(
    `${printable(`${count}; series ${series.id ?? '-'} of ${series.members.length} logs verified`)}\n`,
  );
}
