/**
 * @module logs/series-head
 * A head kept outside the logs (docs/design.md §6, "The head of a series"), applied to the logs
 * given: which of them it belongs to (its checkpoint then vouches for that log, as `--checkpoint`
 * does for one log), or that it belongs to a later log of their series that was not given, named
 * by its position and the file the series' naming gives it: a dropped last log is never a pass.
 */
import { sha256Prefixed } from '../canonical/canonical-json.js';
import type { Keyring } from '../receipts/keys.js';
import { type SeriesHead, headPlace, headSignatureProblem } from '../receipts/log-head.js';
import { readReceiptLogLine } from '../receipts/read-line.js';
import { seriesIdOf } from '../receipts/series-link.js';
import { positionedPath } from '../record/rotation.js';
import { readFirstLine } from './first-line.js';

/** A log given, as its header names it. */
export interface GivenLog {
  path: string;
  series: string;
  position: number;
  /** The hash of its header line. */
  header: string;
}

/** A log the head says exists, and was not given. */
export interface MissingLog {
  position: number;
  /** The file the series' naming gives that position, beside the last log given. */
  file: string;
}

/** Where a head stands among the logs given. */
export type HeadPlacement =
  /** It belongs to the log at `path`: its checkpoint is checked against that log's lines. */
  | { kind: 'at'; path: string; position: number; message: string }
  /** It belongs to a later log of the series than any given: those logs are missing. */
  | { kind: 'missing'; series: string; missing: MissingLog[]; message: string }
  /** It does not check (a signature), or names another series or another log at a position given. */
  | { kind: 'refused'; message: string };

/** The logs at `paths` as their headers name them; a header that cannot be read is left out. */
export async function givenLogHeaders(paths: readonly string[]): Promise<GivenLog[]> {
  const logs: GivenLog[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = await readFirstLine(path);
      const read = readReceiptLogLine(JSON.parse(text) as unknown);
      if (!read.ok || read.value.type !== 'ReceiptLog') continue;
      const header = sha256Prefixed(text);
      logs.push({ path, series: seriesIdOf(read.value, header), position: read.value.series?.position ?? 1, header });
    } catch {
      continue;
    }
  }
  return logs.sort((a, b) => a.position - b.position);
}

/**
 * Places `head` among `logs` (one log, or the logs of one series): its signatures are checked with
 * `keyring` first; then the log it names (by its `LogHead`, else its note's origin) is found among
 * them, or named as missing when it lies past the last one. A head that names no log (an HMAC
 * checkpoint alone) is taken as the last log's.
 */
export function placeSeriesHead(head: SeriesHead, keyring: Keyring, logs: readonly GivenLog[]): HeadPlacement {
  const from = `the head ${head.source}`;
  const problem = headSignatureProblem(head, keyring);
  if (problem !== null) return { kind: 'refused', message: `${from} does not check: ${problem}` };
  const last = logs.at(-1);
  if (last === undefined) return { kind: 'refused', message: `${from}: no log given whose header reads` };
  const place = headPlace(head);
  if (place === null)
    return {
      kind: 'at',
      path: last.path,
      position: last.position,
      message: `${from} names no log (a checkpoint without its LogHead): checked against ${last.path}`,
    };
  if (place.series !== last.series)
    return {
      kind: 'refused',
      message: `${from} is of series ${place.series}, not of series ${last.series} of the logs given`,
    };
  if (place.position > last.position) {
    const missing: MissingLog[] = [];
    for (let p = last.position + 1; p <= place.position; p++)
      missing.push({ position: p, file: positionedPath(last.path, last.position, p) });
    const n = missing.length;
    return {
      kind: 'missing',
      series: place.series,
      missing,
      message:
        `${from} is position ${place.position} of series ${place.series}, but the logs given end at ` +
        `${last.path} (position ${last.position}): ${n === 1 ? 'a later log is' : `${n} later logs are`} missing: ` +
        missing.map((m) => `position ${m.position} (${m.file})`).join(', '),
    };
  }
  const at = logs.find((l) => l.position === place.position);
  if (at === undefined)
    return {
      kind: 'refused',
      message: `${from} is position ${place.position} of series ${place.series}, which no log given holds`,
    };
  if (place.header !== null && place.header !== at.header)
    return {
      kind: 'refused',
      message:
        `${from} names the log with header ${place.header} at position ${place.position}, but ${at.path} ` +
        `there has header ${at.header}: the log was replaced`,
    };
  const later = at === last ? '' : `; the logs given go on to position ${last.position}`;
  return {
    kind: 'at',
    path: at.path,
    position: at.position,
    message: `${from} is ${at.path} (position ${at.position} of series ${place.series})${later}`,
  };
}
