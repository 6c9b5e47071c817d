/**
 * @module cli/commands/record
 * `a2a-replay record --upstream URL --out FILE`: a recording reverse proxy in front of a peer
 * (docs/design.md §5, §9). Prints `listening on http://HOST:PORT` (`https://` with `--tls-cert`) first (and, listening on a
 * non-loopback address, one warning on stderr naming what it exposes); on SIGINT or SIGTERM it stops
 * accepting, lets exchanges in flight finish (up to `--grace-ms`), flushes the recording, the
 * receipt log and the spans, and exits 0.
 *
 * Receipts: with a key (`--key FILE` or `A2A_REPLAY_KEY_FILE`) every entry also goes through the
 * ObservationPipeline (the same PauseObserver replay uses) into a {@link ReceiptLogWriter} at
 * `--receipts` (default `X.receipts.jsonl` beside `X.jsonl`): line by line as receipts are made,
 * durable as `--fsync` says, a checkpoint every `--checkpoint-every` receipts and one on shutdown.
 * The log is set up exactly as replay derives it (src/replay/derive-receipts.ts): header
 * `createdAt` and `recording` from the recording's header, `tool` = TOOL_NAME, the recording ended
 * at its last entry's `at`, so `a2a-replay run X.jsonl --key K --strict` reproduces it byte for
 * byte (with the default checkpoint interval). An existing receipt log is never overwritten: the
 * command refuses to start. Without a key only the recording is written and stderr says so.
 *
 * What it says (cli/record-progress.ts): on a terminal or with `--progress`, one stderr line per
 * pause, resume and lost pause as it happens; at the stop a summary line; `--quiet` neither.
 *
 * Rotation (cli/record-rotation.ts): with `--rotate-bytes` or `--rotate-after` the recording and
 * its receipt log go on in `X.<n>.jsonl` and `X.<n>.receipts.jsonl`, a series (docs/design.md §6).
 *
 * Spans: `--otlp URL`, `--traces DIR` (file `DIR/<name>.otlp.json`, named as `run` names it) or the
 * OTEL_EXPORTER_OTLP_* variables; the pipeline then also runs without a key, producing spans but
 * no receipts. Export failures are told once on stderr and never stop the recording.
 */
import { lstat } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import type { Command } from 'commander';
import { systemClock } from '../../src/clock.js';
import { A2aReplayError, describeError, errorMessage } from '../../src/errors.js';
import { fetchAgentCard } from '../../src/http/agent-card-fetch.js';
import { isLoopbackHost } from '../../src/http/loopback.js';
import { CounterIdSource, randomIdSource } from '../../src/ids.js';
import { foreignInterfaceUrls, uncarriedBindings } from '../../src/intercept/agent-card-rewrite.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_OBSERVED_BYTES,
  ExchangeRecorder,
} from '../../src/intercept/exchange-recorder.js';
import { parseGrpcTarget } from '../../src/intercept/grpc-upstream.js';
import { grpcRefusalReporter, grpcUpstreamOf } from '../record-grpc.js';
import { type RecordTlsOptions, readRecordTls, withRecordTlsOptions } from '../record-tls.js';
import { fsyncPolicy, parseListen } from '../record-values.js';
import { startRecordingProxy } from '../../src/intercept/recording-proxy.js';
import { refuseSymlink } from '../../src/output-file.js';
import { printable } from '../../src/printable.js';
import { DEFAULT_CHECKPOINT_EVERY } from '../../src/receipts/chain.js';
import { FSYNC_POLICIES, ReceiptLogWriter } from '../../src/receipts/log-writer.js';
import type { RecordingEntry, RecordingHeader } from '../../src/recording/format.js';
import type { SeriesLink } from '../../src/receipts/types.js';
import { RotatingLog, RotatingRecording, assertNoLaterFiles, rotationLimits } from '../record-rotation.js';
import { fileLineSink } from '../../src/recording/line-sink.js';
import { parsePrincipalSource } from '../../src/recording/principal.js';
import { RecordingWriter } from '../../src/recording/recording-writer.js';
import { type Redactor, redactUrl } from '../../src/recording/redaction.js';
import { type RedactionFlags, recordRedaction, redactionFlags } from '../record-redaction.js';
import { TOOL_NAME } from '../../src/version.js';
import { CliExit, EXIT, waitForStopSignal } from '../io.js';
import { collect, integerOption, optionalKeyring } from '../options.js';
import { RecordProgress } from '../record-progress.js';
import { incompleteReporter, observe, stopProxy } from '../record-observation.js';
import { type Continuation, readContinuation } from '../continue-from.js';
import { traceName } from '../trace-name.js';
import { openTracing } from '../open-tracing.js';
import { type RecordWitnesses, recordWitnesses } from '../witness-options.js';
import { openReceiptShipping } from '../receipt-logs-options.js';
import type { ReceiptShipping } from '../receipt-logs-setup.js';
import { cosignaturesPathFor } from '../../src/receipts/cosignature-file.js';

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

