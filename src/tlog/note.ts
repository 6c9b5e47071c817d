/**
 * @module tlog/note
 * C2SP signed notes (signed-note v1) with Ed25519 signatures, and the verifier key strings
 * (`name+hash+base64`) other transparency-log tools take (docs/design.md §6, "Merkle
 * checkpoints"). A note is a text ending in a newline, a blank line, then signature lines
 * `— <key name> base64(4-byte key ID ‖ signature)`.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { A2aReplayError } from '../errors.js';

/** The signature type byte of Ed25519 in C2SP signed-note. */
const ED25519_TYPE = 0x01;
const ED25519_PUBLIC_BYTES = 32;
const ED25519_SIGNATURE_BYTES = 64;
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** Signature lines a note may carry before it is refused (the spec asks for at least 16). */
export const MAX_NOTE_SIGNATURES = 100;
const EM_DASH = '\u2014';

/** A key that checks notes: its name, 4-byte key ID and Ed25519 public key. */
export interface NoteVerifier {
  name: string;
  id: number;
  publicKey: Buffer;
}

/** One signature line of a note. */
export interface NoteSignature {
  name: string;
  id: number;
  /** The signature bytes after the key ID. */
  signature: Buffer;
}

function noteError(problem: string): A2aReplayError {
  return new A2aReplayError('INVALID_ARGUMENT', problem);
}

/** A key name: non-empty, no Unicode space, no `+`. */
export function isKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u.test(name);
}

/**
 * `SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4]`, big-endian: type 0x01 for a note signer's
 * Ed25519 key, 0x04 for a witness's Ed25519 cosignature key (C2SP tlog-cosignature).
 */
export function noteKeyId(name: string, publicKey: Uint8Array, type = ED25519_TYPE): number {
  const digest = createHash('sha256')
    .update(name, 'utf8')
    .update(Buffer.from([0x0a, type]))
    .update(publicKey)
    .digest();
  return digest.readUInt32BE(0);
}

function hex8(id: number): string {
  return id.toString(16).padStart(8, '0');
}

/**
 * The verifier key string `name+<8 hex key ID>+base64(type ‖ public key)`; type 0x01 (a note
 * signer's key) unless another is given.
 */
export function verifierKey(name: string, publicKey: Uint8Array, type = ED25519_TYPE): string {
  if (!isKeyName(name)) throw noteError(`key name ${JSON.stringify(name)}: must be non-empty, with no space or '+'`);
  if (publicKey.length !== ED25519_PUBLIC_BYTES) throw noteError('an Ed25519 public key has 32 bytes');
  const encoded = Buffer.concat([Buffer.from([type]), publicKey]).toString('base64');
  return `${name}+${hex8(noteKeyId(name, publicKey, type))}+${encoded}`;
}

/**
 * Reads a verifier key string of signature type `type` (0x01 unless given), checking its key ID;
 * says what is wrong, never echoing key bytes.
 */
export function parseVerifierKey(text: string, type = ED25519_TYPE): NoteVerifier {
  const trimmed = text.trim();
  // name+hash+key: the name holds no '+', the hash is 8 hex digits; the base64 key may hold '+'.
  const first = trimmed.indexOf('+');
  const second = first < 0 ? -1 : trimmed.indexOf('+', first + 1);
  if (first < 0 || second < 0) throw noteError("a verifier key is 'name+hash+key', three parts joined by '+'");
  const [name, hash, key] = [trimmed.slice(0, first), trimmed.slice(first + 1, second), trimmed.slice(second + 1)];
  if (!isKeyName(name)) throw noteError('verifier key: the name is empty or holds a space');
  if (!/^[0-9a-f]{8}$/.test(hash)) throw noteError('verifier key: the key hash must be 8 lowercase hex digits');
  const bytes = Buffer.from(key, 'base64');
  if (bytes.toString('base64') !== key) throw noteError('verifier key: the key is not canonical base64');
  const typeHex = `0x${type.toString(16).padStart(2, '0')}`;
  if (bytes.length !== 1 + ED25519_PUBLIC_BYTES || bytes[0] !== type)
    throw noteError(`verifier key: not an Ed25519 key of type ${typeHex} (type byte ${typeHex} and 32 bytes expected)`);
  const publicKey = bytes.subarray(1);
  const id = noteKeyId(name, publicKey, type);
  if (hex8(id) !== hash) throw noteError('verifier key: the key hash does not match the name and key');
  return { name, id, publicKey: Buffer.from(publicKey) };
}

