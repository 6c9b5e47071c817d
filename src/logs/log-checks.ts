/**
 * @module logs/log-checks
 * What `verify` checks of one log beyond its chain: that a recording is the log's and was read
 * whole ({@link checkLogRecording}, docs/design.md §5), that the log extends a checkpoint note taken
 * earlier ({@link verifySince}, §6), and that enough witnesses cosigned its latest checkpoint
 * ({@link verifyWitnesses}, §6 "Witnesses"). Each says whether it holds, and in lines, why.
 */
import { readFile } from 'node:fs/promises';
import { A2aReplayError, errorMessage } from '../errors.js';
import { readObservedRequest } from '../observe/dialect-view.js';
import { entryIncompleteness } from '../observe/entry-reads.js';
import { cosignaturesPathFor, parseCosignatureFile } from '../receipts/cosignature-file.js';
import type { Keyring } from '../receipts/keys.js';
import { checkSince, latestNote, scanLogTree } from '../receipts/log-proofs.js';
import { noteVerifierOf } from '../receipts/log-tree.js';
import { checkWitnessQuorum } from '../receipts/witness-check.js';
import { readRecordingFile } from '../recording/recording-reader.js';
import type { NoteVerifier } from '../tlog/note.js';
import { readFirstLine } from './first-line.js';

/** Incomplete entries of a recording named by line; past this many they are only counted. */
const INCOMPLETE_LISTED = 100;

/**
 * Whether `recording` is the recording `log` was derived from (its header `id` is the log's
 * `recording`) and was read whole by the recorder: an entry marked `incomplete`, or a request in
 * no dialect this tool reads, hid from the receipts whatever pause it showed (docs/design.md §5).
 * A recording that cannot be read is an error.
 */
export async function checkLogRecording(log: string, recording: string): Promise<{ ok: boolean; lines: string[] }> {
  let logRecording: unknown;
  try {
    // The header is line 1, read to its end (a continued log's can be long); never the log whole.
    const first = await readFirstLine(log);
    logRecording = (JSON.parse(first) as { recording?: unknown }).recording;
  } catch {
    logRecording = undefined;
  }
  const lines: string[] = [];
  const unread: string[] = [];
  let unreadCount = 0;
  let count = 0;
  let ok = true;
  try {
    for await (const read of readRecordingFile(recording, { source: recording, allowTornTail: true })) {
      if (read.kind === 'header') {
        if (read.header.id !== logRecording) {
          ok = false;
          lines.push(
            `${recording}: not the recording of ${log}: its id is ${JSON.stringify(read.header.id)}, ` +
              `the log names ${JSON.stringify(logRecording ?? null)}`,
          );
        }
        continue;
      }
      const view = read.entry.kind === 'request' ? readObservedRequest(read.entry) : undefined;
      if (view?.kind === 'not-understood' && unreadCount++ < INCOMPLETE_LISTED)
        unread.push(`${recording}:${read.line}: seq ${read.entry.seq}: ${view.why}`);
      // A body kept as its head (`cut`) was observed whole while recording: the log is whole for it.
      const missing = entryIncompleteness(read.entry);
      if (missing?.field !== 'incomplete') continue;
      count += 1;
      if (count <= INCOMPLETE_LISTED) lines.push(`${recording}:${read.line}: seq ${read.entry.seq}: ${missing.why}`);
    }
  } catch (error) {
    if (error instanceof A2aReplayError) throw error;
    throw new A2aReplayError('INVALID_ARGUMENT', errorMessage(error), { cause: error });
  }
  if (count > INCOMPLETE_LISTED) lines.push(`... and ${count - INCOMPLETE_LISTED} more`);
  if (count > 0) {
    ok = false;
    lines.unshift(
      `${recording}: INCOMPLETE: the recorder could not read ${count} entr${count === 1 ? 'y' : 'ies'} in full; ` +
        'a pause or resume they carried has no receipt in the log',
    );
  } else if (ok && unreadCount === 0) {
    lines.push(`${recording}: complete: the recorder read every answer whole`);
  }
  if (unreadCount > 0) {
    ok = false;
    const n = unreadCount;
    lines.push(
      `${recording}: NOT UNDERSTOOD: ${n} request${n === 1 ? ' is' : 's are'} in no A2A dialect this tool reads; ` +
        'what they carried has no receipt in the log',
      ...unread,
    );
    if (n > unread.length) lines.push(`... and ${n - unread.length} more`);
  }
  return { ok, lines };
}

