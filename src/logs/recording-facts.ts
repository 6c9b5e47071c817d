/**
 * @module logs/recording-facts
 * What an audit of a log takes from the log's recording (docs/design.md §14.8, §14.10): what the
 * log must be bound to, the observer rules that decided each pause, worked out again (the observer
 * is pure, so it decides as it did when the receipts were made), and the A2A versions of the
 * entries each row rests on.
 */
import { EntryVersions } from '../observe/entry-versions.js';
import { VerdictRules } from '../observe/verdict-rules.js';
import type { RulesOf, VersionsOf } from '../receipts/audit.js';
import { readRecordingBinding } from '../receipts/recording-binding.js';
import type { RecordingBinding } from '../receipts/types.js';
import { readRecordingFile } from '../recording/recording-reader.js';

/** All an audit takes from a log's recording. */
export interface RecordingFacts {
  /** What the log's closing checkpoint must bind (`readRecordingBinding`). */
  binding: RecordingBinding;
  /** The rules of each pause, by its Suspension span. */
  rulesOf: RulesOf;
  /** The A2A versions of entries; undefined when every exchange of the recording is 1.0. */
  versionsOf: VersionsOf | undefined;
}

/** The rules and versions of the recording `file`'s entries, read once. */
async function entryFacts(file: string, allowTornTail: boolean): Promise<Omit<RecordingFacts, 'binding'>> {
  const versions = new EntryVersions();
  let rules: VerdictRules | undefined;
  let lastAt = '';
  for await (const read of readRecordingFile(file, { allowTornTail, source: file })) {
    if (read.kind === 'header') {
      rules = new VerdictRules(read.header.id);
      lastAt = read.header.createdAt;
    } else {
      versions.add(read.entry);
      rules?.observe(read.entry);
      lastAt = read.entry.at;
    }
  }
  rules?.finish(lastAt);
  return {
    rulesOf: (span) => rules?.of(span),
    versionsOf: versions.named ? (seqs) => versions.ofEntries(seqs) : undefined,
  };
}

/** The A2A versions of the recording `file`'s entries; undefined when every exchange of it is 1.0. */
export async function recordingVersions(file: string, allowTornTail = false): Promise<VersionsOf | undefined> {
  return (await entryFacts(file, allowTornTail)).versionsOf;
}

/** The rules of each pause of the recording `file`, by its Suspension span. */
export async function recordingRules(file: string, allowTornTail = false): Promise<RulesOf> {
  return (await entryFacts(file, allowTornTail)).rulesOf;
}

/**
 * The facts of the recording `file` (see {@link RecordingFacts}): its binding read from its bytes,
 * then its entries once. A file that cannot be read as a recording is an `A2aReplayError` naming it.
 */
export async function recordingFacts(file: string, allowTornTail = false): Promise<RecordingFacts> {
  const binding = await readRecordingBinding(file);
  return { binding, ...(await entryFacts(file, allowTornTail)) };
}
