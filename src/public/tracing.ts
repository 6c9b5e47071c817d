/**
 * @module a2a-replay/tracing
 * Observing pauses and resumes: the PauseObserver, the pipeline that feeds receipts and spans, the
 * OpenTelemetry span bridge and lost-pause findings (docs/design.md §7, §14).
 */
export { PauseObserver, type ObserverOptions, type ObserverStats } from '../observe/pause-observer.js';
export type { ObserverOutput } from '../observe/suspension.js';
export { ObservationPipeline, type ObservationPipelineOptions, type ReceiptSink } from '../observe/pipeline.js';
export { SpanBridge, type SpanBridgeOptions } from '../tracing/span-bridge.js';
export {
  type SpanSink,
  type SpanEvent,
  LOST_PAUSE_REASONS,
  type LostPauseReason,
  deriveTraceId,
  deriveSpanId,
} from '../tracing/span-events.js';
export { SPAN_NAMES, type SpanName } from '../tracing/attributes.js';
export { LostPauseCollector, type LostPauseListing, lostPausesInReceiptLog } from '../tracing/lost-pauses.js';
export { DEFAULT_A2A_VERSION, EntryVersions, versionsLabel } from '../observe/entry-versions.js';
export {
  type LostPauseVerdict,
  type LostInterruptionVerdict,
  lostVerdictSpanEvents,
  lostVerdictSpan,
  lostInterruptionVerdictSpan,
} from '../tracing/lost-verdict-spans.js';
export { pauseCallSpanId } from '../tracing/span-bridge.js';