/** What {@link verifySince} found. */
export interface SinceCheck {
  ok: boolean;
  line: string;
  oldSize?: number;
  newSize?: number;
}

/**
 * Whether `log` extends the tree of `note`, a checkpoint note taken earlier (`checkpoint`) and
 * named `noteName` in the line: same origin, and an RFC 6962 consistency proof from its tree to the
 * log's latest checkpoint verifies, checked with the Ed25519 keys of `keyring`.
 */
export async function verifySince(log: string, note: string, noteName: string, keyring: Keyring): Promise<SinceCheck> {
  const verifiers = keyring.kids.flatMap((kid) => {
    const key = keyring.get(kid)!;
    return key.hasEd25519Public ? [noteVerifierOf(key)] : [];
  });
  if (verifiers.length === 0)
    throw new A2aReplayError('INVALID_ARGUMENT', 'no key given holds an Ed25519 public key to check the note with');
  try {
    const scan = await scanLogTree(log);
    const { oldSize, newSize, origin } = checkSince(scan, note, verifiers);
    return {
      ok: true,
      oldSize,
      newSize,
      line:
        `${log}: extends ${noteName}: ${origin} grew from ${oldSize} to ${newSize} lines ` +
        '(consistency proof verified)',
    };
  } catch (error) {
    if (!(error instanceof A2aReplayError)) throw error;
    return { ok: false, line: `${log}: INVALID since ${noteName}: ${error.message}` };
  }
}

/** What {@link verifyWitnesses} found: who cosigned the latest checkpoint, and one line. */
export interface WitnessesCheck {
  ok: boolean;
  line: string;
  signed?: { witness: string; timestamp: number }[];
}

/** The witnesses to ask, how many must have cosigned, and where their cosignatures are. */
export interface WitnessesOptions {
  /** The witnesses' verifier keys (`witnessKeys` reads them as given). */
  witnesses: readonly NoteVerifier[];
  /** Cosignatures the latest checkpoint needs. Default 1. */
  quorum?: number | undefined;
  /** The cosignature file. Default: X.receipts.cosignatures.jsonl beside the log (none there: none signed). */
  cosignatures?: string | undefined;
  /** The file to read the log from, when not `log` itself (a log rebuilt from a collector export). */
  read?: string | undefined;
}

/**
 * Whether `quorum` of `witnesses` cosigned the latest checkpoint note of `log` and none reported a
 * fork (docs/design.md §6, "Witnesses"). A cosignature file given that cannot be read is an error.
 */
export async function verifyWitnesses(log: string, options: WitnessesOptions): Promise<WitnessesCheck> {
  const file = options.cosignatures ?? cosignaturesPathFor(log);
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' || options.cosignatures !== undefined)
      throw new A2aReplayError('INVALID_ARGUMENT', `${file}: cannot read (${code})`, { cause: error });
  }
  try {
    const latest = latestNote(await scanLogTree(options.read ?? log));
    const check = checkWitnessQuorum(latest, parseCosignatureFile(text), options.witnesses, options.quorum ?? 1);
    return {
      ok: check.ok,
      signed: check.signed,
      line:
        `${log}: ${check.ok ? 'witnessed' : 'NOT WITNESSED'}: ${check.message}` + (text === '' ? ` (no ${file})` : ''),
    };
  } catch (error) {
    if (!(error instanceof A2aReplayError)) throw error;
    return { ok: false, line: `${log}: NOT WITNESSED: ${file}: ${error.message}` };
  }
}
