/**
 * @module receipts/verify-worker
 * A worker thread of `verify --jobs N` (docs/design.md §6): examines batches of log lines (shape,
 * canonical form, signature, hash; examine-line.ts) and answers with what the in-order checks
 * need, stopping a batch at its first bad line. The keys come in `workerData`, never by file or
 * argument. The main thread checks sequence, chain and checkpoints in order (verify-jobs.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type Examined, examineLine } from './examine-line.js';
import { Keyring, readKeyFile } from './keys.js';

/** What the main thread hands a worker when it starts it. */
export interface VerifyWorkerData {
  /** Key files and public key files (parsed JSON); halves of one kid are merged. */
  keys: unknown[];
  /** Send each line's parsed value back (for `onLine`). */
  keepLines: boolean;
}

/** One batch: consecutive lines from `first`, each complete but perhaps the last. */
export interface VerifyBatch {
  id: number;
  first: number;
  texts: string[];
  lastComplete: boolean;
}

export interface VerifyBatchAnswer {
  id: number;
  results: Examined[];
}

const data = workerData as VerifyWorkerData;
const keyring = new Keyring(data.keys.map((key, i) => readKeyFile(key, `key ${i + 1} given to the verify worker`)));

parentPort?.on('message', (batch: VerifyBatch) => {
  const results: Examined[] = [];
  const last = batch.texts.length - 1;
  for (let i = 0; i <= last; i++) {
    const complete = i < last || batch.lastComplete;
    const examined = examineLine(
      { number: batch.first + i, text: batch.texts[i]!, problem: null, complete },
      keyring,
      data.keepLines,
    );
    results.push(examined);
    if (!examined.ok) break;
  }
  const answer: VerifyBatchAnswer = { id: batch.id, results };
  parentPort?.postMessage(answer);
});
