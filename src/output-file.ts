/**
 * @module output-file
 * Every file the command line writes is opened here (docs/design.md §9): never through a symbolic
 * link, always created afresh and exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`), with mode 0600
 * unless told otherwise, since recordings, logs, traces and reports name principals, reasons and
 * task ids. A link at the output path is refused with an error naming it: following it would let
 * whoever placed it choose the file written, truncated or chmodded. A file that is replaced is
 * either unlinked and created anew (a file written as it goes: a recording, a log) or written under
 * a fresh name in its directory and renamed into place (a file written whole: a report, a trace
 * file, a witness), so a reader sees the old file or the new one.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  lstatSync,
  openSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { type FileHandle, lstat, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { A2aReplayError } from './errors.js';

/** The mode of every output file but a public key. */
export const OUTPUT_FILE_MODE = 0o600;

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

export interface OutputFileOptions {
  /** Replace a file already at the path (default: refuse it, as `EEXIST`). A link is refused either way. */
  replace?: boolean;
  /** The file's mode, whatever the umask (default {@link OUTPUT_FILE_MODE}). */
  mode?: number;
}

export interface WholeFileOptions extends OutputFileOptions {
  /** fsync the file before it is renamed into place. */
  sync?: boolean;
}

function linkRefused(path: string): A2aReplayError {
  return new A2aReplayError(
    'INVALID_ARGUMENT',
    `${path} is a symbolic link: refusing to write through it (name the file itself, or remove the link)`,
  );
}

/** What lstat says of `path`: a link, something else, or nothing there. */
async function kindOf(path: string): Promise<'link' | 'other' | 'none'> {
  try {
    return (await lstat(path)).isSymbolicLink() ? 'link' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw error;
  }
}

function kindOfSync(path: string): 'link' | 'other' | 'none' {
  try {
    return lstatSync(path).isSymbolicLink() ? 'link' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw error;
  }
}

/** Throws the error naming `path` when it is a symbolic link; fine when nothing is there. */
export async function refuseSymlink(path: string): Promise<void> {
  if ((await kindOf(path)) === 'link') throw linkRefused(path);
}

/** An open failure of `path`, with a link at it said as such. */
async function openFailure(path: string, error: unknown): Promise<unknown> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || (code === 'EEXIST' && (await kindOf(path).catch(() => 'none')) === 'link'))
    return linkRefused(path);
  return error;
}

/**
 * Opens `path` for writing as a new file: exclusively created, never through a link, with its
 * mode set. With `replace`, a file already there is unlinked first (never truncated: another
 * name for it keeps its content).
 */
export async function openOutputFile(path: string, options: OutputFileOptions = {}): Promise<FileHandle> {
  const mode = options.mode ?? OUTPUT_FILE_MODE;
  if (options.replace) {
    const kind = await kindOf(path);
    if (kind === 'link') throw linkRefused(path);
    if (kind === 'other') await unlink(path);
  }
  let file: FileHandle;
  try {
    file = await open(path, CREATE_NEW, mode);
  } catch (error) {
    throw await openFailure(path, error);
  }
  try {
    await file.chmod(mode);
  } catch (error) {
    await file.close();
    throw error;
  }
  return file;
}

let temporaries = 0;

/** A name for a temporary file beside `path`, not in use by this process. */
function temporaryBeside(path: string): string {
  temporaries += 1;
  return join(dirname(path), `.${basename(path)}.${process.pid}.${temporaries}.tmp`);
}

/**
 * Writes `data` as the whole file at `path`. With `replace` (the default here) it is written
 * under a fresh name in the same directory and renamed into place; without it, `path` is created
 * exclusively and a file already there is refused (`EEXIST`).
 */
export async function writeOutputFile(
  path: string,
  data: string | Uint8Array,
  options: WholeFileOptions = {},
): Promise<void> {
  const replace = options.replace ?? true;
  if (!replace) {
    const file = await openOutputFile(path, options);
    try {
      await file.writeFile(data);
      if (options.sync) await file.sync();
    } finally {
      await file.close();
    }
    return;
  }
  await refuseSymlink(path);
  const temp = temporaryBeside(path);
  const file = await openOutputFile(temp, { mode: options.mode ?? OUTPUT_FILE_MODE });
  try {
    try {
      await file.writeFile(data);
      if (options.sync) await file.sync();
    } finally {
      await file.close();
    }
    await refuseSymlink(path);
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** {@link writeOutputFile} with `replace`, synchronously (for a span exporter's flush). */
export function writeOutputFileSync(path: string, data: string | Uint8Array, options: WholeFileOptions = {}): void {
  const mode = options.mode ?? OUTPUT_FILE_MODE;
  if (kindOfSync(path) === 'link') throw linkRefused(path);
  const temp = temporaryBeside(path);
  const fd = openSync(temp, CREATE_NEW, mode);
  try {
    try {
      fchmodSync(fd, mode);
      writeFileSync(fd, data);
      if (options.sync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (kindOfSync(path) === 'link') throw linkRefused(path);
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // already gone
    }
    throw error;
  }
}
