/**
 * @module a2a-replay
 * The package root: what a library user needs to record, replay, verify and audit. Each layer a
 * user may reach further has its own subpath (`a2a-replay/receipts`, `/intercept`, `/replay`,
 * `/tracing`, `/peer`, `/protocol`); docs/api.md describes each. `cli/` imports each module it uses
 * directly, so everything not named here stays free to change.
 */
// core
export { A2aReplayError, type A2aReplayErrorCode } from './errors.js';
export { type Clock, ManualClock, systemClock } from './clock.js';
export { type IdSource, CounterIdSource, randomIdSource } from './ids.js';
export { VERSION } from './version.js';
export { canonicalJson, hashCanonical } from './canonical/canonical-json.js';
// recordings
export { type Recording, readRecording, readRecordingFile } from './recording/recording-reader.js';
export type { RecordingEntry, RecordingHeader } from './recording/format.js';
// recording traffic
export { type RecordingProxy, type RecordingProxyOptions, startRecordingProxy } from './intercept/recording-proxy.js';
export { type RecordingFetchOptions, createRecordingFetch } from './intercept/recording-fetch.js';
export { RecordingWriter } from './recording/recording-writer.js';
// replay
export { type RunRecordingOptions, runRecording } from './replay/run-recording.js';
export type { RecordingResult, RunSummary } from './replay/result.js';
export { type RunCorpusOptions, runCorpus } from './replay/run-corpus.js';
// receipt logs
export { Keyring, generateReceiptKey } from './receipts/keys.js';
export { loadKeyFile } from './receipts/key-file.js';
export { type VerifyOptions, type VerifyResult, verifyReceiptLog } from './receipts/verify.js';
export { type AuditRow, type AuditResult, auditReceiptLog } from './receipts/audit.js';
// the reference peer
export { type PeerOptions, type RunningPeer, startPeer } from './peer/start-peer.js';
