/**
 * `a2a-replay run` in the test's process: the library call the command makes
 * (`replayRecordings`, cli/commands/run.ts) with the same defaults, and the same rendering of its
 * result — the text report (`renderRecordingText` per recording and `renderSummaryLine`, no
 * colour) or `--json` (`renderJson`) as `stdout`, the `--junit` and `--html` files written as the
 * command writes them — with the exit code the command exits with (`summary.exitCode`). For tests
 * whose subject is what the replay concludes, not the process.
 */
import { writeFile } from 'node:fs/promises';
import { loadKeyring } from '../../src/public/receipts.js';
import {
  type ReplayRecordingsOptions,
  type RunSummary,
  renderJson,
  renderJunit,
  renderRecordingText,
  renderSummaryLine,
  replayRecordings,
} from '../../src/public/replay.js';
import { replaySection, writeHtmlReport } from '../../src/public/report.js';

export interface ReplayReportOptions extends ReplayRecordingsOptions {
  /** `--key FILE`: the golden receipts' key file, loaded (instead of a loaded `keyring`). */
  key?: string;
  /** `--json`: the report as JSON on stdout. */
  json?: boolean;
  /** `--junit FILE`. */
  junit?: string;
  /** `--html FILE`. */
  html?: string;
}

export interface ReplayReport {
  /** The exit code `run` exits with for this summary. */
  code: number;
  /** What `run` prints on standard output. */
  stdout: string;
  /** What `run` would have written to standard error as warnings. */
  warnings: string[];
  summary: RunSummary;
}

/** `a2a-replay run RECORDINGS` with the flags of `options`, in this process (see the module doc). */
export async function replayReport(
  recordings: readonly string[],
  options: ReplayReportOptions = {},
): Promise<ReplayReport> {
  const { key, json, junit, html, ...rest } = options;
  const keyring = key === undefined ? rest.keyring : (await loadKeyring({ keys: [key], env: {} })).keyring;
  const warnings: string[] = [];
  const summary = await replayRecordings(recordings, {
    noise: {},
    ignore: [],
    warn: (line) => warnings.push(line),
    ...rest,
    ...(keyring ? { keyring } : {}),
  });
  let stdout = '';
  if (json) stdout = `${renderJson(summary)}\n`;
  else {
    for (const r of summary.results) stdout += `${renderRecordingText(r, { color: false })}\n`;
    stdout += `${renderSummaryLine(summary)}\n`;
  }
  if (html !== undefined) {
    const sections = await Promise.all(summary.results.map((r) => replaySection(r)));
    await writeHtmlReport(html, sections, 'a2a-replay run');
  }
  if (junit !== undefined) await writeFile(junit, renderJunit(summary));
  return { code: summary.exitCode, stdout, warnings, summary };
}
