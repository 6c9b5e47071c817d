/**
 * @module cli/commands/run
 * `a2a-replay run RECORDING...`: re-drives a peer from recordings and diffs the derived receipts
 * against the golden ones (docs/design.md §8). Exit 0 match, 1 drift, 2 usage or malformed input, 3
 * infrastructure (peer unreachable, crashed, deadline), 130 stopped by SIGINT or SIGTERM (the
 * report, printed at once, is partial: it says how far the replay came).
 *
 * The peer: `--peer URL` (probed first), `--peer-cmd "CMD"` (spawned per recording with `PORT`
 * set, stopped afterwards and on Ctrl-C), or by default the embedded reference peer on a free
 * loopback port, a fresh one per recording, set up as the recording's agent card says the
 * recorded one ran (real-time or deterministic, seed, step length, legacy pause), its clock
 * starting where the recorded one's did; `--seed`, `--step-ms`, `--legacy-pause` override that.
 *
 * Output: the text report on stdout (colour on a TTY unless NO_COLOR), or `--json`; `--junit FILE`
 * besides. Progress goes to stderr on a TTY, or every few seconds on long runs.
 *
 * `--merge`: the recordings of several recorders in front of one peer replayed as one session, one
 * result for it (src/replay/run-merged.ts, docs/design.md §8 "Merged sessions").
 */
import type { Command } from 'commander';
import { systemClock, A2aReplayError, describeError, writeOutputFile } from '../../src/public/core.js';
import {
  type Shard,
  parseShard,
  type RunSummary,
  type ReplayPace,
  parsePace,
  DEFAULT_WAIT_MS,
  stopAllPeerProcesses,
  renderJson,
  renderJunit,
  renderRecordingText,
  renderSummaryLine,
  replayRecordings,
  LIVE_POLL_MAX_MS,
  POLL_BOUND_FACTOR,
  POLL_BOUND_MIN_MS,
} from '../../src/public/replay.js';
import { replaySection } from '../../src/public/report.js';
import { CliExit, EXIT } from '../io.js';
import {
  checkIgnorePointers,
  integerOption,
  noiseRules,
  optionalKeyring,
  recordingArguments,
  withNoiseOptions,
} from '../options.js';
import { writeReport } from './report.js';

interface RunCommandOptions {
  peer?: string;
  peerCmd?: string;
  grpcPeer?: string;
  golden?: string;
  update?: boolean;
  strict?: boolean;
  key?: string;
  json?: boolean;
  junit?: string;
  html?: string;
  otlp?: string;
  traces?: string;
  concurrency: string;
  shard?: string;
  timeoutMs: string;
  readyTimeoutMs: string;
  seed?: string;
  stepMs?: string;
  legacyPause?: boolean;
  ignore: string[];
  config?: string;
  force?: boolean;
  merge?: boolean;
  pace?: string;
}

/** How long a stopped run has to print its partial report before it exits anyway. */
const STOP_GRACE_MS = 1000;

/** Progress on stderr: a live line on a TTY, else a line every few seconds for long recordings. */
function progressReporter(): (file: string, settled: number, total: number) => void {
  const tty = process.stderr.isTTY;
  let last = systemClock.now();
  return (file, settled, total) => {
    const now = systemClock.now();
    if (tty) {
      if (now - last < 100 && settled < total) return;
      last = now;
      process.stderr.write(`\r\u001b[2Kreplaying ${file}: ${settled}/${total} entries`);
      if (settled >= total) process.stderr.write('\r\u001b[2K');
      return;
    }
    if (now - last < 3000) return;
    last = now;
    process.stderr.write(`replaying ${file}: ${settled}/${total} entries\n`);
  };
}

/** `--merge` replays several recordings as one session: options about one recording each are refused. */
function checkMerge(options: RunCommandOptions, recordings: readonly string[]): void {
  if (!options.merge) return;
  for (const [given, name] of [
    [options.update, '--update'],
    [options.shard, '--shard'],
    [options.golden, '--golden'],
    [options.strict, '--strict'],
  ] as const) {
    if (given !== undefined && given !== false)
      throw new CliExit(EXIT.usage, `${name} cannot be used with --merge (the recordings replay as one session)`);
  }
  if (recordings.length < 2) throw new CliExit(EXIT.usage, '--merge needs two or more recordings');
}

