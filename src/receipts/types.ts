/**
 * @module receipts/types
 * Receipt log lines (docs/design.md §6): the header, SuspensionReceipt, ResumptionReceipt and
 * Checkpoint. Every member is always present (null when it does not apply) so that logs from
 * record and replay compare field by field.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import type { PauseInitiator, PauseMode, ResumeConditions } from '../protocol/types.js';

export const RECEIPT_FORMAT = 'a2a-replay.receipts';
/**
 * The format version this build writes: 3 marks the closing checkpoint and binds it to its
 * recording; 4 adds each checkpoint's C2SP note over the Merkle tree of the lines before it; 5
 * adds what a version-4 reader would not understand (a receipt's `binding` GRPC).
 */
export const RECEIPT_VERSION = 5;
/** The format versions this build reads: 2 (checkpoints without `final` and `recording`), 3, 4 and 5. */
export const RECEIPT_VERSIONS = [2, 3, 4, 5] as const;
export type ReceiptLogVersion = (typeof RECEIPT_VERSIONS)[number];
/** DSSE-style payload type signed by the HMAC (PAE). */
export const RECEIPT_PAYLOAD_TYPE = 'application/vnd.a2a-replay.receipt.v1+json';
export const CHECKPOINT_PAYLOAD_TYPE = 'application/vnd.a2a-replay.checkpoint.v1+json';

/** A span a receipt belongs to (W3C ids: 32 and 16 lower-case hex). */
export interface SpanRef {
  traceId: string;
  spanId: string;
}

export interface ReceiptSignature {
  alg: 'hmac-sha256';
  kid: string;
  /** base64url of the MAC. */
  value: string;
}

/** Line 1 of a receipt log. */
export interface ReceiptLogHeader {
  type: 'ReceiptLog';
  format: typeof RECEIPT_FORMAT;
  version: ReceiptLogVersion;
  /** The recording these receipts were derived from (its header `id`), or null. */
  recording: string | null;
  /** Kids that sign receipts in this log (the first is the writer's current key). */
  kids: string[];
  /**
   * The one algorithm and key that sign every checkpoint of this log: Ed25519 when the writer's
   * key has a pair (an auditor then verifies with the public key alone), else HMAC.
   */
  checkpoint: { alg: CheckpointSignature['alg']; kid: string };
  createdAt: string;
  tool: string;
}

/** How a suspension was seen: the values of a SuspensionReceipt's `via`. */
export const SUSPENSION_VIAS = ['PauseTask', 'AwaitTaskResumption', 'statusUpdate', 'legacy-metadata'] as const;
export type SuspensionVia = (typeof SUSPENSION_VIAS)[number];

/** The A2A protocol binding the exchanges behind a receipt used. */
export const RECEIPT_BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;
export type ReceiptBinding = (typeof RECEIPT_BINDINGS)[number];

export interface SuspensionReceipt {
  type: 'SuspensionReceipt';
  seq: number;
  /** Hash of the previous line's canonical form (the header for the first receipt). */
  prev: string;
  taskId: string;
  contextId: string | null;
  initiatedBy: PauseInitiator;
  principal: string | null;
  via: SuspensionVia;
  reason: string | null;
  /** PauseTask `mode`; null for agent-initiated pauses. */
  mode: PauseMode | null;
  conditions: ResumeConditions | null;
  /** hashCanonical(conditions), null when there are none. */
  conditionsHash: string | null;
  /** hashCanonical(resumeToken); tokens are never stored in clear. */
  resumeTokenHash: string | null;
  /** The peer's `pause.pausedAt`. */
  pausedAt: string;
  pausedUntil: string | null;
  /** `at` of the recording entry that completed this receipt. */
  observedAt: string;
  /** Recording seqs this receipt was derived from, ascending. */
  entries: number[];
  span: SpanRef;
  binding: ReceiptBinding;
  /**
   * Members whose text held a lone surrogate, replaced by U+FFFD before sealing because RFC 8785
   * cannot encode it (docs/design.md §6); sorted, empty when nothing was repaired.
   */
  repaired: string[];
  sig: ReceiptSignature;
}

