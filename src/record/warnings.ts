/**
 * @module record/warnings
 * Where a recorder says what it could not do (a file it could not write, an answer it could not
 * read, a collector that did not take records): one line at a time, without a trailing newline.
 * The default writes `a2a-replay: <line>` to stderr, as the `record` command does.
 */
import { printable } from '../printable.js';

/** Takes one line of what went wrong (no newline). */
export type RecorderWarn = (line: string) => void;

/** `a2a-replay: <line>` on stderr, made printable (a line may quote what a peer sent). */
export const stderrWarn: RecorderWarn = (line) => {
  process.stderr.write(`${printable(`a2a-replay: ${line}`)}\n`);
};
