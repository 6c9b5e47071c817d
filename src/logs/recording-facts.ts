/**
 * @module logs/recording-facts
 * What an audit of a log takes from the log's recording (docs/design.md §14.8, §14.10): the
 * observer rules that decided each pause, worked out again (the observer is pure, so it decides as
 * it did when the receipts were made), and the A2A versions of the entries each row rests on.
 */
import { EntryVersions } from '../observe/entry-versions.js';
import { VerdictRules } from '../observe/verdict-rules.js';
import type { RulesOf, VersionsOf } from '../receipts/audit.js';
import { readRecordingFile } from '../recording/recording-reader.js';

/** The A2A versions of the recording `file`'s entries; undefined when every exchange of it is 1.0. */
export async function recordingVersions(file: string, allowTornTail = false): Promise<VersionsOf | undefined> {
  const versions = new EntryVersions();
  for await (const read of readRecordingFile(file, { allowTornTail, source: file }))
    if (read.kind === 'entry') versions.add(read.entry);
  return versions.named ? (seqs) => versions.ofEntries(seqs) : undefined;
}

/** The rules of each pause of the recording `file`, by its Suspension span. */
export async function recordingRules(file: string, allowTornTail = false): Promise<RulesOf> {
  let rules: VerdictRules | undefined;
  let lastAt = '';
  for await (const read of readRecordingFile(file, { allowTornTail, source: file })) {
    if (read.kind === 'header') {
      rules = new VerdictRules(read.header.id);
      lastAt = read.header.createdAt;
    } else {
      rules?.observe(read.entry);
      lastAt = read.entry.at;
    }
  }
  rules?.finish(lastAt);
  return (span) => rules?.of(span);
}