/** The run's numbers and shard, each checked with the options' combinations: a bad one is a usage error. */
function runSettings(
  options: RunCommandOptions,
  recordings: readonly string[],
): {
  concurrency: number;
  timeoutMs: number;
  readyTimeoutMs: number;
  seed: number | undefined;
  stepMs: number | undefined;
  shard: Shard | undefined;
  pace: ReplayPace | undefined;
} {
  if (options.peer !== undefined && options.peerCmd !== undefined) {
    throw new CliExit(EXIT.usage, '--peer and --peer-cmd exclude each other');
  }
  if (options.golden !== undefined && recordings.length > 1) {
    throw new CliExit(EXIT.usage, '--golden names the golden log of one recording; it cannot be used with several');
  }
  const concurrency = integerOption(options.concurrency, 'concurrency', 1);
  const timeoutMs = integerOption(options.timeoutMs, 'timeout-ms', 1);
  const readyTimeoutMs = integerOption(options.readyTimeoutMs, 'ready-timeout-ms', 1);
  const seed = options.seed === undefined ? undefined : integerOption(options.seed, 'seed', 0);
  const stepMs = options.stepMs === undefined ? undefined : integerOption(options.stepMs, 'step-ms', 1);
  let shard: Shard | undefined;
  try {
    shard = options.shard === undefined ? undefined : parseShard(options.shard);
  } catch (error) {
    throw new CliExit(EXIT.usage, (error as Error).message);
  }
  checkIgnorePointers(options.ignore);
  checkMerge(options, recordings);
  const pace = paceOption(options);
  if (options.update && process.env.CI && !options.force) {
    throw new CliExit(
      EXIT.usage,
      '--update rewrites the golden receipts (and, on exchange drift, the recordings); ' +
        'refused because CI is set (add --force)',
    );
  }
  return { concurrency, timeoutMs, readyTimeoutMs, seed, stepMs, shard, pace };
}

/** `--pace`, read; given without a live peer it is a usage error (the embedded peer keeps the recording's clock). */
function paceOption(options: RunCommandOptions): ReplayPace | undefined {
  if (options.pace === undefined) return undefined;
  if (options.peer === undefined && options.peerCmd === undefined) {
    throw new CliExit(
      EXIT.usage,
      '--pace spaces the requests to a live peer (--peer, --peer-cmd); the embedded peer runs on the recording’s clock',
    );
  }
  try {
    return parsePace(options.pace);
  } catch (error) {
    throw new CliExit(EXIT.usage, `--pace: ${(error as Error).message}`);
  }
}

/** Prints the run's report (text or --json) and writes the --html and --junit files. */
async function reportRun(summary: RunSummary, options: RunCommandOptions): Promise<void> {
  const color = process.stdout.isTTY && !process.env.NO_COLOR;
  if (options.json) process.stdout.write(`${renderJson(summary)}\n`);
  else {
    for (const r of summary.results) process.stdout.write(`${renderRecordingText(r, { color })}\n`);
    process.stdout.write(`${renderSummaryLine(summary)}\n`);
  }
  if (options.html !== undefined) {
    const sections = await Promise.all(summary.results.map((r) => replaySection(r)));
    await writeReport(options.html, sections, 'a2a-replay run');
  }
  if (options.junit !== undefined) {
    try {
      await writeOutputFile(options.junit, renderJunit(summary));
    } catch (error) {
      throw new A2aReplayError(
        'IO_FAILED',
        `${options.junit}: cannot write the JUnit report (${describeError(error)})`,
      );
    }
  }
}

