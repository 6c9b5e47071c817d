/**
 * @module receipts/verify-failure
 * Why verification of a receipt log stopped, and at which line (docs/design.md §6): the verifier
 * and the line examiner it runs, here or in worker threads, both say it.
 */

export const VERIFY_FAILURE_REASONS = [
  'malformed_line',
  'torn_tail',
  'bad_signature',
  'unknown_kid',
  'sequence_gap',
  'broken_chain',
  'checkpoint_mismatch',
  'truncated',
  'not_closed',
  'unknown_suspension',
  /** A ContinuationReceipt names no open InterruptionReceipt of its task earlier in the log (version 5). */
  'unknown_interruption',
  'after_close',
  'recording_mismatch',
] as const;
export type VerifyFailureReason = (typeof VERIFY_FAILURE_REASONS)[number];

/** The first bad line: `line` is 1-based (0 = the outside checkpoint itself). */
export interface VerifyFailure {
  line: number;
  reason: VerifyFailureReason;
  message: string;
}
