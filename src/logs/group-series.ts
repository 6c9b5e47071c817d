/**
 * @module logs/group-series
 * A fleet of series (docs/design.md §17): replicas that each restarted or rotated give a series of
 * logs each. The logs given are grouped by the series their headers name (src/logs/given-logs.ts
 * `givenLogs`); each series is checked as `verify` checks one, and its lines go in series order to
 * one `FleetLedger` under the series' id, so a resumption in a later log closes a suspension of an
 * earlier one of its series, and a pause begun in one replica's series and resumed in another's
 * pairs by its identity. The ledger keeps the open pauses, never the logs.
 */
import { A2aReplayError } from '../errors.js';
import type { FleetLedger } from '../receipts/fleet.js';
import { type SeriesResult, verifySeries } from '../receipts/series.js';
import type { VerifiedLine, VerifyOptions } from '../receipts/verify.js';
import type { LogGroup } from './given-logs.js';

/** What takes a fleet's lines log by log: the `FleetLedger`, or several fed the same lines. */
export type LineLedger = Pick<FleetLedger, 'startLog' | 'add'>;

/**
 * Verifies `group` as a series, each verified line of each log fed to `ledger` (and to `onLine`)
 * in series order, the log's own file as its place and the series as its scope.
 */
export async function verifyGroupInto(
  ledger: LineLedger,
  group: LogGroup,
  options: Omit<VerifyOptions, 'onLine' | 'jobs'>,
  onLine?: (path: string, line: VerifiedLine) => void,
): Promise<SeriesResult> {
  let current: string | undefined;
  return verifySeries(group.files, options, (path, verified) => {
    if (path !== current) {
      ledger.startLog(path, group.id);
      current = path;
    }
    ledger.add(verified.line, verified.number, verified.hash);
    onLine?.(path, verified);
  });
}

/**
 * The files of `group` in series order by the positions their headers state, unverified (`lost`
 * without a key): two logs at one position, or a position missing, is a usage error naming them.
 */
export function orderedUnverified(group: LogGroup): string[] {
  const placed = group.files
    .map((file) => ({ file, position: group.positions.get(file) ?? 1 }))
    .sort((a, b) => a.position - b.position);
  placed.forEach((p, i) => {
    const before = placed[i - 1];
    if (before !== undefined && before.position === p.position)
      throw new A2aReplayError(
        'INVALID_ARGUMENT',
        `${before.file} and ${p.file} both hold position ${p.position} of series ${group.id}`,
      );
    if (p.position !== i + 1)
      throw new A2aReplayError(
        'INVALID_ARGUMENT',
        `${p.file} holds position ${p.position} of series ${group.id}, but ${i} of its logs come before it: ` +
          'a log is missing',
      );
  });
  return placed.map((p) => p.file);
}

/**
 * For a series given from its first log with positions missing: the logs of other series given
 * at those positions, each named as a log from another series put in (said beside the gap).
 */
export function strayLogs(group: LogGroup, groups: readonly LogGroup[]): string[] {
  const held = new Set(group.positions.values());
  if (!held.has(1)) return [];
  const last = Math.max(...held);
  const out: string[] = [];
  for (const other of groups) {
    if (other === group) continue;
    for (const [file, position] of other.positions)
      if (position <= last && !held.has(position))
        out.push(
          `${file} belongs to series ${other.id} (position ${position}), not to series ${group.id} of ` +
            `${group.files.join(', ')}: a log from another series was put in`,
        );
  }
  return out;
}
