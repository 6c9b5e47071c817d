/**
 * @module receipts/series
 * Logs that continue one another (docs/design.md §6, "Series"): where a log ends, read back for
 * the log that continues it (`record --continue-from`), and the check of a series given as files
 * in any order: each log verifies, they belong to one series, no position is missing or held
 * twice, and each log's header link names exactly how the log before it ended.
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { A2aReplayError } from '../errors.js';
import type { Keyring } from './keys.js';
import { readLogChunks } from './log-reader.js';
import { readReceiptLogLine } from './read-line.js';
import { type LogEnd, interruptionHash, seriesIdOf, suspensionHash } from './series-link.js';
import type { Checkpoint, InterruptionReceipt, ReceiptLogHeader, SuspensionReceipt } from './types.js';
import { type LogStall, withStallRecord } from './stall-record.js';
import { ReceiptLogVerifier, type VerifiedLine, type VerifyOptions, type VerifyResult } from './verify.js';

/** A log read to its end: the verification and where it ended. */
export interface ReadLog {
  path: string;
  result: VerifyResult;
  /** Null when its header did not verify. */
  end: LogEnd | null;
  /** Hashes of the suspensions open at its end, in the order they were sealed. */
  openHashes: string[];
  /** Hashes of the interruptions open at its end, in the order they were sealed. */
  openInterruptions: string[];
}

/**
 * Verifies the log at `path` and says where it ends. `keepOpen`: also keep the SuspensionReceipts
 * and InterruptionReceipts still open at the end (what a continuing log's header restates);
 * otherwise `end.open` and `end.interruptions` are empty.
 */
export async function readLog(path: string, options: VerifyOptions & { keepOpen?: boolean }): Promise<ReadLog> {
  const open = new Map<string, SuspensionReceipt>();
  const interrupted = new Map<string, InterruptionReceipt>();
  const outer = options.onLine;
  const keep = (verified: VerifiedLine): void => {
    const { line, hash } = verified;
    if (line.type === 'ReceiptLog') {
      for (const carried of line.series?.previous.open ?? []) open.set(suspensionHash(carried), carried);
      for (const carried of line.series?.previous.interruptions ?? [])
        interrupted.set(interruptionHash(carried), carried);
    } else if (line.type === 'SuspensionReceipt') open.set(hash, line);
    else if (line.type === 'InterruptionReceipt') interrupted.set(hash, line);
  };
  const verifier = new ReceiptLogVerifier({
    ...options,
    ...(options.keepOpen || outer
      ? {
          onLine: (verified: VerifiedLine) => {
            if (options.keepOpen) keep(verified);
            outer?.(verified);
          },
        }
      : {}),
  });
  for await (const lines of readLogChunks(path)) {
    for (const raw of lines) if (!verifier.push(raw)) break;
    if (!verifier.ok) break;
  }
  const header = verifier.header;
  const finished = verifier.finish();
  const result = options.stallRecord === false ? finished : withStallRecord(path, finished, header, options.keyring);
  const { open: stillOpen, interruptions: stillInterrupted, checkpoint } = verifier.end;
  const openHashes = stillOpen.map(({ suspension }) => suspension);
  const openInterruptions = stillInterrupted.map(({ interruption }) => interruption);
  if (header === null || result.head === null) return { path, result, end: null, openHashes, openInterruptions };
  return {
    path,
    result,
    openHashes,
    openInterruptions,
    end: {
      header: header.line,
      headerHash: header.hash,
      head: result.head,
      lines: result.lines,
      receipts: result.receipts,
      closed: result.closed,
      checkpoint,
      open: options.keepOpen ? stillOpen.flatMap(({ suspension }) => open.get(suspension) ?? []) : [],
      interruptions: options.keepOpen
        ? stillInterrupted.flatMap(({ interruption }) => interrupted.get(interruption) ?? [])
        : [],
    },
  };
}

