/**
 * @module receipts/log-writer
 * Append-only receipt log file: one canonical JSON object a line, sealed by a
 * {@link ReceiptChain}, with a checkpoint every N receipts and one at `close()`.
 *
 * Durability (`fsync`):
 * - `always`: every append resolves only after its line is on disk (appends that arrive while a
 *   sync is in flight share the next one — group commit), or once a full disk stalled it;
 * - `batch` (default): fsync after every `fsyncEvery` lines (default 64), after any checkpoint,
 *   and at close — no timers, so behaviour depends only on what was appended;
 * - `never`: leave it to the OS (close still closes the file): durable means written whole to the
 *   page cache, which a full disk refuses as under `always`, and a power cut may still lose.
 * Lines are sealed synchronously in call order and written in that order. Under `batch` and
 * `never` an append resolves once its line is sealed and queued, so a caller awaiting each append
 * does not wait for the disk; a write error then fails the next append and `close()`. The lines
 * queued in one turn of the event loop go to the file in one synchronous write at its end
 * (`setImmediate`), or at once when {@link WRITE_BATCH_BYTES} are queued; writes never wait for a
 * sync in flight, so at most a batch waits in memory.
 *
 * `durable()` is the hold-until-durable rule's half here (docs/design.md §5): it resolves once every
 * line appended so far is on disk as the policy says — fsynced under `always` and `batch`, handed
 * to the OS under `never`. It joins the running sync when that covers its lines, else the one
 * that starts with the write at the end of the turn, or the next one once the running one ends:
 * every caller of one turn, and every caller arriving while a sync runs, shares one write and
 * one fsync.
 *
 * A write that fails (a full disk: ENOSPC) stalls the log rather than ending it
 * (docs/design.md §5, "A full disk"): the lines stay queued, in order, the callers waiting for
 * them are failed at once (so the answers they hold are refused), and the next append, wait or
 * `close` writes them again at the same place. A failed sync ends the log: after a failed
 * fdatasync the kernel may have dropped the pages it could not write, so no later sync could
 * vouch for them.
 */
import { type FileHandle, unlink } from 'node:fs/promises';
import { openOutputFile, writeOutputFile } from '../output-file.js';
import { type Clock, isoAt } from '../clock.js';
import { A2aReplayError } from '../errors.js';
import { datasync, datasyncFd, writeAllLines } from '../recording/line-sink.js';
import { ReceiptChain, type SealedLine } from './chain.js';
import { StallRecorder } from './stall-record.js';
import type { Keyring } from './keys.js';
import type {
  Checkpoint,
  ContinuationDraft,
  ContinuationReceipt,
  InterruptionDraft,
  InterruptionReceipt,
  RecordingBinding,
  SuspensionReference,
  ResumptionDraft,
  ResumptionReceipt,
  SeriesLink,
  SuspensionDraft,
  SuspensionReceipt,
} from './types.js';

export const FSYNC_POLICIES = ['always', 'batch', 'never'] as const;
export type FsyncPolicy = (typeof FSYNC_POLICIES)[number];
export const DEFAULT_FSYNC_EVERY = 64;
/** Queued bytes that are written at once rather than at the end of the turn. */
export const WRITE_BATCH_BYTES = 64 * 1024;

