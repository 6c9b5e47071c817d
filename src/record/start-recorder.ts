/**
 * @module record/start-recorder
 * {@link startRecorder}: everything `a2a-replay record` does, as one call (docs/design.md §5, §6,
 * §9). A recording reverse proxy in front of a peer: every exchange goes into the recording, and
 * with a key every entry also goes through the ObservationPipeline (the observer replay uses) into
 * a receipt log, durable as `fsync` says, a checkpoint every `checkpointEvery` receipts and one at
 * the stop; an answer that shows a pause or resume waits for its receipt. With `rotateBytes` or
 * `rotateAfter` the files go on as a series, with `continueFrom` the series goes on from a
 * previous recording; witnesses cosign checkpoints, receipt lines ship as OTLP log records, and
 * spans go out over OTLP or into a file (`otlp`, `traces`), none of which ever stops the
 * recording. {@link Recorder.close} stops accepting, reads the answers still awaited (up to
 * `followMs`) and open streams (up to `graceMs`), closes every file and gives the {@link RecordSummary}.
 */
import { describeError } from '../errors.js';
import { isLoopbackHost } from '../http/loopback.js';
import { CounterIdSource } from '../ids.js';
import { ExchangeRecorder } from '../intercept/exchange-recorder.js';
import { startRecordingProxy } from '../intercept/recording-proxy.js';
import type { RecordingEntry } from '../recording/format.js';
import { redactUrl } from '../recording/redaction.js';
import { openTracing } from '../tracing/open-tracing.js';
import { traceName } from '../tracing/trace-name.js';
import { grpcRefusalReporter } from './grpc-target.js';
import { incompleteReporter, observe, stopProxy } from './observation.js';
import { type RecordCounts, RecordProgress } from './progress.js';
import { checkRecorderFiles, openRecorderFiles } from './recorder-files.js';
import { type RecorderOptions, recorderSettings } from './recorder-options.js';
import { type RecorderWarn, stderrWarn } from './warnings.js';

/** What a recorder did, from its start to its stop. */
export interface RecordSummary extends RecordCounts {
  /** The recording files written, in series order (one unless it rotated). */
  recordingFiles: string[];
  /** The receipt logs written, in series order; undefined without a key. */
  receiptFiles: string[] | undefined;
  /** Recording lines that could not be written. */
  droppedLines: number;
  /** True when every line reached its file and the receipt log closed with its checkpoint. */
  complete: boolean;
}

/** A running recorder. */
export interface Recorder {
  /** Where clients send their requests: `http://HOST:PORT` (`https://` when serving TLS). */
  url: string;
  /** Stops accepting, lets answers in flight finish, closes every file; resolves once all are closed. */
  close(): Promise<RecordSummary>;
}

/** Calls `warn` once per kind of failure, naming what failed and what the proxy still does. */
function failureReporter(warn: RecorderWarn): (what: string) => (error: unknown) => void {
  const reported = new Set<string>();
  return (what) => (error) => {
    if (reported.has(what)) return;
    reported.add(what);
    // A file that cannot be written stalls: answers showing a pause or resume are refused until it can be.
    const held = what === 'tracing' ? '' : '; answers that show a pause or resume get 503 until it can be written';
    warn(`${what} failed, the proxy keeps forwarding: ${describeError(error)}${held}`);
  };
}

/**
 * Starts a recorder in front of `options.upstream` (see the module doc). Every option is checked
 * before anything is written: a bad one is a {@link RecorderOptionError} naming it; an existing
 * receipt log is never overwritten.
 */
export async function startRecorder(options: RecorderOptions): Promise<Recorder> {
  const warn = options.warn ?? stderrWarn;
  const settings = recorderSettings(options);
  const files = await checkRecorderFiles(options, warn);
  const reportOnce = failureReporter(warn);
  const { writer, log, witnesses, shipping, grpcUpstream } = await openRecorderFiles(
    options,
    files,
    settings,
    reportOnce,
    warn,
  );
  const tracing = await openTracing({
    otlp: options.otlp,
    tracesDir: options.traces,
    name: traceName(options.out),
    warn,
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  const progress = new RecordProgress({ onEvent: options.onEvent, warn });
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
          warn,
        )
      : undefined;
  const incomplete = incompleteReporter(options.out, warn);
  const recorder = new ExchangeRecorder({
    writer,
    ids: new CounterIdSource(writer.header.id),
    principal: settings.principal,
    redactor: files.redactor,
    maxBodyBytes: settings.maxBodyBytes,
    maxObservedBytes: settings.maxObservedBytes,
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
    onGrpcRefusal: grpcRefusalReporter(warn),
    recorder,
    host: settings.listen.host,
    port: settings.listen.port,
    maxBodyBytes: settings.maxBodyBytes,
    upstreamTimeoutMs: settings.upstreamTimeoutMs,
    followMs: settings.followMs,
    limits: settings.limits,
  }).catch(async (error: unknown) => {
    await writer.close();
    await observation?.close();
    await tracing.shutdown();
    throw error;
  });
  if (!isLoopbackHost(new URL(proxy.url).hostname))
    warn(
      `listening on a non-loopback address: every client that can reach it can send requests to ` +
        `${redactUrl(options.upstream).replace(/\/$/, '')} through this recorder (/control is not forwarded)`,
    );
  let closing: Promise<RecordSummary> | undefined;
  const close = async (): Promise<RecordSummary> => {
    await stopProxy(proxy, settings.graceMs, settings.followMs, warn);
    await writer.close();
    if (writer.dropped > 0) warn(`${writer.dropped} recording lines were not written to ${options.out}`);
    const closedWhole = (await observation?.close()) ?? true;
    await witnesses?.close();
    await shipping?.shutdown();
    incomplete.close();
    await tracing.shutdown();
    return {
      ...progress.counts,
      recordingFiles: [...writer.files],
      receiptFiles: log ? [...log.files] : undefined,
      droppedLines: writer.dropped,
      complete: closedWhole && writer.dropped === 0,
    };
  };
  return {
    url: proxy.url,
    close: () => (closing ??= close()),
  };
}
