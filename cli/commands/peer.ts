/**
 * @module cli/commands/peer
 * `a2a-replay peer`: runs the reference peer (docs/design.md §4) until SIGINT or SIGTERM. The first
 * stdout line is `listening on http://HOST:PORT`.
 *
 * Limits: `--max-tasks` (terminal tasks kept), `--request-timeout-ms` (408 for a request that
 * does not arrive in time; headers within 10 s), `--max-connections` (503 beyond),
 * `--drain-limit-bytes` and `--drain-timeout-ms` (how much of a body over the limit is read after
 * its 413, so the client reads it). With
 * `--transitions FILE` the peer writes its own transitions log (mode 0600), flushed on SIGINT or
 * SIGTERM. With `--store DIR` tasks, pauses and their resume tokens outlive the process: the peer
 * carries on from DIR when started again (src/peer/peer-store.ts).
 *
 * Spans: with `--otlp URL`, `--traces DIR` (file `DIR/peer.otlp.json`) or the OTEL_EXPORTER_OTLP_*
 * variables, the peer observes its own traffic: the in-process recording middleware turns every
 * exchange into recording entries (kept nowhere) that feed an ObservationPipeline without
 * receipts, whose spans go to the exporters. On SIGINT or SIGTERM the peer closes (open streams
 * end), the observation ends at the last entry, and the spans are flushed before exit. Each run
 * gets a fresh random recording id, so two runs never share trace ids in a collector.
 */
import type { Command } from 'commander';
import { isoAt, systemClock, errorMessage, CounterIdSource, randomIdSource } from '../../src/public/core.js';
import { ExchangeRecorder, withRecording, type RecordingEntry, type EntryWriter } from '../../src/public/intercept.js';
import { ObservationPipeline, openTracing } from '../../src/public/observe.js';
import { type PeerOptions, startPeer, A2A_VERSION_SETTINGS, type A2aVersionSetting } from '../../src/public/peer.js';
import type { SpanSink } from '../../src/public/tracing.js';
import { CliExit, EXIT, waitForStopSignal } from '../io.js';
import { integerOption } from '../options.js';

/** The trace file stem under `--traces DIR`. */
export const PEER_TRACE_NAME = 'peer';

interface PeerCommandOptions {
  host: string;
  port: string;
  deterministic?: boolean;
  seed: string;
  stepMs: string;
  control?: boolean;
  legacyPause?: boolean;
  a2aVersion: string;
  verbose?: boolean;
  otlp?: string;
  traces?: string;
  maxTasks: string;
  requestTimeoutMs: string;
  maxConnections: string;
  drainLimitBytes: string;
  drainTimeoutMs: string;
  transitions?: string;
  store?: string;
  bypassAskAfter?: string;
}

interface SelfObservation {
  /** Wraps the peer's handler with the recording middleware. */
  wrap: NonNullable<PeerOptions['wrapHandler']>;
  /** Ends the observation at the last entry seen (open pauses become lost pauses, spans end). */
  finish(): Promise<void>;
}

/** The peer's own exchanges as entries (stamped here, written nowhere) into a spans-only pipeline. */
function observeOwnTraffic(spans: SpanSink, warn: (line: string) => void): SelfObservation {
  const recordingId = randomIdSource.next('rec');
  let seq = 0;
  let lastAt = isoAt(systemClock.now());
  const entries: EntryWriter = {
    append(draft) {
      seq += 1;
      lastAt = isoAt(systemClock.now());
      return { seq, at: lastAt, ...draft };
    },
  };
  const told = new Set<string>();
  const once =
    (what: string) =>
    (error: unknown): void => {
      if (told.has(what)) return;
      told.add(what);
      warn(`${what} failed, the peer keeps serving: ${errorMessage(error)}`);
    };
  const pipeline = new ObservationPipeline({ recordingId, spans, onSinkError: (error, sink) => once(sink)(error) });
  const recorder = new ExchangeRecorder({
    writer: entries,
    ids: new CounterIdSource(recordingId),
    onEntry: (entry: RecordingEntry) => void pipeline.push(entry),
    onError: once('observing the peer’s traffic'),
  });
  return {
    wrap: (handler) => withRecording({ recorder }, handler),
    async finish() {
      await pipeline.finish(lastAt);
      await pipeline.idle();
    },
  };
}

/** `--a2a-version`, checked: 0.3, 1.0 or both. */
function a2aVersionOption(value: string): A2aVersionSetting {
  if (!(A2A_VERSION_SETTINGS as readonly string[]).includes(value)) {
    throw new CliExit(EXIT.usage, `--a2a-version: expected one of ${A2A_VERSION_SETTINGS.join(', ')}; got ${value}`);
  }
  return value as A2aVersionSetting;
}