/**
 * Why a suspension ended: the RFC's four resume causes, `canceled` (CancelTask), or `failure` (the
 * task failed while PAUSED for a reason other than a timeout).
 */
export const RESUME_RECEIPT_CAUSES = [
  'explicit_resume',
  'condition_fired',
  'timeout',
  'external_event',
  'canceled',
  'failure',
] as const;
export type ResumeReceiptCause = (typeof RESUME_RECEIPT_CAUSES)[number];
export const RESUME_OUTCOMES = ['resumed', 'canceled', 'failed', 'rejected'] as const;
export type ResumeOutcome = (typeof RESUME_OUTCOMES)[number];

export interface ResumptionReceipt {
  type: 'ResumptionReceipt';
  seq: number;
  prev: string;
  /** Hash of the SuspensionReceipt line this one closes (or, when rejected, attempted). */
  suspension: string;
  taskId: string;
  cause: ResumeReceiptCause;
  outcome: ResumeOutcome;
  /** JSON-RPC error code for `rejected` (e.g. -32011), else null. */
  errorCode: number | null;
  principal: string | null;
  hadResumeInput: boolean;
  /** hashCanonical(input), null when no input was given. */
  inputHash: string | null;
  continueTranscript: boolean | null;
  /** The peer's `resumedAt` (or the closing status timestamp), null when rejected. */
  resumedAt: string | null;
  /**
   * True when the peer never announced this end (no RFC resume metadata was seen) and the cause
   * was inferred from what the recording proves; `entries` then cites the entries that prove it.
   */
  inferred: boolean;
  observedAt: string;
  entries: number[];
  span: SpanRef;
  links: { suspension: SpanRef; pipeline: SpanRef | null };
  binding: ReceiptBinding;
  /** As on {@link SuspensionReceipt}. */
  repaired: string[];
  sig: ReceiptSignature;
}

export type Receipt = SuspensionReceipt | ResumptionReceipt;

/** A receipt as the observer derives it: no chain position, no signature yet. */
export type SuspensionDraft = Omit<SuspensionReceipt, 'seq' | 'prev' | 'sig'>;
export type ResumptionDraft = Omit<ResumptionReceipt, 'seq' | 'prev' | 'sig' | 'suspension'>;

/** The algorithms that may sign a checkpoint. */
export const CHECKPOINT_ALGS = ['ed25519', 'hmac-sha256'] as const;

export interface CheckpointSignature {
  alg: (typeof CHECKPOINT_ALGS)[number];
  kid: string;
  /** base64url */
  value: string;
}

/**
 * The recording a log's closing checkpoint binds it to (docs/design.md §6): its header `id`, how
 * many lines it has (the header included) and the hash of its last line, as the recorder wrote it.
 */
export interface RecordingBinding {
  id: string;
  /** `sha256:` + hex SHA-256 of the last line's bytes, without its newline. */
  lastLineHash: string;
  lines: number;
}

/** Every N receipts and at close: commits to the log so far (docs/design.md §6). */
export interface Checkpoint {
  type: 'Checkpoint';
  /** Number of receipts (not lines) so far. */
  size: number;
  /** Hash of the line before this checkpoint (the chain head); it doubles as this line's `prev`. */
  root: string;
  /**
   * Version 3: true on the closing checkpoint only, the one line a closed log ends with. Absent in
   * a version-2 log, whose checkpoints do not say which one closed it.
   */
  final?: boolean;
  /** Version 3: the closing checkpoint's recording, when the writer knew it; else null. Absent in version 2. */
  recording?: RecordingBinding | null;
  /**
   * Version 4: the C2SP checkpoint note (signed note text) over the RFC 6962 tree of the log's
   * lines before this one, signed with the checkpoint key's Ed25519 secret; null when the log's
   * checkpoints are HMAC-signed (no Ed25519 pair). Absent before version 4.
   */
  note?: string | null;
  sig: CheckpointSignature;
}

export type ReceiptLogLine = ReceiptLogHeader | SuspensionReceipt | ResumptionReceipt | Checkpoint;

/** Free-form JSON a caller may attach; kept out of signed receipts. */
export type ReceiptAnnotations = Record<string, JsonValue>;
