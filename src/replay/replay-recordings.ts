/**
 * @module replay/replay-recordings
 * {@link replayRecordings}: everything `a2a-replay run` does beyond reading its flags and printing,
 * as one call (docs/design.md §8): the peer of each replay (src/replay/replay-peer.ts), the traces
 * of each recording's replay, the recordings replayed one by one ({@link runCorpus}) or, with
 * `merge`, as one session ({@link runMerged}), and the summary the reporters render.
 */
import { type Clock, systemClock } from '../clock.js';
import { A2aReplayError } from '../errors.js';
import type { Keyring } from '../receipts/keys.js';
import type { RecordingHeader } from '../recording/format.js';
import type { SpanSink } from '../tracing/span-events.js';
import { traceName, uniqueTraceNames } from '../tracing/trace-name.js';
import { type Tracing, wantsTracing } from '../tracing/tracing-options.js';
import { TOOL_NAME } from '../version.js';
import type { NoiseRules } from './content.js';
import type { ReplayPace } from './pace.js';
import { type ReplayPeerOptions, replayPeerOpener } from './replay-peer.js';
import { type RunSummary, summaryExitCode } from './result.js';
import { runCorpus } from './run-corpus.js';
import { runMerged } from './run-merged.js';
import type { Shard } from './shard.js';

/** The options of {@link replayRecordings}: the camelCase of `run`'s flags. */
export interface ReplayRecordingsOptions extends ReplayPeerOptions {
  /** Where the recorded gRPC calls go (`HOST:PORT`); default the live peer's card's GRPC interface. */
  grpcPeer?: string;
  /** The golden receipt log of the one recording (default `X.receipts.jsonl`). */
  golden?: string;
  /** Write the golden receipts from this replay (and, on exchange drift, the recordings). */
  update?: boolean;
  /** Demand byte-identical receipts, signatures included (needs `keyring`). */
  strict?: boolean;
  /** The golden receipts' key (`--key`); without it unsigned content is compared. */
  keyring?: Keyring;
  /** Export each replay's spans over OTLP/HTTP (else the OTEL_EXPORTER_OTLP_* variables say). */
  otlp?: string;
  /** Write each recording's spans as OTLP-JSON into this directory. */
  traces?: string;
  /** Recordings replayed at once (default 1). */
  concurrency?: number;
  /** Replay only this shard of the recordings. */
  shard?: Shard;
  /** How long to wait for a live answer before it counts as drift. */
  timeoutMs?: number;
  /** How requests are spaced against a live peer (`peer`, `peerCmd`); default as recorded. */
  pace?: ReplayPace;
  /** Paths never compared for any method (`--ignore`). */
  ignore?: readonly string[];
  /** Paths never compared, per method (`a2a-replay.config.json`). */
  noise?: NoiseRules;
  /** Replay the recordings of several recorders in front of one peer as one session, one result. */
  merge?: boolean;
  /** Progress: entries settled of a recording (with `merge`, of the recordings joined by ` + `). */
  onProgress?: (file: string, settled: number, total: number) => void;
  /** Stops the replay at once: the summary holds what was found up to there. */
  signal?: AbortSignal;
  /** One line per tracing problem (export failed, ...), once each. Default: on stderr. */
  warn?: (line: string) => void;
  clock?: Clock;
}

/**
 * The span sink of each recording's replay when traces are asked for (`otlp`, `traces`, or the
 * standard OTEL_EXPORTER_OTLP_* variables), and the tracings to shut down after. The OpenTelemetry
 * SDK is loaded only then.
 */
async function replayTracing(
  files: readonly string[],
  options: ReplayRecordingsOptions,
): Promise<{ spans: ((header: RecordingHeader, file: string) => SpanSink) | undefined; tracings: Tracing[] }> {
  const tracings: Tracing[] = [];
  if (!wantsTracing({ otlp: options.otlp, tracesDir: options.traces })) return { spans: undefined, tracings };
  const traceNames = uniqueTraceNames(files);
  // One warning per run, however many recordings each set up their tracing.
  const warned = new Set<string>();
  const warn = options.warn ?? ((line: string) => process.stderr.write(`a2a-replay: ${line}\n`));
  const warnOnce = (line: string): void => {
    const what = line.replace(/ failed.*$/s, '');
    if (warned.has(what)) return;
    warned.add(what);
    warn(line);
  };
  const { setupTracing } = await import('../tracing/tracing-setup.js');
  const spans = (_header: RecordingHeader, file: string): SpanSink => {
    const tracing = setupTracing({
      otlp: options.otlp,
      tracesDir: options.traces,
      name: traceNames.get(file) ?? traceName(file),
      work: 'the replay',
      warn: warnOnce,
    });
    tracings.push(tracing);
    return tracing.sink;
  };
  return { spans, tracings };
}

/** Options that are about one recording each, refused with `merge`. */
function checkOptions(files: readonly string[], options: ReplayRecordingsOptions): void {
  const invalid = (message: string): A2aReplayError => new A2aReplayError('INVALID_ARGUMENT', message);
  if (options.peer !== undefined && options.peerCmd !== undefined) throw invalid('peer and peerCmd exclude each other');
  if (options.golden !== undefined && files.length > 1) throw invalid('golden names the log of one recording only');
  if (options.pace !== undefined && options.peer === undefined && options.peerCmd === undefined) {
    throw invalid(
      'pace spaces the requests to a live peer (peer, peerCmd); the embedded peer keeps the recorded clock',
    );
  }
  if (!options.merge) return;
  if (files.length < 2) throw invalid('merge needs two or more recordings');
  for (const name of ['update', 'shard', 'golden', 'strict'] as const) {
    const given = options[name];
    if (given !== undefined && given !== false) throw invalid(`${name} cannot be used with merge`);
  }
}

/**
 * Replays the recordings against a peer and diffs the receipts each derives against its golden
 * ones, as `a2a-replay run` does; the summary is what its reporters render (`renderText`,
 * `renderJson`, `renderJunit`). Bad combinations of options are `INVALID_ARGUMENT`; a peer that
 * cannot be reached or started fails the recording's result, not the call.
 */
export async function replayRecordings(
  files: readonly string[],
  options: ReplayRecordingsOptions = {},
): Promise<RunSummary> {
  checkOptions(files, options);
  const clock = options.clock ?? systemClock;
  const { spans, tracings } = await replayTracing(files, options);
  const common = {
    openPeer: replayPeerOpener(options),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.noise ? { noise: options.noise } : {}),
    ...(options.ignore ? { ignore: options.ignore } : {}),
    ...(options.grpcPeer !== undefined ? { grpcPeer: options.grpcPeer } : {}),
    ...(options.pace ? { pace: options.pace } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    tool: TOOL_NAME,
    clock,
  };
  try {
    if (options.merge) {
      const started = clock.now();
      const name = files.join(' + ');
      const onProgress = options.onProgress;
      const result = await runMerged(files, {
        ...common,
        ...(onProgress ? { onProgress: (settled: number, total: number) => onProgress(name, settled, total) } : {}),
      });
      return { results: [result], exitCode: summaryExitCode([result]), durationMs: clock.now() - started };
    }
    return await runCorpus(files, {
      ...common,
      ...(options.golden !== undefined ? { golden: options.golden } : {}),
      update: options.update ?? false,
      strict: options.strict ?? false,
      ...(options.keyring ? { keyring: options.keyring } : {}),
      concurrency: options.concurrency ?? 1,
      ...(options.shard ? { shard: options.shard } : {}),
      ...(spans ? { spans } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  } finally {
    await Promise.all(tracings.map((t) => t.shutdown()));
  }
}
