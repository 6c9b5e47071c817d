/**
 * @module cli/fleet-logs
 * The files a fleet command reads (docs/design.md §17): receipt logs given by name, a recording
 * standing for the receipt log its recorder wrote beside it (`X.jsonl` → `X.receipts.jsonl`), and
 * a directory for every receipt log in it; and the lines that say how their pauses pair.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FleetOutsideEnd, FleetPause, FleetVerdict } from '../src/receipts/fleet.js';
import { CliExit, EXIT } from './io.js';

const LOG_SUFFIX = '.receipts.jsonl';

/** Whether line 1 of `file` is a receipt log's header (read from its first 64 KiB alone). */
async function isReceiptLog(file: string): Promise<boolean> {
  const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
    throw new CliExit(EXIT.usage, `${file}: cannot read (${error.code ?? 'error'})`);
  });
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(1 << 16), 0, 1 << 16, 0);
    const first = buffer.subarray(0, bytesRead).toString('utf8').split('\n', 1)[0] ?? '';
    return first.startsWith('{') && first.includes('"type":"ReceiptLog"');
  } finally {
    await handle.close();
  }
}

/** The first line of `file` parsed, or undefined when it is no JSON object (read up to its first newline). */
async function firstLineValue(file: string): Promise<Record<string, unknown> | undefined> {
  const stream = createReadStream(file);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      try {
        const value: unknown = JSON.parse(line);
        return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
      } catch {
        return undefined;
      }
    }
    return undefined;
  } finally {
    lines.close();
    stream.destroy();
  }
}

/**
 * Whether several logs given to `verify`, `lost` or `audit` are the logs of a series rather than a
 * fleet (docs/design.md §6, §17): one of them continues another (its header carries a `series`
 * link). Logs of independent recorders carry none, and are read as a fleet.
 */
export async function givenASeries(given: readonly string[]): Promise<boolean> {
  for (const file of await fleetLogFiles(given)) {
    const header = await firstLineValue(file);
    if (header?.type === 'ReceiptLog' && header.series !== null && header.series !== undefined) return true;
  }
  return false;
}

/** The receipt log of each argument, in the order given (a directory's sorted by name), each once. */
export async function fleetLogFiles(given: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of given) {
    const found = await stat(path).catch((error: NodeJS.ErrnoException) => {
      throw new CliExit(EXIT.usage, `${path}: cannot read (${error.code ?? 'error'})`);
    });
    if (found.isDirectory()) {
      const names = (await readdir(path)).filter((n) => n.endsWith(LOG_SUFFIX)).sort();
      if (names.length === 0)
        throw new CliExit(EXIT.usage, `${path}: a directory with no receipt log (*${LOG_SUFFIX})`);
      files.push(...names.map((n) => join(path, n)));
    } else if (await isReceiptLog(path)) files.push(path);
    else {
      const log = `${path.replace(/\.jsonl$/, '')}${LOG_SUFFIX}`;
      await stat(log).catch(() => {
        throw new CliExit(EXIT.usage, `${path}: not a receipt log, and no receipt log beside it (${log})`);
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
  const { paired, lost, orphans } = verdict;
  const lines = [
    `fleet of ${count} logs: ${paired.length} paused in one log and resumed in another, ` +
      `${lost.length} open when every log ended, ${orphans.length} orphan resumption${orphans.length === 1 ? '' : 's'}`,
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
