/**
 * @module receipts/recording-binding
 * Reads what a receipt log's closing checkpoint binds it to from a recording file (docs/design.md
 * §6): the header's `id`, the number of lines (the header included) and the hash of the last
 * line's bytes, without its newline. The file is streamed: only the line being read is held.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { A2aReplayError } from '../errors.js';
import type { ReceiptLogHeader, RecordingBinding } from './types.js';
import type { VerifyFailure } from './verify-failure.js';

const NEWLINE = 0x0a;

/** The id in a recording's header line, or an error naming the file and what is wrong. */
function headerId(path: string, line: Buffer): string {
  let header: unknown;
  try {
    header = JSON.parse(line.toString('utf8'));
  } catch {
    throw new A2aReplayError('RECORDING_MALFORMED', `${path}:1: not JSON; expected a recording header`);
  }
  const { type, id } = (header ?? {}) as { type?: unknown; id?: unknown };
  if (type !== 'recording' || typeof id !== 'string')
    throw new A2aReplayError('RECORDING_MALFORMED', `${path}:1: not a recording header (type "recording" and an id)`);
  return id;
}

/**
 * The binding facts of the recording at `path`, as its recorder states them at close. A last line
 * without its newline (a recorder that died mid-line) counts as a line, and is the last one.
 */
export async function readRecordingBinding(path: string): Promise<RecordingBinding> {
  let lines = 0;
  let id: string | null = null;
  /** The last complete line's bytes, and those after the last newline so far. */
  let last: Buffer[] = [];
  let partial: Buffer[] = [];
  try {
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        partial.push(chunk.subarray(start, nl));
        last = partial;
        partial = [];
        start = nl + 1;
        if (++lines === 1) id = headerId(path, Buffer.concat(last));
      }
      if (start < chunk.length) partial.push(chunk.subarray(start));
    }
  } catch (cause) {
    if (cause instanceof A2aReplayError) throw cause;
    throw new A2aReplayError(
      'IO_FAILED',
      `${path}: cannot read the recording (${(cause as NodeJS.ErrnoException).code ?? 'error'})`,
      { cause },
    );
  }
  if (partial.length > 0) {
    lines++;
    last = partial;
    if (lines === 1) id = headerId(path, Buffer.concat(last));
  }
  if (id === null) throw new A2aReplayError('RECORDING_MALFORMED', `${path}: empty; expected a recording header`);
  const hash = createHash('sha256');
  for (const piece of last) hash.update(piece);
  return { id, lines, lastLineHash: `sha256:${hash.digest('hex')}` };
}

/**
 * Compares the recording `given` with a log: the header's recording id, then, when the closing
 * checkpoint (at line `finalLine`) binds one, its line count and last line (docs/design.md §6,
 * "Bound to the recording"). `bound` is null for a log open or closed without a binding.
 */
export function compareRecording(
  header: ReceiptLogHeader,
  bound: RecordingBinding | null,
  given: RecordingBinding,
  finalLine: number,
): { check: 'bound' | 'id only' } | VerifyFailure {
  if (header.recording !== given.id)
    return {
      line: 1,
      reason: 'recording_mismatch',
      message:
        `the log is of recording ${header.recording ?? '(none named)'}, but the recording given is ` +
        `${given.id}: the log belongs to another recording`,
    };
  if (bound === null) return { check: 'id only' };
  if (bound.lines !== given.lines || bound.lastLineHash !== given.lastLineHash)
    return {
      line: finalLine,
      reason: 'recording_mismatch',
      message:
        `the closing checkpoint binds recording ${bound.id} as ${bound.lines} lines ending in a line ` +
        `hashed ${bound.lastLineHash}, but the recording given has ${given.lines} lines` +
        (bound.lines === given.lines ? ' and another last line' : '') +
        ': it was cut, emptied or changed after the log was closed',
    };
  return { check: 'bound' };
}
