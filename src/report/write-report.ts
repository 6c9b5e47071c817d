/**
 * @module report/write-report
 * The report as `report` writes it (docs/design.md §12, §17): {@link reportSections} reads the
 * files given (recordings and receipt logs, a recording and its log joined; or the logs of a fleet
 * as one section) and {@link writeHtmlReport} writes the self-contained HTML file.
 */
import { stat } from 'node:fs/promises';
import { type Clock, systemClock } from '../clock.js';
import { A2aReplayError, errorMessage } from '../errors.js';
import { readFirstLine } from '../logs/first-line.js';
import { givenLogs } from '../logs/given-logs.js';
import { seriesLine } from '../logs/describe-verification.js';
import { orderedUnverified } from '../logs/group-series.js';
import { openOutputFile } from '../output-file.js';
import type { Keyring } from '../receipts/keys.js';
import { verifySeries } from '../receipts/series.js';
import { type ReportInput, fileSections } from './build-report.js';
import { type FleetReportGroup, fleetSection } from './fleet-report.js';
import { type ReportSection, htmlReportChunks } from './html-report.js';

/** The file's kind from its header, and the recording id it names (a log's `recording`). */
export async function reportInputOf(file: string): Promise<ReportInput> {
  // Line 1 alone, read to its end: a continued log's header carries its open pauses and can be long.
  const first = await readFirstLine(file);
  let header: { type?: unknown; id?: unknown; recording?: unknown } | null;
  try {
    header = JSON.parse(first) as typeof header;
  } catch {
    throw new A2aReplayError('INVALID_ARGUMENT', `${file}:1: not JSON; expected a recording or a receipt log header`);
  }
  const id = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  if (header?.type === 'recording') return { file, kind: 'recording', id: id(header.id) };
  if (header?.type === 'ReceiptLog') return { file, kind: 'receipt log', id: id(header.recording) };
  throw new A2aReplayError('INVALID_ARGUMENT', `${file}:1: neither a recording nor a receipt log header`);
}

/**
 * Writes the report of `sections` to `out`, in pieces of about 1 MiB as they are made (a report of
 * a long log is never held as one text); the path is named in the error when it cannot.
 */
export async function writeHtmlReport(
  out: string,
  sections: ReportSection[],
  title: string,
  traceUrl?: string,
  clock: Clock = systemClock,
): Promise<void> {
  const report = {
    title,
    createdAt: new Date(clock.now()).toISOString(),
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
    throw new A2aReplayError('INVALID_ARGUMENT', `${out}: cannot write the report (${errorMessage(error)})`, {
      cause: error,
    });
  }
}

/**
 * `report --fleet` (or a directory given): the receipt logs of several recorder replicas as one
 * section (src/report/fleet-report.ts, docs/design.md §17), grouped by series as `verify` groups
 * them; with a key each series is checked as one, and what it says is a note of the report.
 */
export async function fleetReportSection(files: string[], keyring: Keyring | undefined): Promise<ReportSection> {
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

/**
 * The sections of a report over `files`: with `fleet`, or a directory among them, the receipt logs
 * of one fleet as one section; else one section per recording or receipt log, a recording and its
 * log (by the log's `recording` id) joined into one view. A file that cannot be read is an error
 * naming it (`ReportInputError` once read).
 */
export async function reportSections(
  files: readonly string[],
  options: { keyring?: Keyring | undefined; fleet?: boolean | undefined } = {},
): Promise<ReportSection[]> {
  const directory = async (f: string): Promise<boolean> => (await stat(f).catch(() => null))?.isDirectory() === true;
  if (options.fleet || (await Promise.all(files.map(directory))).includes(true))
    return [await fleetReportSection([...files], options.keyring)];
  const inputs: ReportInput[] = [];
  for (const file of files) inputs.push(await reportInputOf(file));
  return fileSections(inputs, options.keyring);
}
