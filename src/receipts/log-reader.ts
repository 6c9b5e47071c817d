/**
 * @module receipts/log-reader
 * Splits a receipt log into lines in constant memory: a stream is read chunk by chunk, each line
 * is decoded as strict UTF-8, over-long lines are cut off instead of buffered, and a last line
 * without its newline is marked incomplete so verification can tell a crash (torn tail) from
 * tampering.
 */
import { isUtf8 } from 'node:buffer';
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
/**
 * The text of `bytes` when they are valid UTF-8, else null. A byte order mark stays in the text
 * (a line with bytes put in front of it is not that line): what a fatal `TextDecoder` with
 * `ignoreBOM` gives, checked by simdutf and decoded by `Buffer`, several times faster.
 */
function strictUtf8(bytes: Buffer): string | null {
  return isUtf8(bytes) ? bytes.toString('utf8') : null;
}

export class LineSplitter {
  readonly #maxBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #tooLong = false;
  #number: number;

  /** `before`: lines before the first one this splitter sees (its first line is `before + 1`). */
  constructor(maxLineBytes = MAX_LINE_BYTES, before = 0) {
    this.#maxBytes = maxLineBytes;
    this.#number = before;
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

  /**
   * Like {@link push}, but the complete lines that end in `chunk` come as one {@link LineBlock} of
   * their bytes, undecoded, to be split by {@link splitBlock} (on a worker thread, for `verify
   * --jobs`): the same lines, numbers and problems. A line already too long comes as a line.
   */
  pushBlock(chunk: Buffer): (RawLine | LineBlock)[] {
    const firstNewline = chunk.indexOf(NEWLINE);
    if (firstNewline === -1) {
      this.#hold(chunk);
      return [];
    }
    const out: (RawLine | LineBlock)[] = [];
    let start = 0;
    if (this.#tooLong || this.#pendingBytes + firstNewline > this.#maxBytes) {
      out.push(this.#finish(chunk.subarray(0, firstNewline), true));
      start = firstNewline + 1;
    }
    const end = chunk.lastIndexOf(NEWLINE) + 1;
    if (end > start) {
      let count = 0;
      for (let at = chunk.indexOf(NEWLINE, start); at !== -1 && at < end; at = chunk.indexOf(NEWLINE, at + 1)) count++;
      // A buffer of its own, so that it can be transferred rather than copied to a worker.
      const bytes = new Uint8Array(this.#pendingBytes + end - start);
      let offset = 0;
      for (const piece of this.#pending) {
        bytes.set(piece, offset);
        offset += piece.length;
      }
      bytes.set(chunk.subarray(start, end), offset);
      out.push({ first: this.#number + 1, count, bytes });
      this.#number += count;
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    if (end < chunk.length) this.#hold(chunk.subarray(end));
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
    const text = strictUtf8(bytes);
    return text === null
      ? { number, text: null, problem: 'not valid UTF-8', complete }
      : { number, text, problem: null, complete };
  }
}

/**
 * Complete lines `first` to `first + count - 1`, undecoded: the bytes end with the last one's
 * newline, and no line in them was found too long yet (see {@link LineSplitter.pushBlock}).
 */
export interface LineBlock {
  first: number;
  count: number;
  bytes: Uint8Array;
}

/**
 * The lines of a block, as {@link LineSplitter.push} gives them: when the block is valid UTF-8
 * (then so is each line, as a newline byte is never part of a longer character), each line is
 * decoded on its own from the block's bytes (a large string split into slices costs several
 * times more); otherwise line by line, as the splitter would.
 */
export function splitBlock(block: LineBlock, maxLineBytes = MAX_LINE_BYTES): RawLine[] {
  const { first } = block;
  const bytes = Buffer.from(block.bytes.buffer, block.bytes.byteOffset, block.bytes.byteLength);
  if (!isUtf8(bytes)) return new LineSplitter(maxLineBytes, first - 1).push(bytes);
  const lines: RawLine[] = [];
  for (let start = 0, number = first; start < bytes.length; number++) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end === -1) end = bytes.length;
    lines.push(
      end - start > maxLineBytes
        ? { number, text: null, problem: `longer than ${maxLineBytes} bytes`, complete: true }
        : { number, text: bytes.toString('utf8', start, end), problem: null, complete: true },
    );
    start = end + 1;
  }
  return lines;
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

/** {@link readLogChunks} with the complete lines of each chunk undecoded, as a {@link LineBlock}. */
export async function* readLogBlocks(
  path: string,
  options: { maxLineBytes?: number; highWaterMark?: number } = {},
): AsyncGenerator<(RawLine | LineBlock)[]> {
  const splitter = new LineSplitter(options.maxLineBytes);
  const stream = createReadStream(path, { highWaterMark: options.highWaterMark ?? 1 << 18 });
  try {
    for await (const chunk of stream) yield splitter.pushBlock(chunk as Buffer);
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