/** `X.jsonl` pairs with `X.receipts.jsonl` (docs/design.md §10). */
export function receiptsPathFor(recording: string): string {
  const name = basename(recording);
  const stem = name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : name;
  return join(dirname(recording), `${stem}.receipts.jsonl`);
}

/** A usage error naming the flag whose file cannot be used. */
function usageError(flag: string): (error: unknown) => never {
  return (error) => {
    throw new CliExit(EXIT.usage, `${flag}: ${errorMessage(error)}`);
  };
}

/** Something is at `file`: a file, or a link (dangling or not), which is never written through. */
async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
  );
}

/** Refuses to start over an existing receipt log: receipt logs are append-only audit records. */
async function assertAbsent(file: string): Promise<void> {
  if (await exists(file)) {
    throw new CliExit(
      EXIT.usage,
      `--receipts: ${file} already exists (receipt logs are append-only): move it away or name ` +
        `another file with --receipts`,
    );
  }
}

/** Opens a receipt log at `path` for the recording of `header`, its header linked by `series`. */
type OpenLog = (path: string, series: SeriesLink | null, header: RecordingHeader) => Promise<ReceiptLogWriter>;

/** The settings the options give, each checked: a bad one is a usage error naming its flag. */
function recordSettings(options: RecordCommandOptions) {
  const listen = parseListen(options.listen);
  let principal;
  try {
    principal = parsePrincipalSource(options.principalFrom);
  } catch (error) {
    throw new CliExit(EXIT.usage, `--principal-from: ${(error as Error).message}`);
  }
  const maxBodyBytes = integerOption(options.maxBodyBytes, 'max-body-bytes', 1);
  const maxObservedBytes = integerOption(options.maxObservedBytes, 'max-observed-bytes', 1);
  if (maxObservedBytes < maxBodyBytes)
    throw new CliExit(
      EXIT.usage,
      `--max-observed-bytes: ${maxObservedBytes} is below --max-body-bytes (${maxBodyBytes}); ` +
        'what is recorded whole is observed whole',
    );
  const graceMs = integerOption(options.graceMs, 'grace-ms', 0);
  const upstreamTimeoutMs = integerOption(options.upstreamTimeoutMs, 'upstream-timeout-ms', 1);
  const limits = {
    requestTimeoutMs: integerOption(options.requestTimeoutMs, 'request-timeout-ms', 1),
    headersTimeoutMs: integerOption(options.headersTimeoutMs, 'headers-timeout-ms', 1),
    maxConnections: integerOption(options.maxConnections, 'max-connections', 1),
    drainLimitBytes: integerOption(options.drainLimitBytes, 'drain-limit-bytes', 1),
    drainTimeoutMs: integerOption(options.drainTimeoutMs, 'drain-timeout-ms', 1, 24 * 3600 * 1000),
  };
  const fsync = fsyncPolicy(options.fsync);
  const checkpointEvery = integerOption(options.checkpointEvery, 'checkpoint-every', 0);
  const rotation = rotationLimits(options);
  if (rotation !== null && (options.witnessUrl.length > 0 || options.otlpLogs !== undefined))
    throw new CliExit(EXIT.usage, '--rotate-bytes, --rotate-after: not combined with --witness-url or --otlp-logs yet');
  return {
    listen,
    principal,
    maxBodyBytes,
    maxObservedBytes,
    graceMs,
    upstreamTimeoutMs,
    followMs: integerOption(options.followMs, 'follow-ms', 1),
    limits,
    fsync,
    checkpointEvery,
    rotation,
  };
}

