/**
 * @module cli/commands/lost
 * `a2a-replay lost FILE`: the pauses that never came back (docs/design.md §7 `LostPause`), from a
 * recording (the PauseObserver's verdicts) or a receipt log (suspensions no resumption closed).
 * A recording with entries that do not hold all the peer sent (`incomplete`, `cut`: §5) is
 * reported INCOMPLETE, naming each line, seq and why; one with requests in no A2A dialect it reads
 * (§14.10) NOT UNDERSTOOD, likewise; one where the observer could not read what the peer said
 * (a malformed pause, an answer that does not parse: §14.2) UNREAD, likewise. Exit 1 when there are
 * lost pauses or the recording is incomplete or unread, 0 when none, 2 for input it cannot read
 * (requests not understood included).
 */
import type { Command } from 'commander';
import { describeVerification } from '../../src/logs/describe-verification.js';
import { receiptLogInput } from '../../src/logs/collector-input.js';
import { fleetVerdictOf } from '../../src/logs/fleet-lost.js';
import { type GivenLogs, fleetPauseJson, manyLogs } from '../../src/logs/given-logs.js';
import { firstLineType, lostInReceiptLog, lostInRecording, unreceiptedInLog } from '../../src/logs/lost-reading.js';
import { type LogStall, stallMessage } from '../../src/receipts/stall-record.js';
import { readFirstLine } from '../../src/logs/first-line.js';
import { lostInSeries } from '../../src/logs/series-lost.js';
import type { LostChain } from '../../src/observe/verdict-chains.js';
import { ambiguityText, fleetFails } from '../../src/receipts/fleet.js';
import { verifyReceiptLog } from '../../src/receipts/verify.js';
import { type LostInterruptionListing, type LostPauseListing, OpenSuspensions } from '../../src/observe/lost-pauses.js';
import type { Dialects } from '../../src/logs/lost-reading.js';
import { type RecordingGaps, gapless } from '../../src/logs/recording-gaps.js';
import { A2aReplayError } from '../../src/errors.js';
import { type LogSet, headProblem, openLogSet } from '../../src/logs/log-set.js';
import { CliExit, EXIT, writeLines } from '../io.js';
import { keyringFromFiles, recordingOption } from '../options.js';
import { textTableLines } from '../text-table.js';
import { exportVerdict, fleetVerdict, traceOf } from '../lost-verdict.js';
import {
  type Source,
  describeSource,
  render,
  renderChains,
  renderDialects,
  renderIncomplete,
  renderInterruptions,
  renderNotUnderstood,
  renderUnread,
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
  checkpoint?: string;
}

/**
 * `--checkpoint HEAD` (docs/design.md §6, "The head of a series"): the head must be the checkpoint
 * of the log, or of the series' last log, given; one of a later log names the logs missing, which
 * hold what may be lost (exit 1). Checked with `--key` before anything is listed.
 */
async function checkHead(logs: readonly string[], options: LostCommandOptions): Promise<void> {
  if (options.checkpoint === undefined) return;
  if (!options.key?.length) throw new CliExit(EXIT.usage, '--checkpoint needs --key: the head is checked with it');
  let set: LogSet;
  try {
    set = await openLogSet(logs, {
      keys: await keyringFromFiles(options.key),
      head: options.checkpoint,
      allowTornTail: options.allowTornTail ?? false,
    });
  } catch (error) {
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, `--checkpoint: ${error.message}`);
    throw error;
  }
  try {
    const problem = await headProblem(set);
    if (problem !== null) throw new CliExit(EXIT.drift, problem);
  } finally {
    await set.close();
  }
}

