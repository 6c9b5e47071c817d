/**
 * @module receipts/verify-checkpoint
 * What a checkpoint line must be on its own, before the chain and the tree are checked against it
 * (docs/design.md §6): signed by the algorithm and kid the header pins, with a key that can check
 * it, and of its version's shape (version 2 has no `final` nor `recording`; only the closing
 * checkpoint binds a recording, the header's).
 */
import type { Keyring } from './keys.js';
import type { ExaminedLine, LineFacts } from './examine-line.js';
import type { ReceiptLogHeader } from './types.js';
import type { VerifyFailure, VerifyFailureReason } from './verify-failure.js';

/** Why checkpoint `facts` at line `n` fails on its own, or null when it does not. */
export function checkpointShapeFailure(
  facts: Extract<LineFacts, { type: 'Checkpoint' }>,
  signature: ExaminedLine['signature'],
  n: number,
  header: ReceiptLogHeader,
  keyring: Keyring,
): VerifyFailure | null {
  const fail = (reason: VerifyFailureReason, message: string): VerifyFailure => ({ line: n, reason, message });
  const { alg, kid } = facts;
  if (alg !== header.checkpoint.alg || kid !== header.checkpoint.kid) {
    return fail(
      'bad_signature',
      `line ${n}: checkpoint signed with ${alg} by ${kid}, ` +
        `but the header pins ${header.checkpoint.alg} by ${header.checkpoint.kid}`,
    );
  }
  if (signature === 'unknown_kid')
    return fail(
      'unknown_kid',
      keyring.get(kid)
        ? `line ${n}: checkpoint is ${alg}-signed by ${kid}, and the key given for it holds no ` +
            'Ed25519 public key: it cannot be checked'
        : `line ${n}: checkpoint signed by kid ${kid}, and no key for it was given`,
    );
  // A checkpoint the given keys cannot check vouches for nothing: it is an error, never a pass.
  if (signature === 'unchecked')
    return fail(
      'unknown_kid',
      `line ${n}: checkpoint is ${alg}-signed by ${kid}, and only its public key was given: it cannot be checked`,
    );
  if (signature === 'bad_signature')
    return fail('bad_signature', `line ${n}: the checkpoint signature does not match its content`);
  // Version 3 checkpoints say whether they close the log; version 2 ones cannot.
  if ((facts.final === null) !== (header.version === 2))
    return fail(
      'malformed_line',
      header.version === 2
        ? `line ${n}: a checkpoint with final and recording members in a version-2 log`
        : `line ${n}: a checkpoint without final and recording members in a version-${header.version} log`,
    );
  if (facts.final === false && facts.recording !== null)
    return fail('malformed_line', `line ${n}: an intermediate checkpoint binds a recording`);
  if (facts.recording !== null && facts.recording.id !== header.recording)
    return fail(
      'recording_mismatch',
      `line ${n}: the closing checkpoint binds recording ${facts.recording.id}, but the header ` +
        `names ${header.recording ?? 'none'}`,
    );
  return null;
}
