/**
 * @module cli/commands/record
 * `a2a-replay record --upstream URL --out FILE`: a recording reverse proxy in front of a peer
 * (docs/design.md §5, §9), the library's `startRecorder` (src/record/start-recorder.ts) with its
 * options from the flags. Prints `listening on http://HOST:PORT` (`https://` with `--tls-cert`)
 * first; on SIGINT or SIGTERM it stops accepting, lets exchanges in flight finish (up to
 * `--grace-ms`), flushes the recording, the receipt log and the spans, prints the summary line and
 * exits 0 (3 when lines could not be written).
 *
 * What it says: on a terminal or with `--progress`, one stderr line per pause, resume and lost
 * pause as it happens; at the stop a summary line; `--quiet` neither. What the recorder could not
 * do goes to stderr always, its options named as flags (cli/record-flags.ts).
 */
import type { Command } from 'commander';
import { FSYNC_POLICIES, KEY_FILE_ENV } from '../../src/public/receipts.js';
import { RECORDER_DEFAULTS, type RecorderOptions, startRecorder } from '../../src/public/record.js';
import { CliExit, EXIT, waitForStopSignal } from '../io.js';
import { collect, integerOption, optionalKeyring } from '../options.js';
import { type RecordTlsOptions, withRecordTlsOptions } from '../record-tls.js';
import { type RedactionFlags, redactionFlags } from '../record-redaction.js';
import { inFlags, progressLine, usageFailure, summaryLine } from '../record-flags.js';

interface RecordCommandOptions extends RecordTlsOptions, RedactionFlags {
  upstream: string;
  grpcUpstream?: string;
  out: string;
  listen: string;
  receipts?: string;
  key?: string;
  fsync: string;
  witness?: string;
  witnessUrl: string[];
  witnessVkey: string[];
  otlpLogs?: string;
  checkpointEvery: string;
  otlp?: string;
  traces?: string;
  principalFrom: string;
  maxBodyBytes: string;
  maxObservedBytes: string;
  graceMs: string;
  upstreamTimeoutMs: string;
  followMs: string;
  requestTimeoutMs: string;
  headersTimeoutMs: string;
  maxConnections: string;
  drainLimitBytes: string;
  drainTimeoutMs: string;
  force?: boolean;
  quiet?: boolean;
  progress?: boolean;
  continueFrom?: string;
  rotateBytes?: string;
  rotateAfter?: string;
}

/** One stderr line as `record` says it: the recorder's option names as flags. */
function say(line: string): void {
  process.stderr.write(`a2a-replay: ${inFlags(line)}\n`);
}

/** The recorder's options from the flags; numbers checked here, the rest by the recorder. */
async function recorderOptions(options: RecordCommandOptions): Promise<RecorderOptions> {
  const keyring = await optionalKeyring(options.key);
  const lines = options.quiet !== true && (options.progress === true || process.stderr.isTTY);
  return {
    ...options,
    key: keyring,
    fsync: options.fsync as RecorderOptions['fsync'],
    checkpointEvery: integerOption(options.checkpointEvery, 'checkpoint-every', 0),
    maxBodyBytes: integerOption(options.maxBodyBytes, 'max-body-bytes', 1),
    maxObservedBytes: integerOption(options.maxObservedBytes, 'max-observed-bytes', 1),
    graceMs: integerOption(options.graceMs, 'grace-ms', 0),
    upstreamTimeoutMs: integerOption(options.upstreamTimeoutMs, 'upstream-timeout-ms', 1),
    followMs: integerOption(options.followMs, 'follow-ms', 1),
    requestTimeoutMs: integerOption(options.requestTimeoutMs, 'request-timeout-ms', 1),
    headersTimeoutMs: integerOption(options.headersTimeoutMs, 'headers-timeout-ms', 1),
    maxConnections: integerOption(options.maxConnections, 'max-connections', 1),
    drainLimitBytes: integerOption(options.drainLimitBytes, 'drain-limit-bytes', 1),
    drainTimeoutMs: integerOption(options.drainTimeoutMs, 'drain-timeout-ms', 1, 24 * 3600 * 1000),
    rotateBytes: options.rotateBytes === undefined ? undefined : integerOption(options.rotateBytes, 'rotate-bytes', 1),
    onEvent: (event) => {
      const line = lines ? progressLine(event) : undefined;
      if (line !== undefined) say(line);
    },
    warn: say,
  };
}

/** Records until SIGINT or SIGTERM (see the module doc). */
async function runRecord(options: RecordCommandOptions): Promise<void> {
  const recorder = await startRecorder(await recorderOptions(options)).catch(usageFailure);
  // Listen for the stop before saying so: a supervisor may stop the recorder the moment it reads
  // the line, and the recording and receipt log must still be closed.
  const stopped = waitForStopSignal();
  process.stdout.write(`listening on ${recorder.url}\n`);
  await stopped;
  const summary = await recorder.close();
  if (options.quiet !== true) say(summaryLine(summary));
  if (!summary.complete)
    throw new CliExit(EXIT.infrastructure, `${options.out}: lines could not be written (see above)`);
}

