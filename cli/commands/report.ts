/**
 * @module cli/commands/report
 * `a2a-replay report FILE... --out report.html [--key FILE]... [--public-key FILE]...`: one
 * self-contained HTML file over recordings and receipt logs (docs/design.md §12) — each task's
 * states over time, each pause coloured by initiator with its end, rejected attempts and lost
 * verdict, and the audit rows with receipt hashes, span ids and verification status; a recording
 * and its receipt log are joined into one view, and the lost pauses are listed first. Exit 0
 * when written; 2 on a usage error or a file that is neither a recording nor a receipt log. With
 * `--fleet`, or a directory given, the receipt logs of several recorder replicas (each one log or
 * a series) are one section: each pause says which log saw it begin and end (docs/design.md §17).
 */
import { open, stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { systemClock } from '../../src/clock.js';
import { errorMessage } from '../../src/errors.js';
import { openOutputFile } from '../../src/output-file.js';
import { loadKeyring } from '../../src/receipts/key-file.js';
import type { Keyring } from '../../src/receipts/keys.js';
import { type ReportInput, ReportInputError, fileSections } from '../../src/report/build-report.js';
import { type ReportSection, htmlReportChunks, pausesOf } from '../../src/report/html-report.js';
import { traceUrlProblem } from '../../src/report/trace-link.js';
import { type FleetReportGroup, fleetSection } from '../../src/report/fleet-report.js';
import { verifySeries } from '../../src/receipts/series.js';
import { givenLogs } from '../../src/logs/given-logs.js';
import { orderedUnverified } from '../../src/logs/group-series.js';
import { CliExit, EXIT } from '../io.js';
import { seriesLine } from '../../src/logs/describe-verification.js';

interface ReportOptions {
  out: string;
  key: string[];
  publicKey: string[];
  fleet?: boolean;
  traceUrl?: string;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** The file's kind from its header, and the recording id it names (a log's `recording`). */
async function inputOf(file: string): Promise<ReportInput> {
  // Line 1 alone (a header is far below 1 MiB): the file itself is read later, as it is used.
  let text: string;
  try {
    const handle = await open(file, 'r');
    try {
      const buffer = Buffer.alloc(1 << 20);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new CliExit(EXIT.usage, `${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const first = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));
  let header: { type?: unknown; id?: unknown; recording?: unknown } | null;
  try {
    header = JSON.parse(first) as typeof header;
  } catch {
    throw new CliExit(EXIT.usage, `${file}:1: not JSON; expected a recording or a receipt log header`);
  }
  const id = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  if (header?.type === 'recording') return { file, kind: 'recording', id: id(header.id) };
  if (header?.type === 'ReceiptLog') return { file, kind: 'receipt log', id: id(header.recording) };
  throw new CliExit(EXIT.usage, `${file}:1: neither a recording nor a receipt log header`);
}

/**
 * Writes the report of `sections` to `out`, in pieces of about 1 MiB as they are made (a report of
 * a long log is never held as one text); the path is named in the error when it cannot.
 */
export async function writeReport(
  out: string,
  sections: ReportSection[],
  title: string,
  traceUrl?: string,
): Promise<void> {
  const report = {
    title,
    createdAt: new Date(systemClock.now()).toISOString(),
    sections,
    ...(traceUrl === undefined ? {} : { traceUrl }),
  };
  try {
    const file = await openOutputFile(out, { replace: true });
    try {
      let batch: string[] = [];
      let size = 0;
      for (const chunk of htmlReportChunks(report)) {
        batch.push(chunk);
        size += chunk.length;
        if (size < 1 << 20) continue;
        await file.write(batch.join(''));
        batch = [];
        size = 0;
      }
      await file.write(batch.join(''));
    } finally {
      await file.close();
    }
  } catch (error) {
    throw new CliExit(EXIT.usage, `${out}: cannot write the report (${errorMessage(error)})`);
  }
}

/**
 * `report --fleet` (or a directory given): the receipt logs of several recorder replicas as one
 * section (src/report/fleet-report.ts, docs/design.md §17), grouped by series as `verify` groups
 * them; with a key each series is checked as one, and what it says is a note of the report.
 */
async function fleetReport(files: string[], keyring: Keyring | undefined): Promise<ReportSection> {
  const given = await givenLogs(files);
  const notes: string[] = [];
  const groups: FleetReportGroup[] = [];
  for (const group of given.groups) {
    const ordered = group.linked ? orderedUnverified(group) : group.files;
    groups.push({ id: group.id, files: ordered });
    if (group.linked && keyring !== undefined)
      notes.push(seriesLine(await verifySeries(ordered, { keyring, allowOpen: true, allowTornTail: true })));
  }
  return fleetSection(groups, keyring, notes);
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('one self-contained HTML file of pauses, receipts and lost pauses, over recordings and receipt logs')
    .argument(
      '<files...>',
      'recordings (*.jsonl) and receipt logs (*.receipts.jsonl); with --fleet, or a directory, the receipt logs ' +
        '(a recording standing for the log beside it, a directory for the logs in it) of one fleet',
    )
    .requiredOption('--out <file>', 'the HTML file to write')
    .option('--key <file>', 'key file to verify receipt logs with (repeatable)', collect, [])
    .option('--public-key <file>', 'public key file: verifies checkpoints only (repeatable)', collect, [])
    .option(
      '--trace-url <template>',
      'make every span shown a link to its trace, e.g. http://jaeger:16686/trace/{traceId} ({traceId} and ' +
        '{spanId} are replaced; default: A2A_REPLAY_TRACE_URL)',
    )
    .option(
      '--fleet',
      'read the logs as one fleet of recorder replicas (each a log or a series): one section, each pause ' +
        'with the log that saw it begin and end',
    )
    .action(async (files: string[], options: ReportOptions) => {
      const traceUrl = traceUrlOption(options.traceUrl);
      let keyring: Keyring | undefined;
      if (options.key.length > 0 || options.publicKey.length > 0) {
        try {
          const loaded = await loadKeyring({ keys: options.key, publicKeys: options.publicKey, env: {} });
          for (const warning of loaded.warnings) process.stderr.write(`a2a-replay: ${warning}\n`);
          keyring = loaded.keyring;
        } catch (error) {
          throw new CliExit(EXIT.usage, errorMessage(error));
        }
      }
      let sections: ReportSection[];
      const directory = async (f: string): Promise<boolean> =>
        (await stat(f).catch(() => null))?.isDirectory() === true;
      if (options.fleet || (await Promise.all(files.map(directory))).includes(true)) {
        sections = [await fleetReport(files, keyring)];
      } else {
        const inputs: ReportInput[] = [];
        for (const file of files) inputs.push(await inputOf(file));
        try {
          // A recording and its receipt log (by the log's `recording` id) become one view.
          sections = await fileSections(inputs, keyring);
        } catch (error) {
          if (error instanceof ReportInputError) throw new CliExit(EXIT.usage, error.message);
          throw error;
        }
      }
      await writeReport(options.out, sections, 'a2a-replay report', traceUrl);
      let pauses = 0;
      let lost = 0;
      let interruptions = 0;
      let lostInterruptions = 0;
      for (const s of sections) {
        pauses += pausesOf(s);
        for (const r of s.rows) if (r.outcome === 'lost') lost++;
        interruptions += s.interruptions?.length ?? 0;
        for (const r of s.interruptions ?? []) if (r.outcome === 'lost') lostInterruptions++;
      }
      const interrupted =
        interruptions === 0
          ? ''
          : `, ${interruptions} interruption${interruptions === 1 ? '' : 's'}, ${lostInterruptions} lost`;
      process.stdout.write(
        `wrote ${options.out}: ${files.length} files, ${pauses} pauses, ${lost} lost${interrupted}\n`,
      );
    });
}

/** `--trace-url`, else A2A_REPLAY_TRACE_URL: a template naming `{traceId}`, refused (exit 2) when it cannot be one. */
export function traceUrlOption(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const template = given ?? (env['A2A_REPLAY_TRACE_URL']?.trim() || undefined);
  if (template === undefined) return undefined;
  const problem = traceUrlProblem(template);
  if (problem !== undefined)
    throw new CliExit(
      EXIT.usage,
      `${given === undefined ? 'A2A_REPLAY_TRACE_URL' : '--trace-url'}: ${JSON.stringify(template)}: ${problem}`,
    );
  return template;
}
