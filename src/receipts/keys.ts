/**
 * @module receipts/keys
 * Receipt keys and keyrings: an HMAC-SHA256 secret that signs receipts and an optional Ed25519
 * pair that signs checkpoints (docs/design.md §6), identified by a `kid`. Key material is held in private
 * fields and redacted from `JSON.stringify` and `util.inspect`, so it cannot leak into logs or
 * errors by accident. Key files are JSON; parsing names the bad field, never its value.
 *
 * Ed25519 (RFC 8032) key pairs are kept in the 64-byte secret key form NaCl made common (the
 * 32-byte seed, then the public key); deriving the public key, signing and verifying run on
 * node:crypto's native Ed25519, which gives the same keys and deterministic signatures as
 * tweetnacl's `keyPair.fromSeed` and `sign.detached` (tests cross-check both ways) in a fraction
 * of the time (a key file's pair is checked in about 2 ms instead of 20).
 *
 * {@link generateReceiptKey} is the one place in the receipt layer that uses randomness: a key
 * must be unpredictable, so it draws from `node:crypto` `randomBytes` unless a test injects a
 * source. Nothing else here (or in the chain) is random: logs replay byte for byte.
 */
import {
  type KeyObject,
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';
import { oneShotHash } from '../digest.js';
import { A2aReplayError } from '../errors.js';

export const KEY_FILE_TYPE = 'a2a-replay.key';
export const PUBLIC_KEY_FILE_TYPE = 'a2a-replay.public-key';
export const KEY_FILE_VERSION = 1;
/** Bytes of a freshly generated HMAC secret (the SHA-256 block-size guidance of RFC 2104 §3). */
export const HMAC_SECRET_BYTES = 32;

/** `a2a-replay keygen --out FILE`: the secret half. */
export interface KeyFile {
  type: typeof KEY_FILE_TYPE;
  version: typeof KEY_FILE_VERSION;
  kid: string;
  /** base64url of the HMAC-SHA256 secret. */
  hmac: string;
  /** base64url; `secretKey` is NaCl's 64-byte form (the seed, then the public key). */
  ed25519: { publicKey: string; secretKey: string } | null;
}

/** `a2a-replay keygen --public FILE`: what an auditor needs to verify checkpoints. */
export interface PublicKeyFile {
  type: typeof PUBLIC_KEY_FILE_TYPE;
  version: typeof KEY_FILE_VERSION;
  kid: string;
  ed25519: { publicKey: string };
}

/** DER prefixes of RFC 8410 Ed25519 keys: PKCS#8 around a 32-byte seed, SPKI around a public key. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** Ed25519 sizes in bytes (RFC 8032); the secret key is the seed followed by the public key. */
const ED25519_SEED_BYTES = 32;
const ED25519_PUBLIC_BYTES = 32;
const ED25519_SECRET_BYTES = 64;
const ED25519_SIGNATURE_BYTES = 64;

function ed25519PrivateKey(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** The Ed25519 public key of a 32-byte seed (RFC 8032 §5.1.5). */
function ed25519PublicKey(seed: Uint8Array): Buffer {
  const spki = createPublicKey(ed25519PrivateKey(seed)).export({ format: 'der', type: 'spki' });
  return spki.subarray(SPKI_ED25519_PREFIX.length);
}

const KID = /^[A-Za-z0-9._:-]{1,64}$/;

function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** Decodes base64url only when it is the canonical encoding (Node silently skips stray characters). */
export function decodeBase64url(text: string): Buffer | null {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

function keyError(source: string, problem: string): A2aReplayError {
  return new A2aReplayError('KEY_INVALID', `${source}: ${problem}`);
}

function assertKid(kid: unknown, source: string): string {
  if (typeof kid !== 'string' || !KID.test(kid)) {
    throw keyError(source, 'kid: expected 1 to 64 characters from A-Z a-z 0-9 . _ : -');
  }
  return kid;
}

/** SHA-256's block: the HMAC key is padded (or first hashed) to this length (RFC 2104 §2). */
const HMAC_BLOCK_BYTES = 64;
/** The largest scratch a key keeps, so one long line does not hold memory for the key's life. */
const SCRATCH_MAX_BYTES = 64 * 1024;

/**
 * `scratch` starts with `K ^ ipad` and takes the text after it; `outer` is `K ^ opad` followed
 * by room for the inner digest. They hold key material, so they never leave the key.
 */
interface HmacPads {
  scratch: Buffer;
  outer: Buffer;
}

function hmacPads(secret: Buffer): HmacPads {
  const key = secret.length > HMAC_BLOCK_BYTES ? createHash('sha256').update(secret).digest() : secret;
  const inner = Buffer.alloc(HMAC_BLOCK_BYTES, 0x36);
  const outer = Buffer.alloc(HMAC_BLOCK_BYTES + 32, 0x5c);
  for (let i = 0; i < key.length; i++) {
    inner[i]! ^= key[i]!;
    outer[i]! ^= key[i]!;
  }
  outer.fill(0, HMAC_BLOCK_BYTES);
  const scratch = Buffer.alloc(4096);
  inner.copy(scratch);
  return { scratch, outer };
}

/**
 * One key id's material. Any half may be missing: a public key file gives only the Ed25519
 * public key, so it verifies checkpoints but neither signs nor checks receipts.
 */
export class ReceiptKey {
  readonly kid: string;
  readonly #hmac: Buffer | null;
  /** The HMAC secret as a KeyObject, made once: `createHmac` then skips importing it each time. */
  #hmacKey: KeyObject | null = null;
  /** The secret's padded blocks for {@link macOfTexts}, made once. */
  #pads: HmacPads | null = null;
  readonly #edSecret: Uint8Array | null;
  readonly #edPublic: Uint8Array | null;
  #edSignKey: KeyObject | null = null;
  #edVerifyKey: KeyObject | null = null;

  constructor(
    kid: string,
    material: { hmac?: Uint8Array | null; ed25519?: { publicKey: Uint8Array; secretKey?: Uint8Array | null } | null },
  ) {
    this.kid = assertKid(kid, 'key');
    this.#hmac = material.hmac ? Buffer.from(material.hmac) : null;
    this.#edPublic = material.ed25519 ? Uint8Array.from(material.ed25519.publicKey) : null;
    this.#edSecret = material.ed25519?.secretKey ? Uint8Array.from(material.ed25519.secretKey) : null;
    if (this.#edPublic && this.#edPublic.length !== ED25519_PUBLIC_BYTES)
      throw keyError(kid, 'ed25519.publicKey: expected 32 bytes');
    if (this.#edSecret && this.#edSecret.length !== ED25519_SECRET_BYTES)
      throw keyError(kid, 'ed25519.secretKey: expected 64 bytes');
  }

  get hasHmac(): boolean {
    return this.#hmac !== null;
  }

  get hasEd25519Public(): boolean {
    return this.#edPublic !== null;
  }

  get hasEd25519Secret(): boolean {
    return this.#edSecret !== null;
  }

  /** HMAC-SHA256 of `data`; throws KEY_INVALID when this kid has no secret. */
  mac(data: Uint8Array): Buffer {
    return this.macOf([data]);
  }

  /** HMAC-SHA256 of the concatenation of `parts` (strings as UTF-8), without concatenating them. */
  macOf(parts: readonly (string | Uint8Array)[]): Buffer {
    const hmac = createHmac('sha256', this.#secretKey());
    for (const part of parts) hmac.update(part);
    return hmac.digest();
  }

  /**
   * `macOf(texts).toString('base64url')`. With `crypto.hash` (Node 20.12 and later) it is computed
   * as RFC 2104 defines it, `H(K ^ opad || H(K ^ ipad || text))`, by two one-shot digests: for a
   * receipt line that costs about 60% of a `createHmac` object (bench/README.md); the MAC is
   * the same (a test compares the two on random keys and texts).
   */
  macOfTexts(texts: readonly string[]): string {
    if (!oneShotHash) return this.macOf(texts).toString('base64url');
    const pads = (this.#pads ??= hmacPads(this.#secretBytes()));
    let most = HMAC_BLOCK_BYTES;
    // A UTF-16 code unit takes at most 3 bytes of UTF-8: room enough without measuring each text.
    for (const text of texts) most += 3 * text.length;
    // A text too big for the kept scratch goes to createHmac, whose set-up is nothing beside it.
    if (most > SCRATCH_MAX_BYTES) return this.macOf(texts).toString('base64url');
    if (pads.scratch.length < most) {
      const scratch = Buffer.alloc(Math.min(SCRATCH_MAX_BYTES, Math.max(most, 2 * pads.scratch.length)));
      pads.scratch.copy(scratch, 0, 0, HMAC_BLOCK_BYTES);
      pads.scratch = scratch;
    }
    let end = HMAC_BLOCK_BYTES;
    for (const text of texts) end += pads.scratch.write(text, end, 'utf8');
    pads.outer.write(oneShotHash('sha256', pads.scratch.subarray(0, end), 'hex'), HMAC_BLOCK_BYTES, 'hex');
    return oneShotHash('sha256', pads.outer, 'base64url');
  }

  #secretBytes(): Buffer {
    if (!this.#hmac)
      throw new A2aReplayError('KEY_INVALID', `key ${this.kid} has no HMAC secret (a public key cannot sign receipts)`);
    return this.#hmac;
  }

  #secretKey(): KeyObject {
    return (this.#hmacKey ??= createSecretKey(this.#secretBytes()));
  }

  /** The Ed25519 public key's 32 bytes (public material), or null without a pair. */
  ed25519PublicKey(): Uint8Array | null {
    return this.#edPublic ? Uint8Array.from(this.#edPublic) : null;
  }

  signEd25519(data: Uint8Array): Uint8Array {
    if (!this.#edSecret) throw new A2aReplayError('KEY_INVALID', `key ${this.kid} has no Ed25519 secret key`);
    this.#edSignKey ??= ed25519PrivateKey(this.#edSecret.subarray(0, ED25519_SEED_BYTES));
    return sign(null, data, this.#edSignKey);
  }

  verifyEd25519(data: Uint8Array, signature: Uint8Array): boolean {
    if (!this.#edPublic || signature.length !== ED25519_SIGNATURE_BYTES) return false;
    this.#edVerifyKey ??= createPublicKey({
      key: Buffer.concat([SPKI_ED25519_PREFIX, this.#edPublic]),
      format: 'der',
      type: 'spki',
    });
    return verify(null, data, this.#edVerifyKey, signature);
  }

  /** The auditor's half: kid and Ed25519 public key, or null without a pair. */
  publicKeyFile(): PublicKeyFile | null {
    if (!this.#edPublic) return null;
    return {
      type: PUBLIC_KEY_FILE_TYPE,
      version: KEY_FILE_VERSION,
      kid: this.kid,
      ed25519: { publicKey: b64url(this.#edPublic) },
    };
  }

  /** The full key file (secrets included): only for writing the file itself. */
  keyFile(): KeyFile {
    if (!this.#hmac) throw new A2aReplayError('KEY_INVALID', `key ${this.kid} has no HMAC secret to write`);
    return {
      type: KEY_FILE_TYPE,
      version: KEY_FILE_VERSION,
      kid: this.kid,
      hmac: b64url(this.#hmac),
      ed25519:
        this.#edPublic && this.#edSecret
          ? { publicKey: b64url(this.#edPublic), secretKey: b64url(this.#edSecret) }
          : null,
    };
  }

  /** Combines two halves of one kid (a key file and a public key file). */
  merge(other: ReceiptKey): ReceiptKey {
    if (other.kid !== this.kid) throw keyError(this.kid, `cannot merge with key ${other.kid}`);
    if (
      this.#edPublic &&
      other.#edPublic &&
      Buffer.compare(Buffer.from(this.#edPublic), Buffer.from(other.#edPublic)) !== 0
    ) {
      throw keyError(this.kid, 'two different Ed25519 public keys share this kid');
    }
    const edPublic = this.#edPublic ?? other.#edPublic;
    return new ReceiptKey(this.kid, {
      hmac: this.#hmac ?? other.#hmac,
      ed25519: edPublic ? { publicKey: edPublic, secretKey: this.#edSecret ?? other.#edSecret } : null,
    });
  }

  /** Never the secrets. */
  toJSON(): { kid: string; hmac: boolean; ed25519: 'pair' | 'public' | null } {
    return { kid: this.kid, hmac: this.hasHmac, ed25519: this.#edSecret ? 'pair' : this.#edPublic ? 'public' : null };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `ReceiptKey ${JSON.stringify(this.toJSON())}`;
  }
}

/** Several kids, so logs signed before a rotation still verify (docs/design.md §6). */
export class Keyring {
  readonly #keys = new Map<string, ReceiptKey>();

  constructor(keys: Iterable<ReceiptKey> = []) {
    for (const key of keys) this.add(key);
  }

  add(key: ReceiptKey): void {
    const have = this.#keys.get(key.kid);
    this.#keys.set(key.kid, have ? have.merge(key) : key);
  }

  get(kid: string): ReceiptKey | undefined {
    return this.#keys.get(kid);
  }

  get kids(): string[] {
    return [...this.#keys.keys()];
  }

  get size(): number {
    return this.#keys.size;
  }

  /** True when at least one kid holds an Ed25519 public key (it can check checkpoint notes). */
  get hasEd25519Public(): boolean {
    for (const key of this.#keys.values()) if (key.hasEd25519Public) return true;
    return false;
  }

  /** True when at least one kid can check receipt HMACs. */
  get hasHmac(): boolean {
    for (const key of this.#keys.values()) if (key.hasHmac) return true;
    return false;
  }

  toJSON(): { kids: string[] } {
    return { kids: this.kids };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Keyring ${JSON.stringify(this.toJSON())}`;
  }
}

/** A kid derived from public material: `k-` + 16 hex of SHA-256 of the Ed25519 public key. */
export function kidForPublicKey(publicKey: Uint8Array): string {
  return `k-${createHash('sha256').update(publicKey).digest('hex').slice(0, 16)}`;
}

/** Source of secret bytes; the default is `crypto.randomBytes`. */
export type RandomBytes = (size: number) => Uint8Array;

/** A new key: 32 random HMAC bytes and an Ed25519 pair from a 32-byte random seed. */
export function generateReceiptKey(options: { kid?: string; random?: RandomBytes } = {}): ReceiptKey {
  const random = options.random ?? randomBytes;
  const hmac = random(HMAC_SECRET_BYTES);
  const seed = Buffer.from(random(ED25519_SEED_BYTES));
  const publicKey = ed25519PublicKey(seed);
  const ed25519 = { publicKey, secretKey: Buffer.concat([seed, publicKey]) };
  return new ReceiptKey(options.kid ?? kidForPublicKey(publicKey), { hmac, ed25519 });
}

function field(record: Record<string, unknown>, name: string, source: string): unknown {
  if (!(name in record)) throw keyError(source, `${name}: missing`);
  return record[name];
}

function bytesField(value: unknown, name: string, length: number | null, source: string): Buffer {
  const bytes = typeof value === 'string' ? decodeBase64url(value) : null;
  if (!bytes) throw keyError(source, `${name}: expected base64url text`);
  if (length !== null && bytes.length !== length)
    throw keyError(source, `${name}: expected ${length} bytes, got ${bytes.length}`);
  if (length === null && bytes.length < 16)
    throw keyError(source, `${name}: expected at least 16 bytes, got ${bytes.length}`);
  return bytes;
}

function record(value: unknown, source: string, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw keyError(source, `${what}: expected an object`);
  return value as Record<string, unknown>;
}

/**
 * Reads a key file or a public key file (parsed JSON). `source` names it in errors; errors
 * name the field and the problem, never the value.
 */
export function readKeyFile(value: unknown, source: string): ReceiptKey {
  const r = record(value, source, 'key file');
  const type = r.type;
  if (type !== KEY_FILE_TYPE && type !== PUBLIC_KEY_FILE_TYPE) {
    throw keyError(source, `type: expected "${KEY_FILE_TYPE}" or "${PUBLIC_KEY_FILE_TYPE}"`);
  }
  if (r.version !== KEY_FILE_VERSION) throw keyError(source, `version: expected ${KEY_FILE_VERSION}`);
  const kid = assertKid(field(r, 'kid', source), source);
  if (type === PUBLIC_KEY_FILE_TYPE) {
    const ed = record(field(r, 'ed25519', source), source, 'ed25519');
    const publicKey = bytesField(field(ed, 'publicKey', source), 'ed25519.publicKey', ED25519_PUBLIC_BYTES, source);
    return new ReceiptKey(kid, { ed25519: { publicKey } });
  }
  const hmac = bytesField(field(r, 'hmac', source), 'hmac', null, source);
  const edValue = r.ed25519 ?? null;
  if (edValue === null) return new ReceiptKey(kid, { hmac });
  const ed = record(edValue, source, 'ed25519');
  const publicKey = bytesField(field(ed, 'publicKey', source), 'ed25519.publicKey', ED25519_PUBLIC_BYTES, source);
  const secretKey = bytesField(field(ed, 'secretKey', source), 'ed25519.secretKey', ED25519_SECRET_BYTES, source);
  const derived = ed25519PublicKey(secretKey.subarray(0, ED25519_SEED_BYTES));
  // The secret key's second half must be that public key too, as NaCl's form has it.
  if (!derived.equals(publicKey) || !derived.equals(secretKey.subarray(ED25519_SEED_BYTES)))
    throw keyError(source, 'ed25519: the public key does not belong to the secret key');
  return new ReceiptKey(kid, { hmac, ed25519: { publicKey, secretKey } });
}
