/**
 * @module receipts/log-writer
 * Append-only receipt log file: one canonical JSON object a line, sealed by a
 * {@link ReceiptChain}, with a checkpoint every N receipts and one at `close()`.
 *
 * Durability (`fsync`):
 * - `always`: every append resolves only after its line is on disk (appends that arrive while a
 *   write is in flight share one write and one fsync — group commit);
 * - `batch` (default): fsync after every `fsyncEvery` lines (default 64), after any checkpoint,
 *   and at close — no timers, so behaviour depends only on what was appended;
 * - `never`: leave it to the OS (close still closes the file).
 * Lines are sealed synchronously in call order; writes are coalesced but never reordered. Under
 * `batch` and `never` an append resolves once its line is sealed and queued (the write is issued
 * at once; appends made while a sync is in flight join the next write), so a caller awaiting each
 * append does not wait for the disk; a write error then fails the next append and `close()`. At most
 * {@link MAX_QUEUED_BYTES} wait in memory: beyond that, appends wait for the disk.
 *
 * `durable()` is the hold-until-durable rule's half here (docs/design.md §5): it resolves once every
 * line appended so far is on disk as the policy says — fsynced under `always` and `batch`, handed
 * to the OS under `never`. Callers waiting at the same time share one write and one fsync.
 */
import { type FileHandle, open, rename } from 'node:fs/promises';
import { type Clock, isoAt } from '../clock.js';
import { A2aReplayError } from '../errors.js';
import { writeAll } from '../recording/line-sink.js';
import { ReceiptChain, type SealedLine } from './chain.js';
import type { Keyring } from './keys.js';
import type { ResumptionDraft, ResumptionReceipt, SuspensionDraft, SuspensionReceipt } from './types.js';

export const FSYNC_POLICIES = ['always', 'batch', 'never'] as const;
export type FsyncPolicy = (typeof FSYNC_POLICIES)[number];
export const DEFAULT_FSYNC_EVERY = 64;
/** Queued bytes beyond which appends wait for the write in flight (backpressure). */
export const MAX_QUEUED_BYTES = 1 << 20;

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
   * rename; mode 0600) after each checkpoint is written and synced.
   */
  witness?: string;
}

/** What an append returns: the sealed receipt and its line hash (for `appendResumption`). */
export interface AppendResult<T> {
  receipt: T;
  hash: string;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Replaces `path` with one checkpoint line, atomically: a reader sees the old or the new one. */
async function writeWitness(path: string, text: string): Promise<void> {
  const temp = `${path}.tmp`;
  try {
    const file = await open(temp, 'w', 0o600);
    try {
      await file.write(`${text}\n`);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (cause) {
    throw new A2aReplayError('IO_FAILED', `cannot write the witness file ${path}: ${(cause as Error).message}`, {
      cause,
    });
  }
}

/** Receipt logs are readable by their owner only. */
export const RECEIPT_LOG_MODE = 0o600;

async function openPrivate(path: string, flags: 'w' | 'wx'): Promise<FileHandle> {
  const file = await open(path, flags, RECEIPT_LOG_MODE);
  try {
    await file.chmod(RECEIPT_LOG_MODE);
  } catch (error) {
    await file.close();
    throw error;
  }
  return file;
}

export class ReceiptLogWriter {
  readonly path: string;
  readonly chain: ReceiptChain;
  readonly #file: FileHandle;
  readonly #fsync: FsyncPolicy;
  readonly #fsyncEvery: number;
  #buffer: string[] = [];
  #bufferBytes = 0;
  #waiters: Waiter[] = [];
  /** `durable()` callers: resolved after the next write (and fsync, unless `never`). */
  #durableWaiters: Waiter[] = [];
  #bufferHasCheckpoint = false;
  /** The last checkpoint line in the buffer, for the witness file. */
  #bufferCheckpoint: string | null = null;
  #witness: string | undefined;
  #linesSinceSync = 0;
  #writing = false;
  #failure: A2aReplayError | null = null;
  #closing: Promise<void> | null = null;
  readonly #idle: (() => void)[] = [];

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
    });
    let file: FileHandle;
    try {
      file = await openPrivate(path, options.overwrite ? 'w' : 'wx');
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code ?? 'error';
      const why =
        code === 'EEXIST' ? 'it already exists (receipt logs are append-only; pass overwrite to replace it)' : code;
      throw new A2aReplayError('IO_FAILED', `cannot create receipt log ${path}: ${why}`, { cause });
    }
    const writer = new ReceiptLogWriter(path, file, chain, options.fsync ?? 'batch', fsyncEvery);
    writer.#witness = options.witness;
    await writer.#enqueue([chain.header]);
    return writer;
  }

  async appendSuspension(draft: SuspensionDraft): Promise<AppendResult<SuspensionReceipt>> {
    this.#assertOpen();
    const sealed = this.chain.sealSuspension(draft);
    await this.#enqueue(sealed.checkpoint ? [sealed.receipt, sealed.checkpoint] : [sealed.receipt]);
    return { receipt: sealed.receipt.line, hash: sealed.receipt.hash };
  }

