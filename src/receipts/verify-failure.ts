/**
 * @module receipts/verify-failure
 * Why verification of a receipt log stopped, and at which line (docs/design.md §6): the verifier
 * and the line examiner it runs, here or in worker threads, both say it.
 */
import type { Keyring } from './keys.js';
import { checkCheckpointSignature } from './signing.js';
import type { Checkpoint } from './types.js';

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
  /**
   * The log's stall record (receipts/stall-record) says its writer could not write lines the log
   * lacks: receipts of moves the peer made (docs/design.md §5, "A full disk").
   */
  'unreceipted',
] as const;
export type VerifyFailureReason = (typeof VERIFY_FAILURE_REASONS)[number];

/** The first bad line: `line` is 1-based (0 = the outside checkpoint itself). */
export interface VerifyFailure {
  line: number;
  reason: VerifyFailureReason;
  message: string;
}

/** Why a checkpoint kept outside the log (`--checkpoint`) cannot vouch for it, or null when its signature checks. */
export function anchorSignatureFailure(anchor: Checkpoint, keyring: Keyring): VerifyFailure | null {
  const { sig, ...body } = anchor;
  const check = checkCheckpointSignature(body, sig, keyring);
  if (check === 'ok') return null;
  return {
    line: 0,
    reason: check === 'unknown_kid' ? 'unknown_kid' : 'bad_signature',
    message:
      check === 'unchecked'
        ? `the outside checkpoint is HMAC-signed by ${sig.kid}, and no HMAC key for it was given`
        : check === 'unknown_kid'
          ? keyring.get(sig.kid)
            ? `the outside checkpoint is ${sig.alg}-signed by ${sig.kid}, and the key given for it holds no ` +
              'Ed25519 public key'
            : `the outside checkpoint is signed by kid ${sig.kid}, which no given key has`
          : 'the outside checkpoint has a bad signature',
  };
}