/**
 * Where the log a new one continues ended (`record --continue-from`): verified with `keyring`, a
 * torn last line (a recorder killed mid-line) and an open end (no closing checkpoint) accepted;
 * anything else that does not verify is refused, naming the line.
 */
export async function readLogToContinue(
  path: string,
  keyring: Keyring,
): Promise<{ end: LogEnd; tornTail: number | null; stall: LogStall | null }> {
  const read = await readLog(path, { keyring, allowTornTail: true, allowOpen: true, keepOpen: true });
  const failure = read.result.firstError;
  // A log whose writer stopped with lines kept back is continued (the pauses it holds go on), and
  // stays failed over the series: the successor says which moves it lacks.
  const stall = failure?.reason === 'unreceipted' ? (read.result.stall ?? null) : null;
  if ((!read.result.ok && stall === null) || read.end === null)
    throw new A2aReplayError(
      'RECEIPT_INVALID',
      `${path}:${failure?.line ?? 1}: does not verify (${failure?.reason ?? 'unknown'}: ${failure?.message ?? ''}); ` +
        'a log is continued only from one that verifies',
    );
  return { end: read.end, tornTail: read.result.tornTail, stall };
}

/** One log of a series, in series order. */
export interface SeriesMember {
  path: string;
  position: number;
  result: VerifyResult;
}

export interface SeriesResult {
  ok: boolean;
  /** The series' id (its first log's name in origins), when the logs' headers were read. */
  id: string | null;
  members: SeriesMember[];
  /** The suspensions open at the end of the last log (carried through the series). */
  open: number;
  /** What is wrong, naming the file(s); absent when ok. */
  error?: { file: string; message: string };
}

/**
 * The receipt logs a series is given as: the files named, a directory standing for the
 * `*.receipts.jsonl` files in it.
 */
export async function seriesFiles(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => null);
    if (info?.isDirectory()) {
      const names = (await readdir(path)).filter((name) => name.endsWith('.receipts.jsonl')).sort();
      if (names.length === 0)
        throw new A2aReplayError('INVALID_ARGUMENT', `${path}: a directory holding no *.receipts.jsonl file`);
      files.push(...names.map((name) => join(path, name)));
    } else if (info?.isFile()) files.push(path);
    else throw new A2aReplayError('INVALID_ARGUMENT', `${path}: ${info ? 'not a file' : 'cannot read (no such file)'}`);
  }
  return files;
}

/**
 * The position a file's name gives, by the rotation naming (docs/design.md §6, "Series"):
 * `X.<n>.receipts.jsonl` holds position n (n >= 2); null for a name that gives none.
 */
export function positionInName(path: string): number | null {
  const match = /\.(\d{1,9})\.receipts\.jsonl$/.exec(basename(path));
  return match ? Number(match[1]) : null;
}

/**
 * The position line 1 of `path` states (1 for a log that continues none); null when line 1 is not a
 * readable header (the verifier then names what is wrong).
 */
export async function headerPosition(path: string): Promise<number | null> {
  for await (const chunk of readLogChunks(path)) {
    const text = chunk[0]?.text;
    if (text === null || text === undefined) return null;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return null;
    }
    const read = readReceiptLogLine(value);
    return read.ok && read.value.type === 'ReceiptLog' ? (read.value.series?.position ?? 1) : null;
  }
  return null;
}

interface Read {
  path: string;
  result: VerifyResult;
  header: ReceiptLogHeader;
  headerHash: string;
  end: LogEnd;
  openHashes: string[];
  openInterruptions: string[];
  series: string;
  position: number;
}

/**
 * Checks a series (docs/design.md §6, "Series"): every log verifies (each one before the last may
 * end open or torn, as its successor's link says it ended; the last as `options` allow), all belong
 * to one series, positions run 1..n without a gap or a repeat and agree with the files' names, and
 * each link states its predecessor's header, end, last checkpoint and open suspensions exactly.
 */
