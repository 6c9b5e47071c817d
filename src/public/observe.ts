/**
 * @module a2a-replay/observe
 * Observing pauses and resumes (docs/design.md §7, §14): the PauseObserver and its rules (each row
 * by its stable id), the pipeline that feeds receipts and spans, and the lost-pause vocabulary:
 * why a pause is lost, the listings of lost pauses, and the open suspensions of a receipt log.
 * What it sees ships as spans (`openTracing` gives the pipeline a sink; `exportLostVerdicts` draws
 * lost pauses as verdict spans) with the OpenTelemetry SDK loaded only when an exporter is asked for.
 */
export { PauseObserver, type ObserverOptions, type ObserverStats } from '../observe/pause-observer.js';
export type { ObserverOutput } from '../observe/suspension.js';
export type { ObserverFinding } from '../observe/findings.js';
export { type FindingBearing, FINDING_BEARING, findingSpoilsVerdict } from '../observe/finding-bearing.js';
export { ObservationPipeline, type ObservationPipelineOptions, type ReceiptSink } from '../observe/pipeline.js';
export { OBSERVER_RULES, type RuleListing } from '../observe/rules/tables.js';
export {
  LostPauseCollector,
  type LostPauseListing,
  type LostInterruptionListing,
  OpenSuspensions,
  lostPausesInReceiptLog,
} from '../observe/lost-pauses.js';
export {
  LOST_PAUSE_REASONS,
  type LostPauseReason,
  type LostInterruptionReason,
} from '../observe/lost-pause-reasons.js';
export { DEFAULT_A2A_VERSION, EntryVersions, versionsLabel } from '../observe/entry-versions.js';
export type { LostChain } from '../observe/verdict-chains.js';
export { type Tracing, type TracingOptions, wantsTracing } from '../tracing/tracing-options.js';
export { openTracing } from '../tracing/open-tracing.js';
export {
  type LostPauseVerdict,
  type LostInterruptionVerdict,
  fleetPauseVerdict,
} from '../tracing/lost-verdict-spans.js';
export { exportLostVerdicts } from '../tracing/export-lost-verdicts.js';
export { traceName, uniqueTraceNames } from '../tracing/trace-name.js';
