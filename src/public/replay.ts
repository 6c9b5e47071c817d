/**
 * @module a2a-replay/replay
 * Replaying recordings against a peer and deriving receipts again (docs/design.md §8).
 */
export { TOOL_NAME } from '../version.js';
export { type LivePeer, type RunRecordingOptions, runRecording } from '../replay/run-recording.js';
export { type RunCorpusOptions, runCorpus } from '../replay/run-corpus.js';
export { RECORDED_PACE, type ReplayPace, formatPace, parsePace } from '../replay/pace.js';
export type { RecordingOutcome, RecordingResult, RunSummary } from '../replay/result.js';
export { type DeriveOptions, type DerivedLog, deriveReceiptLog } from '../replay/derive-receipts.js';
export { type ReceiptDiff, type ReceiptDiffOptions, type ReceiptDifference, diffReceiptLogs } from '../replay/diff.js';
export { type Shard, parseShard, selectShard } from '../replay/shard.js';
export { type PeerProcess, type PeerProcessOptions, startPeerProcess } from '../replay/peer-process.js';
