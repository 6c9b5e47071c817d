/**
 * @module cli/io
 * What every command shares: reading input, exit codes, one-line failures, waiting to be stopped.
 */
import { readFile } from 'node:fs/promises';
import { A2aReplayError, EXIT_CODES, isInfrastructureError, printable } from '../src/public/core.js';

/** The one exit-code table (src/errors.ts; docs/design.md §8, §9), under the name the commands use. */
export const EXIT = EXIT_CODES;

/** Thrown by commands to stop with a one-line message and an exit code. */
export class CliExit extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a named file or, with no name or "-", standard input. */
export async function readInput(file: string | undefined): Promise<{ text: string; source: string }> {
  if (file === undefined || file === '-') return { text: await readStdin(), source: 'stdin' };
  try {
    return { text: await readFile(file, 'utf8'), source: file };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliExit(EXIT.usage, `${file}: cannot read (${code ?? 'error'})`);
  }
}

/** Resolves on the first SIGINT or SIGTERM, then stops listening for either. */
export function waitForStopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/**
 * A message's lines, each through `printable`: a message may quote what a file or peer holds (a
 * key id, a task id), which must not act on the terminal; its own line breaks stay.
 */
function printableLines(message: string): string {
  return message.split('\n').map(printable).join('\n');
}

/** Maps any failure to its exit code and one line on stderr. */
export function reportFailure(error: unknown): number {
  if (error instanceof CliExit) {
    if (error.message) process.stderr.write(`a2a-replay: ${printableLines(error.message)}\n`);
    return error.exitCode;
  }
  if (error instanceof A2aReplayError) {
    process.stderr.write(`a2a-replay: ${printableLines(error.message)}\n`);
    return isInfrastructureError(error) ? EXIT.infrastructure : EXIT.usage;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`a2a-replay: internal error: ${message}\n`);
  return EXIT.infrastructure;
}

/**
 * Writes `lines` to standard output, each with its newline, in writes of about 64 KiB that wait
 * for the stream to drain: output of any length is never held whole.
 */
export async function writeLines(lines: Iterable<string>): Promise<void> {
  let batch = '';
  const flush = async (): Promise<void> => {
    const text = batch;
    batch = '';
    if (!process.stdout.write(text)) await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
  };
  for (const line of lines) {
    batch += `${line}\n`;
    if (batch.length >= 1 << 16) await flush();
  }
  if (batch.length > 0) await flush();
}
