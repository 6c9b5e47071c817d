/**
 * @module a2a-replay/receipts
 * Receipt logs: the receipt and log formats (docs/design.md §6), keys, the chain and the log
 * writer, constant-memory verification, audit and the receipt-log diff; log sets (files, directories,
 * series, fleets, collector exports) verified, audited and searched for lost pauses as one; the
 * log as a transparency log (checkpoint notes, inclusion and consistency proofs, witness
 * cosignatures); interruptions audited.
 */
export {
  type Receipt,
  type SuspensionReceipt,
  type ResumptionReceipt,
  type InterruptionReceipt,
  type ContinuationReceipt,
  type ReceiptLogHeader,
  type ReceiptLogLine,
  type Checkpoint,
  RECEIPT_FORMAT,
  RECEIPT_VERSION,
  RECEIPT_VERSIONS,
  type ReceiptLogVersion,
  type RecordingBinding,
} from '../receipts/types.js';
export { readRecordingBinding } from '../receipts/recording-binding.js';
export { ReceiptKey, Keyring, generateReceiptKey } from '../receipts/keys.js';
export { type LoadedKey, loadKeyFile, loadKeyring, loadCheckpointFile, KEY_FILE_ENV } from '../receipts/key-file.js';
export { ReceiptChain, type ReceiptChainOptions } from '../receipts/chain.js';
export {
  ReceiptLogWriter,
  type ReceiptLogWriterOptions,
  FSYNC_POLICIES,
  type FsyncPolicy,
} from '../receipts/log-writer.js';
export {
  ReceiptLogVerifier,
  type VerifyOptions,
  type VerifyResult,
  verifyReceiptLog,
  verifyReceiptLogBytes,
} from '../receipts/verify.js';
export { type VerifyFailure, type VerifyFailureReason, VERIFY_FAILURE_REASONS } from '../receipts/verify-failure.js';
export {
  type LogStall,
  STALL_RECORD_BYTES,
  readLogStall,
  stallMessage,
  stallRecordPath,
} from '../receipts/stall-record.js';
export {
  type AuditFilter,
  type AuditOutcome,
  type AuditResult,
  type AuditRow,
  type VersionsOf,
  type RulesOf,
  type AuditRules,
  auditReceiptLog,
} from '../receipts/audit.js';
export { InterruptionAuditCollector, type InterruptionAuditRow } from '../receipts/interruption-audit.js';
export {
  type FleetAudit,
  type FleetAuditEntry,
  type FleetAuditOptions,
  type FleetAuditRow,
  type FleetInterruptionRow,
  auditFleet,
} from '../logs/fleet-audit.js';
export { type RecordingFacts, recordingFacts, recordingRules, recordingVersions } from '../logs/recording-facts.js';
export { type ReceiptDiff, type ReceiptDifference, diffReceiptLogs } from '../replay/diff.js';
export { canonicalJson, hashCanonical } from '../canonical/canonical-json.js';
export {
  type LogSet,
  type LogSetOptions,
  type LogSetVerification,
  type LostPauses,
  type LostPausesOptions,
  fileKind,
  openLogSet,
  verifyLogSet,
  lostPauses,
  headProblem,
} from '../logs/log-set.js';
export {
  type LostOutcome,
  fleetInterruptionNote,
  fleetLostLines,
  lostOutcome,
  lostPausesJson,
  lostSource,
  lostTraceName,
  lostVerdicts,
} from '../logs/lost-report.js';
export type { FleetInterruptions, FleetOrphanContinuation } from '../logs/fleet-interruption-ledger.js';
export {
  AUDIT_KINDS,
  type AuditEntry,
  type AuditKind,
  type LogSetAudit,
  type LogSetAuditOptions,
  auditLogSet,
} from '../logs/log-set-audit.js';
export { auditNotes, auditRefusal } from '../logs/audit-notes.js';
export { type Incomplete, type RecordingGaps, gapless } from '../logs/recording-gaps.js';
export { type LogHead, type SeriesHead, LOG_HEAD_PAYLOAD_TYPE, readSeriesHead } from '../receipts/log-head.js';
export {
  type GivenLog,
  type HeadPlacement,
  type MissingLog,
  givenLogHeaders,
  placeSeriesHead,
} from '../logs/series-head.js';
export {
  type VerificationDescription,
  describeVerification,
  verifySummary,
  seriesLine,
  outsideLines,
} from '../logs/describe-verification.js';
export { fleetLines, fleetPauseJson } from '../logs/given-logs.js';
export { headLine, verificationJson, verificationLines } from '../logs/verification-lines.js';
export type { Dialects } from '../logs/lost-reading.js';
export {
  type FleetAmbiguity,
  type FleetOutsideEnd,
  type FleetPause,
  type FleetPlace,
  type FleetVerdict,
  ambiguityText,
  fleetFails,
} from '../receipts/fleet.js';
export {
  type LogChecks,
  type LogChecksFound,
  type SinceCheck,
  type WitnessesCheck,
  type WitnessesOptions,
  checkLogRecording,
  verifySince,
  verifyWitnesses,
} from '../logs/log-checks.js';
export { type SeriesMember, type SeriesResult, seriesFiles, verifySeries } from '../receipts/series.js';
export { defaultVerifyJobs } from '../receipts/verify-jobs.js';
export { witnessKeys } from '../record/witnesses.js';
export {
  type LogNote,
  type LogTreeScan,
  type ProofCheck,
  scanLogTree,
  latestNote,
  proveReceipt,
  verifyReceiptProof,
  checkSince,
} from '../receipts/log-proofs.js';
export { noteVerifierOf, keyVerifierKey } from '../receipts/log-tree.js';
export { type NoteVerifier, parseVerifierKey } from '../tlog/note.js';
export { readKeyFile } from '../receipts/keys.js';
export { writeSecretFile } from '../receipts/key-file.js';
export { readReceiptLogLines, diffFleets } from '../logs/fleet-diff.js';
export { parseCosignerKey } from '../tlog/cosignature.js';
export {
  type WitnessRecord,
  type CosignedRecord,
  type RefusalRecord,
  cosignaturesPathFor,
  parseCosignatureFile,
} from '../receipts/cosignature-file.js';
export { type WitnessCheck, checkWitnessQuorum } from '../receipts/witness-check.js';
