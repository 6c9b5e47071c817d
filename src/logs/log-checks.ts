/**
 * @module logs/log-checks
 * What `verify` checks of one log beyond its chain: that a recording is the log's and was read
 * whole ({@link checkLogRecording}, docs/design.md §5), that the log extends a checkpoint note taken
 * earlier ({@link verifySince}, §6), and that enough witnesses cosigned its latest checkpoint
 * ({@link verifyWitnesses}, §6 "Witnesses"). Each says whether it holds, and in lines, why.
 */
import { readFile } from 'node:fs/promises';
import { A2aReplayError, errorMessage } from '../errors.js';
import { cosignaturesPathFor, parseCosignatureFile } from '../receipts/cosignature-file.js';
import type { Keyring } from '../receipts/keys.js';
import { checkSince, latestNote, scanLogTree } from '../receipts/log-proofs.js';
import { noteVerifierOf } from '../receipts/log-tree.js';
import { checkWitnessQuorum } from '../receipts/witness-check.js';
import type { NoteVerifier } from '../tlog/note.js';
import { readFirstLine } from './first-line.js';
import { type Incomplete, gapless, readRecordingGaps } from './recording-gaps.js';

/**
 * Whether `recording` is the recording `log` was derived from (its header `id` is the log's
 * `recording`) and was read whole by the recorder and its observer (docs/design.md §5, §14.2,
 * §14.10): an entry marked `incomplete`, a request in no dialect, or an answer the observer could
 * not read hid from the receipts whatever pause it showed. The gaps are the ones `lost` names
 * (`logs/recording-gaps`), but for a body the recording keeps as its head (`cut`): the recorder
 * read that one whole. A recording that cannot be read is an error.
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
  let read: Awaited<ReturnType<typeof readRecordingGaps>>;
  try {
    read = await readRecordingGaps(recording, { cutCounts: false, allowTornTail: true });
  } catch (error) {
    if (error instanceof A2aReplayError) throw error;
    throw new A2aReplayError('INVALID_ARGUMENT', errorMessage(error), { cause: error });
  }
  const lines: string[] = [];
  let ok = true;
  if (read.id !== logRecording) {
    ok = false;
    lines.push(
      `${recording}: not the recording of ${log}: its id is ${JSON.stringify(read.id)}, ` +
        `the log names ${JSON.stringify(logRecording ?? null)}`,
    );
  }
  const { incomplete, notUnderstood, unread } = read.gaps;
  const listed = (gap: Incomplete): string[] => [
    ...gap.listed.map((i) => `${recording}:${i.line}: seq ${i.seq}: ${i.why}`),
    ...(gap.count > gap.listed.length ? [`... and ${gap.count - gap.listed.length} more`] : []),
  ];
  const entries = (n: number) => `${n} entr${n === 1 ? 'y' : 'ies'}`;
  if (incomplete.count > 0)
    lines.push(
      `${recording}: INCOMPLETE: the recorder could not read ${entries(incomplete.count)} in full; ` +
        'a pause or resume they carried has no receipt in the log',
      ...listed(incomplete),
    );
  if (notUnderstood.count > 0) {
    const n = notUnderstood.count;
    lines.push(
      `${recording}: NOT UNDERSTOOD: ${n} request${n === 1 ? ' is' : 's are'} in no A2A dialect this tool reads; ` +
        'what they carried has no receipt in the log',
      ...listed(notUnderstood),
    );
  }
  if (unread.count > 0)
    lines.push(
      `${recording}: UNREAD: the observer could not read what the peer said at ${entries(unread.count)}; ` +
        'a pause, resume or interruption shown there has no receipt in the log',
      ...listed(unread),
    );
  if (!gapless(read.gaps)) ok = false;
  else if (ok) lines.push(`${recording}: complete: the recorder read every answer whole`);
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

/** What {@link verifyLogSet} checks of one log beyond its chain (docs/design.md §5, §6). */
export interface LogChecks {
  /** The log's recording: it must be the one the log was derived from, unchanged and read whole. */
  recording?: string | undefined;
  /** A checkpoint note taken earlier (its text, and the name the line gives it): the log must extend it. */
  since?: { note: string; name: string } | undefined;
  /** Witnesses of whom enough must have cosigned the log's latest checkpoint. */
  witnesses?: Omit<WitnessesOptions, 'read'> | undefined;
}

/** What {@link LogChecks} found of one log; a check not asked for (or not reached) is absent. */
export interface LogChecksFound {
  recording?: { ok: boolean; lines: string[] };
  since?: SinceCheck;
  witnesses?: WitnessesCheck;
}

/**
 * Runs `checks` on `log` (read from `read`) after its chain verified (`chainOk`): the recording is
 * checked whatever the chain said, the note and the witnesses only of a log that verified.
 */
export async function runLogChecks(
  log: string,
  read: string,
  chainOk: boolean,
  checks: LogChecks,
  keyring: Keyring,
): Promise<LogChecksFound> {
  const found: LogChecksFound = {};
  if (checks.recording !== undefined) found.recording = await givenInput(checkLogRecording(read, checks.recording));
  if (!chainOk) return found;
  if (checks.since !== undefined) {
    const { note, name } = checks.since;
    found.since = await verifySince(read, note, name, keyring).catch((error: unknown) => {
      if (error instanceof A2aReplayError) throw new A2aReplayError(error.code, `since ${name}: ${error.message}`);
      throw error;
    });
  }
  if (checks.witnesses !== undefined) found.witnesses = await verifyWitnesses(log, { ...checks.witnesses, read });
  return found;
}

/**
 * A file the caller named that cannot be read is bad input (INVALID_ARGUMENT), not a failure of
 * the machine: `verify` says so as a usage error.
 */
export async function givenInput<T>(reading: Promise<T>): Promise<T> {
  try {
    return await reading;
  } catch (error) {
    if (error instanceof A2aReplayError && error.code === 'IO_FAILED')
      throw new A2aReplayError('INVALID_ARGUMENT', error.message, { cause: error });
    throw error;
  }
}

/** Whether every check run held. */
export const logChecksOk = (found: LogChecksFound): boolean =>
  found.recording?.ok !== false && found.since?.ok !== false && found.witnesses?.ok !== false;
