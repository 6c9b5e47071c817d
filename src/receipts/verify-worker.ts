/**
 * @module receipts/verify-worker
 * A worker thread of `verify --jobs N` (docs/design.md §6): takes blocks of a log's bytes
 * (transferred, not copied), decodes and splits them into lines, examines each (shape, canonical
 * form, signature, hash; examine-line.ts) and answers with what the in-order checks need, packed,
 * stopping a block at its first bad line. The keys come in `workerData`, never by file or
 * argument. The main thread checks sequence, chain and checkpoints in order (verify-jobs.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { examineLine, packExamined } from './examine-line.js';
import { Keyring, readKeyFile } from './keys.js';
import { type LineBlock, splitBlock } from './log-reader.js';
import type { ReceiptLogLine } from './types.js';
import type { VerifyFailure } from './verify.js';

/** What the main thread hands a worker when it starts it. */
export interface VerifyWorkerData {
  /** Key files and public key files (parsed JSON); halves of one kid are merged. */
  keys: unknown[];
  /** Send each line's parsed value back (for `onLine`). */
  keepLines: boolean;
}

/** One block of complete lines; its bytes are transferred. */
export interface VerifyBatch {
  id: number;
  block: LineBlock;
}

/**
 * The block's lines that passed, packed (`packExamined`), with their parsed values when kept;
 * then the first bad line, if any (the lines after it are not examined).
 */
export interface VerifyBatchAnswer {
  id: number;
  packed: unknown[];
  lines: ReceiptLogLine[] | null;
  failure: VerifyFailure | null;
}

const data = workerData as VerifyWorkerData;
const keyring = new Keyring(data.keys.map((key, i) => readKeyFile(key, `key ${i + 1} given to the verify worker`)));

parentPort?.on('message', (batch: VerifyBatch) => {
  const packed: unknown[] = [];
  const lines: ReceiptLogLine[] | null = data.keepLines ? [] : null;
  let failure: VerifyFailure | null = null;
  for (const raw of splitBlock(batch.block)) {
    const examined = examineLine(raw, keyring, data.keepLines);
    if (!examined.ok) {
      failure = examined.failure;
      break;
    }
    packExamined(examined, packed);
    lines?.push(examined.line!);
  }
  const answer: VerifyBatchAnswer = { id: batch.id, packed, lines, failure };
  parentPort?.postMessage(answer);
});