/** `— name base64(id ‖ signature)\n` */
export function signatureLine(name: string, id: number, signature: Uint8Array): string {
  const blob = Buffer.alloc(4 + signature.length);
  blob.writeUInt32BE(id, 0);
  Buffer.from(signature).copy(blob, 4);
  return `${EM_DASH} ${name} ${blob.toString('base64')}\n`;
}

/**
 * Signs `text` (which must end in a newline) as a note with an Ed25519 key named `name`;
 * `sign` returns the RFC 8032 signature of the bytes it is given.
 */
export function signNote(
  text: string,
  name: string,
  publicKey: Uint8Array,
  sign: (data: Uint8Array) => Uint8Array,
): string {
  checkText(text);
  if (!isKeyName(name)) throw noteError(`key name ${JSON.stringify(name)}: must be non-empty, with no space or '+'`);
  return `${text}\n${signatureLine(name, noteKeyId(name, publicKey), sign(Buffer.from(text, 'utf8')))}`;
}

function checkText(text: string): void {
  if (!text.endsWith('\n')) throw noteError('a note text ends with a newline');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0009\u000b-\u001f]/.test(text)) throw noteError('a note holds no control character but newline');
}

/** A note split into its text and signature lines, nothing verified yet. */
export interface ParsedNote {
  text: string;
  signatures: NoteSignature[];
}

/** Splits a signed note; throws naming what is malformed. */
export function parseNote(note: string): ParsedNote {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0009\u000b-\u001f]/.test(note))
    throw noteError('malformed note: a control character other than newline');
  if (note.includes('\uFFFD')) throw noteError('malformed note: not valid UTF-8');
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) throw noteError('malformed note: no blank line before the signatures');
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length > MAX_NOTE_SIGNATURES) throw noteError(`malformed note: over ${MAX_NOTE_SIGNATURES} signatures`);
  const signatures = lines.map((line, i) => {
    const m = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
    const blob = m ? Buffer.from(m[2]!, 'base64') : null;
    if (!m || !blob || blob.toString('base64') !== m[2] || blob.length < 5 || !isKeyName(m[1]!))
      throw noteError(`malformed note: signature line ${i + 1} is not '— <name> <base64>'`);
    return { name: m[1]!, id: blob.readUInt32BE(0), signature: blob.subarray(4) };
  });
  return { text, signatures };
}

/** RFC 8032 verification of `signature` over `data` by a 32-byte Ed25519 public key. */
export function ed25519Verify(publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== ED25519_SIGNATURE_BYTES) return false;
  const key = createPublicKey({
    key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]),
    format: 'der',
    type: 'spki',
  });
  return verify(null, data, key, signature);
}

/** What {@link openNote} found: the text, and the names of the known keys whose signatures verified. */
export interface OpenedNote {
  text: string;
  verifiedBy: string[];
  signatures: NoteSignature[];
}

/**
 * Verifies a note against known keys, as signed-note asks: a signature of an unknown key (name
 * and ID) is ignored; one of a known key must verify, or the whole note is refused; at least
 * one known key must have signed.
 */
export function openNote(note: string, verifiers: readonly NoteVerifier[]): OpenedNote {
  const parsed = parseNote(note);
  const data = Buffer.from(parsed.text, 'utf8');
  const verifiedBy: string[] = [];
  for (const sig of parsed.signatures) {
    const key = verifiers.find((v) => v.name === sig.name && v.id === sig.id);
    if (!key) continue;
    if (!ed25519Verify(key.publicKey, data, sig.signature))
      throw noteError(`the note's signature by ${sig.name} does not verify`);
    if (!verifiedBy.includes(sig.name)) verifiedBy.push(sig.name);
  }
  if (verifiedBy.length === 0) throw noteError('the note is signed by no key given');
  return { text: parsed.text, verifiedBy, signatures: parsed.signatures };
}
