/**
 * @module receipts/verify-worker
 * A worker thread of `verify --jobs N` (docs/design.md §6): takes blocks of a log's bytes
 * (transferred, not copied), decodes and splits them into lines, examines each (shape, canonical
 * form, signature, hash; examine-line.ts) and answers with what the in-order checks need, packed,
 * stopping a block at its first bad line. The keys come in `workerData`, never by file or
 * argument. The main thread checks sequence, chain and checkpoints in order (verify-jobs.ts).
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { type BlockAnswer, examineBlock } from './examine-line.js';
import { Keyring, readKeyFile } from './keys.js';
import type { LineBlock } from './log-reader.js';

/** What the main thread hands a worker when it starts it. */
export interface VerifyWorkerData {
  /** Key files and public key files (parsed JSON); halves of one kid are merged. */
  keys: unknown[];
  /** Send each line's parsed value back (for `onLine`). */
  keepLines: boolean;
  answers: MessagePort;
}

/** One block of complete lines; its bytes are transferred. */
export interface VerifyBatch {
  id: number;
  block: LineBlock;
}

/** A worker's first message: it has loaded and takes blocks from now on. */
export interface VerifyWorkerReady {
  ready: true;
}

/** The block's answer (`examineBlock`). */
export type VerifyBatchAnswer = BlockAnswer & { id: number };

const data = workerData as VerifyWorkerData;
const keyring = new Keyring(data.keys.map((key, i) => readKeyFile(key, `key ${i + 1} given to the verify worker`)));

parentPort?.on('message', (batch: VerifyBatch) => {
  const answer: VerifyBatchAnswer = { id: batch.id, ...examineBlock(batch.block, keyring, data.keepLines) };
  data.answers.postMessage(answer);
});
data.answers.postMessage({ ready: true } satisfies VerifyWorkerReady);
