/**
 * @module recording/line-sink
 * Where serialized lines go: a file (appended in order, one write per batch) or memory (tests).
 */
import fs, { writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { openOutputFile } from '../output-file.js';

/**
 * fdatasync of `fd` through the callback API: one request to the thread pool and one callback,
 * where `FileHandle.datasync()` allocates a promise chain around the same request. `done` gets
 * the error, or null. (Called as `fs.fdatasync`, so a test may gate every sync the process makes.)
 */
export function datasyncFd(fd: number, done: (error: NodeJS.ErrnoException | null) => void): void {
  fs.fdatasync(fd, done);
}

/** {@link datasyncFd} as a promise, for the paths that await it (a sink's `sync`, a log's close). */
export function datasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => datasyncFd(fd, (error) => (error ? reject(error) : resolve())));
}

/** A UTF-16 code unit takes at most 3 bytes of UTF-8 (a surrogate pair 4 for two units). */
const UTF8_BYTES_PER_UNIT = 3;
/** The scratch buffer an encoder starts with, and the largest one it keeps between batches. */
const SCRATCH_START = 64 * 1024;
const SCRATCH_KEPT = 4 * 1024 * 1024;
/** Lines are joined in runs of up to this many UTF-16 code units before they are encoded. */
const JOIN_UNITS = 16 * 1024;

/**
 * Lines encoded as UTF-8 into one reused buffer, the same bytes as `Buffer.from(lines.join(''))`
 * without making either: a joined batch of large lines is a string V8 allocates outside its young
 * generation, and a fresh buffer per write costs more than the encoding (bench/README.md). The
 * bytes returned are valid until the next `encode`. A batch larger than {@link SCRATCH_KEPT} gets
 * a buffer of its own, so one huge body does not keep memory for the process's life. Lines are
 * whole lines (each ends with its newline): a surrogate pair split between two of them would be
 * written as two U+FFFD, where the joined string holds the pair.
 */
export class LineEncoder {
  #scratch: Buffer | undefined;

  encode(lines: readonly string[]): Buffer {
    let units = 0;
    for (const line of lines) units += line.length;
    let scratch = this.#scratch;
    if (scratch === undefined || units * UTF8_BYTES_PER_UNIT > scratch.length) {
      let bytes = 0;
      for (const line of lines) bytes += Buffer.byteLength(line, 'utf8');
      if (scratch === undefined || bytes > scratch.length) {
        const doubled = Math.min(2 * (scratch?.length ?? 0), SCRATCH_KEPT);
        scratch = Buffer.allocUnsafeSlow(Math.max(SCRATCH_START, bytes, doubled));
        if (scratch.length <= SCRATCH_KEPT) this.#scratch = scratch;
      }
    }
    // Runs of short lines are joined first (one call into the runtime for many lines); a run
    // stays below JOIN_UNITS, a string V8 keeps in its young generation.
    let at = 0;
    let start = 0;
    let run = 0;
    for (let i = 0; i < lines.length; i++) {
      const length = (lines[i] as string).length;
      if (run + length > JOIN_UNITS && i > start) {
        at += scratch.write(joined(lines, start, i), at, 'utf8');
        start = i;
        run = 0;
      }
      run += length;
    }
    if (start < lines.length) at += scratch.write(joined(lines, start, lines.length), at, 'utf8');
    return scratch.subarray(0, at);
  }
}

/** `lines[start..end)` as one string. */
function joined(lines: readonly string[], start: number, end: number): string {
  return end - start === 1 ? (lines[start] as string) : lines.slice(start, end).join('');
}

/** For synchronous writes, which cannot overlap: one encoder for the whole process. */
const syncEncoder = new LineEncoder();

/**
 * How the writes of this process reach a file descriptor: `fs.writeSync` at an explicit position.
 * Tests replace it ({@link setWriteAt}) to make a disk fill and empty on command.
 */
export type WriteAt = (fd: number, bytes: Buffer, position: number) => number;

const systemWriteAt: WriteAt = (fd, bytes, position) => writeSync(fd, bytes, 0, bytes.length, position);
let writeAt: WriteAt = systemWriteAt;

/**
 * Replaces how recording and receipt-log lines are written (tests only: a disk that fills on
 * command); undefined restores `fs.writeSync`.
 */
export function setWriteAt(write: WriteAt | undefined): void {
  writeAt = write ?? systemWriteAt;
}

/**
 * Writes all of `bytes` at `position` (a write may take fewer bytes than asked) and returns the
 * position after them. A write that fails (ENOSPC, EIO) throws and counts for nothing: the caller
 * keeps its position and writes the same bytes there again later, over whatever part of them
 * reached the file, so a failed write never leaves a torn line before the next one
 * (docs/design.md §5, "A full disk").
 */