export async function verifySeries(
  paths: readonly string[],
  options: Omit<VerifyOptions, 'onLine' | 'jobs' | 'anchor'> & {
    /** A checkpoint kept outside (the series' head) and the log it is checked against. */
    anchorAt?: { path: string; checkpoint: Checkpoint } | undefined;
  },
  /** Each verified line of each log, in file order (audit builds on this). */
  onLine?: (path: string, line: VerifiedLine) => void,
): Promise<SeriesResult> {
  const reads: Read[] = [];
  const members = (): SeriesMember[] => reads.map((r) => ({ path: r.path, position: r.position, result: r.result }));
  const fail = (file: string, message: string): SeriesResult => ({
    ok: false,
    id: reads[0]?.series ?? null,
    members: members(),
    open: 0,
    error: { file, message },
  });
  // In series order, so that `onLine` sees a suspension before what closes it in a later log.
  const positions = await Promise.all(paths.map(async (path) => ({ path, at: (await headerPosition(path)) ?? 0 })));
  positions.sort((a, b) => a.at - b.at);
  for (const { path } of positions) {
    // Every log may end open or torn here; the last one is held to `options` once it is known.
    const { anchorAt, ...verifyOptions } = options;
    const read = await readLog(path, {
      ...verifyOptions,
      ...(anchorAt?.path === path ? { anchor: anchorAt.checkpoint } : {}),
      allowOpen: true,
      allowTornTail: true,
      ...(onLine ? { onLine: (line: VerifiedLine) => onLine(path, line) } : {}),
    });
    if (read.end === null || !read.result.ok) {
      const e = read.result.firstError;
      return fail(path, `${path}: INVALID at line ${e?.line ?? 1}: ${e?.reason ?? 'unknown'}: ${e?.message ?? ''}`);
    }
    const { header, headerHash } = read.end;
    const position = header.series?.position ?? 1;
    const named = positionInName(path);
    if (named !== null && named !== position)
      return fail(
        path,
        `${path} holds position ${position} of its series, but its name says ${named}: files were swapped or renamed`,
      );
    reads.push({
      path,
      result: read.result,
      header,
      headerHash,
      end: read.end,
      openHashes: read.openHashes,
      openInterruptions: read.openInterruptions,
      series: seriesIdOf(header, headerHash),
      position,
    });
  }
  reads.sort((a, b) => a.position - b.position);
  const first = reads[0];
  if (first === undefined) return fail('', 'no receipt log given');
  return checkOrder(reads, options, fail) ?? { ok: true, id: first.series, members: members(), open: openAtEnd(reads) };
}

function openAtEnd(reads: readonly Read[]): number {
  return reads.at(-1)?.openHashes.length ?? 0;
}

function checkOrder(
  reads: readonly Read[],
  options: Omit<VerifyOptions, 'onLine' | 'jobs'>,
  fail: (file: string, message: string) => SeriesResult,
): SeriesResult | null {
  const ids = new Map<string, string[]>();
  for (const r of reads) ids.set(r.series, [...(ids.get(r.series) ?? []), r.path]);
  if (ids.size > 1) {
    const [main] = [...ids.entries()].sort((a, b) => b[1].length - a[1].length);
    const others = reads.filter((r) => r.series !== main![0]);
    return fail(
      others[0]!.path,
      `${others.map((r) => `${r.path} belongs to series ${r.series}`).join('; ')}, not to series ` +
        `${main![0]} of ${main![1].join(', ')}: a log from another series was put in`,
    );
  }
  const first = reads[0]!;
  if (first.position !== 1)
    return fail(
      first.path,
      `the series ${first.series} starts at ${first.path}, position ${first.position}: ` +
        `${first.position === 2 ? 'its first log is' : `its logs 1 to ${first.position - 1} are`} missing`,
    );
  for (let i = 1; i < reads.length; i++) {
    const before = reads[i - 1]!;
    const after = reads[i]!;
    if (after.position === before.position)
      return fail(
        after.path,
        `${before.path} and ${after.path} both hold position ${after.position} of series ${after.series}`,
      );
    if (after.position > before.position + 1) {
      const missing = after.position - before.position - 1;
      return fail(
        after.path,
        `gap between ${before.path} (position ${before.position}) and ${after.path} (position ${after.position}): ` +
          `${missing} log${missing === 1 ? ' is' : 's are'} missing`,
      );
    }
    const problem = linkProblem(before, after);
    if (problem !== null) return fail(after.path, problem);
  }
  // The last log is held to what the caller accepts (an open end, a torn tail).
  const last = reads.at(-1)!;
  if (!last.result.closed && !options.allowOpen)
    return fail(
      last.path,
      `${last.path}: the last log of the series is not closed by its checkpoint (--allow-open accepts an open end)`,
    );
  if (last.result.tornTail !== null && !options.allowTornTail)
    return fail(last.path, `${last.path}: line ${last.result.tornTail} is torn (--allow-torn-tail skips it)`);
  return null;
}

