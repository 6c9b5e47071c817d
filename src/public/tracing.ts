/**
 * @module a2a-replay/tracing
 * Observing pauses and resumes: the PauseObserver, the pipeline that feeds receipts and spans, the
 * OpenTelemetry span bridge and lost-pause findings (docs/design.md §7, §14).
 */
export {
  PauseObserver,
  type ObserverOptions,
  type ObserverOutput,
  type ObserverStats,
  ObservationPipeline,
  type ObservationPipelineOptions,
  type ReceiptSink,
  SpanBridge,
  type SpanBridgeOptions,
  type SpanSink,
  type SpanEvent,
  SPAN_NAMES,
  type SpanName,
  LOST_PAUSE_REASONS,
  type LostPauseReason,
  LostPauseCollector,
  type LostPauseListing,
  lostPausesInReceiptLog,
  deriveTraceId,
  deriveSpanId,
} from '../internal.js';
