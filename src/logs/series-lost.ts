/**
 * @module logs/series-lost
 * The lost pauses of a series of receipt logs (docs/design.md §6,
 * "Series"), read as one log: a pause begun in one log and resumed in a later one is not lost.
 * The last log's header carries every pause still open before it, so the series' lost pauses are
 * those still open at the end of its last log. With keys the series is verified first (links,
 * order, gaps); without, its logs are put in order by the positions their headers state.
 */
import { A2aReplayError } from '../errors.js';
import type { Keyring } from '../receipts/keys.js';
import { readLogChunks } from '../receipts/log-reader.js';
import { readReceiptLogLine } from '../receipts/read-line.js';
import { headerPosition, seriesFiles, verifySeries } from '../receipts/series.js';
import { plainSeriesProblem } from '../receipts/series-plain.js';
import { refuseUnreceipted } from './lost-reading.js';
import { type LostInterruptionListing, OpenSuspensions, type LostPauseListing } from '../observe/lost-pauses.js';

/** The position line 1 of `file` states (1 for a log that continues none). */
async function positionOf(file: string): Promise<number> {
  const position = await headerPosition(file);
  if (position === null) throw new A2aReplayError('INVALID_ARGUMENT', `${file}:1: not a receipt log header`);
  return position;
}

/** The logs of the series in order, checked (verified with `keyring` when given). */
async function orderedSeries(paths: readonly string[], keyring: Keyring | undefined, allowTornTail: boolean) {
  let files: string[];
  try {
    files = await seriesFiles(paths);
  } catch (error) {
    if (error instanceof A2aReplayError) throw new A2aReplayError('INVALID_ARGUMENT', error.message);
    throw error;
  }
  if (keyring !== undefined) {
    const series = await verifySeries(files, { keyring, allowOpen: true, allowTornTail });
    if (!series.ok)
      throw new A2aReplayError('RECEIPT_INVALID', `the series does not verify: ${series.error?.message ?? ''}`);
    return { files: series.members.map((m) => m.path), verification: `series ${series.id ?? '-'} verified` };
  }
  const placed = await Promise.all(files.map(async (file) => ({ file, position: await positionOf(file) })));
  placed.sort((a, b) => a.position - b.position);
  placed.forEach((p, i) => {
    if (p.position !== i + 1)
      throw new A2aReplayError(
        'INVALID_ARGUMENT',
        `${p.file} holds position ${p.position} of its series, but ${i} logs come before it: ` +
          'a log is missing or doubled',
      );
  });
  const ordered = placed.map((p) => p.file);
  const problem = await plainSeriesProblem(ordered);
  if (problem !== null)
    throw new A2aReplayError('RECEIPT_INVALID', `the series does not hold together: ${problem.message}`);
  await refuseUnreceipted(ordered);
  return { files: ordered, verification: 'unverified' };
}

/**
 * The lost pauses of the series given (files or a directory): those open at the end of its last
 * log; and its interruptions never continued, those open there (carried in or sealed in it).
 */
export async function lostInSeries(
  paths: readonly string[],
  keyring: Keyring | undefined,
  allowTornTail: boolean,
): Promise<{
  lost: LostPauseListing[];
  interruptions: LostInterruptionListing[];
  verification: string;
  files: string[];
}> {
  const { files, verification } = await orderedSeries(paths, keyring, allowTornTail);
  const last = files.at(-1)!;
  const open = new OpenSuspensions();
  for await (const chunk of readLogChunks(last)) {
    for (const raw of chunk) {
      if (raw.text === null || !raw.complete) {
        if (!raw.complete && allowTornTail) continue;
        throw new A2aReplayError('INVALID_ARGUMENT', `${last}:${raw.number}: ${raw.problem ?? 'a torn line'}`);
      }
      let value: unknown;
      try {
        value = JSON.parse(raw.text);
      } catch {
        throw new A2aReplayError('INVALID_ARGUMENT', `${last}:${raw.number}: not JSON`);
      }
      const read = readReceiptLogLine(value);
      if (!read.ok) throw new A2aReplayError('INVALID_ARGUMENT', `${last}:${raw.number}: not a receipt log line`);
      open.add(read.value);
    }
  }
  return { lost: open.lost(), interruptions: open.lostInterruptions(), verification, files };
}
