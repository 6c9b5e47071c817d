/**
 * @module cli/commands/lost
 * `a2a-replay lost FILE...`: the pauses and interruptions that never came back (docs/design.md §7
 * `LostPause`, §14.9), from a recording (the PauseObserver's verdicts), a receipt log, a series or
 * a fleet (§17). A recording with entries that do not hold all the peer sent (`incomplete`, `cut`:
 * §5) is reported INCOMPLETE, naming each line, seq and why; one with requests in no A2A dialect it
 * reads (§14.10) NOT UNDERSTOOD, likewise; one where the observer could not read what the peer said
 * (§14.2) UNREAD, likewise. What is listed, and what it comes to, are `lostPauses` and `lostOutcome`:
 * exit 1 when anything is lost or the recording is incomplete or unread, 0 when none, 2 for input
 * it cannot read (requests not understood included).
 */
import type { Command } from 'commander';
import { A2aReplayError } from '../../src/public/core.js';
import {
  type LogSet,
  type LostPauses,
  type SeriesHead,
  fileKind,
  gapless,
  lostOutcome,
  lostPauses,
  lostPausesJson,
  lostSource,
  lostTraceName,
  lostVerdicts,
  openLogSet,
  readSeriesHead,
  stallMessage,
} from '../../src/public/receipts.js';
import { exportLostVerdicts } from '../../src/public/observe.js';
import { CliExit, EXIT, writeLines } from '../io.js';
import { keyringFromFiles, recordingOption } from '../options.js';
import { render, renderChains, renderDialects, renderFleet, renderGaps, renderInterruptions } from '../lost-render.js';

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

/** Refuses the flags that do not apply to what was given: a recording, one receipt log, a series or a fleet. */
function refuseFlags(set: LogSet, kind: 'recording' | 'receipt log', options: LostCommandOptions): void {
  const refuse = (message: string): never => {
    throw new CliExit(EXIT.usage, message);
  };
  if (set.kind === 'series' && (options.recording !== undefined || options.explain))
    refuse('--recording and --explain apply to one file, not to a series');
  if (set.kind === 'fleet') {
    if (options.explain || options.recording !== undefined)
      refuse(`${options.explain ? '--explain' : '--recording'} applies to one file, not to several`);
    if (options.checkpoint !== undefined) refuse('--checkpoint applies to one log or one series, not to a fleet');
  }
  if (set.kind !== 'log') return;
  if (options.explain && kind !== 'recording') refuse('--explain applies to a recording: a receipt log holds no rule');
  if (options.recording !== undefined && !(kind === 'receipt log' && options.key?.length))
    refuse('--recording applies to a receipt log verified with --key');
  if (options.checkpoint !== undefined && kind === 'recording')
    refuse('--checkpoint applies to a receipt log: a recording has no checkpoint');
}

/**
 * `--checkpoint HEAD` (docs/design.md §6, "The head of a series"): checked with `--key` before
 * anything is listed; a head of a later log names the logs missing (exit 1).
 */
async function headOption(options: LostCommandOptions): Promise<SeriesHead | undefined> {
  if (options.checkpoint === undefined) return undefined;
  if (!options.key?.length) throw new CliExit(EXIT.usage, '--checkpoint needs --key: the head is checked with it');
  try {
    return await readSeriesHead(options.checkpoint);
  } catch (error) {
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, `--checkpoint: ${error.message}`);
    throw error;
  }
}

/**
 * Logs that do not verify or hold together are exit 1, as `verify` and `audit` say of the same
 * logs (an invalid log, not malformed input).
 */
function invalidLogs(error: unknown): never {
  if (error instanceof A2aReplayError && error.code === 'RECEIPT_INVALID') throw new CliExit(EXIT.drift, error.message);
  throw error;
}

/** The listing as text: a count and a table, then what leaves it short of a clean bill. */
async function printListing(found: LostPauses, explain: boolean): Promise<void> {
  if (found.fleet !== undefined) return writeLines(renderFleet({ ...found, fleet: found.fleet }));
  const label = found.kind === 'series' ? `the series ${found.files.join(', ')}` : found.files[0]!;
  const { gaps } = found;
  await writeLines(render(label, lostSource(found), found.lost, gaps !== null && !gapless(gaps)));
  await writeLines(renderInterruptions(label, found.interruptions));
  if (found.kind === 'series') return;
  if (found.unreceipted) process.stdout.write(`${label}: ${stallMessage(found.unreceipted)}\n`);
  if (gaps !== null) process.stdout.write(renderGaps(label, gaps));
  process.stdout.write(renderDialects(found.recording?.dialects ?? {}));
  if (explain) await writeLines(renderChains(label, found.recording?.chains ?? []));
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
        const kind = set.kind === 'log' ? await fileKind(set.files[0]!) : 'receipt log';
        refuseFlags(set, kind, options);
        const head = kind === 'recording' ? undefined : await headOption(options);
        if (kind === 'recording' && options.key?.length)
          throw new CliExit(EXIT.usage, '--key applies to receipt logs only; a recording is not signed');
        const keyring = options.key?.length ? await keyringFromFiles(options.key) : undefined;
        const explain = options.explain ?? false;
        const found = await lostPauses(
          { ...set, keyring, head },
          { explain, ...(await recordingOption(options.recording)) },
        ).catch(invalidLogs);
        if (options.json) process.stdout.write(`${JSON.stringify(lostPausesJson(found, { explain }), null, 2)}\n`);
        else await printListing(found, explain);
        const { pauses, interruptions } = lostVerdicts(found);
        await exportLostVerdicts(
          { otlp: options.otlp, tracesDir: options.traces, name: lostTraceName(found), work: 'lost' },
          pauses,
          interruptions,
        );
        // Traffic no dialect reads is input this tool cannot read: exit 2 before any other verdict. An
        // entry incomplete or unread leaves the verdict untrusted: exit 1, as verify --recording says it.
        const outcome = lostOutcome(found);
        if (outcome === 'not-understood') throw new CliExit(EXIT.usage, '');
        if (outcome !== 'clean') throw new CliExit(EXIT.drift, '');
      } finally {
        await set.close();
      }
    });
}
