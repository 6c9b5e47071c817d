/**
 * @module receipts/verify
 * Verifies a receipt log line by line in constant memory (docs/design.md §6): canonical form, shape,
 * signatures, sequence, hash chain and checkpoints, plus an optional checkpoint kept outside the
 * log that detects a truncated tail. It stops at the first bad line and says which and why.
 */
import { BoundedMap } from '../bounded-map.js';
import { A2aReplayError } from '../errors.js';
import { type Examined, type ExaminedLine, type LineFacts, examineLine } from './examine-line.js';
import { type OutsideReference, OutsideReferences, resumptionReferenceProblem } from './outside-references.js';
import type { Keyring } from './keys.js';
import { type RawLine, readLogChunks, splitLogBytes } from './log-reader.js';
import { LogTree, logOrigin } from './log-tree.js';
import { compareRecording } from './recording-binding.js';
import { type LogStall, withStallRecord } from './stall-record.js';
import { carriedInterruptions, carriedSuspensions } from './series-link.js';
import { checkpointShapeFailure } from './verify-checkpoint.js';
import { verifyWithWorkers } from './verify-jobs.js';
import type { Checkpoint, ReceiptLogHeader, ReceiptLogLine, ReceiptLogVersion, RecordingBinding } from './types.js';
import { InterruptionLedger } from './verify-interruptions.js';
import { type VerifyFailure, type VerifyFailureReason, anchorSignatureFailure } from './verify-failure.js';

/**
 * How many closed suspensions a rejected resume attempt may still name (a double resume, a late
 * retry): the verifier remembers that many, most recently named first, so its memory stays flat.
 * It is far above what the observer itself remembers of ended pauses (docs/design.md §6).
 */
export const CLOSED_SUSPENSION_MEMORY = 65_536;

export interface VerifyResult {
  ok: boolean;
  /** Lines read, header included. */
  lines: number;
  receipts: number;
  checkpoints: number;
  /** Kids that signed receipts, in order of first use. */
  kids: string[];
  /** `unchecked` when no HMAC secret was given (public key only): chain, seq and checkpoints still are. */
  receiptSignatures: 'checked' | 'unchecked';
  /** The log's format version (null when its header was not read). */
  version: ReceiptLogVersion | null;
  /**
   * The writer closed the log: its last line is the closing checkpoint (`final`), covering every
   * receipt. In a version-2 log, whose checkpoints have no final mark, any checkpoint last.
   */
  closed: boolean;
  /** The recording the closing checkpoint binds the log to; null when open, version 2, or unbound. */
  bound: RecordingBinding | null;
  /**
   * With `recording`: `bound` when the closing checkpoint's binding matched the recording given
   * (id, line count, last line); `id only` when the log has no binding to compare (version 2, open,
   * or closed without one) and only the header's recording id was compared. Null without `recording`.
   */
  recordingCheck: 'bound' | 'id only' | null;
  /**
   * Receipts covered by a valid checkpoint (the last one's `size`): the only ones the log vouches
   * for. Equal to `receipts` when `closed`.
   */
  vouched: number;
  /** Hash of the last good line. */
  head: string | null;
  /** Whether an outside checkpoint was given and matched. */
  anchored: boolean;
  /** A torn last line that `allowTornTail` let pass. */
  tornTail: number | null;
  /**
   * Version 4: checkpoints whose C2SP note was checked (signature, origin, and the Merkle root of
   * the lines before it); the log's origin, when its header was read.
   */
  notes: number;
  origin: string | null;
  /**
   * Version 5: resumptions of suspensions outside this log (docs/design.md §17), counted; the
   * first {@link OUTSIDE_LISTED} listed. Not holes: another recorder's log holds their suspensions.
   */
  outsideCount: number;
  outside: OutsideReference[];
  /** Lines its writer could not write, as the stall record beside it states (receipts/stall-record). */
  stall?: LogStall;
  firstError?: VerifyFailure;
}

/** A line that passed every check, as `onLine` sees it. */
export interface VerifiedLine {
  number: number;
  line: ReceiptLogLine;
  hash: string;
}