export function registerRecord(program: Command): void {
  redactionFlags(withRecordTlsOptions(program.command('record')))
    .description('record the A2A traffic to a peer through a reverse proxy')
    .requiredOption('--upstream <url>', 'the peer to forward to')
    .requiredOption('--out <file>', 'recording to write (JSONL)')
    .option(
      '--upstream-timeout-ms <n>',
      'the upstream must send its response head within N ms, else HTTP 504',
      String(RECORDER_DEFAULTS.upstreamTimeoutMs),
    )
    .option(
      '--follow-ms <n>',
      'read and observe for N ms more an answer its client left, cancelled, or got 504 for; ' +
        'on shutdown, how long an answer still awaited is read before the files close',
      String(RECORDER_DEFAULTS.followMs),
    )
    .option(
      '--request-timeout-ms <n>',
      'a client request must fully arrive within N ms, else HTTP 408',
      String(RECORDER_DEFAULTS.requestTimeoutMs),
    )
    .option(
      '--headers-timeout-ms <n>',
      'its headers within N ms (at most --request-timeout-ms), else HTTP 408',
      String(RECORDER_DEFAULTS.headersTimeoutMs),
    )
    .option(
      '--max-connections <n>',
      'open client connections served, gRPC ones too; requests on further ones get HTTP 503 (gRPC: UNAVAILABLE)',
      String(RECORDER_DEFAULTS.maxConnections),
    )
    .option(
      '--drain-limit-bytes <n>',
      'read and drop up to N bytes of a body over the limit after its 413',
      String(RECORDER_DEFAULTS.drainLimitBytes),
    )
    .option(
      '--drain-timeout-ms <n>',
      'read and drop a body over the limit for at most N ms after its 413',
      String(RECORDER_DEFAULTS.drainTimeoutMs),
    )
    .option('--listen <host:port>', 'address to listen on', RECORDER_DEFAULTS.listen)
    .option('--receipts <file>', 'receipt log to write (default: X.receipts.jsonl beside X.jsonl; never overwritten)')
    .option('--key <file>', `receipt signing key file (default: $${KEY_FILE_ENV})`)
    .option(
      '--fsync <policy>',
      `durability: ${FSYNC_POLICIES.join(' | ')}; answers showing a pause or resume wait until its ` +
        'receipt is fsynced (never: written), see docs/receipts.md',
      RECORDER_DEFAULTS.fsync,
    )
    .option(
      '--witness <file>',
      'keep the head in FILE too: the latest checkpoint and the line naming its log, of the series when it ' +
        'rotates (replaced atomically): `verify --checkpoint FILE` detects a cut log, or a later log dropped',
    )
    .option(
      '--witness-url <url>',
      'a C2SP tlog-witness to cosign each checkpoint, in the background (repeatable; pairs with --witness-vkey)',
      collect,
      [],
    )
    .option(
      '--witness-vkey <vkey>',
      "that witness's verifier key (name+hash+key, type 0x04), or a file holding it; cosignatures go to " +
        'X.receipts.cosignatures.jsonl',
      collect,
      [],
    )
    .option(
      '--checkpoint-every <n>',
      'a checkpoint after every N receipts, 0 = only on close (run reads the interval back from the log)',
      String(RECORDER_DEFAULTS.checkpointEvery),
    )
    .option('--otlp <url>', 'export the pause/resume spans over OTLP/HTTP (default: $OTEL_EXPORTER_OTLP_ENDPOINT)')
    .option(
      '--otlp-logs <url>',
      'ship every receipt-log line as an OTLP log record (default: $OTEL_EXPORTER_OTLP_LOGS_ENDPOINT); ' +
        'the file stays the record',
    )
    .option('--traces <dir>', 'write the spans as OTLP-JSON into DIR/<name>.otlp.json on shutdown')
    .option(
      '--principal-from <source>',
      'who sent a request: jwt-sub | header:NAME (a secret header gives header:NAME=hmac:<16 hex>, never its value)',
      RECORDER_DEFAULTS.principalFrom,
    )
    .option(
      '--max-body-bytes <n>',
      'refuse request bodies above this size; answers and events above it are recorded as their first N bytes',
      String(RECORDER_DEFAULTS.maxBodyBytes),
    )
    .option(
      '--max-observed-bytes <n>',
      'answers and events up to this size are observed whole for receipts, even when recorded cut; ' +
        'larger ones are recorded as incomplete (at least --max-body-bytes)',
      String(RECORDER_DEFAULTS.maxObservedBytes),
    )
    .option(
      '--grace-ms <n>',
      'on shutdown, how long open streams (SSE, gRPC) may go on; answers still awaited get --follow-ms',
      String(RECORDER_DEFAULTS.graceMs),
    )
    .option('--force', 'overwrite an existing --out recording (a receipt log is never overwritten)')
    .option(
      '--continue-from <recording>',
      'continue a previous recording: its pauses still open carry over, and with --key the new receipt log ' +
        'links to its log (X.receipts.jsonl beside it), forming a series',
    )
    .option(
      '--rotate-bytes <n>',
      'once the recording file reaches N bytes, close it and its receipt log and go on in X.<n>.jsonl and ' +
        'X.<n>.receipts.jsonl, linked as --continue-from links',
    )
    .option('--rotate-after <duration>', 'the same once the files have been open for DURATION (90s, 15m, 24h)')
    .option('--progress', 'say each pause, resume and lost pause on stderr even when it is not a terminal')
    .option('--quiet', 'say neither those lines nor the summary at the stop')
    .action((options: RecordCommandOptions) => runRecord(options));
}
