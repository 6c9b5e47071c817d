/**
 * @module receipts/verify-jobs
 * `verify --jobs N` (docs/design.md §6): this thread reads the log and hands each chunk's complete
 * lines, as undecoded bytes (transferred, not copied), to the least busy of N - 1 worker threads,
 * or examines them itself when every worker already has {@link IN_FLIGHT_PER_WORKER} blocks (so
 * this thread, which also reads and checks the order, takes less of the examining as it has more
 * else to do); each examiner decodes, splits and examines its blocks' lines (shape, canonical
 * form, signatures, hashes) into a few packed values per line, which this thread checks in file
 * order (sequence, hash chain, checkpoints, suspensions) — so the first bad line and its reason
 * are those a single thread finds. At most {@link IN_FLIGHT_PER_JOB} blocks per thread are out at
 * once, and reading waits for the oldest answer beyond that: memory stays flat however long the log.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, Worker, receiveMessageOnPort } from 'node:worker_threads';
import { A2aReplayError } from '../errors.js';
import { type BlockAnswer, type Examined, examineBlock, examineLine, unpackExamined } from './examine-line.js';
import type { Keyring } from './keys.js';
import { type LineBlock, type RawLine, readLogBlocks } from './log-reader.js';
import type { VerifyBatch, VerifyBatchAnswer, VerifyWorkerData, VerifyWorkerReady } from './verify-worker.js';

/** Bytes read at a time: each read's complete lines are one block for a worker. */
export const BLOCK_BYTES = 1 << 18;
/**
 * Below this size a log is verified on one thread by default (the CLI without `--jobs`): starting
 * workers costs about as much as checking this many bytes' lines would gain (bench/README.md).
 */
export const WORKERS_FROM_BYTES = 4 << 20;

/** `verify`'s default number of threads for a log of `size` bytes with `cores` available. */
export function defaultVerifyJobs(size: number, cores: number): number {
  return size < WORKERS_FROM_BYTES ? 1 : cores;
}

/** Blocks out at once, per examining thread. */
export const IN_FLIGHT_PER_JOB = 4;
/** Blocks a worker holds (examining one, the rest queued) before this thread examines the next itself. */
export const IN_FLIGHT_PER_WORKER = 4;

/**
 * The compiled worker beside this module (dist/src/receipts/verify-worker.js). Worker threads run
 * the built package only: from the TypeScript sources there is no `.js` worker to start, and the
 * caller is told so instead of a loader being set up in production code.
 */
