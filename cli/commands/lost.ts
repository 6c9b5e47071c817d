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
import { basename } from 'node:path';
import type { Command } from 'commander';
import { A2aReplayError } from '../../src/public/core.js';
import {
  type LogSet,
  ambiguityText,
  fileKind,
  fleetFails,
  fleetPauseJson,
  gapless,
  headProblem,
  lostPauses,
  openLogSet,
  stallMessage,
} from '../../src/public/receipts.js';
import {
  type LostInterruptionVerdict,
  type LostPauseVerdict,
  exportLostVerdicts,
  fleetPauseVerdict,
} from '../../src/public/observe.js';
import { CliExit, EXIT, writeLines } from '../io.js';
import { keyringFromFiles, recordingOption } from '../options.js';
import { textTableLines } from '../text-table.js';
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
  traceOf,
} from '../lost-render.js';

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

/** `--otlp` / `--traces`: the verdict drawn as spans (docs/design.md §7), in a trace file named `name`. */
async function exportVerdict(
  options: LostCommandOptions,
  name: string,
  pauses: readonly LostPauseVerdict[],
  interruptions: readonly LostInterruptionVerdict[],
): Promise<void> {
  await exportLostVerdicts(
    { otlp: options.otlp, tracesDir: options.traces, name, work: 'lost' },
    pauses,
    interruptions,
  );
}

/** `lost` over the logs of a series, read as one log. */
async function lostOfSeries(set: LogSet, options: LostCommandOptions): Promise<void> {
  if (options.recording !== undefined || options.explain)
    throw new CliExit(EXIT.usage, '--recording and --explain apply to one file, not to a series');
  await checkHead(set.files, options);
  const keyring = options.key?.length ? await keyringFromFiles(options.key) : undefined;
  const series = await lostPauses({ ...set, keyring }).catch(invalidLogs);
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
async function lostInFleet(set: LogSet, options: LostCommandOptions): Promise<void> {
  if (options.explain || options.recording !== undefined)
    throw new CliExit(
      EXIT.usage,
      `${options.explain ? '--explain' : '--recording'} applies to one file, not to several`,
    );
  if (options.checkpoint !== undefined)
    throw new CliExit(EXIT.usage, '--checkpoint applies to one log or one series, not to a fleet');
  const { files } = set;
  const keyring = options.key?.length ? await keyringFromFiles(options.key) : undefined;
  const found = await lostPauses({ ...set, keyring }).catch(invalidLogs);
  const verdict = found.fleet!;
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
            traceId: fleetPauseVerdict(p).span?.traceId ?? null,
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
            traceOf(fleetPauseVerdict(p).span),
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
  await exportVerdict(options, 'lost-fleet', lost.map(fleetPauseVerdict), []);
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
      const set = await openLogSet(files, { allowTornTail: options.allowTornTail });
      try {
        if (set.kind === 'series') return await lostOfSeries(set, options);
        if (set.kind === 'fleet') return await lostInFleet(set, options);
        await lostOne(set, options);
      } finally {
        await set.close();
      }
    });
}

/** Lists the lost pauses of one file: a recording, a receipt log, or a log rebuilt from a collector export. */
async function lostOne(set: LogSet & { kind: 'log' }, options: LostCommandOptions): Promise<void> {
  const file = set.given;
  const kind = await fileKind(set.files[0]!);
  if (options.explain && kind !== 'recording')
    throw new CliExit(EXIT.usage, '--explain applies to a recording: a receipt log holds no rule');
  if (options.recording !== undefined && !(kind === 'receipt log' && options.key?.length))
    throw new CliExit(EXIT.usage, '--recording applies to a receipt log verified with --key');
  if (options.checkpoint !== undefined && kind === 'recording')
    throw new CliExit(EXIT.usage, '--checkpoint applies to a receipt log: a recording has no checkpoint');
  if (kind !== 'recording') await checkHead([file], options);
  if (kind === 'recording' && options.key?.length)
    throw new CliExit(EXIT.usage, '--key applies to receipt logs only; a recording is not signed');
  const keyring = options.key?.length ? await keyringFromFiles(options.key) : undefined;
  const found = await lostPauses(
    { ...set, keyring },
    { explain: options.explain ?? false, ...(await recordingOption(options.recording)) },
  );
  const { lost, interruptions } = found;
  const unreceipted = found.unreceipted ?? null;
  const { gaps } = found;
  const { dialects, chains } = found.recording ?? { dialects: {}, chains: [] };
  const source: Source =
    kind === 'recording' ? { kind: 'recording' } : { kind: 'receipt log', verification: found.verification };
  const type = kind === 'recording' ? 'recording' : 'ReceiptLog';
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
