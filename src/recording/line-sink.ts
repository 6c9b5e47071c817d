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

/** Writes all of `text` at the file's position (a write may take fewer bytes than asked). */
export function writeAll(fd: number, text: string): void {
  let bytes = Buffer.from(text, 'utf8');
  while (bytes.length > 0) {
    const n = writeSync(fd, bytes);
    bytes = bytes.subarray(n);
  }
}

/** An ordered byte destination for JSONL text. `write` calls never overlap. */
export interface LineSink {
  write(text: string): Promise<void>;
  /**
   * Writes at once, synchronously, when the sink can (a file already open); false when it cannot,
   * and the caller uses `write`. For lines somebody is waiting for: a small append to the page
   * cache costs a microsecond or two, a thread-pool write about 25 µs of CPU (bench/README.md).
   */
  writeNow?(text: string): boolean;
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
  return {
    async write(text) {
      await (await opened()).write(text);
    },
    writeNow(text) {
      if (file === undefined) return false;
      writeAll(file.fd, text);
      return true;
    },
    sync() {
      // fdatasync: the appended bytes and the file size that reaches them, without the
      // timestamps fsync also writes; as durable for an append-only file, about half the cost.
      const synced = (fd: number): Promise<void> =>
        new Promise((resolve, reject) => datasyncFd(fd, (error) => (error ? reject(error) : resolve())));
      return file === undefined ? opened().then((f) => synced(f.fd)) : synced(file.fd);
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