/**
 * Checks the files the options name before anything is written (no symbolic link, no recording
 * overwritten without --force, no receipt log overwritten ever) and reads the key; gives the key
 * and the receipt log's path.
 */
async function recordFiles(options: RecordCommandOptions): Promise<{
  keyring: Awaited<ReturnType<typeof optionalKeyring>>;
  redactor: Redactor;
  receiptsFile: string;
  continuation: Continuation;
  tls: Awaited<ReturnType<typeof readRecordTls>>;
}> {
  try {
    new URL(options.upstream);
  } catch {
    throw new CliExit(EXIT.usage, `--upstream: ${JSON.stringify(redactUrl(options.upstream))} is not a URL`);
  }
  if (options.grpcUpstream !== undefined) {
    try {
      parseGrpcTarget(options.grpcUpstream);
    } catch (error) {
      throw new CliExit(EXIT.usage, `--grpc-upstream: ${errorMessage(error)}`);
    }
  }
  for (const [flag, file] of [
    ['--out', options.out],
    ['--receipts', options.receipts],
    ['--witness', options.witness],
  ] as const) {
    if (file !== undefined) await refuseSymlink(file).catch(usageError(flag));
  }
  if (!options.force && (await exists(options.out))) {
    throw new CliExit(
      EXIT.usage,
      `--out: ${options.out} already exists: name another file, or pass --force to overwrite it`,
    );
  }
  const keyring = await optionalKeyring(options.key);
  const redactor = recordRedaction(options, keyring);
  const receiptsFile = options.receipts ?? receiptsPathFor(options.out);
  if (keyring) await assertAbsent(receiptsFile);
  if (keyring === undefined && options.otlpLogs !== undefined)
    throw new CliExit(EXIT.usage, '--otlp-logs ships receipts: give a receipt key (--key FILE)');
  if (options.witnessUrl.length > 0) {
    // Witnesses cosign checkpoint notes, which only an Ed25519 key signs (docs/design.md §6).
    if (!keyring?.hasEd25519Public)
      throw new CliExit(
        EXIT.usage,
        '--witness-url: witnesses cosign checkpoint notes: give a key with an Ed25519 pair',
      );
    const sidecar = cosignaturesPathFor(receiptsFile);
    await refuseSymlink(sidecar).catch(usageError('--witness-url'));
    if (await exists(sidecar))
      throw new CliExit(EXIT.usage, `--witness-url: ${sidecar} already exists (cosignature files are append-only)`);
  }
  const continuation: Continuation =
    options.continueFrom === undefined
      ? { link: null, carried: [], interruptions: [] }
      : await readContinuation(options.continueFrom, receiptsPathFor(options.continueFrom), keyring);
  if (rotationLimits(options) !== null)
    await assertNoLaterFiles(keyring ? [options.out, receiptsFile] : [options.out], continuation.link?.position ?? 1);
  return { keyring, redactor, receiptsFile, continuation, tls: await readRecordTls(options) };
}

/**
 * Opens the recording (its header holding the upstream's agent card) and, with a key, the receipt
 * log, set up as replay derives it; says on stderr what is missing.
 */
