/**
 * @module logs/lost-reading
 * Reading what was lost (docs/design.md §7 `LostPause`, §14): from a recording, the observer's
 * verdicts through the pipeline record and run use, with the entries it could not read in full
 * (`incomplete`, §5), in any dialect (§14.10) or at all (§14.2), and the dialects it mixed; from a
 * receipt log, the suspensions no resumption closed, its lines read as they come.
 */
import { existsSync } from 'node:fs';
import type { Keyring } from '../receipts/keys.js';
import {
  type LogStall,
  headerLineHash,
  readLogStall,
  stallMessage,
  stallRecordPath,
} from '../receipts/stall-record.js';
import { readFirstLine } from './first-line.js';
import { EntryVersions } from '../observe/entry-versions.js';
import { A2aReplayError, errorMessage } from '../errors.js';
import { readObservedRequest } from '../observe/dialect-view.js';
import { ObservationPipeline } from '../observe/pipeline.js';
import { type LostChain, VerdictChains } from '../observe/verdict-chains.js';
import { formatIssue } from '../protocol/read.js';
import { type RawLine, readLogChunks } from '../receipts/log-reader.js';
import { readReceiptLogLine } from '../receipts/read-line.js';
import type { ReceiptLogLine } from '../receipts/types.js';
import type { RecordingEntry } from '../recording/format.js';
import { readRecordingFile } from '../recording/recording-reader.js';
import { RecordingGapCollector, type RecordingGaps } from './recording-gaps.js';
import {
  type LostInterruptionListing,
  LostPauseCollector,
  type LostPauseListing,
  OpenSuspensions,
} from '../observe/lost-pauses.js';

export type Dialects = Record<string, number>;

/** Counts `entry`'s exchange under its version, if it is a request read as a call or not understood. */
export function countDialect(dialects: Dialects, entry: RecordingEntry): void {
  if (entry.kind !== 'request') return;
  const view = readObservedRequest(entry);
  const version = view.kind === 'call' ? view.version : view.kind === 'not-understood' ? view.version : undefined;
  if (version !== undefined) dialects[version] = (dialects[version] ?? 0) + 1;
}

/** The `type` of line 1: "recording" or "ReceiptLog"; anything else is a usage error naming line 1. */
export function firstLineType(file: string, text: string): string {
  if (text.trim() === '')
    throw new A2aReplayError('INVALID_ARGUMENT', `${file}:1: empty; expected a recording or a receipt log header`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new A2aReplayError('INVALID_ARGUMENT', `${file}:1: not JSON (${errorMessage(error)})`);
  }
  const type =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as { type?: unknown }).type
      : undefined;
  if (type !== 'recording' && type !== 'ReceiptLog') {
    throw new A2aReplayError(
      'INVALID_ARGUMENT',
      `${file}:1: "type" is ${JSON.stringify(type)}; expected "recording" (a recording) or ` +
        `"ReceiptLog" (a receipt log)`,
    );
  }
  return type;
}

/**
 * The observer's verdicts over a recording, through the same pipeline record and run use, its
 * entries read as they come (the observer's memory is bounded; the recording is never held whole),
 * and where it could not follow the peer (its gaps: `logs/recording-gaps`).
 */