export interface VerifyOptions {
  keyring: Keyring;
  /** A checkpoint kept outside the log: the log must contain its size and root. */
  anchor?: Checkpoint;
  /**
   * The facts of the recording the log should belong to (see `readRecordingBinding`): a log of
   * another recording, or a recording cut, emptied or changed since the log was closed, fails
   * with `recording_mismatch`.
   */
  recording?: RecordingBinding;
  /** Treat a torn last line as a crash to tolerate (reported in `tornTail`) rather than a failure. */
  allowTornTail?: boolean;
  /**
   * Accept a log that does not end in a checkpoint (a recorder still running, or killed): the
   * receipts after the last checkpoint are then reported as not vouched for instead of failing.
   */
  allowOpen?: boolean;
  /** Read the stall record beside the log (default true): lines it lacks fail it, open or not. */
  stallRecord?: boolean;
  /** Called for each verified line, in order (audit builds on this). */
  onLine?: (line: VerifiedLine) => void;
  /**
   * `verifyReceiptLog` only: threads that examine lines (shape, canonical form, signatures), this
   * one and `jobs - 1` workers, while the chain is checked in order here; the first error is the
   * same. Default 1: no workers.
   */
  jobs?: number;
}

/** Incremental verifier: `push` each raw line in order, then `finish`. */
export class ReceiptLogVerifier {
  #options: VerifyOptions;
  readonly #kids: string[] = [];
  #header: ReceiptLogHeader | null = null;
  #lines = 0;
  #receipts = 0;
  #checkpoints = 0;
  #vouched = 0;
  /** Suspensions no resumption has closed yet: hash → task id. */
  #open = new Map<string, string>();
  /** Closed suspensions a rejected attempt may still name (least recently named first). */
  #closed = new BoundedMap<string, string>(CLOSED_SUSPENSION_MEMORY);
  /** Version 5: the interruptions no continuation closed yet (receipts/verify-interruptions). */
  #interruptions = new InterruptionLedger();
  #head: string | null = null;
  /** The closing checkpoint's line and binding, once read (a version-3 log ends there). */
  #finalAt: number | null = null;
  #bound: RecordingBinding | null = null;
  #previous: ReceiptLogLine['type'] | null = null;
  #anchorMatched = false;
  #lineAtAnchorSize: number | null = null;
  #tornTail: number | null = null;
  #error: VerifyFailure | null = null;
  /** Version 4 logs with Ed25519 checkpoints: the Merkle tree of the lines so far, and the origin. */
  #tree: LogTree | null = null;
  #origin: string | null = null;
  #notes = 0;
  #headerHash: string | null = null;
  #lastCheckpoint: { size: number; root: string; note: string | null } | null = null;
  #outside = new OutsideReferences();

  constructor(options: VerifyOptions) {
    this.#options = options;
    if (options.anchor) {
      this.#error = anchorSignatureFailure(options.anchor, options.keyring);
      if (options.anchor.size === 0) this.#lineAtAnchorSize = 1;
    }
  }