async function openRecordFiles(
  options: RecordCommandOptions,
  files: Awaited<ReturnType<typeof recordFiles>>,
  settings: Pick<ReturnType<typeof recordSettings>, 'fsync' | 'checkpointEvery'>,
  reportOnce: (what: string) => (error: unknown) => void,
): Promise<{
  writer: RecordingWriter;
  openRecording: (path: string) => RecordingWriter;
  log: ReceiptLogWriter | undefined;
  openLog: OpenLog | undefined;
  witnesses: RecordWitnesses | undefined;
  shipping: ReceiptShipping | undefined;
  grpcUpstream: string;
}> {
  const { keyring, receiptsFile } = files;
  const { fsync, checkpointEvery } = settings;
  // The upstream's card, kept in the header so that `run` knows the peer it was made against.
  const card = await fetchAgentCard(options.upstream, { ...files.tls.upstream });
  // Written with its secrets marked (interface URLs' user-info and keys, credential members).
  const agentCard = card === undefined ? undefined : files.redactor.json(structuredClone(card));
  if (agentCard === undefined)
    process.stderr.write(
      `a2a-replay: no agent card answered at the upstream's /.well-known/agent-card.json; recording without it\n`,
    );
  const grpcUpstream = grpcUpstreamOf(options.grpcUpstream, options.upstream, card);
  const foreign = foreignInterfaceUrls(card, new URL(options.upstream), parseGrpcTarget(grpcUpstream));
  if (foreign.length > 0)
    process.stderr.write(
      `a2a-replay: the upstream's agent card names ${foreign.map((url) => redactUrl(url)).join(', ')}, ` +
        'not the upstream: ' +
        'a client that follows it talks to that server directly, and nothing of it is recorded\n',
    );
  const uncarried = uncarriedBindings(card);
  if (uncarried.length > 0)
    process.stderr.write(
      printable(
        `a2a-replay: the upstream's agent card names ${uncarried.join(', ')}: the recorder carries JSONRPC, ` +
          'HTTP+JSON and GRPC only, so a client that uses that interface is not recorded',
      ) + '\n',
    );
  // Each file of a rotated recording holds the card too, so that each reads on its own.
  const openRecording = (path: string, replace = false): RecordingWriter =>
    new RecordingWriter({
      ...(agentCard === undefined ? {} : { agentCard }),
      sink: fileLineSink(path, { replace }),
      clock: systemClock,
      ids: randomIdSource,
      target: redactUrl(options.upstream),
      onError: reportOnce(`writing ${path}`),
    });
  const writer = openRecording(options.out, options.force === true);
  await writer.flush();
  if (writer.failed) throw new CliExit(EXIT.usage, `${options.out}: cannot write the recording`);

  let log: ReceiptLogWriter | undefined;
  let openLog: OpenLog | undefined;
  const witnesses = keyring && (await recordWitnesses(options.witnessUrl, options.witnessVkey, receiptsFile));
  // Receipt lines as OTLP log records once durable in the file (docs/design.md §6).
  const shipping = keyring && (await openReceiptShipping(options.otlpLogs));
  if (keyring === undefined) {
    process.stderr.write(
      'a2a-replay: no receipt key (--key FILE or A2A_REPLAY_KEY_FILE): recording without receipts\n',
    );
  } else {
    // Set up as src/replay/derive-receipts.ts derives it, so a strict replay gives the same bytes.
    openLog = (path, series, header) =>
      ReceiptLogWriter.open(path, {
        keyring,
        recording: header.id,
        createdAt: header.createdAt,
        tool: TOOL_NAME,
        clock: systemClock,
        fsync,
        checkpointEvery,
        ...(options.witness === undefined ? {} : { witness: options.witness }),
        // Checkpoints go to the witnesses once durable, in the background (docs/design.md §6).
        ...(witnesses || shipping
          ? {
              onDurable: (lines) => {
                witnesses?.onDurable(lines);
                shipping?.onDurable(lines);
              },
            }
          : {}),
        series,
      });
    log = await openLog(receiptsFile, files.continuation.link, writer.header).catch(async (error: unknown) => {
      await writer.close();
      if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, error.message);
      throw error;
    });
  }
  return { writer, openRecording, log, openLog, witnesses, shipping, grpcUpstream };
}

