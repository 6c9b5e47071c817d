/**
 * `a2a-replay run` in the test's process: the library call the command makes
 * (`replayRecordings`, cli/commands/run.ts) with the same defaults, and the same rendering of its
 * result — the text report (`renderRecordingText` per recording and `renderSummaryLine`, no
 * colour) or `--json` (`renderJson`) as `stdout`, the `--junit` and `--html` files written as the
 * command writes them — with the exit code the command exits with (`summary.exitCode`). For tests
 * whose subject is what the replay concludes, not the process.
 */
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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

/** The status line of each recording in `run`'s text report: PASS, UPDATED, DRIFT, INVALID, ERROR or STOPPED. */
export function verdictLines(stdout: string): string[] {
  return stdout.split('\n').filter((line) => /^(PASS|UPDATED|DRIFT|INVALID|ERROR|STOPPED)\b/.test(line));
}

/**
 * `count` copies of `recording` in `dir`, each beside a copy of its golden receipts
 * (`NAME.receipts.jsonl`): one run over them replays the session `count` times in a row.
 */
export async function copiesOf(recording: string, dir: string, count: number): Promise<string[]> {
  const copies: string[] = [];
  for (let i = 0; i < count; i++) {
    const copy = join(dir, `copy-${i}.jsonl`);
    await copyFile(recording, copy);
    await copyFile(recording.replace(/\.jsonl$/, '.receipts.jsonl'), join(dir, `copy-${i}.receipts.jsonl`));
    copies.push(copy);
  }
  return copies;
}