export interface ReceiptLogWriterOptions {
  keyring: Keyring;
  /** Signing kid (default: the keyring's first with an HMAC secret). */
  kid?: string;
  checkpointEvery?: number;
  fsync?: FsyncPolicy;
  /** With `batch`: lines between two fsyncs. */
  fsyncEvery?: number;
  recording?: string | null;
  /** Gives the header's `createdAt` unless `createdAt` is passed. */
  clock: Clock;
  /** The recording's `createdAt`, for replays that must be byte-identical. */
  createdAt?: string;
  tool: string;
  /** Replace an existing file (default: refuse). */
  overwrite?: boolean;
  /**
   * A file that always holds the latest checkpoint, kept apart from the log so that
   * `verify --checkpoint FILE` detects a cut tail: rewritten atomically (temp file, fsync,
   * rename; mode 0600) after each checkpoint is written and synced. The line before the checkpoint
   * is its `LogHead` (src/receipts/log-head.ts), naming the log; every log of a rotating recorder
   * writes to the same file, so it holds the head of the series.
   */
  witness?: string;
  /**
   * Told each line once it is durable under the policy (synced, or written under `never`), in
   * file order, the header first: what followers of the log (witnesses, a telemetry pipeline) may
   * take as written. A listener that throws changes nothing of the log.
   */
  onDurable?: (lines: readonly SealedLine[]) => void;
  /** The log this one continues (docs/design.md §6, "Series"): its header's link. */
  series?: SeriesLink | null;
  /**
   * The stall record's file (receipts/stall-record, `stallRecordPath(path)`): its space is taken
   * when the log is created, and a write that fails records there what the log could not hold.
   */
  stallRecord?: string;
}

/** What an append returns: the sealed receipt and its line hash (for `appendResumption`). */
export interface AppendResult<T> {
  receipt: T;
  hash: string;
}

/** A caller waiting until the first `target` lines of the log are durable. */
interface Waiter {
  target: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Replaces `path` with one checkpoint line, atomically: a reader sees the old or the new one. */
async function writeWitness(path: string, text: string): Promise<void> {
  try {
    // A fresh temporary file beside it, renamed into place; never through a link (src/output-file.ts).
    await writeOutputFile(path, `${text}\n`, { sync: true });
  } catch (cause) {
    throw new A2aReplayError('IO_FAILED', `cannot write the witness file ${path}: ${(cause as Error).message}`, {
      cause,
    });
  }
}

/** Characters of kept-back lines a stall record lists at most (the rest it counts). */
const STALL_LISTED_CHARS = 48 * 1024;

/** Receipt logs are readable by their owner only. */
export const RECEIPT_LOG_MODE = 0o600;

export class ReceiptLogWriter {
  readonly path: string;
  readonly chain: ReceiptChain;
  readonly #file: FileHandle;
  readonly #fsync: FsyncPolicy;
  readonly #fsyncEvery: number;
  #witness: string | undefined;
  #onDurable: ((lines: readonly SealedLine[]) => void) | undefined;
  /** With a durable listener: the lines queued, and those written and not yet told. */
  #bufferLines: SealedLine[] = [];
  #untold: SealedLine[] = [];
  /** Lines sealed and not yet written. */
  #buffer: string[] = [];
  #bufferBytes = 0;
  /** The last checkpoint in the buffer; the last one written that no finished sync covers yet. */
  #bufferCheckpoint: string | null = null;
  #unsyncedCheckpoint: string | null = null;
  /** Lines queued so far (the header included), written to the file, and durable. */
  #queued = 0;
  #written = 0;
  #synced = 0;
  /** A sync runs now (fdatasync, then the witness file); at most one runs. */
  #syncing = false;
  /** Told once no sync runs (`close` waits for the running one). */
  #syncsIdle: (() => void)[] = [];
  #waiters: Waiter[] = [];
  /** The write scheduled for the end of this turn, if any. */
  #deferred: NodeJS.Immediate | undefined;
  #failure: A2aReplayError | null = null;
  /** The failure of the last write while it is not written again; the lines it held are still queued. */
  #stall: A2aReplayError | null = null;
  /** Where the next line goes: the end of the lines written whole. */
  #position = 0;
  #closing: Promise<void> | null = null;
  /** The stall record, when asked for; and when the current stall began. */
  #stallRecord: StallRecorder | null = null;
  #stallSince: string | null = null;
  #clock: Clock | null = null;