function workerScript(): URL {
  const js = new URL('./verify-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(js))) return js;
  throw new A2aReplayError(
    'INVALID_ARGUMENT',
    `jobs: worker threads need the built verify worker ${fileURLToPath(js)}, which is missing ` +
      '(running from the TypeScript sources?); use jobs: 1 or the built package',
  );
}

/**
 * What checking needs of each key, as key files: the HMAC secret and the Ed25519 public key. The
 * Ed25519 secret stays here (a worker never signs), and a worker need not check it against the
 * public key again, which costs each worker tens of milliseconds at start-up.
 */
function keyFiles(keyring: Keyring): unknown[] {
  const files: unknown[] = [];
  for (const kid of keyring.kids) {
    const key = keyring.get(kid)!;
    if (key.hasHmac) files.push({ ...key.keyFile(), ed25519: null });
    const pub = key.publicKeyFile();
    if (pub) files.push(pub);
  }
  return files;
}

class WorkerPool {
  readonly #workers: Worker[];
  /** Where each worker answers: read as messages arrive and, before a block is handed out, at once. */
  readonly #answers: MessagePort[];
  readonly #waiting = new Map<number, { resolve: (r: VerifyBatchAnswer) => void; reject: (e: unknown) => void }>();
  /** Blocks handed to each worker and not answered yet. */
  readonly #held: number[];
  /**
   * Whether each worker has loaded and said so: until then it gets no block, and this thread
   * examines the blocks itself instead of waiting behind a worker still starting (about 0.1 s).
   */
  readonly #ready: boolean[];
  #id = 0;
  #failure: A2aReplayError | null = null;

  constructor(jobs: number, data: Omit<VerifyWorkerData, 'answers'>) {
    const script = workerScript();
    this.#held = Array.from({ length: jobs }, () => 0);
    this.#ready = Array.from({ length: jobs }, () => false);
    this.#answers = [];
    this.#workers = Array.from({ length: jobs }, (_, index) => {
      const { port1, port2 } = new MessageChannel();
      port1.on('message', (answer: VerifyBatchAnswer | VerifyWorkerReady) => this.#answered(index, answer));
      this.#answers.push(port1);
      const workerData: VerifyWorkerData = { ...data, answers: port2 };
      const worker = new Worker(script, { workerData, transferList: [port2] });
      worker.on('error', (error) => this.#fail(error));
      worker.on('exit', (code) => {
        if (code !== 0) this.#fail(new Error(`a verify worker exited with code ${code}`));
      });
      return worker;
    });
  }

  /**
   * Hands a block to the ready worker holding fewest (its bytes move to the worker), or null when
   * none is ready or each holds {@link IN_FLIGHT_PER_WORKER} already. Answers that arrived while
   * this thread was busy are taken first, so a worker that finished is seen as free.
   */
  examine(block: LineBlock): Promise<VerifyBatchAnswer> | null {
    if (this.#failure) return Promise.reject(this.#failure);
    let least = -1;
    for (let i = 0; i < this.#held.length; i++) {
      for (let got = receiveMessageOnPort(this.#answers[i]!); got; got = receiveMessageOnPort(this.#answers[i]!))
        this.#answered(i, got.message as VerifyBatchAnswer | VerifyWorkerReady);
      if (!this.#ready[i]) continue;
      if (this.#held[i]! < IN_FLIGHT_PER_WORKER && (least === -1 || this.#held[i]! < this.#held[least]!)) least = i;
    }
    if (least === -1) return null;
    const id = this.#id++;
    const answer = new Promise<VerifyBatchAnswer>((resolve, reject) => this.#waiting.set(id, { resolve, reject }));
    const batch: VerifyBatch = { id, block };
    this.#workers[least]!.postMessage(batch, [block.bytes.buffer as ArrayBuffer]);
    this.#held[least]!++;
    return answer;
  }

  #answered(worker: number, answer: VerifyBatchAnswer | VerifyWorkerReady): void {
    if ('ready' in answer) {
      this.#ready[worker] = true;
      return;
    }
    this.#held[worker]!--;
    const waiter = this.#waiting.get(answer.id);
    this.#waiting.delete(answer.id);
    waiter?.resolve(answer);
  }

  async close(): Promise<void> {
    for (const worker of this.#workers) worker.removeAllListeners('exit');
    for (const port of this.#answers) port.close();
    await Promise.all(this.#workers.map((w) => w.terminate()));
  }

  #fail(error: unknown): void {
    this.#failure ??= new A2aReplayError('IO_FAILED', `a verify worker failed: ${(error as Error).message}`, {
      cause: error,
    });
    for (const waiter of this.#waiting.values()) waiter.reject(this.#failure);
    this.#waiting.clear();
  }
}

/** A block's answer, or a line examined here. */
type Pending = { first: number; answer: Promise<BlockAnswer> } | { raw: RawLine };

/** What {@link verifyWithWorkers} hands examined lines to: the `ReceiptLogVerifier` of receipts/verify.ts. */
export interface LineVerifier<R> {
  readonly wantsLines: boolean;
  /** Takes line `number` as examined; false once verification failed. */
  accept(number: number, examined: Examined): boolean;
  finish(): R;
}

/** Verifies `path` on `jobs` threads (this one and `jobs - 1` workers); `verifier` is fresh and did not fail yet. */
export async function verifyWithWorkers<R>(
  path: string,
  verifier: LineVerifier<R>,
  keyring: Keyring,
  jobs: number,
): Promise<R> {
  const keepLines = verifier.wantsLines;
  // N threads examine with N - 1 workers: this one takes a block when every worker is full.
  const pool = new WorkerPool(jobs - 1, { keys: keyFiles(keyring), keepLines });
  const examine = (block: LineBlock): Promise<BlockAnswer> =>
    pool.examine(block) ?? Promise.resolve(examineBlock(block, keyring, keepLines));
  const pending: Pending[] = [];
  let stopped = false;
  /** Accepts the oldest block's answers in order; false once a line failed. */
  const settleOldest = async (): Promise<boolean> => {
    const oldest = pending.shift()!;
    // A line that needs no worker (too long, torn) is examined here, in its place in the order.
    if ('raw' in oldest) return verifier.accept(oldest.raw.number, examineLine(oldest.raw, keyring, keepLines));
    const { packed, lines, failure } = await oldest.answer;
    let n = oldest.first;
    const passed = unpackExamined(packed, (examined) => {
      if (lines) examined.line = lines[n - oldest.first]!;
      return verifier.accept(n++, examined);
    });
    return passed && (failure === null || verifier.accept(failure.line, { ok: false, failure }));
  };
  try {
    reading: for await (const items of readLogBlocks(path, { highWaterMark: BLOCK_BYTES })) {
      for (const item of items) {
        pending.push('bytes' in item ? { first: item.first, answer: examine(item) } : { raw: item });
        while (pending.length >= jobs * IN_FLIGHT_PER_JOB) {
          if (!(await settleOldest())) {
            stopped = true;
            break reading;
          }
        }
      }
    }
    if (!stopped) while (pending.length > 0) if (!(await settleOldest())) break;
  } finally {
    // Answers still out are dropped; their blocks come after the first failure.
    for (const p of pending) if ('answer' in p) p.answer.catch(() => undefined);
    await pool.close();
  }
  return verifier.finish();
}
