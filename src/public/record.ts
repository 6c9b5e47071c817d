/**
 * @module a2a-replay/record
 * Recording as the `record` command does it, as one call (docs/design.md §5, §6, §9):
 * `startRecorder` runs the recording proxy with its receipt logs, rotation, continuation,
 * witnesses, OTLP span and log shipping, and gives a summary at its close.
 */
export { type Recorder, type RecordSummary, startRecorder } from '../record/start-recorder.js';
export { type RecorderOptions, RECORDER_DEFAULTS } from '../record/recorder-options.js';
export type { RecorderEvent, RecordCounts } from '../record/progress.js';
export { RecorderOptionError } from '../record/option-error.js';
export type { RecorderWarn } from '../record/warnings.js';
export { receiptsPathFor } from '../record/recorder-files.js';
