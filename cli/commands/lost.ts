/**
 * @module cli/commands/lost
 * `a2a-replay lost FILE`: the pauses that never came back (docs/design.md §7 `LostPause`), from a
 * recording (the PauseObserver's verdicts) or a receipt log (suspensions no resumption closed).
 * A recording with entries that do not hold all the peer sent (`incomplete`, `cut`: §5) is
 * reported INCOMPLETE, naming each line, seq and why; one with requests in no A2A dialect it reads
 * (§14.10) NOT UNDERSTOOD, likewise. Exit 1 when there are lost pauses or the recording is
 * incomplete, 0 when neither, 2 for input it cannot read (requests not understood included).
 */
import { open } from 'node:fs/promises';
import type { Command } from 'commander';
import { errorMessage } from '../../src/errors.js';
import { ObservationPipeline } from '../../src/observe/pipeline.js';
import { formatIssue } from '../../src/protocol/read.js';
import { type RawLine, readLogChunks } from '../../src/receipts/log-reader.js';
import { readReceiptLogLine } from '../../src/receipts/read-line.js';
import type { ReceiptLogLine } from '../../src/receipts/types.js';
import { type VerifyResult, verifyReceiptLog } from '../../src/receipts/verify.js';
import { EntryVersions } from '../../src/observe/entry-versions.js';
import { readRecordingFile } from '../../src/recording/recording-reader.js';
import {
  type LostInterruptionListing,
  LostPauseCollector,
  type LostPauseListing,
  OpenSuspensions,
} from '../../src/tracing/lost-pauses.js';
import { type LostChain, VerdictChains } from '../../src/observe/verdict-chains.js';
import { receiptLogInput } from '../collector-input.js';
import { FleetLedger, ambiguityText, fleetFails } from '../../src/receipts/fleet.js';
import { type GivenLogs, fleetPauseJson } from '../fleet-logs.js';
import { orderedUnverified, verifyGroupInto } from '../fleet-series.js';
import { CliExit, EXIT, writeLines } from '../io.js';
import { keyringFromFiles, recordingOption } from '../options.js';
import { textTableLines } from '../text-table.js';
import { lostInSeries } from '../series-lost.js';
import { plainSeriesProblem } from '../../src/receipts/series-plain.js';
import { manyLogs } from '../series-verify.js';
import { exportVerdict, fleetVerdict, traceOf } from '../lost-verdict.js';
import {
  type Dialects,
  type Incomplete,
  INCOMPLETE_LISTED,
  type Source,
  countDialect,
  describeSource,
  render,
  renderChains,
  renderDialects,
  renderIncomplete,
  renderInterruptions,
  renderNotUnderstood,
} from '../lost-render.js';
import { basename } from 'node:path';

interface LostCommandOptions {
  key?: string[];
  otlp?: string;
  traces?: string;
  recording?: string;
  json?: boolean;
  explain?: boolean;
  allowTornTail?: boolean;
}