/** One recording and receipt log, or a series of them by position (docs/design.md §6, "Rotation"). */
function rotating(
  out: string,
  opened: Awaited<ReturnType<typeof openRecordFiles>>,
  files: Awaited<ReturnType<typeof recordFiles>>,
  settings: ReturnType<typeof recordSettings>,
): { writer: RotatingRecording; log: RotatingLog | undefined } {
  const position = files.continuation.link?.position ?? 1;
  const writer = new RotatingRecording({
    first: opened.writer,
    path: out,
    position,
    open: opened.openRecording,
    limits: settings.rotation,
    clock: systemClock,
    sync: settings.fsync !== 'never',
  });
  const { keyring } = files;
  const log =
    opened.log && keyring && opened.openLog
      ? new RotatingLog({ first: opened.log, position, keyring, open: opened.openLog })
      : undefined;
  return { writer, log };
}

/** Records until SIGINT or SIGTERM (see the module doc). */
async function runRecord(options: RecordCommandOptions): Promise<void> {
  const settings = recordSettings(options);
  const { listen, principal, maxBodyBytes, maxObservedBytes, graceMs, upstreamTimeoutMs, limits } = settings;
  const files = await recordFiles(options);
  const reported = new Set<string>();
  const reportOnce =
    (what: string) =>
    (error: unknown): void => {
      if (reported.has(what)) return;
      reported.add(what);
      // A file that cannot be written stalls: answers showing a pause or resume are refused until it can be.
      const held = what === 'tracing' ? '' : '; answers that show a pause or resume get 503 until it can be written';
      process.stderr.write(`a2a-replay: ${what} failed, the proxy keeps forwarding: ${describeError(error)}${held}\n`);
    };
  const opened = await openRecordFiles(options, files, settings, reportOnce);
  const { witnesses, shipping, grpcUpstream } = opened;
  const { writer, log } = rotating(options.out, opened, files, settings);
  const tracing = await openTracing({
    otlp: options.otlp,
    tracesDir: options.traces,
    name: traceName(options.out),
  });
  // Lines as things happen on a terminal (or --progress); the summary at the stop unless --quiet.
  const progress = new RecordProgress({
    lines: options.quiet !== true && (options.progress === true || process.stderr.isTTY),
    write: (text) => process.stderr.write(text),
  });
  const observation =
    log || tracing.enabled
      ? observe(
          writer,
          log,
          tracing.enabled ? tracing.sink : undefined,
          settings.fsync,
          reportOnce,
          progress,
          files.continuation,
        )
      : undefined;

  const incomplete = incompleteReporter(options.out);
  const recorder = new ExchangeRecorder({
    writer,
    ids: new CounterIdSource(writer.header.id),
    principal,
    redactor: files.redactor,
    maxBodyBytes,
    maxObservedBytes,
    onEntry: (entry: RecordingEntry) => {
      if (entry.kind === 'request') progress.exchange();
      incomplete.see(entry);
      const hold = observation?.push(writer.sessionEntry(entry));
      if (writer.due()) {
        // The entry just written is the file's last: the next goes to the next file, and the
        // receipts of the entries so far to the closed file's log.
        const { closed, closing, opened: next } = writer.rotate();
        if (log) observation?.between(() => log.rotate(closed, closing, next));
      }
      return hold;
    },
    onError: reportOnce('recording'),
  });
  const proxy = await startRecordingProxy({
    upstream: options.upstream,
    grpcUpstream,
    upstreamTls: files.tls.upstream,
    ...(files.tls.serve === undefined ? {} : { tls: files.tls.serve }),
    onGrpcRefusal: grpcRefusalReporter(),
    recorder,
    host: listen.host,
    port: listen.port,
    maxBodyBytes,
    upstreamTimeoutMs,
    followMs: settings.followMs,
    limits,
  }).catch(async (error: unknown) => {
    await writer.close();
    await observation?.close();
    await tracing.shutdown();
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, error.message);
    throw error;
  });
  // Listen for the stop before saying so: a supervisor may stop the recorder the moment it reads
  // the line, and the recording and receipt log must still be closed.
  const stopped = waitForStopSignal();
  process.stdout.write(`listening on ${proxy.url}\n`);
  if (!isLoopbackHost(new URL(proxy.url).hostname)) {
    process.stderr.write(
      `a2a-replay: listening on a non-loopback address: every client that can reach it can send requests to ` +
        `${redactUrl(options.upstream).replace(/\/$/, '')} through this recorder (/control is not forwarded)\n`,
    );
  }

  await stopped;
  await stopProxy(proxy, graceMs, settings.followMs);
  await writer.close();
  if (writer.dropped > 0)
    process.stderr.write(`a2a-replay: ${writer.dropped} recording lines were not written to ${options.out}\n`);
  const closedWhole = (await observation?.close()) ?? true;
  await witnesses?.close();
  await shipping?.shutdown();
  incomplete.close();
  await tracing.shutdown();
  if (options.quiet !== true) progress.summary({ recording: writer.files.join(', '), receipts: log?.files.join(', ') });
  if (!closedWhole || writer.dropped > 0)
    throw new CliExit(EXIT.infrastructure, `${options.out}: lines could not be written (see above)`);
}