/** `lost` over the logs of a series (cli/series-lost). */
async function lostOfSeries(files: string[], options: LostCommandOptions): Promise<void> {
  if (options.recording !== undefined || options.explain)
    throw new CliExit(EXIT.usage, '--recording and --explain apply to one file, not to a series');
  await checkHead(files, options);
  const keyring = options.key?.length ? await keyringFromFiles(options.key) : undefined;
  const series = await lostInSeries(files, keyring, options.allowTornTail ?? false).catch(invalidLogs);
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

/**
 * Logs that do not verify or hold together are exit 1, as `verify` and `audit` say of the same
 * logs (an invalid log, not malformed input).
 */
function invalidLogs(error: unknown): never {
  if (error instanceof A2aReplayError && error.code === 'RECEIPT_INVALID') throw new CliExit(EXIT.drift, error.message);
  throw error;
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
  if (options.checkpoint !== undefined)
    throw new CliExit(EXIT.usage, '--checkpoint applies to one log or one series, not to a fleet');
  const { files } = given;
  const keyring = options.key?.length ? await keyringFromFiles(options.key) : undefined;
  const verdict = await fleetVerdictOf(given, keyring, options.allowTornTail ?? false).catch(invalidLogs);
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
      '--checkpoint <file>',
      'with --key: the head kept outside the logs (`record --witness FILE`); a head of a later log than ' +
        'those given names the logs missing (exit 1)',
    )
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
  const type = firstLineType(file, await readFirstLine(read));
  let source: Source;
  let lost: LostPauseListing[];
  let interruptions: LostInterruptionListing[];
  let gaps: RecordingGaps | null = null;
  let dialects: Dialects = {};
  let chains: readonly LostChain[] = [];
  // Lines the recorder could not write (a full disk until it stopped): moves with no receipt.
  let unreceipted: LogStall | null = null;
  if (options.explain && type !== 'recording')
    throw new CliExit(EXIT.usage, '--explain applies to a recording: a receipt log holds no rule');
  if (options.recording !== undefined && !(type === 'ReceiptLog' && options.key?.length))
    throw new CliExit(EXIT.usage, '--recording applies to a receipt log verified with --key');
  if (options.checkpoint !== undefined && type === 'recording')
    throw new CliExit(EXIT.usage, '--checkpoint applies to a receipt log: a recording has no checkpoint');
  if (type !== 'recording') await checkHead([file], options);
  if (type === 'recording') {
    if (options.key?.length)
      throw new CliExit(EXIT.usage, '--key applies to receipt logs only; a recording is not signed');
    source = { kind: 'recording' };
    ({ lost, interruptions, gaps, dialects, chains } = await lostInRecording(
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
    if (result.firstError?.reason === 'unreceipted' && result.stall) unreceipted = result.stall;
    else if (!result.ok) {
      const failure = result.firstError;
      throw new CliExit(
        EXIT.usage,
        `${file}:${failure?.line ?? '?'}: does not verify (${failure?.reason ?? 'unknown'}: ` +
          `${failure?.message ?? ''})`,
      );
    }
    lost = open.lost();
    interruptions = open.lostInterruptions();
    source = { kind: 'receipt log', verification: describeVerification(result).basis.join('; ') };
  } else {
    const open = await lostInReceiptLog(read, options.allowTornTail ?? false);
    unreceipted = await unreceiptedInLog(read);
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
          ...(type === 'recording' ? {} : { unreceipted }),
          ...(gaps !== null
            ? {
                complete: gaps.incomplete.count === 0,
                incomplete: gaps.incomplete.listed,
                understood: gaps.notUnderstood.count === 0,
                notUnderstood: gaps.notUnderstood.listed,
                read: gaps.unread.count === 0,
                unread: gaps.unread.listed,
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
    await writeLines(render(file, source, lost, gaps !== null && !gapless(gaps)));
    await writeLines(renderInterruptions(file, interruptions));
    if (unreceipted !== null) process.stdout.write(`${file}: ${stallMessage(unreceipted)}\n`);
    if (gaps !== null) {
      process.stdout.write(renderIncomplete(file, gaps.incomplete));
      process.stdout.write(renderNotUnderstood(file, gaps.notUnderstood));
      process.stdout.write(renderUnread(file, gaps.unread));
    }
    process.stdout.write(renderDialects(dialects));
    if (options.explain) await writeLines(renderChains(file, chains));
  }
  await exportVerdict(options, `lost-${basename(file).replace(/\.jsonl$/, '')}`, lost, interruptions);
  // Traffic no dialect reads is input this tool cannot read: exit 2 before any other verdict. An
  // entry incomplete or unread leaves the verdict untrusted: exit 1, as verify --recording says it.
  if (gaps !== null && gaps.notUnderstood.count > 0) throw new CliExit(EXIT.usage, '');
  const untrusted = gaps !== null && !gapless(gaps);
  if (lost.length > 0 || interruptions.length > 0 || untrusted || unreceipted !== null)
    throw new CliExit(EXIT.drift, '');
}