/** Where a log ends as its lines show it, keys or none: what a successor's link must state. */
export interface LineEnd {
  path: string;
  header: ReceiptLogHeader;
  headerHash: string;
  end: Pick<LogEnd, 'head' | 'lines' | 'receipts' | 'closed'>;
}

/**
 * What in `after`'s link does not match the header and end of `before` that its lines show
 * (checked with a key or without: a fork, a log cut short or appended to); null when all does.
 */
export function endLinkProblem(before: LineEnd, after: Pick<LineEnd, 'path' | 'header'>): string | null {
  const link = after.header.series?.previous;
  if (link === undefined) return `log ${after.path} continues no log, but follows ${before.path}`;
  if (link.header !== before.headerHash)
    return (
      `log ${after.path} links to ${link.header} (recording ${link.recording ?? 'none'}), but the given ` +
      `predecessor ${before.path} is ${before.headerHash} (recording ${before.header.recording ?? 'none'})`
    );
  const end = before.end;
  if (link.head !== end.head || link.lines !== end.lines || link.receipts !== end.receipts)
    return (
      `log ${after.path} links to ${before.path} as ending at line ${link.lines} (${link.receipts} receipts, ` +
      `hash ${link.head}), but it ends at line ${end.lines} (${end.receipts} receipts, hash ${end.head}): ` +
      'lines were appended to it or cut from it after its successor began'
    );
  if (link.closed !== end.closed)
    return (
      `log ${after.path} says ${before.path} was ${link.closed ? '' : 'not '}closed, ` +
      `but it is${end.closed ? '' : ' not'}`
    );
  return null;
}

/** What in `after`'s link does not match how `before` ended; null when all does. */
function linkProblem(before: Read, after: Read): string | null {
  const ends = endLinkProblem(before, after);
  if (ends !== null) return ends;
  const link = after.header.series!.previous;
  const end = before.end;
  const checkpoint = end.checkpoint;
  if (
    (link.checkpoint === null) !== (checkpoint === null) ||
    (link.checkpoint !== null &&
      checkpoint !== null &&
      (link.checkpoint.size !== checkpoint.size ||
        link.checkpoint.root !== checkpoint.root ||
        link.checkpoint.note !== checkpoint.note))
  )
    return `log ${after.path} names another last checkpoint of ${before.path} than the one it holds`;
  const carried = link.open.map(suspensionHash);
  const expected = before.openHashes;
  if (carried.length !== expected.length || carried.some((h, i) => h !== expected[i]))
    return (
      `log ${after.path} carries ${carried.length} open suspension${carried.length === 1 ? '' : 's'} from ` +
      `${before.path}, which ends with ${expected.length} open: they differ`
    );
  const interruptions = (link.interruptions ?? []).map(interruptionHash);
  const interrupted = before.openInterruptions;
  if (interruptions.length !== interrupted.length || interruptions.some((h, i) => h !== interrupted[i]))
    return (
      `log ${after.path} carries ${interruptions.length} open interruption${interruptions.length === 1 ? '' : 's'} ` +
      `from ${before.path}, which ends with ${interrupted.length} open: they differ`
    );
  return null;
}
