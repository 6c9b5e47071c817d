/**
 * @module record/observation
 * What a recorder does with each entry besides writing it (docs/design.md §5): feeds it to the
 * observation pipeline (receipts into the receipt log, spans to the span sink), holding the
 * answers that show a pause or resume until their receipt is durable, and says (as warnings) what
 * it could not read, and what a stop still reads.
 */
import type { RecordingProxy } from '../intercept/recording-proxy.js';
import { type ReceiptHold, ObservationPipeline } from '../observe/pipeline.js';
import { agentNameOf } from '../observe/span-conventions.js';
import { describeError } from '../errors.js';
import type { FsyncPolicy } from '../receipts/log-writer.js';
import type { RecordingEntry } from '../recording/format.js';
import type { SpanSink } from '../tracing/span-events.js';
import type { Continuation } from './continuation.js';
import type { RecordProgress } from './progress.js';
import type { RotatingLog, RotatingRecording } from './rotation.js';
import type { RecorderWarn } from './warnings.js';

export interface Observation {
  /**
   * Observes an entry; a promise back is a hold (the entry shows a pause or resume: see
   * `observe`), settling to why the answer is refused when its receipt could not be made durable.
   */
  push(entry: RecordingEntry): ReceiptHold | undefined;
  /** Runs `step` after the receipts of every entry pushed so far are written (a log rotation). */
  between(step: () => Promise<void>): void;
  /**
   * Ends the recording at its last entry, as replay does, then closes the receipt log; false when
   * the log could not be closed whole (a full disk kept lines back: no closing checkpoint).
   */
  close(): Promise<boolean>;
}

/**
 * Feeds entries to the observation pipeline: receipts into `log` (when a key was given), spans
 * into `spans`. Entries arrive in `seq` order, so the last one pushed is the recording's last.
 * An entry that shows a client a pause or resume gets a hold back that settles once its receipt
 * and the recording lines it cites are durable under `fsync` (docs/design.md §5); the proxy
 * releases the response bytes that carried the entry only then.
 */
export function observe(
  recording: RotatingRecording,
  log: RotatingLog | undefined,
  spans: SpanSink | undefined,
  fsync: FsyncPolicy,
  onError: (what: string) => (error: unknown) => void,
  progress: RecordProgress,
  carried: Pick<Continuation, 'carried' | 'interruptions'>,
  warn: RecorderWarn,
): Observation {
  let observerErrors = 0;
  const pipeline = new ObservationPipeline({
    recordingId: recording.header.id,
    agentName: agentNameOf(recording.header.agentCard),
    // A recorder may run for days: nothing reads findings back, so none are kept.
    retainFindings: false,
    ...(log
      ? {
          receipts: progress.receipts(log),
          whenEntriesDurable: (done: (failure?: unknown) => void) => recording.whenDurable(fsync !== 'never', done),
        }
      : {}),
    ...(spans ? { spans } : {}),
    onSinkError: (error, sink) =>
      onError(sink === 'receipts' ? `writing ${log?.path ?? 'receipts'}` : 'tracing')(error),
    // An entry the observer could not read may have cost a receipt: said at once (the first) and
    // counted at the end, never silent.
    onFinding: (finding) => {
      progress.finding(finding);
      if (finding.code !== 'observer-error') return;
      if (observerErrors++ === 0)
        warn(`${finding.message} (seq ${finding.seq ?? '-'}); receipts and spans for it may be missing`);
    },
  });
  // The pauses the recording continued from left open: a resume seen here pairs with them.
  pipeline.carry(carried.carried);
  // And the interruptions it left open: the continuation seen here names them (docs/design.md §6).
  pipeline.carryInterruptions(carried.interruptions);
  let lastAt = recording.header.createdAt;
  return {
    push(entry) {
      lastAt = entry.at;
      if (!log) {
        void pipeline.push(entry);
        return undefined;
      }
      return pipeline.pushHeld(entry);
    },
    between(step) {
      void pipeline.between(step);
    },
    async close() {
      await pipeline.finish(lastAt);
      await pipeline.idle();
      // Every loss, counted once at the end (the first of each kind was told as it happened).
      const { receipts, spans: spanFailures } = pipeline.failures;
      if (receipts > 0) warn(`${receipts} receipt writes failed in this run`);
      if (spanFailures > 0) warn(`${spanFailures} span events failed in this run`);
      if (observerErrors > 0) warn(`the observer could not read ${observerErrors} entries in this run`);
      // The closing checkpoint binds the log to the recording as written (it is closed by now).
      if (!log) return true;
      return log.close(recording.binding()).then(
        () => true,
        (error: unknown) => {
          warn(
            `${log.path} ends without its closing checkpoint: ${describeError(error)}; ` +
              'the receipts it could not write are lost',
          );
          return false;
        },
      );
    },
  };
}

/** Incomplete entries said as they are recorded, the first {@link INCOMPLETE_TOLD} of them. */
const INCOMPLETE_TOLD = 20;

/**
 * What the recorder could not read is said at once as a warning, naming the entry and why: a pause
 * or resume it carried is seen by no receipt (docs/design.md §5). Past the first
 * {@link INCOMPLETE_TOLD} they are counted, and the count said at the end.
 */
export function incompleteReporter(
  out: string,
  warn: RecorderWarn,
): { see(entry: RecordingEntry): void; close(): void } {
  let count = 0;
  return {
    see(entry) {
      if (entry.incomplete === undefined) return;
      count += 1;
      if (count > INCOMPLETE_TOLD) return;
      warn(
        `${out}: seq ${entry.seq} (${entry.kind} of ${entry.http.method} ${entry.http.path}) is ` +
          `incomplete: ${entry.incomplete}; a pause or resume it carried is not observed`,
      );
      if (count === INCOMPLETE_TOLD) warn('further incomplete entries are counted and said at the end');
    },
    close() {
      if (count > 0) warn(`${count} incomplete entries in ${out}: lost reports it incomplete`);
    },
  };
}

/**
 * Stops the proxy: says how many answers are still in flight, which it goes on reading (and
 * observing), an answer still awaited for up to `drainMs` (`followMs`) and an open stream for up
 * to `graceMs`, before it cuts them and the recording and receipt log close (docs/design.md §5,
 * "The recorder follows the peer").
 */
export async function stopProxy(
  proxy: RecordingProxy,
  graceMs: number,
  drainMs: number,
  warn: RecorderWarn,
): Promise<void> {
  const open = proxy.inFlight;
  const streams = proxy.streamsInFlight;
  if (open > streams) {
    const n = open - streams;
    warn(
      `stopping: reading the ${n} answer${n === 1 ? '' : 's'} in flight for up to ` +
        `${Math.max(graceMs, drainMs)} ms (--follow-ms) before the recording closes`,
    );
  }
  if (streams > 0) {
    warn(
      `stopping: reading the ${streams} open stream${streams === 1 ? '' : 's'} for up to ${graceMs} ms ` +
        '(--grace-ms) before the recording closes',
    );
  }
  await proxy.close({ graceMs, drainMs });
}
