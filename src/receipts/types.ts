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
 * adds the header's `series` link to the log it continues (docs/design.md §6, "Series"), the
 * interruption and continuation receipts (docs/design.md §6), and lets a ResumptionReceipt name a
 * suspension outside its log (`outside`, docs/design.md §17), and receipts of `binding` GRPC (§16).
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
  /**
   * Version 5: the link to the log this one continues (a recorder restarted, or a rotation), null
   * for a log that continues none (the first of a series, or a log on its own). Absent before 5.
   */
  series?: SeriesLink | null;
}

/**
 * The facts of the previous log that a continuing log's header commits to (docs/design.md §6,
 * "Series"): which log it was (its header's hash and recording), where it ended (its last good line,
 * how many lines and receipts, whether its closing checkpoint was there), its last checkpoint, and
 * the suspensions still open at its end, so that a resumption in this log may name one of them.
 */
export interface SeriesPrevious {
  recording: string | null;
  /** Hash of the previous log's header line: which log it was. */
  header: string;
  /** Hash of its last good line (a torn tail left out). */
  head: string;
  /** Its good lines, header included. */
  lines: number;
  receipts: number;
  /** Its last line was its closing checkpoint. */
  closed: boolean;
  /** Its last checkpoint (size, root, note), null when it had none. */
  checkpoint: { size: number; root: string; note: string | null } | null;
  /**
   * The SuspensionReceipts open at its end, each exactly as sealed in the log that holds it (this
   * one's predecessor or one before it, which carried it on): in the order they were sealed.
   */
  open: SuspensionReceipt[];
  /**
   * The InterruptionReceipts open at its end (no continuation yet), as `open` holds suspensions;
   * absent when there are none (and in links written before it was added: read as none).
   */
  interruptions?: InterruptionReceipt[];
}

/** A version-5 header's link to the log it continues. */
export interface SeriesLink {
  /** The series: the name of its first log in checkpoint-note origins (docs/design.md §6). */
  id: string;
  /** This log's place in the series: 2 for the first continuation (the first log is 1). */
  position: number;
  previous: SeriesPrevious;
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

/**
 * The pause a resumption ends when its SuspensionReceipt is not in the same log (docs/design.md
 * §17): with the receipt's `taskId`, the pause identity as far as the resume showed it. Either
 * member may be null (a resume announced on a stream shows no token), not both unknown ones
 * guessed: what was not seen is null.
 */
export interface OutsideSuspension {
  /** The peer's `pause.pausedAt`, when the resume showed it. */
  pausedAt: string | null;
  /** hashCanonical(resumeToken), when the resume carried the token. */
  resumeTokenHash: string | null;
}

export interface ResumptionReceipt {
  type: 'ResumptionReceipt';
  seq: number;
  prev: string;
  /**
   * Hash of the SuspensionReceipt line this one closes (or, when rejected, attempted); null (from
   * version 5) when that suspension lies outside this log, which `outside` then names.
   */
  suspension: string | null;
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
  /**
   * Version 5: the pause this resumption ends when it began outside this log, else null. Absent
   * before version 5.
   */
  outside?: OutsideSuspension | null;
  sig: ReceiptSignature;
}

/** The A2A states that interrupt a task (docs/design.md §14.9): the values of an InterruptionReceipt's `state`. */
export const INTERRUPTED_STATES = ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'] as const;
export type InterruptedState = (typeof INTERRUPTED_STATES)[number];

/**
 * Version 5: the peer showed a task INPUT_REQUIRED or AUTH_REQUIRED (docs/design.md §6, §14.9):
 * an interrupted state of A2A v1.0, kept apart from pauses.
 */
export interface InterruptionReceipt {
  type: 'InterruptionReceipt';
  seq: number;
  prev: string;
  taskId: string;
  contextId: string | null;
  state: InterruptedState;
  /** hashCanonical(parts) of the agent's prompt (`status.message`), null when it sent none. */
  promptHash: string | null;
  /** The peer's `status.timestamp`, when it gave one. */
  interruptedAt: string | null;
  observedAt: string;
  entries: number[];
  span: SpanRef;
  binding: ReceiptBinding;
  repaired: string[];
  sig: ReceiptSignature;
}

/**
 * How an interruption ended: a client message sent with the task's id (`message`), the agent
 * moving on out of band after credentials arrived (`out_of_band`, AUTH_REQUIRED only), or the task
 * ending (`canceled`, `failed`).
 */
export const CONTINUATION_CAUSES = ['message', 'out_of_band', 'canceled', 'failed'] as const;
export type ContinuationCause = (typeof CONTINUATION_CAUSES)[number];

/** Version 5: how an interruption ended, and who continued it with what (docs/design.md §6, §14.9). */
export interface ContinuationReceipt {
  type: 'ContinuationReceipt';
  seq: number;
  prev: string;
  /** Hash of the InterruptionReceipt line this one closes. */
  interruption: string;
  taskId: string;
  cause: ContinuationCause;
  /** Who continued: the principal of the message, of the control call or of the CancelTask. */
  principal: string | null;
  /** hashCanonical(parts) of the continuing message, null when no message continued it. */
  inputHash: string | null;
  observedAt: string;
  entries: number[];
  span: SpanRef;
  /** The Interruption span this one follows. */
  interruptionSpan: SpanRef;
  binding: ReceiptBinding;
  repaired: string[];
  sig: ReceiptSignature;
}

export type Receipt = SuspensionReceipt | ResumptionReceipt | InterruptionReceipt | ContinuationReceipt;

/** A receipt as the observer derives it: no chain position, no signature yet. */
export type SuspensionDraft = Omit<SuspensionReceipt, 'seq' | 'prev' | 'sig'>;
export type ResumptionDraft = Omit<ResumptionReceipt, 'seq' | 'prev' | 'sig' | 'suspension' | 'outside'>;
/** What a resumption is sealed against: its suspension's receipt hash, or the pause outside the log. */
export type SuspensionReference = string | OutsideSuspension;
export type InterruptionDraft = Omit<InterruptionReceipt, 'seq' | 'prev' | 'sig'>;
export type ContinuationDraft = Omit<ContinuationReceipt, 'seq' | 'prev' | 'sig' | 'interruption'>;

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

export type ReceiptLogLine = ReceiptLogHeader | Receipt | Checkpoint;

/** The first format version whose logs hold interruption and continuation receipts. */
export const INTERRUPTIONS_SINCE = 5;

/** Free-form JSON a caller may attach; kept out of signed receipts. */
export type ReceiptAnnotations = Record<string, JsonValue>;