export function registerPeer(program: Command): void {
  program
    .command('peer')
    .description('run the reference A2A v1.0 peer with the pause/resume extension')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 = a free port)', '0')
    .option('--deterministic', 'virtual clock, seeded ids, /control enabled')
    .option('--seed <n>', 'seed of the deterministic ids', '0')
    .option('--step-ms <n>', 'duration of one work step (virtual ms when deterministic)', '1000')
    .option('--control', 'enable /control in real-time mode too')
    .option('--legacy-pause', 'report pauses the Harn way (WORKING + metadata.harn.pause)')
    .option(
      '--a2a-version <v>',
      'the A2A dialects served, decided per request: 0.3, 1.0 or both (v0.3 methods such as message/send)',
      'both',
    )
    .option('--verbose', 'diagnostics on stderr')
    .option(
      '--otlp <url>',
      'export the pause/resume spans of the peer’s traffic over OTLP/HTTP (default: $OTEL_EXPORTER_OTLP_ENDPOINT)',
    )
    .option('--traces <dir>', `write those spans as OTLP-JSON into DIR/${PEER_TRACE_NAME}.otlp.json on shutdown`)
    .option('--max-tasks <n>', 'finished tasks kept (the oldest finished is evicted first)', '10000')
    .option('--request-timeout-ms <n>', 'a request must fully arrive within N ms, else HTTP 408', '30000')
    .option('--max-connections <n>', 'open connections served; requests on further ones get HTTP 503', '1024')
    .option('--drain-limit-bytes <n>', 'read and drop up to N bytes of a body over the limit after its 413', '67108864')
    .option('--drain-timeout-ms <n>', 'read and drop a body over the limit for at most N ms after its 413', '30000')
    .option('--transitions <file>', 'write every task state change, refused pause/resume and eviction as JSONL')
    .option('--store <dir>', 'keep tasks, pauses and resume tokens in DIR and carry on from them after a restart')
    .option('--bypass-ask-after <ms>', 'a variant: an ask: step moves on with no input N clock ms after it asked')
    .action(async (options: PeerCommandOptions) => {
      const port = integerOption(options.port, 'port', 0, 65535);
      const seed = integerOption(options.seed, 'seed', 0, Number.MAX_SAFE_INTEGER);
      const stepMs = integerOption(options.stepMs, 'step-ms', 1, 24 * 3600 * 1000);
      const maxTasks = integerOption(options.maxTasks, 'max-tasks', 1, 10_000_000);
      const requestTimeoutMs = integerOption(options.requestTimeoutMs, 'request-timeout-ms', 1, 24 * 3600 * 1000);
      const maxConnections = integerOption(options.maxConnections, 'max-connections', 1, 1_000_000);
      const drainLimitBytes = integerOption(options.drainLimitBytes, 'drain-limit-bytes', 1);
      const drainTimeoutMs = integerOption(options.drainTimeoutMs, 'drain-timeout-ms', 1, 24 * 3600 * 1000);
      const tracing = await openTracing({ otlp: options.otlp, tracesDir: options.traces, name: PEER_TRACE_NAME });
      const observation = tracing.enabled
        ? observeOwnTraffic(tracing.sink, (line) => process.stderr.write(`a2a-replay: ${line}\n`))
        : undefined;
      const peer = await startPeer({
        host: options.host,
        port,
        deterministic: options.deterministic ?? false,
        seed,
        stepMs,
        control: options.control ?? false,
        legacyPause: options.legacyPause ?? false,
        a2aVersion: a2aVersionOption(options.a2aVersion),
        maxTasks,
        requestTimeoutMs,
        maxConnections,
        drainLimitBytes,
        drainTimeoutMs,
        ...(options.transitions === undefined ? {} : { transitionsFile: options.transitions }),
        ...(options.store === undefined ? {} : { storeDir: options.store }),
        ...(options.bypassAskAfter === undefined
          ? {}
          : { bypassAskAfterMs: integerOption(options.bypassAskAfter, 'bypass-ask-after', 1, 365 * 24 * 3600 * 1000) }),
        warn: (line: string) => process.stderr.write(`a2a-replay: ${line}\n`),
        ...(options.verbose ? { log: (line: string) => process.stderr.write(`${line}\n`) } : {}),
        ...(observation ? { wrapHandler: observation.wrap } : {}),
      }).catch(async (error: unknown) => {
        await tracing.shutdown();
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
          throw new CliExit(EXIT.usage, `cannot listen on ${options.host}:${port} (${code})`);
        }
        throw error;
      });
      // Listen for the stop before saying so: a supervisor may stop the peer the moment it reads the line.
      const stopped = waitForStopSignal();
      process.stdout.write(`listening on ${peer.url}\n`);
      await stopped;
      await peer.close();
      await observation?.finish();
      await tracing.shutdown();
    });
}
