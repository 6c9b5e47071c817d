/**
 * @module logs/recording-gaps
 * Where a reading of a recording cannot follow the peer (docs/design.md §14.2, §14.10): the entries
 * that do not hold all it sent, the requests in no dialect the observer reads, and what the
 * observer could not read of what the peer said. Gathered from the observer's findings by their
 * bearing (`observe/finding-bearing`), one way for `lost`, `verify --recording` and the report: a
 * reading with any of them is not a clean verdict.
 */
import { FINDING_BEARING } from '../observe/finding-bearing.js';
import type { ObserverFinding } from '../observe/findings.js';
import { ObservationPipeline } from '../observe/pipeline.js';
import { readRecordingFile } from '../recording/recording-reader.js';

/** Entries listed by line; past this many they are only counted. */
export const INCOMPLETE_LISTED = 100;

/** Entries of one kind of gap: the first {@link INCOMPLETE_LISTED}, in file order (line, seq, why), and the count. */
export interface Incomplete {
  listed: { line: number; seq: number; why: string }[];
  count: number;
}

/** The gaps of a reading of a recording. */
export interface RecordingGaps {
  /** Entries that do not hold all the peer sent (`incomplete-entry`, §5). */
  incomplete: Incomplete;
  /** Requests in no dialect the observer reads (`not-understood`, §14.10). */
  notUnderstood: Incomplete;
  /** What the observer could not read of what the peer said (a malformed pause, an answer that does not parse, ...). */
  unread: Incomplete;
}

/** Whether a reading with these gaps is a clean one. */
export function gapless(gaps: RecordingGaps): boolean {
  return gaps.incomplete.count === 0 && gaps.notUnderstood.count === 0 && gaps.unread.count === 0;
}

export interface GapCollectorOptions {
  /**
   * Whether an entry kept as its head (`cut`) counts: true for a reading of the recording (`lost`,
   * the report), false for one that stands for the recorder's own (`verify --recording`), which read
   * that body whole; the findings of such an entry are then dropped with it.
   */
  cutCounts: boolean;
}

/** Gathers a recording's gaps from the observer's findings, entry lines told as the entries are read. */
export class RecordingGapCollector {
  readonly gaps: RecordingGaps = {
    incomplete: { listed: [], count: 0 },
    notUnderstood: { listed: [], count: 0 },
    unread: { listed: [], count: 0 },
  };
  readonly #cutCounts: boolean;
  readonly #lines = new Map<number, number>();
  /** The latest entry found incomplete: its own findings are that gap, not more. */
  #incompleteSeq: number | null = null;

  constructor(options: GapCollectorOptions) {
    this.#cutCounts = options.cutCounts;
  }

  /** The line of the entry `seq`, for the listings (only the entry being read is kept). */
  line(seq: number, line: number): void {
    this.#lines.clear();
    this.#lines.set(seq, line);
  }

  /** One finding of the observer, as it is made. */
  add(finding: ObserverFinding): void {
    const { seq } = finding;
    if (seq === null) return;
    const bearing = FINDING_BEARING[finding.code];
    if (bearing === 'incomplete') {
      this.#incompleteSeq = seq;
      if (finding.field === 'cut' && !this.#cutCounts) return;
      this.#list(this.gaps.incomplete, seq, finding.message);
    } else if (bearing === 'not-understood') {
      this.#list(this.gaps.notUnderstood, seq, finding.message);
    } else if (bearing === 'unread' && seq !== this.#incompleteSeq) {
      this.#list(this.gaps.unread, seq, `${finding.code}: ${finding.message}`);
    }
  }

  #list(into: Incomplete, seq: number, why: string): void {
    into.count += 1;
    if (into.listed.length < INCOMPLETE_LISTED) into.listed.push({ line: this.#lines.get(seq) ?? 0, seq, why });
  }
}

/**
 * The gaps of the recording `file`, through the observer as `lost` reads it (its entries read as
 * they come), and the recording's id. An unreadable file is an error naming it and the line.
 */
export async function readRecordingGaps(
  file: string,
  options: GapCollectorOptions & { allowTornTail: boolean },
): Promise<{ id: string; gaps: RecordingGaps }> {
  const gaps = new RecordingGapCollector(options);
  let pipeline: ObservationPipeline | undefined;
  let id = '';
  let lastAt = '';
  for await (const read of readRecordingFile(file, { allowTornTail: options.allowTornTail, source: file })) {
    if (read.kind === 'header') {
      id = read.header.id;
      lastAt = read.header.createdAt;
      pipeline = new ObservationPipeline({
        recordingId: id,
        retainFindings: false,
        onFinding: (finding) => gaps.add(finding),
      });
      continue;
    }
    lastAt = read.entry.at;
    gaps.line(read.entry.seq, read.line);
    void pipeline?.push(read.entry);
  }
  await pipeline?.finish(lastAt);
  await pipeline?.idle();
  return { id, gaps: gaps.gaps };
}

/** The gaps of a recording read whole, from the findings of one observer pass (the report's); `lineOf` names lines. */
export function gapsOfFindings(
  findings: readonly ObserverFinding[],
  lineOf: (seq: number) => number,
  options: GapCollectorOptions,
): RecordingGaps {
  const gaps = new RecordingGapCollector(options);
  for (const finding of findings) {
    if (finding.seq !== null) gaps.line(finding.seq, lineOf(finding.seq));
    gaps.add(finding);
  }
  return gaps.gaps;
}

/** What a verdict over the recording adds for its gaps: '' when there are none (the report's verdict). */
export function gapsWord(gaps: RecordingGaps): string {
  const parts: string[] = [];
  if (gaps.incomplete.count > 0) parts.push(`${gaps.incomplete.count} incomplete`);
  if (gaps.notUnderstood.count > 0) parts.push(`${gaps.notUnderstood.count} not understood`);
  if (gaps.unread.count > 0) parts.push(`${gaps.unread.count} unread`);
  return parts.length === 0 ? '' : `; NOT A CLEAN READING: ${parts.join(', ')}`;
}

/** One sentence per gap, naming `file`, line, seq and why (the report's notes). */
export function gapNotes(file: string, gaps: RecordingGaps): string[] {
  const notes: string[] = [];
  const each = (label: string, gap: Incomplete, what: string): void => {
    if (gap.count === 0) return;
    notes.push(`${label}: ${gap.count} ${what}; a pause or interruption shown there is not in this view`);
    for (const i of gap.listed) notes.push(`${label}: ${file}:${i.line}: seq ${i.seq}: ${i.why}`);
    if (gap.count > gap.listed.length) notes.push(`${label}: ... and ${gap.count - gap.listed.length} more`);
  };
  each('INCOMPLETE', gaps.incomplete, 'entries do not hold all the peer sent');
  each('NOT UNDERSTOOD', gaps.notUnderstood, 'requests are in no A2A dialect this tool reads');
  each('UNREAD', gaps.unread, 'entries hold what the peer said in a form the observer could not read');
  return notes;
}
