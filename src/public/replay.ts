/**
 * @module a2a-replay/replay
 * Replaying recordings against a peer and deriving receipts again (docs/design.md §8).
 */
export {
  TOOL_NAME,
  type LivePeer,
  type RunRecordingOptions,
  runRecording,
  type RunCorpusOptions,
  runCorpus,
  type RecordingOutcome,
  type RecordingResult,
  type RunSummary,
  type DeriveOptions,
  type DerivedLog,
  deriveReceiptLog,
  type ReceiptDiff,
  type ReceiptDiffOptions,
  type ReceiptDifference,
  diffReceiptLogs,
  type Shard,
  parseShard,
  selectShard,
  type PeerProcess,
  type PeerProcessOptions,
  startPeerProcess,
} from '../internal.js';