  private constructor(path: string, file: FileHandle, chain: ReceiptChain, fsync: FsyncPolicy, fsyncEvery: number) {
    this.path = path;
    this.#file = file;
    this.chain = chain;
    this.#fsync = fsync;
    this.#fsyncEvery = fsyncEvery;
  }

  /**
   * Creates the log (mode 0600: it names who paused what) and writes its header. Refuses an
   * existing file unless `overwrite`; an overwritten one is set to 0600 too.
   */
  static async open(path: string, options: ReceiptLogWriterOptions): Promise<ReceiptLogWriter> {
    const fsyncEvery = options.fsyncEvery ?? DEFAULT_FSYNC_EVERY;
    if (!Number.isInteger(fsyncEvery) || fsyncEvery < 1)
      throw new A2aReplayError('INVALID_ARGUMENT', `fsyncEvery: expected a positive integer, got ${fsyncEvery}`);
    const chain = new ReceiptChain({
      keyring: options.keyring,
      ...(options.kid === undefined ? {} : { kid: options.kid }),
      ...(options.checkpointEvery === undefined ? {} : { checkpointEvery: options.checkpointEvery }),
      recording: options.recording ?? null,
      createdAt: options.createdAt ?? isoAt(options.clock.now()),
      tool: options.tool,
      ...(options.series ? { series: options.series } : {}),
    });
    let file: FileHandle;
    try {
      file = await openOutputFile(path, { replace: options.overwrite === true, mode: RECEIPT_LOG_MODE });
    } catch (cause) {
      if (cause instanceof A2aReplayError) throw cause;
      const code = (cause as NodeJS.ErrnoException).code ?? 'error';
      const why =
        code === 'EEXIST' ? 'it already exists (receipt logs are append-only; pass overwrite to replace it)' : code;
      throw new A2aReplayError('IO_FAILED', `cannot create receipt log ${path}: ${why}`, { cause });
    }
    const writer = new ReceiptLogWriter(path, file, chain, options.fsync ?? 'batch', fsyncEvery);
    if (options.stallRecord !== undefined) {
      const key = options.keyring.get(chain.kid)!;
      writer.#stallRecord = await StallRecorder.create(options.stallRecord, {
        key,
        log: chain.header.hash,
        sync: (options.fsync ?? 'batch') !== 'never',
      }).catch(async (error: unknown) => {
        // No room for the record: the log is not begun (it would have nowhere to say a stall).
        await file.close();
        await unlink(path).catch(() => undefined);
        throw error;
      });
      writer.#clock = options.clock;
    }
    writer.#witness = options.witness;
    writer.#onDurable = options.onDurable;
    // The header is written at once: a log that exists is never empty.
    writer.#queue([chain.header]);
    writer.#write();
    const failure = writer.#failure ?? writer.#stall;
    if (failure) {
      await file.close();
      writer.#stallRecord?.remove();
      throw failure;
    }
    return writer;
  }

  async appendSuspension(draft: SuspensionDraft): Promise<AppendResult<SuspensionReceipt>> {
    this.#assertOpen();
    const sealed = this.chain.sealSuspension(draft);
    await this.#append(sealed.checkpoint ? [sealed.receipt, sealed.checkpoint] : [sealed.receipt]);
    return { receipt: sealed.receipt.line, hash: sealed.receipt.hash };
  }

  /** `suspensionHash`: the `hash` that `appendSuspension` returned for the pause this one closes. */
  async appendResumption(
    draft: ResumptionDraft,
    suspension: SuspensionReference,
  ): Promise<AppendResult<ResumptionReceipt>> {
    this.#assertOpen();
    const sealed = this.chain.sealResumption(draft, suspension);
    await this.#append(sealed.checkpoint ? [sealed.receipt, sealed.checkpoint] : [sealed.receipt]);
    return { receipt: sealed.receipt.line, hash: sealed.receipt.hash };
  }

  /**
   * Version 5 (docs/design.md §14.9); undefined, and nothing written, in a log of an earlier
   * version, which holds none.
   */
  async appendInterruption(draft: InterruptionDraft): Promise<AppendResult<InterruptionReceipt> | undefined> {
    this.#assertOpen();
    if (!this.chain.takesInterruptions) return undefined;
    const sealed = this.chain.sealInterruption(draft);
    await this.#append(sealed.checkpoint ? [sealed.receipt, sealed.checkpoint] : [sealed.receipt]);
    return { receipt: sealed.receipt.line, hash: sealed.receipt.hash };
  }

  /** `interruptionHash`: the `hash` that `appendInterruption` returned for the interruption this one closes. */
  async appendContinuation(
    draft: ContinuationDraft,
    interruptionHash: string,
  ): Promise<AppendResult<ContinuationReceipt> | undefined> {
    this.#assertOpen();
    if (!this.chain.takesInterruptions) return undefined;
    const sealed = this.chain.sealContinuation(draft, interruptionHash);
    await this.#append(sealed.checkpoint ? [sealed.receipt, sealed.checkpoint] : [sealed.receipt]);
    return { receipt: sealed.receipt.line, hash: sealed.receipt.hash };
  }

  /**
   * Resolves when every line appended so far is durable under the fsync policy (see the module
   * doc); rejects when the log cannot be written.
   */
  durable(): Promise<void> {
    return this.#untilDurable(this.#queued);
  }

  /**
   * {@link durable} with callbacks and no promise: `done` once every line appended so far is
   * durable under the policy, or `failed` with the log's failure. Called once, never
   * synchronously unless the lines already are durable (or the log failed).
   */
  whenDurable(done: () => void, failed: (error: unknown) => void): void {
    const target = this.#queued;
    // A stalled log is written again at the end of the turn (#wait): a caller fails only if that fails.
    if (this.#failure) failed(this.#failure);
    else if (this.#synced >= target) done();
    else this.#wait({ target, resolve: done, reject: failed });
  }

  /** The failure of the last write, while its lines wait to be written again; null when none waits. */
  get stalled(): A2aReplayError | null {
    return this.#stall;
  }

  /** Signs further receipts with another kid the header declares. */
  rotate(kid: string): void {
    this.#assertOpen();
    this.chain.rotate(kid);
  }

  /**
   * Writes the closing checkpoint (marked final, binding the log to `recording` when given: the
   * recording's id, line count and last line's hash), syncs (unless `never`) and closes the file.
   * Idempotent: the first call's `recording` counts.
   */
  close(recording: RecordingBinding | null = null): Promise<void> {
    this.#closing ??= this.#close(recording);
    return this.#closing;
  }

  async #close(recording: RecordingBinding | null): Promise<void> {
    try {
      const last = this.#failure ? null : this.chain.close(recording);
      if (last) this.#queue([last]);
      this.#write();
      if (this.#syncing) await new Promise<void>((resolve) => this.#syncsIdle.push(resolve));
      // Lines a full disk kept back are lost now: the log ends without them, and says so by
      // failing (it has no closing checkpoint).
      if (this.#stall) this.#fail(this.#stall);
      if (this.#fsync !== 'never' && this.#written > this.#synced && !this.#failure) {
        try {
          await datasync(this.#file.fd);
          this.#markSynced(this.#written);
        } catch (cause) {
          this.#fail(cause);
        }
      }
      this.#release();
    } finally {
      if (this.#failure) this.#stallRecord?.keep();
      else this.#stallRecord?.remove();
      await this.#file.close();
    }
    if (this.#failure) throw this.#failure;
  }

  #assertOpen(): void {
    if (this.#failure) throw this.#failure;
    if (this.#closing) throw new A2aReplayError('IO_FAILED', `receipt log ${this.path} is closed`);
  }

  #queue(lines: SealedLine[]): void {
    for (const line of lines) {
      this.#buffer.push(`${line.text}\n`);
      this.#bufferBytes += line.text.length + 1;
      // The witness file names the log its checkpoint belongs to (docs/design.md §6).
      if (line.line.type === 'Checkpoint')
        this.#bufferCheckpoint =
          this.#witness === undefined
            ? line.text
            : `${this.chain.logHead(line as SealedLine<Checkpoint>)}\n${line.text}`;
    }
    if (this.#onDurable) this.#bufferLines.push(...lines);
    this.#queued += lines.length;
  }

  /**
   * Queues sealed lines. They are written at the end of this turn, so that the lines appended in
   * it share one write (a write costs a few microseconds, several times a receipt's HMAC), or at
   * once when {@link WRITE_BATCH_BYTES} are queued. Under `always` the append waits until they
   * are durable.
   */
  #append(lines: SealedLine[]): Promise<void> {
    this.#queue(lines);
    // A stall leaves the lines sealed and queued: the append has its receipt, and `durable` says
    // whether it is on disk (the module doc).
    if (this.#fsync === 'always')
      return this.#untilDurable(this.#queued).catch((error: unknown) => {
        if (this.#failure) throw error;
      });
    if (this.#bufferBytes >= WRITE_BATCH_BYTES) this.#write();
    else
      this.#deferred ??= setImmediate(() => {
        this.#deferred = undefined;
        this.#write();
      });
    return this.#failure ? Promise.reject(this.#failure) : Promise.resolve();
  }

  /**
   * Resolves once the first `target` lines are durable (written, and synced unless `never`). The
   * write and its sync happen at the end of the turn (or join the sync running then), so every
   * caller of one turn shares one write and one fdatasync.
   */
  #untilDurable(target: number): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#synced >= target) return Promise.resolve();
    return new Promise<void>((resolve, reject) => this.#wait({ target, resolve, reject }));
  }

  /** Adds a waiter; the write and its sync happen at the end of the turn. */
  #wait(waiter: Waiter): void {
    this.#waiters.push(waiter);
    this.#deferred ??= setImmediate(() => {
      this.#deferred = undefined;
      this.#write();
    });
  }

  /**
   * Writes what is queued, synchronously: the lines go to the page cache, where a thread-pool
   * write costs more CPU than the copy; only the sync waits for the disk, and writes do not wait
   * for it. Then starts a sync if one is due.
   */
  #write(): void {
    if (this.#deferred !== undefined) clearImmediate(this.#deferred);
    this.#deferred = undefined;
    if (this.#buffer.length > 0) {
      const lines = this.#buffer;
      const count = lines.length;
      const checkpoint = this.#bufferCheckpoint;
      this.#buffer = [];
      this.#bufferBytes = 0;
      this.#bufferCheckpoint = null;
      const sealed = this.#bufferLines;
      this.#bufferLines = [];
      if (this.#failure === null) {
        try {
          this.#position = writeAllLines(this.#file.fd, lines, this.#position);
          this.#stall = null;
          this.#stallSince = null;
          this.#written += count;
          if (this.#onDurable) this.#untold.push(...sealed);
          if (checkpoint !== null) this.#unsyncedCheckpoint = checkpoint;
        } catch (cause) {
          // Kept, in order, to be written again at the same position (module doc).
          this.#buffer = lines;
          for (const line of lines) this.#bufferBytes += line.length;
          this.#bufferCheckpoint = checkpoint;
          this.#bufferLines = sealed;
          this.#stall = this.#failureOf(cause);
          this.#recordStall(cause);
          this.#release();
        }
      }
    }
    this.#syncIfDue();
  }

  /**
   * Starts the next sync when one is due and none runs: under `always`, or when somebody waits,
   * or (`batch`) after a checkpoint or {@link DEFAULT_FSYNC_EVERY fsyncEvery} lines. Callers
   * arriving while a sync runs share the next one (group commit). Under `never` written is
   * durable, and only the witness file is written.
   */
  #syncIfDue(): void {
    if (this.#syncing || this.#failure !== null) return;
    const never = this.#fsync === 'never';
    if (never) {
      this.#markSynced(this.#written);
      this.#release();
    }
    const unsynced = this.#written - this.#synced;
    const due =
      unsynced > 0 &&
      (this.#fsync === 'always' ||
        this.#waiters.length > 0 ||
        this.#unsyncedCheckpoint !== null ||
        unsynced >= this.#fsyncEvery);
    const witness = this.#witness === undefined ? null : this.#unsyncedCheckpoint;
    if (!due && (!never || witness === null)) return;
    const covers = this.#written;
    this.#unsyncedCheckpoint = null;
    this.#syncing = true;
    const ended = (cause?: unknown): void => {
      if (cause !== undefined) this.#fail(cause);
      this.#syncing = false;
      this.#release();
      this.#syncIfDue();
      if (!this.#syncing) for (const idle of this.#syncsIdle.splice(0)) idle();
    };
    const synced = (): void => {
      this.#markSynced(Math.max(this.#synced, covers));
      if (witness !== null && this.#witness !== undefined)
        writeWitness(this.#witness, witness).then(() => ended(), ended);
      else ended();
    };
    // fdatasync: the appended bytes and the size that reaches them (docs/design.md §5), through
    // the callback API: one thread-pool request and one callback, no promise chain.
    if (due) datasyncFd(this.#file.fd, (error) => (error ? ended(error) : synced()));
    else synced();
  }

  /** Counts the first `synced` lines durable and tells the listener those it was not told yet. */
  #markSynced(synced: number): void {
    this.#synced = synced;
    const listener = this.#onDurable;
    if (!listener || this.#untold.length === 0) return;
    // #untold holds lines (#written - #untold.length, #written]; those up to #synced are durable.
    const durable = this.#untold.length - (this.#written - synced);
    if (durable <= 0) return;
    const lines = this.#untold.splice(0, durable);
    try {
      listener(lines);
    } catch {
      // A follower's failure is its own: the log is written and durable either way.
    }
  }

  /**
   * Resolves the waiters whose lines are durable; rejects all once the log failed, and, while a
   * write is stalled, those whose lines it holds.
   */
  #release(): void {
    if (this.#waiters.length === 0) return;
    const waiting: Waiter[] = [];
    for (const waiter of this.#waiters) {
      if (this.#failure) waiter.reject(this.#failure);
      else if (waiter.target <= this.#synced) waiter.resolve();
      else if (this.#stall && waiter.target > this.#written) waiter.reject(this.#stall);
      else waiting.push(waiter);
    }
    this.#waiters = waiting;
  }

  /**
   * Says in the stall record what the log holds back now (docs/design.md §5, "A full disk"): the
   * lines kept, the first of them as sealed, and where they belong.
   */
  #recordStall(cause: unknown): void {
    const record = this.#stallRecord;
    if (record === null) return;
    this.#stallSince ??= isoAt(this.#clock!.now());
    const lines: unknown[] = [];
    let bytes = 0;
    for (const text of this.#buffer) {
      bytes += text.length;
      if (bytes > STALL_LISTED_CHARS) break;
      lines.push(JSON.parse(text) as unknown);
    }
    const first = (lines[0] ?? {}) as { prev?: string; root?: string };
    record.record({
      since: this.#stallSince,
      error: (cause as NodeJS.ErrnoException).code ?? (cause as Error).message,
      written: this.#written,
      head: first.prev ?? first.root ?? this.chain.header.hash,
      count: this.#buffer.length,
      lines,
    });
  }

  #failureOf(cause: unknown): A2aReplayError {
    return cause instanceof A2aReplayError
      ? cause
      : new A2aReplayError('IO_FAILED', `cannot write receipt log ${this.path}: ${(cause as Error).message}`, {
          cause,
        });
  }

  #fail(cause: unknown): void {
    this.#failure ??= this.#failureOf(cause);
    this.#release();
  }
}