  /** `suspensionHash`: the `hash` that `appendSuspension` returned for the pause this one closes. */
  async appendResumption(draft: ResumptionDraft, suspensionHash: string): Promise<AppendResult<ResumptionReceipt>> {
    this.#assertOpen();
    const sealed = this.chain.sealResumption(draft, suspensionHash);
    await this.#enqueue(sealed.checkpoint ? [sealed.receipt, sealed.checkpoint] : [sealed.receipt]);
    return { receipt: sealed.receipt.line, hash: sealed.receipt.hash };
  }

  /**
   * Resolves when every line appended so far is durable under the fsync policy (see the module
   * doc); rejects when the log cannot be written.
   */
  durable(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    const synced = this.#fsync === 'never' || this.#linesSinceSync === 0;
    if (!this.#writing && this.#buffer.length === 0 && synced) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => this.#durableWaiters.push({ resolve, reject }));
    if (!this.#writing) void this.#drain();
    return done;
  }

  /** Signs further receipts with another kid the header declares. */
  rotate(kid: string): void {
    this.#assertOpen();
    this.chain.rotate(kid);
  }

  /** Writes the closing checkpoint, syncs (unless `never`) and closes the file. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    try {
      await this.#settled();
      const last = this.#failure ? null : this.chain.close();
      if (last) await this.#enqueue([last]);
      await this.#settled();
      if (this.#fsync !== 'never' && this.#linesSinceSync > 0 && !this.#failure) await this.#file.datasync();
    } finally {
      await this.#file.close();
    }
    if (this.#failure) throw this.#failure;
  }

  #assertOpen(): void {
    if (this.#failure) throw this.#failure;
    if (this.#closing) throw new A2aReplayError('IO_FAILED', `receipt log ${this.path} is closed`);
  }

  #enqueue(lines: SealedLine[]): Promise<void> {
    for (const line of lines) {
      this.#buffer.push(`${line.text}\n`);
      this.#bufferBytes += line.text.length + 1;
      if (line.line.type === 'Checkpoint') {
        this.#bufferHasCheckpoint = true;
        this.#bufferCheckpoint = line.text;
      }
    }
    const durable = this.#fsync === 'always' || this.#bufferBytes > MAX_QUEUED_BYTES || this.#closing !== null;
    const done = durable
      ? new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }))
      : Promise.resolve();
    if (!this.#writing) void this.#drain();
    return done;
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#buffer.length > 0 || this.#durableWaiters.length > 0) {
      const text = this.#buffer.join('');
      const count = this.#buffer.length;
      const waiters = [...this.#waiters, ...this.#durableWaiters];
      const wantsSync = this.#durableWaiters.length > 0 && this.#fsync !== 'never';
      const checkpoint = this.#bufferHasCheckpoint;
      const witnessed = this.#bufferCheckpoint;
      this.#bufferCheckpoint = null;
      this.#buffer = [];
      this.#bufferBytes = 0;
      this.#waiters = [];
      this.#durableWaiters = [];
      this.#bufferHasCheckpoint = false;
      try {
        if (this.#failure) throw this.#failure;
        // A synchronous write: the lines are small and go to the page cache, where a thread-pool
        // write costs more CPU than the copy; only the sync waits for the disk.
        if (count > 0) writeAll(this.#file.fd, text);
        this.#linesSinceSync += count;
        if ((wantsSync && this.#linesSinceSync > 0) || this.#syncDue(checkpoint)) {
          // fdatasync: the appended bytes and the size that reaches them (docs/design.md §5).
          await this.#file.datasync();
          this.#linesSinceSync = 0;
        }
        if (witnessed !== null && this.#witness !== undefined) await writeWitness(this.#witness, witnessed);
        for (const w of waiters) w.resolve();
      } catch (cause) {
        this.#failure ??=
          cause instanceof A2aReplayError
            ? cause
            : new A2aReplayError('IO_FAILED', `cannot write receipt log ${this.path}: ${(cause as Error).message}`, {
                cause,
              });
        for (const w of waiters) w.reject(this.#failure);
      }
    }
    this.#writing = false;
    for (const w of this.#idle.splice(0)) w();
  }

  /** Resolves when nothing is queued or being written. */
  #settled(): Promise<void> {
    return this.#writing || this.#buffer.length > 0
      ? new Promise<void>((resolve) => this.#idle.push(resolve))
      : Promise.resolve();
  }

  #syncDue(checkpoint: boolean): boolean {
    switch (this.#fsync) {
      case 'always':
        return true;
      case 'batch':
        return checkpoint || this.#linesSinceSync >= this.#fsyncEvery;
      case 'never':
        return false;
      default: {
        const never: never = this.#fsync;
        throw new Error(`unhandled fsync policy ${String(never)}`);
      }
    }
  }
}
