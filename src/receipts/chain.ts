/**
 * @module receipts/chain
 * The in-memory sealer: turns drafts into signed, hash-chained receipt lines and emits
 * checkpoints (docs/design.md §6). No I/O, no clock, no randomness: the same key, header facts and
 * drafts always give the same bytes, so replay derives receipts exactly as recording did.
 * The log writer and replay both use it.
 */
import { canonicalJson, sha256Prefixed } from '../canonical/canonical-json.js';
import { A2aReplayError } from '../errors.js';
import type { Keyring, ReceiptKey } from './keys.js';
import { type Unsigned, canonicalWithSig, signCheckpoint, signReceipt } from './signing.js';
import {
  type Checkpoint,
  RECEIPT_FORMAT,
  type Receipt,
  RECEIPT_VERSION,
  type ReceiptLogHeader,
  type ReceiptLogLine,
  type ResumptionDraft,
  type ResumptionReceipt,
  type SuspensionDraft,
  type SuspensionReceipt,
} from './types.js';

/** Receipts between two automatic checkpoints unless configured. */
export const DEFAULT_CHECKPOINT_EVERY = 256;

/** One line of a log: the value, its canonical text (no newline) and `sha256Prefixed(text)`. */
export interface SealedLine<T extends ReceiptLogLine = ReceiptLogLine> {
  line: T;
  text: string;
  hash: string;
}

/** A sealed receipt and the checkpoint that followed it, if one was due. */
export interface SealedReceipt<T extends SuspensionReceipt | ResumptionReceipt> {
  receipt: SealedLine<T>;
  checkpoint: SealedLine<Checkpoint> | null;
}

export interface ReceiptChainOptions {
  keyring: Keyring;
  /** Kid that signs; default: the first kid of the keyring that has an HMAC secret. */
  kid?: string;
  /** A checkpoint after every N receipts; 0 = only at close. Default {@link DEFAULT_CHECKPOINT_EVERY}. */
  checkpointEvery?: number;
  /** The recording's header `id`, or null. */
  recording: string | null;
  /** Header `createdAt`: the recording's, for replays that must be byte-identical. */
  createdAt: string;
  /** e.g. `TOOL_NAME`. */
  tool: string;
}

/** Seals a line: canonical text and its hash. */
export function sealLine<T extends ReceiptLogLine>(line: T): SealedLine<T> {
  const text = canonicalJson(line);
  return { line, text, hash: sha256Prefixed(text) };
}

function sealedFrom<T extends ReceiptLogLine>(line: T, text: string): SealedLine<T> {
  return { line, text, hash: sha256Prefixed(text) };
}

function signingKey(keyring: Keyring, kid: string): ReceiptKey {
  const key = keyring.get(kid);
  if (!key) throw new A2aReplayError('KEY_INVALID', `no key with kid ${kid} in the keyring`);
  if (!key.hasHmac) throw new A2aReplayError('KEY_INVALID', `key ${kid} has no HMAC secret: it cannot sign receipts`);
  return key;
}

/**
 * A receipt log in the making. The header lists the kids this chain may sign receipts with: the
 * current one first, then the other keyring kids holding a secret (the ones {@link rotate} may
 * switch to). It also pins the checkpoint signer: the first kid, with Ed25519 when that key has a
 * pair, else HMAC; every checkpoint of the log is signed so, whatever {@link rotate} does.
 */
export class ReceiptChain {
  readonly header: SealedLine<ReceiptLogHeader>;
  readonly #keyring: Keyring;
  readonly #every: number;
  readonly #checkpointKey: ReceiptKey;
  #key: ReceiptKey;
  #head: string;
  #seq = 0;
  #lastWasCheckpoint = false;

  constructor(options: ReceiptChainOptions) {
    const every = options.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY;
    if (!Number.isInteger(every) || every < 0)
      throw new A2aReplayError('INVALID_ARGUMENT', `checkpointEvery: expected an integer >= 0, got ${every}`);
    this.#keyring = options.keyring;
    this.#every = every;
    const kid = options.kid ?? options.keyring.kids.find((k) => options.keyring.get(k)?.hasHmac);
    if (kid === undefined) throw new A2aReplayError('KEY_INVALID', 'no key with an HMAC secret to sign receipts');
    this.#key = signingKey(options.keyring, kid);
    this.#checkpointKey = this.#key;
    const others = options.keyring.kids.filter((k) => k !== kid && options.keyring.get(k)?.hasHmac);
    this.header = sealLine<ReceiptLogHeader>({
      type: 'ReceiptLog',
      format: RECEIPT_FORMAT,
      version: RECEIPT_VERSION,
      recording: options.recording,
      kids: [kid, ...others],
      checkpoint: { alg: this.#key.hasEd25519Secret ? 'ed25519' : 'hmac-sha256', kid },
      createdAt: options.createdAt,
      tool: options.tool,
    });
    this.#head = this.header.hash;
  }

  /** Hash of the last line sealed (the header's at first). */
  get head(): string {
    return this.#head;
  }

  /** Receipts sealed so far. */
  get size(): number {
    return this.#seq;
  }

  /** The kid signing new receipts. */
  get kid(): string {
    return this.#key.kid;
  }

  /** Signs further receipts with another kid of the keyring (one the header declares). */
  rotate(kid: string): void {
    const key = signingKey(this.#keyring, kid);
    if (!this.header.line.kids.includes(kid))
      throw new A2aReplayError('KEY_INVALID', `kid ${kid} is not declared in this log's header`);
    this.#key = key;
  }

  sealSuspension(draft: SuspensionDraft): SealedReceipt<SuspensionReceipt> {
    return this.#append<SuspensionReceipt>({ ...draft, seq: this.#seq + 1, prev: this.#head });
  }

  /** `suspensionHash`: the hash returned when the suspension this resumption closes was sealed. */
  sealResumption(draft: ResumptionDraft, suspensionHash: string): SealedReceipt<ResumptionReceipt> {
    return this.#append<ResumptionReceipt>({
      ...draft,
      suspension: suspensionHash,
      seq: this.#seq + 1,
      prev: this.#head,
    });
  }

  /** A checkpoint over everything so far. */
  checkpoint(): SealedLine<Checkpoint> {
    const body: Unsigned<Checkpoint> = { type: 'Checkpoint', size: this.#seq, root: this.#head };
    const bodyText = canonicalJson(body);
    const sig = signCheckpoint(body, this.#checkpointKey, bodyText);
    const sealed = sealedFrom<Checkpoint>({ ...body, sig }, canonicalWithSig(bodyText, body, sig));
    this.#head = sealed.hash;
    this.#lastWasCheckpoint = true;
    return sealed;
  }

  /** The closing checkpoint, or null when the last line already is one. */
  close(): SealedLine<Checkpoint> | null {
    return this.#lastWasCheckpoint ? null : this.checkpoint();
  }

  #append<T extends SuspensionReceipt | ResumptionReceipt>(body: Unsigned<T>): SealedReceipt<T> {
    const bodyText = canonicalJson(body);
    const sig = signReceipt(body as Unsigned<Receipt>, this.#key, bodyText);
    const receipt = { ...body, sig } as T;
    const sealed = sealedFrom(receipt, canonicalWithSig(bodyText, body, sig));
    this.#seq = receipt.seq;
    this.#head = sealed.hash;
    this.#lastWasCheckpoint = false;
    const checkpoint = this.#every > 0 && this.#seq % this.#every === 0 ? this.checkpoint() : null;
    return { receipt: sealed, checkpoint };
  }
}