  /**
   * A copy of this verifier in its current state: lines pushed to the copy do not affect this
   * one. Lets a caller check alternative continuations of a shared prefix once per prefix.
   */
  fork(): ReceiptLogVerifier {
    const copy = new ReceiptLogVerifier({ keyring: this.#options.keyring });
    copy.#copyFrom(this);
    return copy;
  }

  #copyFrom(other: ReceiptLogVerifier): void {
    this.#options = other.#options;
    this.#kids.splice(0, this.#kids.length, ...other.#kids);
    this.#header = other.#header;
    this.#lines = other.#lines;
    this.#receipts = other.#receipts;
    this.#checkpoints = other.#checkpoints;
    this.#vouched = other.#vouched;
    this.#open = new Map(other.#open);
    this.#closed = other.#closed.clone();
    this.#interruptions = other.#interruptions.clone();
    this.#head = other.#head;
    this.#finalAt = other.#finalAt;
    this.#bound = other.#bound;
    this.#previous = other.#previous;
    this.#anchorMatched = other.#anchorMatched;
    this.#lineAtAnchorSize = other.#lineAtAnchorSize;
    this.#tornTail = other.#tornTail;
    this.#error = other.#error;
    this.#tree = other.#tree?.clone() ?? null;
    this.#origin = other.#origin;
    this.#notes = other.#notes;
    this.#outside = other.#outside.clone();
    this.#headerHash = other.#headerHash;
    this.#lastCheckpoint = other.#lastCheckpoint;
  }

  /** The header read, and its line's hash; null before line 1 passed. */
  get header(): { line: ReceiptLogHeader; hash: string } | null {
    return this.#header === null || this.#headerHash === null ? null : { line: this.#header, hash: this.#headerHash };
  }

  /**
   * Where the lines read so far end, as a continuing log's header states it (docs/design.md §6,
   * "Series"): the suspensions and interruptions open (carried in or sealed here, in that order) and
   * the last checkpoint.
   */
  get end(): {
    open: { suspension: string; taskId: string }[];
    interruptions: { interruption: string; taskId: string }[];
    checkpoint: { size: number; root: string; note: string | null } | null;
  } {
    return {
      open: [...this.#open].map(([suspension, taskId]) => ({ suspension, taskId })),
      interruptions: this.#interruptions.open,
      checkpoint: this.#lastCheckpoint,
    };
  }

  /** False once a line failed: later lines are ignored. */
  get ok(): boolean {
    return this.#error === null;
  }

  push(raw: RawLine): boolean {
    if (this.#error) return false;
    return this.accept(raw.number, examineLine(raw, this.#options.keyring, this.wantsLines));
  }

  finish(): VerifyResult {
    if (!this.#error && this.#header === null) {
      this.#error = {
        line: 1,
        reason: 'malformed_line',
        message: 'the log is empty: line 1 must be a receipt log header',
      };
    }
    const anchor = this.#options.anchor;
    if (!this.#error && anchor && !this.#anchorMatched) {
      this.#error =
        this.#receipts < anchor.size
          ? {
              line: this.#lines + 1,
              reason: 'truncated',
              message:
                `the log ends after line ${this.#lines} with ${this.#receipts} receipts, but ` +
                `the outside checkpoint commits to ${anchor.size}: its tail was cut off`,
            }
          : {
              line: this.#lineAtAnchorSize ?? this.#lines,
              reason: 'checkpoint_mismatch',
              message:
                `the chain head after ${anchor.size} receipts is not ` + `the outside checkpoint's root ${anchor.root}`,
            };
    }
    const version = this.#header?.version ?? null;
    // Version 3: only the closing checkpoint closes; an intermediate one last is a cut there.
    const closed = version === 2 ? this.#previous === 'Checkpoint' : this.#finalAt !== null;
    // An outside checkpoint that matches the very end vouches for every receipt; in version 3 it
    // closes the log only when it is a closing checkpoint (an older witness file is not).
    const anchoredEnd =
      anchor !== undefined &&
      this.#anchorMatched &&
      this.#receipts === anchor.size &&
      (version === 2 || anchor.final === true);
    if (anchor !== undefined && this.#anchorMatched && this.#receipts === anchor.size) this.#vouched = anchor.size;
    if (!this.#error && !closed && !anchoredEnd && !this.#options.allowOpen) {
      const after = this.#receipts - this.#vouched;
      this.#error = {
        line: this.#lines + 1,
        reason: 'not_closed',
        message:
          this.#previous === 'Checkpoint' && version !== 2
            ? `not closed: the log ends after line ${this.#lines} at an intermediate checkpoint, not the ` +
              'closing one, so lines after it may have been cut (--allow-open accepts an open end)'
            : `not closed: the log ends after line ${this.#lines} without a checkpoint, so ${after} ` +
              `receipt${after === 1 ? '' : 's'} after the last checkpoint cannot be vouched for ` +
              '(the writer was stopped or the end was cut; --allow-open accepts an open end)',
      };
    }
    const recordingCheck = this.#error ? null : this.#checkRecording(closed);
    return {
      ok: this.#error === null,
      lines: this.#lines,
      receipts: this.#receipts,
      checkpoints: this.#checkpoints,
      kids: [...this.#kids],
      receiptSignatures: this.#options.keyring.hasHmac ? 'checked' : 'unchecked',
      version,
      closed,
      bound: closed ? this.#bound : null,
      recordingCheck,
      vouched: this.#vouched,
      head: this.#head,
      anchored: anchor !== undefined && this.#anchorMatched,
      tornTail: this.#tornTail,
      notes: this.#notes,
      origin: this.#origin,
      outsideCount: this.#outside.count,
      outside: [...this.#outside.listed],
      ...(this.#error ? { firstError: this.#error } : {}),
    };
  }

  /** Compares the recording given with the log (receipts/recording-binding); sets the error on a mismatch. */
  #checkRecording(closed: boolean): VerifyResult['recordingCheck'] {
    const given = this.#options.recording;
    const header = this.#header;
    if (given === undefined || header === null) return null;
    const compared = compareRecording(header, closed ? this.#bound : null, given, this.#finalAt ?? this.#lines);
    if ('reason' in compared) {
      this.#error = compared;
      return null;
    }
    return compared.check;
  }

  /**
   * Takes the examination of the next line (see examine-line.ts; `verify --jobs` makes them on
   * worker threads) and runs the checks that need the lines before it, in order.
   */
  accept(number: number, examined: Examined): boolean {
    if (this.#error) return false;
    this.#lines = number;
    const failure = examined.ok ? this.#checkInOrder(examined, number) : examined.failure;
    if (failure) {
      if (failure.reason === 'torn_tail' && this.#options.allowTornTail) {
        this.#tornTail = number;
        this.#lines = number - 1;
        return true;
      }
      this.#error = failure;
      return false;
    }
    return true;
  }

  /** Whether `onLine` wants each line's parsed value. */
  get wantsLines(): boolean {
    return this.#options.onLine !== undefined;
  }

  #checkInOrder(examined: ExaminedLine, n: number): VerifyFailure | null {
    const { facts, hash } = examined;
    const failure =
      this.#header === null ? this.#checkHeader(facts, hash, n) : this.#checkBody(examined, n, this.#header);
    if (failure) return failure;
    if (this.#tree && examined.leaf !== null) this.#tree.addLeaf(Buffer.from(examined.leaf, 'base64'));
    this.#previous = facts.type;
    this.#head = hash;
    if (facts.type === 'SuspensionReceipt') this.#open.set(hash, facts.taskId);
    if (this.#options.anchor && this.#receipts === this.#options.anchor.size) {
      this.#lineAtAnchorSize ??= n;
      if (hash === this.#options.anchor.root) this.#anchorMatched = true;
    }
    if (this.#options.onLine && examined.line) this.#options.onLine({ number: n, line: examined.line, hash });
    return null;
  }

  #checkHeader(facts: LineFacts, hash: string, n: number): VerifyFailure | null {
    if (facts.type !== 'ReceiptLog')
      return {
        line: n,
        reason: 'malformed_line',
        message: `line ${n} is a ${facts.type}, but a log starts with its header`,
      };
    const header = facts.header;
    if ((header.series !== undefined) !== header.version >= 5)
      return {
        line: n,
        reason: 'malformed_line',
        message:
          header.version >= 5
            ? `line ${n}: a version-${header.version} header without its series member`
            : `line ${n}: a version-${header.version} header with a series member (version 5 has one)`,
      };
    this.#header = header;
    this.#headerHash = hash;
    const { alg, kid } = header.checkpoint;
    this.#origin = logOrigin(kid, header.recording, hash, header.series ?? null);
    if (facts.header.version >= 4 && alg === 'ed25519' && this.#options.keyring.get(kid)?.hasEd25519Public)
      this.#tree = new LogTree();
    return this.#carry(header, n);
  }

  /** The suspensions and interruptions a continued log's header carries in are open here (receipts/series). */
  #carry(header: ReceiptLogHeader, n: number): VerifyFailure | null {
    const carried = carriedSuspensions(header, this.#options.keyring, n);
    if ('reason' in carried) return carried;
    for (const { suspension, taskId } of carried) this.#open.set(suspension, taskId);
    const interruptions = carriedInterruptions(header, this.#options.keyring, n);
    if ('reason' in interruptions) return interruptions;
    for (const { interruption, taskId } of interruptions) this.#interruptions.carry(interruption, taskId);
    return null;
  }

  /** Version 4: a checkpoint's note is there when it must be, and commits to the lines before it. */
  #checkNote(
    facts: Extract<LineFacts, { type: 'Checkpoint' }>,
    n: number,
    header: ReceiptLogHeader,
  ): VerifyFailure | null {
    const fail = (reason: VerifyFailureReason, message: string): VerifyFailure => ({ line: n, reason, message });
    if (header.version < 4)
      return facts.note === undefined
        ? null
        : fail('malformed_line', `line ${n}: a checkpoint with a note in a version-${header.version} log`);
    if (facts.note === undefined)
      return fail('malformed_line', `line ${n}: a checkpoint without a note member in a version-${header.version} log`);
    if (header.checkpoint.alg !== 'ed25519')
      return facts.note === null
        ? null
        : fail('malformed_line', `line ${n}: an HMAC-signed checkpoint carries a note (notes are Ed25519-signed)`);
    if (facts.note === null)
      return fail('checkpoint_mismatch', `line ${n}: an Ed25519-signed checkpoint without its checkpoint note`);
    const key = this.#options.keyring.get(facts.kid);
    if (!this.#tree || !key) return null;
    const problem = this.#tree.checkNote(facts.note, this.#origin!, key);
    if (problem) return fail('checkpoint_mismatch', `line ${n}: ${problem}`);
    this.#notes++;
    return null;
  }

  #checkBody(examined: ExaminedLine, n: number, header: ReceiptLogHeader): VerifyFailure | null {
    const fail = (reason: VerifyFailureReason, message: string): VerifyFailure => ({ line: n, reason, message });
    const { facts, signature } = examined;
    if (this.#finalAt !== null)
      return fail(
        'after_close',
        `line ${n} follows the closing checkpoint at line ${this.#finalAt}: a closed log ends there ` +
          '(lines were appended after it was closed)',
      );
    switch (facts.type) {
      case 'ReceiptLog':
        return fail('malformed_line', `line ${n} is a second header`);
      case 'SuspensionReceipt':
      case 'ResumptionReceipt':
      case 'InterruptionReceipt':
      case 'ContinuationReceipt': {
        const kid = facts.kid;
        if (signature === 'unknown_kid')
          return fail('unknown_kid', `line ${n} is signed by kid ${kid}, and no key for it was given`);
        if (signature === 'unchecked')
          return fail('unknown_kid', `line ${n} is signed by kid ${kid}, and only its public key was given`);
        if (signature === 'bad_signature')
          return fail(
            'bad_signature',
            `line ${n}: the ${facts.type} signature does not match its content (edited or forged)`,
          );
        if ('binding' in facts && facts.binding === 'GRPC' && header.version < 5)
          return fail(
            'malformed_line',
            `line ${n}: a receipt with binding GRPC in a version-${header.version} log (GRPC begins with version 5)`,
          );
        if (facts.seq !== this.#receipts + 1) {
          return fail(
            'sequence_gap',
            `line ${n} has seq ${facts.seq}, expected ${this.#receipts + 1}: a receipt is missing or out of order`,
          );
        }
        const chain = this.#checkPrev(facts.prev, n, `${facts.type} ${facts.seq}`);
        if (chain) return chain;
        // After the chain check: a header edited to drop a kid is caught above, at line 1.
        if (!header.kids.includes(kid))
          return fail('unknown_kid', `line ${n} is signed by kid ${kid}, which the header does not declare`);
        if (facts.type === 'ResumptionReceipt') {
          const unknown = this.#checkResumption(facts, n, header);
          if (unknown) return unknown;
        }
        if (facts.type === 'InterruptionReceipt' || facts.type === 'ContinuationReceipt') {
          const unknown = this.#interruptions.check(facts, examined.hash, n, header.version);
          if (unknown) return unknown;
        }
        this.#receipts++;
        if (!this.#kids.includes(kid)) this.#kids.push(kid);
        return null;
      }
      case 'Checkpoint': {
        const shape = checkpointShapeFailure(facts, signature, n, header, this.#options.keyring);
        if (shape) return shape;
        if (facts.size !== this.#receipts) {
          return fail(
            'checkpoint_mismatch',
            `line ${n}: checkpoint counts ${facts.size} receipts, but ${this.#receipts} precede it`,
          );
        }
        const chain = this.#checkPrev(facts.root, n, 'checkpoint');
        if (chain) return chain;
        const note = this.#checkNote(facts, n, header);
        if (note) return note;
        this.#checkpoints++;
        this.#vouched = facts.size;
        this.#lastCheckpoint = { size: facts.size, root: facts.root, note: facts.note ?? null };
        if (facts.final === true) {
          this.#finalAt = n;
          this.#bound = facts.recording;
        }
        return null;
      }
      default: {
        const never: never = facts;
        throw new Error(`unhandled line ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * Version 5 gives every resumption an `outside` member, which names the suspension when it lies
   * outside the log (then `suspension` is null); earlier versions have neither. An outside
   * reference is counted and listed, never a hole; any other resumption names a suspension here.
   */
  #checkResumption(
    line: Extract<LineFacts, { type: 'ResumptionReceipt' }>,
    n: number,
    header: ReceiptLogHeader,
  ): VerifyFailure | null {
    const { outside, suspension } = line;
    const problem = resumptionReferenceProblem(header.version, suspension, outside);
    if (problem) return { line: n, reason: 'malformed_line', message: `line ${n}: ${problem}` };
    if (suspension !== null) return this.#checkSuspension(line, suspension, n);
    if (outside) this.#outside.add({ line: n, seq: line.seq, taskId: line.taskId, outcome: line.outcome, ...outside });
    return null;
  }

  /**
   * A resumption names the hash of an earlier SuspensionReceipt of the same task in this log: one
   * still open when it closes it (resumed, canceled, failed), open or recently closed when it is a
   * rejected attempt. Called once the line passed every other check; records what it changes.
   */
  #checkSuspension(
    line: Extract<LineFacts, { type: 'ResumptionReceipt' }>,
    suspension: string,
    n: number,
  ): VerifyFailure | null {
    const openTask = this.#open.get(suspension);
    const closedTask = openTask === undefined ? this.#closed.peek(suspension) : undefined;
    const task = openTask ?? closedTask;
    const fail = (message: string): VerifyFailure => ({ line: n, reason: 'unknown_suspension', message });
    if (task === undefined)
      return fail(
        `line ${n}: the ResumptionReceipt names suspension ${suspension}, which is no ` +
          `${line.outcome === 'rejected' ? 'open or recently closed' : 'open'} SuspensionReceipt ` +
          'earlier in this log (forged, copied from another log, or moved)',
      );
    if (task !== line.taskId)
      return fail(
        `line ${n}: the ResumptionReceipt is for task ${line.taskId}, but the suspension it names is of task ${task}`,
      );
    if (line.outcome === 'rejected') {
      // Named again: it is kept the longest now.
      if (closedTask !== undefined) this.#closed.set(suspension, task);
      return null;
    }
    if (openTask === undefined)
      return fail(`line ${n}: the ResumptionReceipt closes suspension ${suspension}, which an earlier line closed`);
    this.#open.delete(suspension);
    this.#closed.set(suspension, task);
    return null;
  }

  /** A signed line whose `prev` is not the head: a line is missing before it, or the header changed. */
  #checkPrev(prev: string, n: number, what: string): VerifyFailure | null {
    if (prev === this.#head) return null;
    if (this.#previous === 'ReceiptLog') {
      return {
        line: 1,
        reason: 'broken_chain',
        message: `the header (line 1) is not the one ${what} at line ${n} was chained to: the header was edited`,
      };
    }
    return {
      line: n,
      reason: 'broken_chain',
      message: `line ${n}: ${what} is not chained to line ${n - 1}: a line is missing or was moved`,
    };
  }
}

/** Verifies a log file, streaming it in constant memory. */
export async function verifyReceiptLog(path: string, options: VerifyOptions): Promise<VerifyResult> {
  const jobs = options.jobs ?? 1;
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new A2aReplayError('INVALID_ARGUMENT', `jobs: expected an integer >= 1, got ${jobs}`);
  const verifier = new ReceiptLogVerifier(options);
  if (!verifier.ok) return verifier.finish();
  // Chunk by chunk, each chunk's lines checked synchronously: no promise per line.
  if (jobs === 1) for await (const lines of readLogChunks(path)) if (!lines.every((raw) => verifier.push(raw))) break;
  const result = jobs > 1 ? await verifyWithWorkers(path, verifier, options.keyring, jobs) : verifier.finish();
  return options.stallRecord === false ? result : withStallRecord(path, result, verifier.header, options.keyring);
}

/** Verifies a log held in memory (same rules as {@link verifyReceiptLog}). */
export function verifyReceiptLogBytes(bytes: Uint8Array | string, options: VerifyOptions): VerifyResult {
  const verifier = new ReceiptLogVerifier(options);
  if (!verifier.ok) return verifier.finish();
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  for (const raw of splitLogBytes(data)) {
    if (!verifier.push(raw)) break;
  }
  return verifier.finish();
}
