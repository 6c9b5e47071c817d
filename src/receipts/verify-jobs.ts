/**
 * @module receipts/verify-jobs
 * `verify --jobs N` (docs/design.md §6): N worker threads examine batches of lines (shape,
 * canonical form, signatures, hashes) while this thread feeds them in file order and checks the
 * sequence, hash chain, checkpoints and suspensions of their answers in that order — so the first
 * bad line and its reason are those a single thread finds. At most {@link IN_FLIGHT_PER_JOB}
 * batches per worker are out at once, and reading waits for the oldest answer beyond that: memory
 * stays flat however long the log.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { A2aReplayError } from '../errors.js';
import { type Examined, examineLine } from './examine-line.js';
import type { Keyring } from './keys.js';
import { type RawLine, readLogChunks } from './log-reader.js';
import type { VerifyBatch, VerifyBatchAnswer, VerifyWorkerData } from './verify-worker.js';
import type { ReceiptLogVerifier, VerifyResult } from './verify.js';

/** Lines per batch, and text per batch, whichever fills first. */
export const BATCH_LINES = 512;
export const BATCH_CHARS = 1 << 19;
/** Batches each worker may hold at once. */
export const IN_FLIGHT_PER_JOB = 3;

interface TsxManifest {
  exports: { './esm/api': { import: { default: string } } };
}

/**
 * The compiled worker beside this module; when running from the TypeScript sources (tsx, vitest),
 * a bootstrap that registers tsx in the worker and then imports the `.ts` worker.
 */
function workerEntry(): { script: URL | string; eval: boolean } {
  const js = new URL('./verify-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(js))) return { script: js, eval: false };
  // tsx's ESM API (its `import` export; `require.resolve` would give the CommonJS one).
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as TsxManifest).exports['./esm/api'].import.default;
  const tsx = new URL(exports, pathToFileURL(manifest)).href;
  const ts = new URL('./verify-worker.ts', import.meta.url).href;
  const script =
    `import(${JSON.stringify(tsx)})` + `.then((api) => { api.register(); return import(${JSON.stringify(ts)}); });`;
  return { script, eval: true };
}

/** Every key of the keyring as key files: the secret half and the public half of each kid. */
function keyFiles(keyring: Keyring): unknown[] {
  const files: unknown[] = [];
  for (const kid of keyring.kids) {
    const key = keyring.get(kid)!;
    if (key.hasHmac) files.push(key.keyFile());
    const pub = key.publicKeyFile();
    if (pub) files.push(pub);
  }
  return files;
}

interface Pending {
  first: number;
  answer: Promise<Examined[]>;
}

class WorkerPool {
  readonly #workers: Worker[];
  readonly #waiting = new Map<number, { resolve: (r: Examined[]) => void; reject: (e: unknown) => void }>();
  #next = 0;
  #id = 0;
  #failure: A2aReplayError | null = null;

  constructor(jobs: number, data: VerifyWorkerData) {
    const entry = workerEntry();
    this.#workers = Array.from({ length: jobs }, () => {
      const worker = new Worker(entry.script, { workerData: data, eval: entry.eval });
      worker.on('message', (answer: VerifyBatchAnswer) => {
        const waiter = this.#waiting.get(answer.id);
        this.#waiting.delete(answer.id);
        waiter?.resolve(answer.results);
      });
      worker.on('error', (error) => this.#fail(error));
      worker.on('exit', (code) => {
        if (code !== 0) this.#fail(new Error(`a verify worker exited with code ${code}`));
      });
      return worker;
    });
  }

  /** Hands a batch to the next worker in turn. */
  examine(first: number, texts: string[], lastComplete: boolean): Promise<Examined[]> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#id++;
    const answer = new Promise<Examined[]>((resolve, reject) => this.#waiting.set(id, { resolve, reject }));
    const batch: VerifyBatch = { id, first, texts, lastComplete };
    this.#workers[this.#next]!.postMessage(batch);
    this.#next = (this.#next + 1) % this.#workers.length;
    return answer;
  }

  async close(): Promise<void> {
    for (const worker of this.#workers) worker.removeAllListeners('exit');
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

/** Verifies `path` with `jobs` worker threads; `verifier` is fresh and did not fail yet. */
export async function verifyWithWorkers(
  path: string,
  verifier: ReceiptLogVerifier,
  keyring: Keyring,
  jobs: number,
): Promise<VerifyResult> {
  const pool = new WorkerPool(jobs, { keys: keyFiles(keyring), keepLines: verifier.wantsLines });
  const pending: Pending[] = [];
  let stopped = false;
  /** Accepts the oldest batch's answers in order; false once a line failed. */
  const settleOldest = async (): Promise<boolean> => {
    const { first, answer } = pending.shift()!;
    const results = await answer;
    for (let i = 0; i < results.length; i++) if (!verifier.accept(first + i, results[i]!)) return false;
    return true;
  };
  let texts: string[] = [];
  let chars = 0;
  let first = 0;
  const flush = (lastComplete: boolean): void => {
    if (texts.length === 0) return;
    pending.push({ first, answer: pool.examine(first, texts, lastComplete) });
    texts = [];
    chars = 0;
  };
  /** An unreadable line needs no worker: examined here, in its place in the order. */
  const local = (raw: RawLine): void => {
    flush(true);
    pending.push({ first: raw.number, answer: Promise.resolve([examineLine(raw, keyring, false)]) });
  };
  try {
    reading: for await (const lines of readLogChunks(path)) {
      for (const raw of lines) {
        if (raw.text === null) local(raw);
        else {
          if (texts.length === 0) first = raw.number;
          texts.push(raw.text);
          chars += raw.text.length;
          if (!raw.complete) flush(false);
          else if (texts.length >= BATCH_LINES || chars >= BATCH_CHARS) flush(true);
        }
        while (pending.length >= jobs * IN_FLIGHT_PER_JOB) {
          if (!(await settleOldest())) {
            stopped = true;
            break reading;
          }
        }
      }
    }
    if (!stopped) {
      flush(true);
      while (pending.length > 0) if (!(await settleOldest())) break;
    }
  } finally {
    // Answers still out are dropped; their batches come after the first failure.
    for (const p of pending) p.answer.catch(() => undefined);
    await pool.close();
  }
  return verifier.finish();
}
