/**
 * @module logs/given-logs
 * The files a log set is opened from (docs/design.md §17): receipt logs given by name, a recording
 * standing for the receipt log its recorder wrote beside it (`X.jsonl` → `X.receipts.jsonl`), and
 * a directory for every receipt log in it; and the lines that say how their pauses pair.
 */
import { A2aReplayError } from '../errors.js';
import { readFirstLine } from './first-line.js';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Prefixed } from '../canonical/canonical-json.js';
import { readLogChunks } from '../receipts/log-reader.js';
import { readReceiptLogLine } from '../receipts/read-line.js';
import { seriesIdOf } from '../receipts/series-link.js';
import type { ReceiptLogHeader } from '../receipts/types.js';
import { type FleetOutsideEnd, type FleetPause, type FleetVerdict, ambiguityText } from '../receipts/fleet.js';

const LOG_SUFFIX = '.receipts.jsonl';

/** Whether line 1 of `file` is a receipt log's header (read to its end, however long). */
async function isReceiptLog(file: string): Promise<boolean> {
  const first = await readFirstLine(file);
  return first.startsWith('{') && first.includes('"type":"ReceiptLog"');
}

/** Line 1 of `file` as text, or null when it is no line a log reader reads. */
async function firstLineText(file: string): Promise<string | null> {
  for await (const chunk of readLogChunks(file)) return chunk[0]?.text ?? null;
  return null;
}

/**
 * The logs of one recorder given to a fleet command: one log, or the logs of one series (their
 * headers name one series id, docs/design.md §6), in the order they were given.
 */
export interface LogGroup {
  /** The series id the headers name (a first log's own name in origins); the file for a header not read. */
  id: string;
  files: string[];
  /** Whether the group is checked as a series: several logs, or one continuing another. */
  linked: boolean;
  /** The position each file's header states, by file (1 for a log that continues none). */
  positions: Map<string, number>;
}

/** The receipt logs given (each once) and their groups by series, in the order first given. */
export interface GivenLogs {
  files: string[];
  groups: LogGroup[];
  /** One series and nothing else: read as one log (docs/design.md §6). */
  series: boolean;
}

/**
 * How the logs given to `verify`, `lost`, `audit`, `report` or `diff` are read (docs/design.md §6,
 * §17): grouped by the series their headers name. One group of linked logs is a series; anything
 * else a fleet, each group in it one recorder's log or series. A header that cannot be read is a
 * group of its own (verifying it names what is wrong).
 */
export async function givenLogs(given: readonly string[]): Promise<GivenLogs> {
  const files = await fleetLogFiles(given);
  const groups = new Map<string, LogGroup>();
  for (const file of files) {
    const text = await firstLineText(file);
    let header: ReceiptLogHeader | undefined;
    try {
      const read = text === null ? undefined : readReceiptLogLine(JSON.parse(text) as unknown);
      if (read?.ok && read.value.type === 'ReceiptLog') header = read.value;
    } catch {
      header = undefined;
    }
    const id = header === undefined || text === null ? `file ${file}` : seriesIdOf(header, sha256Prefixed(text));
    const group = groups.get(id) ?? { id, files: [], linked: false, positions: new Map<string, number>() };
    group.files.push(file);
    group.positions.set(file, header?.series?.position ?? 1);
    group.linked ||= group.files.length > 1 || (header?.series ?? null) !== null;
    groups.set(id, group);
  }
  const list = [...groups.values()];
  return { files, groups: list, series: list.length === 1 && list[0]!.linked };
}

/**
 * What `verify`, `lost` or `audit` was given when it is several files or a directory: the logs
 * grouped by series ({@link givenLogs}), one series alone read as one log, anything else a
 * fleet; null for one file, read as itself.
 */
export async function manyLogs(logs: readonly string[]): Promise<GivenLogs | null> {
  if (logs.length === 1 && (await stat(logs[0]!).catch(() => null))?.isDirectory() !== true) return null;
  return givenLogs(logs);
}

/** The receipt log of each argument, in the order given (a directory's sorted by name), each once. */
export async function fleetLogFiles(given: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of given) {
    const found = await stat(path).catch((error: NodeJS.ErrnoException) => {
      throw new A2aReplayError('INVALID_ARGUMENT', `${path}: cannot read (${error.code ?? 'error'})`);
    });
    if (found.isDirectory()) {
      const names = (await readdir(path)).filter((n) => n.endsWith(LOG_SUFFIX)).sort();
      if (names.length === 0)
        throw new A2aReplayError('INVALID_ARGUMENT', `${path}: a directory with no receipt log (*${LOG_SUFFIX})`);
      files.push(...names.map((n) => join(path, n)));
    } else if (await isReceiptLog(path)) files.push(path);
    else {
      const log = `${path.replace(/\.jsonl$/, '')}${LOG_SUFFIX}`;
      await stat(log).catch(() => {
        throw new A2aReplayError(
          'INVALID_ARGUMENT',
          `${path}: not a receipt log, and no receipt log beside it (${log})`,
        );
      });
      files.push(log);
    }
  }
  return [...new Set(files)];
}

const at = (p: { file: string; line: number; seq: number }): string => `${p.file}:${p.line} (seq ${p.seq})`;

function identity(end: FleetOutsideEnd): string {
  const parts = [
    end.resumeTokenHash === null ? null : `token ${end.resumeTokenHash}`,
    end.pausedAt === null ? null : `pausedAt ${end.pausedAt}`,
  ].filter((p) => p !== null);
  return parts.length === 0 ? 'its task alone' : parts.join(', ');
}

/** One line per pause begun in one log and ended in another, lost pause and orphan resumption. */
export function fleetLines(count: number, verdict: FleetVerdict): string[] {
  const { paired, lost, orphans, ambiguous } = verdict;
  const lines = [
    `fleet of ${count} logs: ${paired.length} paused in one log and resumed in another, ` +
      `${lost.length} open when every log ended, ` +
      `${orphans.length} orphan resumption${orphans.length === 1 ? '' : 's'}` +
      (ambiguous.length === 0 ? '' : `, ${ambiguous.length} ambiguous`),
  ];
  for (const { pause, end } of paired)
    lines.push(
      `task ${pause.taskId}: paused by ${pause.principal ?? pause.initiatedBy} in ${at(pause.begun)}, ` +
        `${end.outcome} (${end.cause}) by ${end.principal ?? 'no principal'} in ${at(end.ended)}`,
    );
  for (const pause of lost) lines.push(`LOST: task ${pause.taskId}: paused in ${at(pause.begun)}: ${lostWhy}`);
  for (const end of orphans)
    lines.push(
      `ORPHAN: task ${end.taskId}: ${end.outcome} in ${at(end.ended)}, naming a pause outside its log ` +
        `(${identity(end)}) that no given log holds`,
    );
  for (const a of ambiguous) lines.push(`AMBIGUOUS: ${ambiguityText(a)}`);
  return lines;
}

const lostWhy = 'recording_ended (no given log ended it)';

/** A pause as `lost --json` and `audit --json` list it in a fleet: which file saw it begin, and end. */
export function fleetPauseJson(pause: FleetPause, end: FleetOutsideEnd | null): Record<string, unknown> {
  return {
    taskId: pause.taskId,
    initiatedBy: pause.initiatedBy,
    principal: pause.principal,
    pauseReason: pause.reason,
    pausedAt: pause.pausedAt,
    resumeTokenHash: pause.resumeTokenHash,
    begun: pause.begun,
    ended: end === null ? null : { ...end.ended, cause: end.cause, outcome: end.outcome, principal: end.principal },
  };
}
