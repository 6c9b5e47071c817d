/**
 * @module receipts/signing
 * Signs and checks receipt and checkpoint lines (docs/design.md §6). Receipts: HMAC-SHA256 over
 * `PAE(RECEIPT_PAYLOAD_TYPE, JCS(receipt without sig))`. Checkpoints: Ed25519 over
 * `PAE(CHECKPOINT_PAYLOAD_TYPE, JCS(checkpoint without sig))` when the key has a pair, else HMAC.
 * MACs are compared with `timingSafeEqual`.
 */
import { timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../canonical/canonical-json.js';
import { type Keyring, type ReceiptKey, decodeBase64url } from './keys.js';
import { pae, paeHeader } from './pae.js';
import {
  CHECKPOINT_PAYLOAD_TYPE,
  type Checkpoint,
  type CheckpointSignature,
  RECEIPT_PAYLOAD_TYPE,
  type Receipt,
  type ReceiptSignature,
} from './types.js';

/** A line without its signature: what the signature covers. */
export type Unsigned<T extends { sig: unknown }> = Omit<T, 'sig'>;

/**
 * Canonical JSON of a line given the canonical JSON of its body (the line without `sig`): the
 * `sig` member is spliced in at its RFC 8785 §3.2.3 position. Equal to
 * `canonicalJson({...body, sig})`, without serializing the body twice.
 */
export function canonicalWithSig(bodyText: string, body: object, sig: ReceiptSignature | CheckpointSignature): string {
  const member = `"sig":${canonicalJson(sig)}`;
  const record = body as Record<string, unknown>;
  const after = Object.keys(record)
    .filter((k) => k > 'sig')
    .sort();
  if (after.length === 0) return `${bodyText.slice(0, -1)}${bodyText === '{}' ? '' : ','}${member}}`;
  const suffix = after.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',');
  const cut = bodyText.length - 1 - suffix.length;
  return `${bodyText.slice(0, cut)}${member},${suffix}}`;
}

/** The bytes a receipt's HMAC covers. */
export function receiptSigningInput(body: Unsigned<Receipt>, bodyText = canonicalJson(body)): Buffer {
  return pae(RECEIPT_PAYLOAD_TYPE, bodyText);
}

/** The bytes a checkpoint's signature covers. */
export function checkpointSigningInput(body: Unsigned<Checkpoint>, bodyText = canonicalJson(body)): Buffer {
  return pae(CHECKPOINT_PAYLOAD_TYPE, bodyText);
}

/** HMAC-SHA256 signature of a receipt body under `key` (`bodyText`: its canonical JSON, if known). */
export function signReceipt(
  body: Unsigned<Receipt>,
  key: ReceiptKey,
  bodyText = canonicalJson(body),
): ReceiptSignature {
  return { alg: 'hmac-sha256', kid: key.kid, value: receiptMac(key, bodyText) };
}

/**
 * base64url of the HMAC of `receiptSigningInput` for a body's canonical text, fed to the MAC in
 * parts; the body may come in pieces (a line's text around its `sig` member), never joined.
 */
export function receiptMac(key: ReceiptKey, bodyText: string | readonly string[]): string {
  const pieces = typeof bodyText === 'string' ? [bodyText] : bodyText;
  let bytes = 0;
  for (const piece of pieces) bytes += Buffer.byteLength(piece, 'utf8');
  return key.macOfTexts([paeHeader(RECEIPT_PAYLOAD_TYPE, bytes), ...pieces]);
}

/** Ed25519 when `key` holds a pair, else HMAC-SHA256. */
export function signCheckpoint(body: Unsigned<Checkpoint>, key: ReceiptKey, bodyText?: string): CheckpointSignature {
  const input = checkpointSigningInput(body, bodyText);
  if (key.hasEd25519Secret)
    return { alg: 'ed25519', kid: key.kid, value: Buffer.from(key.signEd25519(input)).toString('base64url') };
  return { alg: 'hmac-sha256', kid: key.kid, value: key.mac(input).toString('base64url') };
}

/**
 * - `ok`: the signature is valid;
 * - `unknown_kid`: no key with that kid;
 * - `unchecked`: the kid is known but only by its public half, which cannot check an HMAC;
 * - `bad_signature`: the signature does not match the line.
 */
export type SignatureCheck = 'ok' | 'unknown_kid' | 'unchecked' | 'bad_signature';

/** Whether `value` is `expected` (a MAC, or its base64url text), compared in constant time. */
function macEquals(expected: Buffer | string, value: string): boolean {
  const given = Buffer.from(value, 'utf8');
  const want = Buffer.from(typeof expected === 'string' ? expected : expected.toString('base64url'), 'utf8');
  return given.length === want.length && timingSafeEqual(given, want);
}

/** Checks a receipt's HMAC against the keyring. */
export function checkReceiptSignature(
  body: Unsigned<Receipt>,
  sig: ReceiptSignature,
  keyring: Keyring,
  bodyText?: string | readonly string[],
): SignatureCheck {
  const key = keyring.get(sig.kid);
  if (!key) return 'unknown_kid';
  if (!key.hasHmac) return 'unchecked';
  return macEquals(receiptMac(key, bodyText ?? canonicalJson(body)), sig.value) ? 'ok' : 'bad_signature';
}

/** Checks a checkpoint's Ed25519 signature (public key suffices) or HMAC. */
export function checkCheckpointSignature(
  body: Unsigned<Checkpoint>,
  sig: CheckpointSignature,
  keyring: Keyring,
  bodyText?: string,
): SignatureCheck {
  const key = keyring.get(sig.kid);
  if (!key) return 'unknown_kid';
  const input = checkpointSigningInput(body, bodyText);
  switch (sig.alg) {
    case 'ed25519': {
      if (!key.hasEd25519Public) return 'unknown_kid';
      const signature = decodeBase64url(sig.value);
      return signature && key.verifyEd25519(input, signature) ? 'ok' : 'bad_signature';
    }
    case 'hmac-sha256':
      if (!key.hasHmac) return 'unchecked';
      return macEquals(key.mac(input), sig.value) ? 'ok' : 'bad_signature';
    default: {
      const never: never = sig.alg;
      throw new Error(`unhandled signature algorithm ${String(never)}`);
    }
  }
}
