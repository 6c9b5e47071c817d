/**
 * @module receipts/chain
 * The in-memory sealer: turns drafts into signed, hash-chained receipt lines and emits
 * checkpoints (docs/design.md §6). No I/O, no clock, no randomness: the same key, header facts and
 * drafts always give the same bytes, so replay derives receipts exactly as recording did.
 * The log writer and replay both use it.
 */
import { KeyOrder, canonicalJson, canonicalMembers, sha256Prefixed } from '../canonical/canonical-json.js';
import { A2aReplayError } from '../errors.js';
import type { Keyring, ReceiptKey } from './keys.js';
import { logHeadText } from './log-head.js';
import { LogTree, logName, logOrigin } from './log-tree.js';
import { type Unsigned, signCheckpoint, signReceipt } from './signing.js';
import {
  type Checkpoint,
  type CheckpointSignature,
  type ContinuationDraft,
  type ContinuationReceipt,
  INTERRUPTIONS_SINCE,
  type InterruptionDraft,
  type InterruptionReceipt,
  RECEIPT_FORMAT,
  type Receipt,
  RECEIPT_VERSION,
  type ReceiptLogHeader,
  type ReceiptLogLine,
  type ReceiptLogVersion,
  type SuspensionReference,
  type ReceiptSignature,
  type RecordingBinding,
  type ResumptionDraft,
  type ResumptionReceipt,
  type SeriesLink,
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
export interface SealedReceipt<T extends Receipt> {
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
  /**
   * The format version to write (default {@link RECEIPT_VERSION}); 2 only to derive a log as a
   * version-2 golden was written (its checkpoints have no `final` or `recording`).
   */
  version?: ReceiptLogVersion;
  /**
   * Version 5: the log this one continues (docs/design.md §6, "Series"); default null, a log that
   * continues none.
   */
  series?: SeriesLink | null;
}

/** Seals a line: canonical text and its hash. */
export function sealLine<T extends ReceiptLogLine>(line: T): SealedLine<T> {
  const text = canonicalJson(line);
  return { line, text, hash: sha256Prefixed(text) };
}

/**
 * Canonical text of a body and of the body with its `sig` member, from one serialization: the
 * body's members in canonical order, joined without and then with `"sig":…` at its place.
 */
function signedTexts(
  body: object,
  order: KeyOrder,
  sign: (bodyText: string) => ReceiptSignature | CheckpointSignature,
): { sig: ReceiptSignature | CheckpointSignature; text: string } {
  const { keys, members } = canonicalMembers(body, order);
  let at = 0;
  while (at < keys.length && keys[at]! < 'sig') at++;
  const before = members.slice(0, at).join(',');
  const after = members.slice(at).join(',');
  const sig = sign(`{${before}${before && after ? ',' : ''}${after}}`);
  return { sig, text: `{${before}${before ? ',' : ''}"sig":${sigText(sig)}${after ? ',' : ''}${after}}` };
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;
let lastSigPrefix = { alg: '', kid: '', text: '' };

/**
 * `canonicalJson(sig)`: `{"alg":…,"kid":…,"value":"…"}`, the prefix up to the value remembered for
 * the last signer. The value is base64url, which JSON writes as it is.
 */
function sigText(sig: ReceiptSignature | CheckpointSignature): string {
  if (lastSigPrefix.alg !== sig.alg || lastSigPrefix.kid !== sig.kid) {
    const text = canonicalJson({ alg: sig.alg, kid: sig.kid, value: '' });
    lastSigPrefix = { alg: sig.alg, kid: sig.kid, text: text.slice(0, -2) };
  }
  return BASE64URL.test(sig.value) ? `${lastSigPrefix.text}${sig.value}"}` : canonicalJson(sig);
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
  /** The closing checkpoint was sealed: the log ends there. */
  #closed = false;
  /** Version 4 with an Ed25519 checkpoint key: the Merkle tree of the lines so far, and the log's origin. */
  readonly #tree: LogTree | null;
  readonly #origin: string;
  /** Key orders of the three signed line types: constant per log, so sorted once (design §6). */
  readonly #orders = {
    SuspensionReceipt: new KeyOrder(),
    ResumptionReceipt: new KeyOrder(),
    InterruptionReceipt: new KeyOrder(),
    ContinuationReceipt: new KeyOrder(),
    Checkpoint: new KeyOrder(),
  };

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
    const version = options.version ?? RECEIPT_VERSION;
    const series = options.series ?? null;
    if (series !== null && version < 5)
      throw new A2aReplayError('INVALID_ARGUMENT', `a version-${version} log cannot continue a series (version 5 can)`);
    const header: ReceiptLogHeader = {
      type: 'ReceiptLog',
      format: RECEIPT_FORMAT,
      version,
      recording: options.recording,
      kids: [kid, ...others],
      checkpoint: { alg: this.#key.hasEd25519Secret ? 'ed25519' : 'hmac-sha256', kid },
      createdAt: options.createdAt,
      tool: options.tool,
    };
    if (version >= 5) header.series = series;
    this.header = sealLine(header);
    this.#head = this.header.hash;
    this.#origin = logOrigin(kid, options.recording, this.header.hash, series);
    this.#tree = this.header.line.version >= 4 && this.#key.hasEd25519Secret ? new LogTree() : null;
    this.#tree?.addLine(this.header.text);
  }

  /** The log's origin in its checkpoint notes (docs/design.md §6). */
  get origin(): string {
    return this.#origin;
  }

  /**
   * The signed `LogHead` line naming this log (its series, position and header) for one of its
   * checkpoints: what the witness file keeps before that checkpoint (docs/design.md §6).
   */
  logHead(checkpoint: SealedLine<Checkpoint>): string {
    const { line, hash } = this.header;
    const fields = {
      series: line.series?.id ?? logName(line.recording, hash),
      position: line.series?.position ?? 1,
      header: hash,
    };
    return logHeadText(fields, checkpoint.text, this.#checkpointKey);
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
    // Object.assign, not `{ ...draft, seq, prev }`: V8 copies a spread followed by more members
    // member by member on its slow path, several times the cost of the whole signature.
    return this.#append<SuspensionReceipt>(Object.assign({}, draft, { seq: this.#seq + 1, prev: this.#head }));
  }

  /**
   * `suspension`: the hash returned when the suspension this resumption closes was sealed, or,
   * from version 5, the pause it ends when that lies outside this log (docs/design.md §17).
   */
  sealResumption(draft: ResumptionDraft, suspension: SuspensionReference): SealedReceipt<ResumptionReceipt> {
    const inLog = typeof suspension === 'string';
    if (this.header.line.version < 5) {
      if (!inLog)
        throw new A2aReplayError(
          'INVALID_ARGUMENT',
          `a version-${this.header.line.version} log cannot name a suspension outside it (task ${draft.taskId})`,
        );
      return this.#append<ResumptionReceipt>(
        Object.assign({}, draft, { suspension, seq: this.#seq + 1, prev: this.#head }),
      );
    }
    const outside = inLog ? null : { pausedAt: suspension.pausedAt, resumeTokenHash: suspension.resumeTokenHash };
    return this.#append<ResumptionReceipt>(
      Object.assign({}, draft, {
        suspension: inLog ? suspension : null,
        outside,
        seq: this.#seq + 1,
        prev: this.#head,
      }),
    );
  }

  /** Whether this log's version holds interruption and continuation receipts (5 and later, docs/design.md §6). */
  get takesInterruptions(): boolean {
    return this.header.line.version >= INTERRUPTIONS_SINCE;
  }

  sealInterruption(draft: InterruptionDraft): SealedReceipt<InterruptionReceipt> {
    this.#assertInterruptions();
    return this.#append<InterruptionReceipt>(Object.assign({}, draft, { seq: this.#seq + 1, prev: this.#head }));
  }

  /** `interruptionHash`: the hash returned when the interruption this continuation closes was sealed. */
  sealContinuation(draft: ContinuationDraft, interruptionHash: string): SealedReceipt<ContinuationReceipt> {
    this.#assertInterruptions();
    return this.#append<ContinuationReceipt>(
      Object.assign({}, draft, { interruption: interruptionHash, seq: this.#seq + 1, prev: this.#head }),
    );
  }

  #assertInterruptions(): void {
    if (!this.takesInterruptions)
      throw new A2aReplayError(
        'INVALID_ARGUMENT',
        `a version-${this.header.line.version} receipt log holds no interruption receipts ` +
          `(they begin with version ${INTERRUPTIONS_SINCE})`,
      );
  }

  /**
   * A checkpoint over everything so far: an intermediate one (`final: false`), or with `final`
   * the closing one, binding the log to `recording` when given (docs/design.md §6).
   */
  checkpoint(final = false, recording: RecordingBinding | null = null): SealedLine<Checkpoint> {
    const version = this.header.line.version;
    const body: Unsigned<Checkpoint> =
      version === 2
        ? { type: 'Checkpoint', size: this.#seq, root: this.#head }
        : version === 3
          ? { type: 'Checkpoint', size: this.#seq, root: this.#head, final, recording }
          : {
              type: 'Checkpoint',
              size: this.#seq,
              root: this.#head,
              final,
              recording,
              note: this.#tree ? this.#tree.note(this.#origin, this.#checkpointKey) : null,
            };
    const { sig, text } = signedTexts(body, this.#orders.Checkpoint, (bodyText) =>
      signCheckpoint(body, this.#checkpointKey, bodyText),
    );
    const sealed: SealedLine<Checkpoint> = { line: { ...body, sig }, text, hash: sha256Prefixed(text) };
    this.#tree?.addLine(text);
    this.#head = sealed.hash;
    this.#lastWasCheckpoint = true;
    return sealed;
  }

  /**
   * The closing checkpoint, marked final and binding the log to `recording` (its id, line count
   * and last line's hash) when the caller knows it. It follows an intermediate checkpoint too:
   * only a final one closes a log. A version-2 log has no final mark: there it is null when the
   * last line already is a checkpoint. Null once closed: a log has one closing checkpoint.
   */
  close(recording: RecordingBinding | null = null): SealedLine<Checkpoint> | null {
    if (this.#closed) return null;
    this.#closed = true;
    if (this.header.line.version === 2) return this.#lastWasCheckpoint ? null : this.checkpoint();
    if (recording !== null && recording.id !== this.header.line.recording)
      throw new A2aReplayError(
        'INVALID_ARGUMENT',
        `the closing checkpoint names recording ${recording.id}, but the log's header names ` +
          `${this.header.line.recording ?? 'none'}`,
      );
    return this.checkpoint(true, recording);
  }

  #append<T extends Receipt>(body: Unsigned<T>): SealedReceipt<T> {
    if (this.#closed)
      throw new A2aReplayError(
        'INVALID_ARGUMENT',
        'the receipt chain is closed: nothing follows its closing checkpoint',
      );
    const key = this.#key;
    const { sig, text } = signedTexts(body, this.#orders[body.type], (bodyText) =>
      signReceipt(body as Unsigned<Receipt>, key, bodyText),
    );
    // The body becomes the receipt: `sig` is added last, as a spread would, without the copy.
    const receipt = Object.assign(body, { sig }) as unknown as T;
    const sealed: SealedLine<T> = { line: receipt, text, hash: sha256Prefixed(text) };
    this.#tree?.addLine(text);
    this.#seq = receipt.seq;
    this.#head = sealed.hash;
    this.#lastWasCheckpoint = false;
    const checkpoint = this.#every > 0 && this.#seq % this.#every === 0 ? this.checkpoint() : null;
    return { receipt: sealed, checkpoint };
  }
}