export function registerRecord(program: Command): void {
  redactionFlags(withRecordTlsOptions(program.command('record')))
    .description('record the A2A traffic to a peer through a reverse proxy')
    .requiredOption('--upstream <url>', 'the peer to forward to')
    .requiredOption('--out <file>', 'recording to write (JSONL)')
    .option('--upstream-timeout-ms <n>', 'the upstream must send its response head within N ms, else HTTP 504', '30000')
    .option(
      '--follow-ms <n>',
      'read and observe for N ms more an answer its client left, cancelled, or got 504 for; ' +
        'on shutdown, how long an answer still awaited is read before the files close',
      '600000',
    )
    .option('--request-timeout-ms <n>', 'a client request must fully arrive within N ms, else HTTP 408', '30000')
    .option(
      '--headers-timeout-ms <n>',
      'its headers within N ms (at most --request-timeout-ms), else HTTP 408',
      '10000',
    )
    .option(
      '--max-connections <n>',
      'open client connections served, gRPC ones too; requests on further ones get HTTP 503 (gRPC: UNAVAILABLE)',
      '1024',
    )
    .option('--drain-limit-bytes <n>', 'read and drop up to N bytes of a body over the limit after its 413', '67108864')
    .option('--drain-timeout-ms <n>', 'read and drop a body over the limit for at most N ms after its 413', '30000')
    .option('--listen <host:port>', 'address to listen on', '127.0.0.1:0')
    .option('--receipts <file>', 'receipt log to write (default: X.receipts.jsonl beside X.jsonl; never overwritten)')
    .option('--key <file>', 'receipt signing key file (default: $A2A_REPLAY_KEY_FILE)')
    .option(
      '--fsync <policy>',
      `durability: ${FSYNC_POLICIES.join(' | ')}; answers showing a pause or resume wait until its ` +
        'receipt is fsynced (never: written), see README',
      'batch',
    )
    .option(
      '--witness <file>',
      'keep the latest checkpoint in FILE too (replaced atomically): `verify --checkpoint FILE` detects a cut log',
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
      String(DEFAULT_CHECKPOINT_EVERY),
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
      'jwt-sub',
    )
    .option(
      '--max-body-bytes <n>',
      'refuse request bodies above this size; answers and events above it are recorded as their first N bytes',
      String(DEFAULT_MAX_BODY_BYTES),
    )
    .option(
      '--max-observed-bytes <n>',
      'answers and events up to this size are observed whole for receipts, even when recorded cut; ' +
        'larger ones are recorded as incomplete (at least --max-body-bytes)',
      String(DEFAULT_MAX_OBSERVED_BYTES),
    )
    .option(
      '--grace-ms <n>',
      'on shutdown, how long open streams (SSE, gRPC) may go on; answers still awaited get --follow-ms',
      '2000',
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