/** Replays the recordings and reports (see the module doc). */
async function runRun(given: string[], options: RunCommandOptions): Promise<void> {
  const recordings = await recordingArguments(given);
  const { concurrency, timeoutMs, readyTimeoutMs, seed, stepMs, shard, pace } = runSettings(options, recordings);
  const noise = await noiseRules(options.config);
  const keyring = await optionalKeyring(options.key);
  if (options.strict && !options.update && keyring === undefined) {
    throw new CliExit(
      EXIT.usage,
      '--strict compares signatures: pass the golden receipts’ key with --key FILE (or A2A_REPLAY_KEY_FILE)',
    );
  }

  // SIGINT or SIGTERM stops the replay at once: what it found so far is reported as partial and
  // the run exits 130 (EXIT.stopped). A second signal, or a report not out within a second, exits then.
  const stop = new AbortController();
  const onSignal = (): void => {
    if (stop.signal.aborted) process.exit(EXIT.stopped);
    stop.abort();
    void stopAllPeerProcesses();
    setTimeout(() => {
      process.stderr.write('a2a-replay: stopped; the partial report could not be written within a second\n');
      process.exit(EXIT.stopped);
    }, STOP_GRACE_MS).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let summary;
  try {
    summary = await replayRecordings(recordings, {
      ...(options.peer !== undefined ? { peer: options.peer } : {}),
      ...(options.peerCmd !== undefined ? { peerCmd: options.peerCmd } : {}),
      ...(options.grpcPeer !== undefined ? { grpcPeer: options.grpcPeer } : {}),
      ...(options.golden !== undefined ? { golden: options.golden } : {}),
      ...(options.otlp !== undefined ? { otlp: options.otlp } : {}),
      ...(options.traces !== undefined ? { traces: options.traces } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(stepMs !== undefined ? { stepMs } : {}),
      ...(options.legacyPause !== undefined ? { legacyPause: options.legacyPause } : {}),
      ...(keyring ? { keyring } : {}),
      ...(shard ? { shard } : {}),
      ...(pace ? { pace } : {}),
      update: options.update ?? false,
      strict: options.strict ?? false,
      merge: options.merge ?? false,
      concurrency,
      timeoutMs,
      readyTimeoutMs,
      noise,
      ignore: options.ignore,
      onProgress: progressReporter(),
      signal: stop.signal,
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  await reportRun(summary, options);
  const exitCode = stop.signal.aborted ? EXIT.stopped : summary.exitCode;
  if (exitCode !== EXIT.ok) throw new CliExit(exitCode, '');
}

export function registerRun(program: Command): void {
  withNoiseOptions(
    program
      .command('run')
      .description('replay recordings against a peer and diff the receipts against the golden ones')
      .argument('<recordings...>', 'recordings (X.jsonl; golden receipts in X.receipts.jsonl)')
      .option('--peer <url>', 'replay against a running peer')
      .option('--peer-cmd <command>', 'spawn this peer per recording (PORT is set; ready when its agent card answers)')
      .option(
        '--grpc-peer <host:port>',
        'send the recorded gRPC calls here (default: the GRPC interface of the live peer’s agent card)',
      )
      .option('--golden <file>', 'golden receipt log (one recording only; default X.receipts.jsonl)')
      .option('--update', 'write the golden receipts from this replay and print what changed')
      .option('--strict', 'demand byte-identical receipts, signatures included (needs the key)')
      .option('--key <file>', 'the golden receipts’ key file (default: $A2A_REPLAY_KEY_FILE)')
      .option('--json', 'print the report as JSON')
      .option('--junit <file>', 'also write a JUnit XML report, one testcase per recording')
      .option('--html <file>', 'also write a self-contained HTML report: likely cause, expected vs actual, task lanes')
      .option('--otlp <url>', 'export the replay’s spans over OTLP/HTTP')
      .option('--traces <dir>', 'write each recording’s spans as OTLP-JSON into DIR')
      .option('--concurrency <n>', 'recordings replayed at once', '1')
      .option('--shard <i/n>', 'replay only shard I of N (deterministic split of the recordings)')
      .option(
        '--timeout-ms <n>',
        'how long to wait for a live answer before it counts as drift',
        String(DEFAULT_WAIT_MS),
      )
      .option(
        '--pace <pace>',
        'live peer (--peer, --peer-cmd): space the requests as recorded (recorded, the default), not at all ' +
          '(none), or N times as fast (xN); a poll loop (GetTask reads of one task) is read again every few ms ' +
          `(at most ${LIVE_POLL_MAX_MS}) until the peer shows the state it ended in, for up to ${POLL_BOUND_FACTOR}× ` +
          `its recorded duration (at least ${POLL_BOUND_MIN_MS / 1000} s), else timing drift`,
      )
      .option('--ready-timeout-ms <n>', 'how long a --peer-cmd peer gets to answer its agent card', '15000')
      .option('--seed <n>', 'embedded peer: seed of its deterministic ids (default: as recorded, else 0)')
      .option('--step-ms <n>', 'embedded peer: virtual ms per work step (default: as recorded, else 1000)')
      .option('--legacy-pause', 'embedded peer: report pauses the Harn way (default: as recorded)')
      .option(
        '--merge',
        'replay the recordings of several recorders in front of one peer as one session (merged by recorded time)',
      ),
    'answers',
  )
    .option('--force', 'let --update rewrite the golden receipts and recordings even when CI is set')
    .action((given: string[], options: RunCommandOptions) => runRun(given, options));
}
