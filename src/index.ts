/**
 * @module a2a-replay
 * The package root: what a library user needs to record, replay, verify and audit. Each layer a
 * user may reach further has its own subpath (`a2a-replay/receipts`, `/intercept`, `/replay`,
 * `/tracing`, `/peer`, `/protocol`); docs/api.md describes each. `cli/` uses `src/internal.ts`,
 * so everything not named here stays free to change.
 */
export {
  // core
  A2aReplayError,
  type A2aReplayErrorCode,
  type Clock,
  ManualClock,
  systemClock,
  type IdSource,
  CounterIdSource,
  randomIdSource,
  VERSION,
  canonicalJson,
  hashCanonical,
  // recordings
  type Recording,
  type RecordingEntry,
  type RecordingHeader,
  readRecording,
  readRecordingFile,
  // recording traffic
  type RecordingProxy,
  type RecordingProxyOptions,
  startRecordingProxy,
  type RecordingFetchOptions,
  createRecordingFetch,
  RecordingWriter,
  // replay
  type RunRecordingOptions,
  type RecordingResult,
  runRecording,
  type RunCorpusOptions,
  type RunSummary,
  runCorpus,
  // receipt logs
  Keyring,
  loadKeyFile,
  generateReceiptKey,
  type VerifyOptions,
  type VerifyResult,
  verifyReceiptLog,
  type AuditRow,
  type AuditResult,
  auditReceiptLog,
  // the reference peer
  type PeerOptions,
  type RunningPeer,
  startPeer,
} from './internal.js';
