/**
 * @module logs/first-line
 * The one reader of a file's first line (a recording's header, a receipt log's header, a
 * collector export's first request), read to its newline however long it is: a continued log's
 * header carries the pauses still open before it (docs/design.md §6, "Series") and can run to
 * megabytes. The rest of the file is never read.
 */
import { open } from 'node:fs/promises';
import { A2aReplayError } from '../errors.js';

/** A file that cannot be read, as the commands say it: `FILE: cannot read (CODE)`. */
export function cannotRead(file: string, error: unknown): A2aReplayError {
  const code = (error as NodeJS.ErrnoException | null)?.code ?? 'error';
  return new A2aReplayError('INVALID_ARGUMENT', `${file}: cannot read (${code})`, { cause: error });
}

/** Line 1 of `file` without its newline (the whole file when it has none). */
export async function readFirstLine(file: string): Promise<string> {
  const handle = await open(file, 'r').catch((error: unknown) => {
    throw cannotRead(file, error);
  });
  try {
    const pieces: Buffer[] = [];
    const buffer = Buffer.alloc(1 << 16);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const read = buffer.subarray(0, bytesRead);
      const newline = read.indexOf(0x0a);
      pieces.push(Buffer.from(newline === -1 ? read : read.subarray(0, newline)));
      if (newline !== -1) break;
    }
    return Buffer.concat(pieces).toString('utf8');
  } catch (error) {
    throw cannotRead(file, error);
  } finally {
    await handle.close();
  }
}
