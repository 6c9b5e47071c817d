/**
 * @module cli/series-verify
 * `verify LOG LOG... | verify DIR`: the receipt logs of a series, given in any order or as the
 * directory holding them (docs/design.md §6, "Series"): each verifies, and each link names its
 * predecessor exactly; a log missing between two, files swapped, or a log of another series is
 * named. Exit 0 when the series verifies, 1 naming what is wrong.
 */
import { stat } from 'node:fs/promises';
import { A2aReplayError } from '../src/errors.js';
import { printable } from '../src/printable.js';
import { type SeriesResult, seriesFiles, verifySeries } from '../src/receipts/series.js';
import { type GivenLogs, givenLogs } from './fleet-logs.js';
import { CliExit, EXIT } from './io.js';
import { type KeyOptions, type OpenEndOptions, loadVerifyInputs, openEnd } from './options.js';
import type { VerifyResult } from '../src/receipts/verify.js';

/**
 * What `verify`, `lost` or `audit` was given when it is several files or a directory: the logs
 * grouped by series (cli/fleet-logs `givenLogs`), one series alone read as one log, anything else a
 * fleet; null for one file, read as itself.
 */
export async function manyLogs(logs: readonly string[]): Promise<GivenLogs | null> {
  if (logs.length === 1 && (await stat(logs[0]!).catch(() => null))?.isDirectory() !== true) return null;
  return givenLogs(logs);
}

/** The line that says whether a series verified. */
export function seriesLine(series: SeriesResult): string {
  return series.ok
    ? `series ${series.id ?? '-'}: ok: ${series.members.length} logs, each linked to the one before it; ` +
        `${series.open} pause${series.open === 1 ? '' : 's'} open at its end`
    : `series ${series.id ?? '-'}: INVALID: ${series.error?.message ?? ''}`;
}

/** Verifies the series and prints one line per log and one for the series. */
export async function verifySeriesCommand(
  logs: readonly string[],
  options: KeyOptions & OpenEndOptions & { json?: boolean; jobs?: string; since?: string },
  /** `verify`'s one-line summary of a log. */
  verifySummary: (log: string, result: VerifyResult) => string,
): Promise<void> {
  for (const [flag, given] of [
    ['--checkpoint', options.checkpoint],
    ['--recording', options.recording],
    ['--since', options.since],
  ] as const)
    if (given !== undefined) throw new CliExit(EXIT.usage, `${flag} applies to one log, not to a series`);
  let files: string[];
  try {
    files = await seriesFiles(logs);
  } catch (error) {
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, error.message);
    throw error;
  }
  const inputs = await loadVerifyInputs(files[0]!, options);
  const series = await verifySeries(files, { keyring: inputs.keyring, ...openEnd(options) });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(series)}\n`);
  } else {
    const lines = series.members.map((m) => `${m.position}: ${verifySummary(m.path, m.result)}`);
    lines.push(seriesLine(series));
    process.stdout.write(`${lines.map((l) => printable(l)).join('\n')}\n`);
  }
  if (!series.ok) throw new CliExit(EXIT.drift, '');
}
