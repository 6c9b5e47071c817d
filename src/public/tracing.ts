/**
 * @module a2a-replay/tracing
 * Pauses and resumes as OpenTelemetry spans (docs/design.md §7): the span bridge, the span events
 * the observer emits, span names, lost verdicts drawn as spans, and `setupTracing`, the
 * OpenTelemetry SDK wired to export them (OTLP/HTTP, OTLP-JSON files). The observer itself and the
 * lost-pause vocabulary are `a2a-replay/observe`.
 */
export { SpanBridge, type SpanBridgeOptions } from '../tracing/span-bridge.js';
export { type SpanSink, type SpanEvent, deriveTraceId, deriveSpanId } from '../tracing/span-events.js';
export { SPAN_NAMES, type SpanName } from '../tracing/attributes.js';
export {
  type LostPauseVerdict,
  type LostInterruptionVerdict,
  lostVerdictSpanEvents,
  lostVerdictSpan,
  lostInterruptionVerdictSpan,
} from '../tracing/lost-verdict-spans.js';
export { pauseCallSpanId } from '../tracing/span-bridge.js';
export { setupTracing, TRACING_SERVICE_NAME } from '../tracing/tracing-setup.js';
