/**
 * @module tlog/cosignature
 * C2SP tlog-cosignature v1 with Ed25519 (docs/design.md §6, "Witnesses"): a witness's signature
 * line on a checkpoint, `— <witness name> base64(key ID ‖ u64 timestamp ‖ Ed25519 signature)`,
 * key ID `SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public key)[:4]`, signed message
 * `cosignature/v1\ntime <timestamp>\n` followed by the checkpoint's note text.
 */
import { type NoteSignature, type NoteVerifier, ed25519Verify, parseVerifierKey } from './note.js';

/** The signature type byte of an Ed25519 cosignature key (its key ID and verifier key). */
export const COSIGNATURE_TYPE = 0x04;
const TIMESTAMP_BYTES = 8;
const ED25519_SIGNATURE_BYTES = 64;

/** Reads a witness's verifier key (`name+hash+base64(0x04 ‖ public key)`). */
export function parseCosignerKey(text: string): NoteVerifier {
  return parseVerifierKey(text, COSIGNATURE_TYPE);
}

/** The bytes a cosignature signs: the header line, the time line, then the checkpoint's text. */
export function cosignedMessage(noteText: string, timestamp: bigint): Buffer {
  return Buffer.from(`cosignature/v1\ntime ${timestamp}\n${noteText}`, 'utf8');
}

/** A cosignature that verified: the witness's name and when it signed (POSIX seconds). */
export interface Cosignature {
  witness: string;
  timestamp: number;
  /** The signature line as written, `— name base64…` without its newline. */
  line: string;
}

/** What the signature lines of a note show of the given witnesses. */
export interface CosignatureCheck {
  valid: Cosignature[];
  /** Witnesses given whose line on this note does not verify. */
  invalid: string[];
}

/**
 * Checks the signature lines of a note (its `text` and parsed lines) against the witnesses given:
 * a line whose name and key ID match a witness must verify as a cosignature/v1 of `text`; lines
 * of other keys (the log's own signature among them) are ignored.
 */
export function checkCosignatures(
  text: string,
  signatures: readonly NoteSignature[],
  witnesses: readonly NoteVerifier[],
): CosignatureCheck {
  const valid: Cosignature[] = [];
  const invalid: string[] = [];
  for (const sig of signatures) {
    const witness = witnesses.find((w) => w.name === sig.name && w.id === sig.id);
    if (!witness) continue;
    const ok = sig.signature.length === TIMESTAMP_BYTES + ED25519_SIGNATURE_BYTES;
    const timestamp = ok ? sig.signature.readBigUInt64BE(0) : 0n;
    const verified =
      ok &&
      timestamp <= BigInt(Number.MAX_SAFE_INTEGER) &&
      ed25519Verify(witness.publicKey, cosignedMessage(text, timestamp), sig.signature.subarray(TIMESTAMP_BYTES));
    if (!verified) {
      if (!invalid.includes(witness.name)) invalid.push(witness.name);
      continue;
    }
    if (valid.some((c) => c.witness === witness.name)) continue;
    const blob = Buffer.alloc(4 + sig.signature.length);
    blob.writeUInt32BE(sig.id, 0);
    sig.signature.copy(blob, 4);
    valid.push({
      witness: witness.name,
      timestamp: Number(timestamp),
      line: `\u2014 ${sig.name} ${blob.toString('base64')}`,
    });
  }
  return { valid, invalid };
}