const cannotRead = (file: string, error: unknown): CliExit =>
  new CliExit(EXIT.usage, `${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);

/** Line 1 of `file`, read alone: the rest of the file is read as it is used, never held whole. */
async function firstLine(file: string): Promise<string> {
  const handle = await open(file, 'r').catch((error: unknown) => {
    throw cannotRead(file, error);
  });
  try {
    const pieces: Buffer[] = [];
    const buffer = Buffer.alloc(1 << 16);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const read = buffer.subarray(0, bytesRead);
      const newline = read.indexOf(0x0a);
      pieces.push(Buffer.from(newline === -1 ? read : read.subarray(0, newline)));
      if (newline !== -1) break;
    }
    return Buffer.concat(pieces).toString('utf8');
  } catch (error) {
    throw cannotRead(file, error);
  } finally {
    await handle.close();
  }
}

/** The `type` of line 1: "recording" or "ReceiptLog"; anything else is a usage error naming line 1. */
function firstLineType(file: string, text: string): string {
  if (text.trim() === '')
    throw new CliExit(EXIT.usage, `${file}:1: empty; expected a recording or a receipt log header`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliExit(EXIT.usage, `${file}:1: not JSON (${errorMessage(error)})`);
  }
  const type =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as { type?: unknown }).type
      : undefined;
  if (type !== 'recording' && type !== 'ReceiptLog') {
    throw new CliExit(
      EXIT.usage,
      `${file}:1: "type" is ${JSON.stringify(type)}; expected "recording" (a recording) or ` +
        `"ReceiptLog" (a receipt log)`,
    );
  }
  return type;
}

/**
 * The observer's verdicts over a recording, through the same pipeline record and run use, its
 * entries read as they come (the observer's memory is bounded; the recording is never held whole),
 * and the entries it could not read in full (`incomplete-entry` findings).
 */
async function lostInRecording(
  file: string,
  allowTornTail: boolean,
  explain: boolean,
): Promise<{
  lost: LostPauseListing[];
  interruptions: LostInterruptionListing[];
  incomplete: Incomplete;
  notUnderstood: Incomplete;
  dialects: Dialects;
  chains: readonly LostChain[];
}> {
  const collector = new LostPauseCollector();
  let chains: VerdictChains | undefined;
  const incomplete: Incomplete = { listed: [], count: 0 };
  const notUnderstood: Incomplete = { listed: [], count: 0 };
  const dialects: Dialects = {};
  const versions = new EntryVersions();
  const lines = new Map<number, number>();
  let pipeline: ObservationPipeline | undefined;
  let lastAt = '';
  for await (const read of readRecordingFile(file, { allowTornTail, source: file })) {
    if (read.kind === 'header') {
      pipeline = new ObservationPipeline({
        recordingId: read.header.id,
        spans: collector,
        retainFindings: false,
        onFinding: (finding) => {
          const into =
            finding.code === 'incomplete-entry' ? incomplete : finding.code === 'not-understood' ? notUnderstood : null;
          if (into === null || finding.seq === null) return;
          into.count += 1;
          if (into.listed.length < INCOMPLETE_LISTED)
            into.listed.push({ line: lines.get(finding.seq) ?? 0, seq: finding.seq, why: finding.message });
        },
      });
      lastAt = read.header.createdAt;
      if (explain) chains = new VerdictChains(read.header.id);
    } else {
      lastAt = read.entry.at;
      countDialect(dialects, read.entry);
      versions.add(read.entry);
      lines.clear();
      lines.set(read.entry.seq, read.line);
      void pipeline?.push(read.entry);
      chains?.observe(read.entry, read.line);
    }
  }
  // The reader refuses a recording without a header, so the pipeline exists here.
  await pipeline?.finish(lastAt);
  await pipeline?.idle();
  chains?.finish(lastAt);
  // Each row names its task's versions when the recording holds one other than 1.0 (design §14.10).
  const versioned = <T extends { taskId: string }>(rows: readonly T[]): T[] =>
    versions.named ? rows.map((r) => ({ ...r, a2aVersions: versions.ofTask(r.taskId) })) : [...rows];
  return {
    lost: versioned(collector.lost),
    interruptions: versioned(collector.lostInterruptions),
    incomplete,
    notUnderstood,
    dialects,
    chains: chains?.lost ?? [],
  };
}

/** A line of a receipt log as the readers read it; a bad one is a usage error naming it. */
function receiptLine(file: string, raw: RawLine, allowTornTail: boolean): ReceiptLogLine | undefined {
  // A last line without its newline that does not parse is torn (the writer died mid-line).
  const torn = (): boolean => !raw.complete && allowTornTail;
  if (raw.text === null) {
    if (torn()) return undefined;
    throw new CliExit(EXIT.usage, `${file}:${raw.number}: ${raw.problem ?? 'unreadable line'}`);
  }
  if (raw.text.trim() === '' && !raw.complete) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw.text);
  } catch (error) {
    if (torn()) return undefined;
    throw new CliExit(EXIT.usage, `${file}:${raw.number}: not JSON (${errorMessage(error)})`);
  }
  const parsed = readReceiptLogLine(value);
  if (!parsed.ok) throw new CliExit(EXIT.usage, `${file}:${raw.number}: ${formatIssue(parsed.issue)}`);
  return parsed.value;
}

/**
 * The lost pauses of a receipt log, its lines read as they come: only the suspensions still open
 * are kept, so a log of any length is read in flat memory. A bad line stops the reading, naming it.
 */
async function lostInReceiptLog(file: string, allowTornTail: boolean): Promise<OpenSuspensions> {
  const open = new OpenSuspensions();
  for await (const chunk of readLogChunks(file)) {
    for (const raw of chunk) {
      const line = receiptLine(file, raw, allowTornTail);
      if (line) open.add(line);
    }
  }
  return open;
}

/**
 * What a listing from a verified log rests on. Open ends are accepted (a recorder killed before
 * its closing checkpoint) but said: the lines after the last checkpoint may have been cut, which
 * hides the pauses they held, and nothing vouches for the receipts there.
 */
function verification(result: VerifyResult): string {
  const notes = [result.receiptSignatures === 'checked' ? 'verified' : 'chain verified, signatures unchecked'];
  if (result.tornTail !== null) notes.push(`torn last line ${result.tornTail} skipped`);
  if (result.recordingCheck === 'bound') notes.push('bound to the recording given');
  else if (result.recordingCheck === 'id only') notes.push('not bound to a recording: only its id was compared');
  if (!result.closed) {
    notes.push('not closed by a checkpoint: lines may be missing at its end');
    const unvouched = result.receipts - result.vouched;
    if (unvouched > 0) notes.push(`${unvouched} after the last checkpoint not vouched for`);
  }
  return notes.join('; ');
}

/** `lost` over the logs of a series (cli/series-lost). */
async function lostOfSeries(files: string[], options: LostCommandOptions): Promise<void> {
  if (options.recording !== undefined || options.explain)
    throw new CliExit(EXIT.usage, '--recording and --explain apply to one file, not to a series');
  const keyring = options.key?.length ? await keyringFromFiles(options.key) : undefined;
  const series = await lostInSeries(files, keyring, options.allowTornTail ?? false);
  const label = `the series ${series.files.join(', ')}`;
  const source: Source = { kind: 'receipt log', verification: series.verification };
  const { lost, interruptions } = series;
  if (options.json)
    process.stdout.write(
      `${JSON.stringify({ files: series.files, source: describeSource(source), lost, interruptions }, null, 2)}\n`,
    );
  else {
    await writeLines(render(label, source, lost, false));
    await writeLines(renderInterruptions(label, interruptions));
  }
  await exportVerdict(options, `lost-${basename(series.files.at(-1) ?? 'series')}`, lost, interruptions);
  if (lost.length > 0 || interruptions.length > 0) throw new CliExit(EXIT.drift, '');
}

const FLEET_HEADER = ['TASK', 'INITIATOR', 'REASON', 'SINCE', 'PAUSED IN', 'TRACE', 'PAUSE REASON'];

/**
 * `lost A B ...` (docs/design.md §17): the receipt logs of several recorders as one record. A
 * pause resumed in another given log is not lost; one open when every log ended is
 * (`recording_ended`); a resumption that pairs with no given pause is an `orphan`. With `--key`
 * each log is verified as it is read (a kid with no key fails naming the file).
 */
async function lostInFleet(given: GivenLogs, options: LostCommandOptions): Promise<void> {
  if (options.explain || options.recording !== undefined)
    throw new CliExit(
      EXIT.usage,
      `${options.explain ? '--explain' : '--recording'} applies to one file, not to several`,
    );
  const { files, groups } = given;
  const keyring = options.key?.length ? await keyringFromFiles(options.key) : undefined;
  const allowTornTail = options.allowTornTail ?? false;
  const ledger = new FleetLedger();
  for (const group of groups) {
    if (group.linked && keyring) {
      // The series verified as `verify` checks one; each log before its last may end open or torn.
      const series = await verifyGroupInto(ledger, group, { keyring, allowOpen: true, allowTornTail });
      if (!series.ok) throw new CliExit(EXIT.usage, `the series does not verify: ${series.error?.message ?? ''}`);
      continue;
    }
    const ordered = group.linked ? orderedUnverified(group) : group.files;
    const problem = group.linked && !keyring ? await plainSeriesProblem(ordered) : null;
    if (problem !== null) throw new CliExit(EXIT.usage, `the series does not hold together: ${problem.message}`);
    for (const [i, file] of ordered.entries()) {
      ledger.startLog(file, group.id);
      if (!keyring) {
        // A log of a series before its last may end torn: its successor began after it.
        const tornOk = allowTornTail || i < ordered.length - 1;
        for await (const chunk of readLogChunks(file))
          for (const raw of chunk) {
            const line = receiptLine(file, raw, tornOk);
            if (line) ledger.add(line, raw.number);
          }
        continue;
      }
      const result = await verifyReceiptLog(file, {
        keyring,
        allowOpen: true,
        allowTornTail,
        onLine: ({ number, line, hash }) => ledger.add(line, number, hash),
      });
      const failure = result.firstError;
      if (!result.ok)
        throw new CliExit(
          EXIT.usage,
          `${file}:${failure?.line ?? '?'}: does not verify (${failure?.reason ?? 'unknown'}: ` +
            `${failure?.message ?? ''})`,
        );
    }
  }
  const verdict = ledger.finish();
  const { lost, orphans, ambiguous } = verdict;
  if (options.json)
    process.stdout.write(
      `${JSON.stringify(
        {
          files,
          source: keyring ? 'receipt logs, verified' : 'receipt logs, unverified',
          lost: lost.map((p) => ({
            ...fleetPauseJson(p, null),
            reason: 'recording_ended',
            traceId: fleetVerdict(p).span?.traceId ?? null,
          })),
          orphans: orphans.map((o) => ({ ...o, reason: 'orphan' })),
          ambiguous: ambiguous.map(({ end, candidates }) => ({
            ...end,
            reason: 'ambiguous',
            candidates: candidates.map((p) => fleetPauseJson(p, null)),
          })),
        },
        null,
        2,
      )}\n`,
    );
  else {
    const where = `a fleet of ${files.length} logs (${files.join(', ')})`;
    await writeLines(
      (function* () {
        yield lost.length === 0
          ? `no lost pauses in ${where}`
          : `${lost.length} lost pause${lost.length === 1 ? '' : 's'} in ${where}`;
        if (lost.length > 0)
          yield* textTableLines(FLEET_HEADER, lost, (p) => [
            p.taskId,
            p.initiatedBy,
            'recording_ended',
            p.pausedAt,
            `${p.begun.file}:${p.begun.line}`,
            traceOf(fleetVerdict(p).span),
            p.reason === null ? '-' : JSON.stringify(p.reason),
          ]);
        for (const o of orphans)
          yield (
            `orphan: task ${o.taskId}: ${o.outcome} in ${o.ended.file}:${o.ended.line} (seq ${o.ended.seq}), ` +
            'naming a pause outside its log that no given log holds'
          );
        for (const a of ambiguous) yield `ambiguous: ${ambiguityText(a)}`;
      })(),
    );
  }
  await exportVerdict(options, 'lost-fleet', lost.map(fleetVerdict), []);
  if (lost.length > 0 || fleetFails(verdict)) throw new CliExit(EXIT.drift, '');
}

export function registerLost(program: Command): void {
  program
    .command('lost')
    .description(
      'list pauses that were never resumed, from a recording or a receipt log (exit 1 if any); the logs ' +
        'of a series are read as one log, and other receipt logs (or directories of them) as one fleet: a ' +
        'pause resumed in another is not lost',
    )
    .argument(
      '<files...>',
      'a recording (*.jsonl) or receipt log (*.receipts.jsonl); several, or a directory: a series or a fleet',
    )
    .option('--key <file...>', 'key file(s) to verify a receipt log with first')
    .option(
      '--recording <file>',
      "with --key: the log's recording; a log of another recording, or a recording cut since the log " +
        'closed, is refused',
    )
    .option('--json', 'print the lost pauses as a JSON array')
    .option('--explain', 'for each lost pause of a recording, the facts (line, seq, type) and rules that led to it')
    .option('--allow-torn-tail', 'skip a torn last line (a recorder crash) instead of refusing the file')
    .option(
      '--otlp <url>',
      'also export each lost pause as a LostPause span (status ERROR, under the Suspension it condemns) and ' +
        'each lost interruption as a LostInterruption, to this OTLP/HTTP endpoint (default: ' +
        'OTEL_EXPORTER_OTLP_ENDPOINT); the same logs always give the same span ids',
    )
    .option('--traces <dir>', 'also write those spans as an OTLP-JSON file in DIR')
    .action(async (files: string[], options: LostCommandOptions) => {
      const many = await manyLogs(files);
      if (many?.series) return lostOfSeries(many.files, options);
      if (many) return lostInFleet(many, options);
      const [file] = files;
      if (file === undefined) throw new CliExit(EXIT.usage, 'no file given');
      const input = await receiptLogInput(file);
      try {
        await lostOne(file, input.path, options);
      } finally {
        await input.cleanup();
      }
    });
}

/** Lists the lost pauses of `read` (the file itself, or a log rebuilt from a collector export), named `file`. */
async function lostOne(file: string, read: string, options: LostCommandOptions): Promise<void> {
  const type = firstLineType(file, await firstLine(read));
  let source: Source;
  let lost: LostPauseListing[];
  let interruptions: LostInterruptionListing[];
  let incomplete: Incomplete = { listed: [], count: 0 };
  let notUnderstood: Incomplete = { listed: [], count: 0 };
  let dialects: Dialects = {};
  let chains: readonly LostChain[] = [];
  if (options.explain && type !== 'recording')
    throw new CliExit(EXIT.usage, '--explain applies to a recording: a receipt log holds no rule');
  if (options.recording !== undefined && !(type === 'ReceiptLog' && options.key?.length))
    throw new CliExit(EXIT.usage, '--recording applies to a receipt log verified with --key');
  if (type === 'recording') {
    if (options.key?.length)
      throw new CliExit(EXIT.usage, '--key applies to receipt logs only; a recording is not signed');
    source = { kind: 'recording' };
    ({ lost, interruptions, incomplete, notUnderstood, dialects, chains } = await lostInRecording(
      read,
      options.allowTornTail ?? false,
      options.explain ?? false,
    ));
  } else if (options.key?.length) {
    // One pass: the open suspensions are those of the lines as they verified, so the listing
    // is of the log that verified even if the file changes meanwhile (a recorder still
    // appending). An open end is what `lost` looks at (a recorder killed before its closing
    // checkpoint).
    const open = new OpenSuspensions();
    const result = await verifyReceiptLog(read, {
      keyring: await keyringFromFiles(options.key),
      allowOpen: true,
      allowTornTail: options.allowTornTail ?? false,
      ...(await recordingOption(options.recording)),
      onLine: ({ line, hash }) => open.add(line, hash),
    });
    if (!result.ok) {
      const failure = result.firstError;
      throw new CliExit(
        EXIT.usage,
        `${file}:${failure?.line ?? '?'}: does not verify (${failure?.reason ?? 'unknown'}: ` +
          `${failure?.message ?? ''})`,
      );
    }
    lost = open.lost();
    interruptions = open.lostInterruptions();
    source = { kind: 'receipt log', verification: verification(result) };
  } else {
    const open = await lostInReceiptLog(read, options.allowTornTail ?? false);
    lost = open.lost();
    interruptions = open.lostInterruptions();
    source = { kind: 'receipt log', verification: 'unverified' };
  }
  if (options.json)
    process.stdout.write(
      `${JSON.stringify(
        {
          file,
          source: describeSource(source),
          lost,
          lostInterruptions: interruptions,
          ...(type === 'recording'
            ? {
                complete: incomplete.count === 0,
                incomplete: incomplete.listed,
                understood: notUnderstood.count === 0,
                notUnderstood: notUnderstood.listed,
                dialects,
              }
            : {}),
          ...(options.explain ? { explain: chains } : {}),
        },
        null,
        2,
      )}\n`,
    );
  else {
    await writeLines(render(file, source, lost, incomplete.count > 0 || notUnderstood.count > 0));
    await writeLines(renderInterruptions(file, interruptions));
    process.stdout.write(renderIncomplete(file, incomplete));
    process.stdout.write(renderNotUnderstood(file, notUnderstood));
    process.stdout.write(renderDialects(dialects));
    if (options.explain) await writeLines(renderChains(file, chains));
  }
  await exportVerdict(options, `lost-${basename(file).replace(/\.jsonl$/, '')}`, lost, interruptions);
  // Traffic no dialect reads is input this tool cannot read: exit 2 before any other verdict.
  if (notUnderstood.count > 0) throw new CliExit(EXIT.usage, '');
  if (lost.length > 0 || interruptions.length > 0 || incomplete.count > 0) throw new CliExit(EXIT.drift, '');
}
