/**
 * @module a2a-replay/intercept
 * Recording A2A traffic: the reverse proxy, the `fetch` wrapper and the `node:http` middleware,
 * all writing through one exchange recorder into a JSONL recording (docs/design.md §5).
 */
export {
  type RecordingProxy,
  type RecordingProxyOptions,
  startRecordingProxy,
  type RecordingFetchOptions,
  createRecordingFetch,
  type RecordingMiddleware,
  type RecordingMiddlewareOptions,
  createRecordingMiddleware,
  withRecording,
  ExchangeRecorder,
  type ExchangeRecorderOptions,
  RecordingWriter,
  type RecordingWriterOptions,
  type LineSink,
  MemoryLineSink,
  fileLineSink,
  DEFAULT_REDACTED_HEADERS,
  type PrincipalSource,
  parsePrincipalSource,
  type Recording,
  type RecordingEntry,
  type RecordingHeader,
  type RecordingLine,
  readRecording,
  readRecordingFile,
  readRecordingStream,
} from '../internal.js';
