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
export { DEFAULT_WAIT_MS } from '../replay/driver.js';
export { LIVE_POLL_MAX_MS } from '../replay/live-time.js';
export { POLL_BOUND_FACTOR, POLL_BOUND_MIN_MS } from '../replay/poll-loops.js';
export { probePeer, stopAllPeerProcesses } from '../replay/peer-process.js';
export { type RecordedPeerSetup, recordedPeerSetup } from '../replay/recorded-peer.js';
export { runMerged } from '../replay/run-merged.js';
export { type ReplayRecordingsOptions, replayRecordings } from '../replay/replay-recordings.js';
export { type ReplayPeerOptions, replayPeerOpener } from '../replay/replay-peer.js';
export { summaryExitCode } from '../replay/result.js';
export { renderJson } from '../replay/reporters/json.js';
export { renderJunit } from '../replay/reporters/junit.js';
export {
  type TextReportOptions,
  describeDifference,
  renderRecordingText,
  renderSummaryLine,
  renderText,
} from '../replay/reporters/text.js';
export { CONFIG_FILE, type ReplayConfig, readReplayConfig } from '../replay/config.js';
export { parsePointerPattern } from '../replay/content.js';
