/**
 * @module logs/fleet-diff
 * Two fleets of receipt logs compared (docs/design.md §17): each side read as `verify` groups it
 * (each replica's series in series order) and receipts paired by pause identity, not by place.
 */
import { A2aReplayError } from '../errors.js';
import { type GoldenLog, diffFleetReceipts } from '../replay/merged-session.js';
import type { ReceiptDiff } from '../replay/diff.js';
import { readGoldenLines } from '../replay/run-recording.js';
import { givenLogs } from './given-logs.js';
import { orderedUnverified } from './group-series.js';

/** The lines of the receipt log `path`, each checked; no such log is an error naming it. */
export async function readReceiptLogLines(path: string): Promise<string[]> {
  const lines = await readGoldenLines(path);
  if (lines === undefined) throw new A2aReplayError('INVALID_ARGUMENT', `${path}: no such receipt log`);
  return lines;
}

/** The logs of one side, each replica's series in series order. */
async function fleetSide(given: readonly string[]): Promise<GoldenLog[]> {
  const logs: GoldenLog[] = [];
  for (const group of (await givenLogs(given)).groups)
    for (const file of group.linked ? orderedUnverified(group) : group.files)
      logs.push({ file, lines: await readReceiptLogLines(file) });
  return logs;
}

/** The fleet `golden` (files, directories) against the fleet `live`: the files read on each side, and the diff. */
export async function diffFleets(
  golden: readonly string[],
  live: readonly string[],
): Promise<{ expected: string[]; actual: string[]; diff: ReceiptDiff }> {
  const expected = await fleetSide(golden);
  const actual = await fleetSide(live);
  const names = (logs: readonly GoldenLog[]): string[] => logs.map((l) => l.file);
  return { expected: names(expected), actual: names(actual), diff: diffFleetReceipts(expected, actual) };
}
