/**
 * @module receipts/series-plain
 * The links of a series checked without a key (docs/design.md §6, "Series"): each log's header
 * and end as its lines show them (the hashes of its first and last whole lines, its line and
 * receipt counts, whether its closing checkpoint ends it) against what the next log's link
 * states. No signature is checked, but a fork (a log continued from another end than the one
 * given), a log cut short or appended to after its successor began, is told as with a key.
 */
import { sha256Prefixed } from '../canonical/canonical-json.js';
import { readLogChunks } from './log-reader.js';
import { readReceiptLogLine } from './read-line.js';
import { type LineEnd, endLinkProblem } from './series.js';
import type { ReceiptLogLine } from './types.js';

function lineOf(text: string): ReceiptLogLine | null {
  try {
    const read = readReceiptLogLine(JSON.parse(text));
    return read.ok ? read.value : null;
  } catch {
    return null;
  }
}

/** `path`'s header and end as its whole lines show them; null when line 1 is no receipt log header. */
async function plainEnd(path: string): Promise<LineEnd | null> {
  let header: LineEnd['header'] | null = null;
  let headerHash = '';
  let head = '';
  let lines = 0;
  let receipts = 0;
  let closed = false;
  for await (const chunk of readLogChunks(path))
    for (const raw of chunk) {
      if (raw.text === null || !raw.complete) continue;
      head = sha256Prefixed(raw.text);
      lines = raw.number;
      const line = lineOf(raw.text);
      if (raw.number === 1) {
        if (line?.type !== 'ReceiptLog') return null;
        header = line;
        headerHash = head;
        continue;
      }
      closed = line?.type === 'Checkpoint' && line.final === true;
      if (line !== null && line.type !== 'Checkpoint' && line.type !== 'ReceiptLog') receipts++;
    }
  return header === null ? null : { path, header, headerHash, end: { head, lines, receipts, closed } };
}

/**
 * The first link of the series `files` (in series order) that does not state how the log before
 * it ends, as `{file, message}`; null when every link does.
 */
export async function plainSeriesProblem(files: readonly string[]): Promise<{ file: string; message: string } | null> {
  let before: LineEnd | null = null;
  for (const path of files) {
    const end = await plainEnd(path);
    if (end === null) return { file: path, message: `${path}:1: not a receipt log header` };
    if (before !== null) {
      const problem = endLinkProblem(before, end);
      if (problem !== null) return { file: path, message: problem };
    }
    before = end;
  }
  return null;
}
