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
  // ignoreBOM keeps a U+FEFF in the text: a line with bytes put in front of it is not that line.
  readonly #decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
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
    try {
      return { number, text: this.#decoder.decode(bytes), problem: null, complete };
    } catch {
      return { number, text: null, problem: 'not valid UTF-8', complete };
    }
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

const blockDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The lines of a block, as {@link LineSplitter.push} gives them. The block is decoded at once
 * and split on its newlines when it is valid UTF-8 (then so is each line, as a newline byte is
 * never part of a longer character; a byte order mark stays in the text, as in the splitter);
 * otherwise line by line, as the splitter would.
 */
export function splitBlock(block: LineBlock, maxLineBytes = MAX_LINE_BYTES): RawLine[] {
  const { first, bytes } = block;
  let text: string | null = null;
  try {
    text = blockDecoder.decode(bytes);
  } catch {
    // Some line is not UTF-8: line by line below.
  }
  if (text === null) {
    return new LineSplitter(maxLineBytes, first - 1).push(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    );
  }
  const texts = text.split('\n');
  texts.pop();
  // Only when the block is longer than a line may be can one of its lines be too long.
  const measure = bytes.byteLength - texts.length > maxLineBytes;
  return texts.map((line, i): RawLine => {
    if (measure && Buffer.byteLength(line, 'utf8') > maxLineBytes)
      return { number: first + i, text: null, problem: `longer than ${maxLineBytes} bytes`, complete: true };
    return { number: first + i, text: line, problem: null, complete: true };
  });
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