function writeAllBytes(fd: number, bytes: Buffer, position: number): number {
  let at = position;
  let rest = bytes;
  while (rest.length > 0) {
    const n = writeAt(fd, rest, at);
    rest = rest.subarray(n);
    at += n;
  }
  return at;
}

/**
 * Writes `lines`, in order, at `position`: the bytes of their concatenation. Returns the position
 * after them; throws, having counted nothing, when the file cannot take them all.
 */
export function writeAllLines(fd: number, lines: readonly string[], position: number): number {
  return writeAllBytes(fd, syncEncoder.encode(lines), position);
}

/** An ordered byte destination for JSONL text. `write` calls never overlap. */
export interface LineSink {
  write(text: string): Promise<void>;
  /**
   * Writes at once, synchronously, when the sink can (a file already open); false when it cannot,
   * and the caller uses `write`. The recording writer asks for every batch so: a small append to
   * the page cache costs a microsecond or two, a thread-pool write about 25 µs of CPU
   * (bench/README.md).
   */
  writeNow?(text: string): boolean;
  /**
   * `lines`, in order, as one write: the bytes of `write(lines.join(''))` without that string (a
   * file sink encodes them into one reused buffer, {@link LineEncoder}). The recording writer
   * uses it where a sink has it. Calls never overlap each other or `write`.
   */
  writeLines?(lines: readonly string[]): Promise<void>;
  /** {@link writeNow} for {@link writeLines}. */
  writeLinesNow?(lines: readonly string[]): boolean;
  /** Makes what was written durable (fdatasync); absent when the sink has no disk behind it. */
  sync?(): Promise<void>;
  close(): Promise<void>;
}

/** Recordings hold what clients sent: readable by their owner only. */
export const RECORDING_FILE_MODE = 0o600;

/**
 * A sink writing to `path`, a new file of mode 0600 (src/output-file.ts: never through a symbolic
 * link; a file already there is refused unless `replace`, which creates it anew). The file is
 * opened lazily on the first write, so constructing the sink never throws; an open failure
 * surfaces as a failed write.
 */
export function fileLineSink(path: string, options: { replace?: boolean } = {}): LineSink {
  let handle: Promise<FileHandle> | undefined;
  /** The file once open (and not closed), for `writeNow`. */
  let file: FileHandle | undefined;
  const opened = (): Promise<FileHandle> =>
    (handle ??= openOutputFile(path, { replace: options.replace ?? false, mode: RECORDING_FILE_MODE }).then((f) => {
      file = f;
      return f;
    }));
  // Asynchronous writes do not overlap (the LineSink contract): one encoder serves them. A caller
  // that breaks the contract gets a buffer of its own, never one a write in flight still reads.
  const encoder = new LineEncoder();
  let writing = false;
  /** Where the next line goes: the end of the lines written whole (a failed write moves it not). */
  let position = 0;
  const writeLines = async (lines: readonly string[]): Promise<void> => {
    const f = await opened();
    const own = writing;
    writing = true;
    try {
      const bytes = own ? Buffer.from(lines.join(''), 'utf8') : encoder.encode(lines);
      // The place is taken before the first await: a write that overlaps this one goes after it.
      const start = position;
      position += bytes.length;
      let at = start;
      let rest = bytes;
      try {
        while (rest.length > 0) {
          const { bytesWritten } = await f.write(rest, 0, rest.length, at);
          rest = rest.subarray(bytesWritten);
          at += bytesWritten;
        }
      } catch (error) {
        // Counts for nothing: written again at `start`, unless a write overlapping it took the place after.
        if (position === start + bytes.length) position = start;
        throw error;
      }
    } finally {
      if (!own) writing = false;
    }
  };
  const writeLinesNow = (lines: readonly string[]): boolean => {
    if (file === undefined) return false;
    position = writeAllLines(file.fd, lines, position);
    return true;
  };
  return {
    write: (text) => writeLines([text]),
    writeNow: (text) => writeLinesNow([text]),
    writeLines,
    writeLinesNow,
    sync() {
      // fdatasync: the appended bytes and the file size that reaches them, without the
      // timestamps fsync also writes; as durable for an append-only file, about half the cost.
      return file === undefined ? opened().then((f) => datasync(f.fd)) : datasync(file.fd);
    },
    async close() {
      if (handle === undefined) return;
      const open = await handle.catch(() => undefined);
      file = undefined;
      await open?.close();
    },
  };
}

/** A sink keeping everything in memory; `text()` is what a file would hold. */
export class MemoryLineSink implements LineSink {
  #chunks: string[] = [];
  closed = false;

  async write(text: string): Promise<void> {
    this.#chunks.push(text);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  text(): string {
    return this.#chunks.join('');
  }

  lines(): string[] {
    return this.text()
      .split('\n')
      .filter((l) => l.length > 0);
  }
}
