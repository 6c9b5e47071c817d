/**
 * @module receipts/log-reader
 * Splits a receipt log into lines in constant memory: a stream is read chunk by chunk, each line
 * is decoded as strict UTF-8, over-long lines are cut off instead of buffered, and a last line
 * without its newline is marked incomplete so verification can tell a crash (torn tail) from
 * tampering.
 */
import { createReadStream } from 'node:fs';

/** Longest line accepted (bytes, without the newline); longer lines are reported, not buffered. */
export const MAX_LINE_BYTES = 1 << 20;

/** One line of a log: `text` is null when the bytes are not a readable line (`problem` says why). */
export interface RawLine {
  /** 1-based line number. */
  number: number;
  text: string | null;
  problem: string | null;
  /** False for a last line that has no trailing newline. */
  complete: boolean;
}

const NEWLINE = 0x0a;

/** Incremental splitter: feed chunks, get lines; `end()` yields the final fragment, if any. */
export class LineSplitter {
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  readonly #maxBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #tooLong = false;
  #number = 0;

  constructor(maxLineBytes = MAX_LINE_BYTES) {
    this.#maxBytes = maxLineBytes;
  }

  /** Lines completed by `chunk`. */
  push(chunk: Buffer): RawLine[] {
    const out: RawLine[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) break;
      out.push(this.#finish(chunk.subarray(start, nl), true));
      start = nl + 1;
    }
    if (start < chunk.length) this.#hold(chunk.subarray(start));
    return out;
  }

  /** The last line when the input did not end with a newline, else null. */
  end(): RawLine | null {
    if (this.#pendingBytes === 0 && !this.#tooLong) return null;
    return this.#finish(Buffer.alloc(0), false);
  }

  #hold(bytes: Buffer): void {
    if (this.#tooLong) return;
    if (this.#pendingBytes + bytes.length > this.#maxBytes) {
      this.#tooLong = true;
      this.#pending = [];
      this.#pendingBytes = 0;
      return;
    }
    // Copy: the caller may reuse the chunk's memory.
    this.#pending.push(Buffer.from(bytes));
    this.#pendingBytes += bytes.length;
  }

  #finish(tail: Buffer, complete: boolean): RawLine {
    const number = ++this.#number;
    const tooLong = this.#tooLong || this.#pendingBytes + tail.length > this.#maxBytes;
    const bytes = this.#pending.length === 0 ? tail : Buffer.concat([...this.#pending, tail]);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#tooLong = false;
    if (tooLong) return { number, text: null, problem: `longer than ${this.#maxBytes} bytes`, complete };
    try {
      return { number, text: this.#decoder.decode(bytes), problem: null, complete };
    } catch {
      return { number, text: null, problem: 'not valid UTF-8', complete };
    }
  }
}

/**
 * Lines of a file, streamed (constant memory), a chunk's worth at a time: cheaper than
 * {@link readLogLines} for a caller that handles many lines per step.
 */
export async function* readLogChunks(
  path: string,
  options: { maxLineBytes?: number; highWaterMark?: number } = {},
): AsyncGenerator<RawLine[]> {
  const splitter = new LineSplitter(options.maxLineBytes);
  // Larger reads than readLogLines': fewer calls into the file system for the same flat memory.
  const stream = createReadStream(path, { highWaterMark: options.highWaterMark ?? 1 << 18 });
  try {
    for await (const chunk of stream) yield splitter.push(chunk as Buffer);
  } finally {
    stream.destroy();
  }
  const last = splitter.end();
  if (last) yield [last];
}

/** Lines of a file, streamed (constant memory). */
export async function* readLogLines(
  path: string,
  options: { maxLineBytes?: number; highWaterMark?: number } = {},
): AsyncGenerator<RawLine> {
  const splitter = new LineSplitter(options.maxLineBytes);
  const stream = createReadStream(path, { highWaterMark: options.highWaterMark ?? 1 << 16 });
  for await (const chunk of stream) yield* splitter.push(chunk as Buffer);
  const last = splitter.end();
  if (last) yield last;
}

/** Lines of bytes already in memory (same rules as {@link readLogLines}). */
export function splitLogBytes(bytes: Uint8Array, maxLineBytes?: number): RawLine[] {
  const splitter = new LineSplitter(maxLineBytes);
  const lines = splitter.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const last = splitter.end();
  if (last) lines.push(last);
  return lines;
}
