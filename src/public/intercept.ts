/**
 * @module a2a-replay/intercept
 * Recording A2A traffic: the reverse proxy, the `fetch` wrapper and the `node:http` middleware,
 * all writing through one exchange recorder into a JSONL recording (docs/design.md §5).
 */
export { type RecordingProxy, type RecordingProxyOptions, startRecordingProxy } from '../intercept/recording-proxy.js';
export { type RecordingFetchOptions, createRecordingFetch } from '../intercept/recording-fetch.js';
export {
  type RecordingMiddleware,
  type RecordingMiddlewareOptions,
  createRecordingMiddleware,
  withRecording,
} from '../intercept/recording-middleware.js';
export { ExchangeRecorder, type ExchangeRecorderOptions } from '../intercept/exchange-recorder.js';
export { type EntryWriter, RecordingWriter, type RecordingWriterOptions } from '../recording/recording-writer.js';
export { type LineSink, MemoryLineSink, fileLineSink } from '../recording/line-sink.js';
export {
  DEFAULT_REDACTED_HEADERS,
  SECRET_HEADER_WORDS,
  SECRET_NAME_WORDS,
  SECRET_QUERY_NAMES,
  SECRET_QUERY_WORDS,
  Redactor,
  isSecretHeader,
  isSecretJsonKey,
  isSecretQueryName,
  redactPath,
  redactUrl,
} from '../recording/redaction.js';
export { RedactionMarks, derivedMarkKey, randomMarkKey } from '../recording/redaction-mark.js';
export {
  DEFAULT_SECRET_RULES,
  type SecretRuleAdjustments,
  type SecretRules,
  adjustSecretRules,
} from '../recording/secret-rules.js';
export { type PrincipalSource, parsePrincipalSource } from '../recording/principal.js';
export {
  type Recording,
  readRecording,
  readRecordingFile,
  readRecordingStream,
} from '../recording/recording-reader.js';
export type { RecordingEntry, RecordingHeader, RecordingLine } from '../recording/format.js';