export async function lostInRecording(
  file: string,
  allowTornTail: boolean,
  explain: boolean,
): Promise<{
  lost: LostPauseListing[];
  interruptions: LostInterruptionListing[];
  gaps: RecordingGaps;
  dialects: Dialects;
  chains: readonly LostChain[];
}> {
  const collector = new LostPauseCollector();
  let chains: VerdictChains | undefined;
  const gaps = new RecordingGapCollector({ cutCounts: true });
  const dialects: Dialects = {};
  const versions = new EntryVersions();
  let pipeline: ObservationPipeline | undefined;
  let lastAt = '';
  for await (const read of readRecordingFile(file, { allowTornTail, source: file })) {
    if (read.kind === 'header') {
      pipeline = new ObservationPipeline({
        recordingId: read.header.id,
        spans: collector,
        retainFindings: false,
        onFinding: (finding) => gaps.add(finding),
      });
      lastAt = read.header.createdAt;
      if (explain) chains = new VerdictChains(read.header.id);
    } else {
      lastAt = read.entry.at;
      countDialect(dialects, read.entry);
      versions.add(read.entry);
      gaps.line(read.entry.seq, read.line);
      void pipeline?.push(read.entry);
      chains?.observe(read.entry, read.line);
    }
  }
  // The reader refuses a recording without a header, so the pipeline exists here.
  await pipeline?.finish(lastAt);
  await pipeline?.idle();
  chains?.finish(lastAt);
  // Each row names its task's versions when the recording holds one other than 1.0 (design §14.10).
  const versioned = <T extends { taskId: string }>(rows: readonly T[]): T[] =>
    versions.named ? rows.map((r) => ({ ...r, a2aVersions: versions.ofTask(r.taskId) })) : [...rows];
  return {
    lost: versioned(collector.lost),
    interruptions: versioned(collector.lostInterruptions),
    gaps: gaps.gaps,
    dialects,
    chains: chains?.lost ?? [],
  };
}

/** A line of a receipt log as the readers read it; a bad one is a usage error naming it. */
export function readLostLine(file: string, raw: RawLine, allowTornTail: boolean): ReceiptLogLine | undefined {
  // A last line without its newline that does not parse is torn (the writer died mid-line).
  const torn = (): boolean => !raw.complete && allowTornTail;
  if (raw.text === null) {
    if (torn()) return undefined;
    throw new A2aReplayError('INVALID_ARGUMENT', `${file}:${raw.number}: ${raw.problem ?? 'unreadable line'}`);
  }
  if (raw.text.trim() === '' && !raw.complete) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw.text);
  } catch (error) {
    if (torn()) return undefined;
    throw new A2aReplayError('INVALID_ARGUMENT', `${file}:${raw.number}: not JSON (${errorMessage(error)})`);
  }
  const parsed = readReceiptLogLine(value);
  if (!parsed.ok) throw new A2aReplayError('INVALID_ARGUMENT', `${file}:${raw.number}: ${formatIssue(parsed.issue)}`);
  return parsed.value;
}

/**
 * The lost pauses of a receipt log, its lines read as they come: only the suspensions still open
 * are kept, so a log of any length is read in flat memory. A bad line stops the reading, naming it.
 */
export async function lostInReceiptLog(file: string, allowTornTail: boolean): Promise<OpenSuspensions> {
  const open = new OpenSuspensions();
  for await (const chunk of readLogChunks(file)) {
    for (const raw of chunk) {
      const line = readLostLine(file, raw, allowTornTail);
      if (line) open.add(line);
    }
  }
  return open;
}

/**
 * What the stall record beside a receipt log states of lines the log lacks (docs/design.md §5, "A
 * full disk"; receipts/stall-record): null when there is no record, it states no stall, or the
 * log holds the lines since. Checked with `keyring` when given; `unchecked` otherwise.
 */
export async function unreceiptedInLog(file: string, keyring?: Keyring): Promise<LogStall | null> {
  if (!existsSync(stallRecordPath(file))) return null;
  const header = await readFirstLine(file);
  let lines = 0;
  for await (const chunk of readLogChunks(file)) for (const raw of chunk) if (raw.complete) lines = raw.number;
  const stall = readLogStall(file, { headerHash: headerLineHash(header), lines }, keyring);
  return stall === null || stall.writtenSince ? null : stall;
}

/**
 * For logs read without keys (a series or a fleet): a log whose stall record lists lines it lacks
 * holds moves with no receipt, so no verdict over it is clean; the same failure a keyed reading
 * gives (`unreceipted`), naming the log and what it lacks.
 */
export async function refuseUnreceipted(files: readonly string[]): Promise<void> {
  for (const file of files) {
    const stall = await unreceiptedInLog(file);
    if (stall !== null) throw new A2aReplayError('RECEIPT_INVALID', `${file}: ${stallMessage(stall)}`);
  }
}
