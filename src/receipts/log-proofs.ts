/**
 * @module receipts/log-proofs
 * What an outsider can check of a version-4 receipt log without the log (docs/design.md §6,
 * "Merkle checkpoints"): its latest checkpoint note, an inclusion proof of one receipt line
 * (C2SP tlog-proof) and the consistency of the log with a checkpoint note taken earlier.
 */
import { A2aReplayError } from '../errors.js';
import { type TlogProof, formatTlogProof, parseCheckpointText, parseTlogProof } from '../tlog/checkpoint.js';
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  rootOf,
  verifyConsistency,
  verifyInclusion,
} from '../tlog/merkle.js';
import { type NoteVerifier, openNote, parseNote } from '../tlog/note.js';
import { readLogLines } from './log-reader.js';

/** A note found in a log: the 0-based index of its checkpoint line, which is also its tree size. */
export interface LogNote {
  index: number;
  note: string;
}

/** A log read for its tree: every line's leaf hash, its checkpoint notes, and where each receipt is. */
export interface LogTreeScan {
  leaves: Buffer[];
  notes: LogNote[];
  /** Receipt seq → 0-based line index, for every kind of receipt. */
  receipts: Map<number, number>;
}

/** The lines that are receipts, each with its `seq`: pauses and interruptions alike (docs/design.md §6). */
const RECEIPT_TYPES = new Set(['SuspensionReceipt', 'ResumptionReceipt', 'InterruptionReceipt', 'ContinuationReceipt']);

function invalid(problem: string): A2aReplayError {
  return new A2aReplayError('INVALID_ARGUMENT', problem);
}

/**
 * Reads `path` line by line: a line that is not JSON, and a last line without its newline (a
 * writer stopped mid-line), end the scan there; `verify` is the tool that says what is wrong.
 */
export async function scanLogTree(path: string): Promise<LogTreeScan> {
  const scan: LogTreeScan = { leaves: [], notes: [], receipts: new Map() };
  for await (const raw of readLogLines(path)) {
    if (raw.text === null || !raw.complete) break;
    let value: { type?: unknown; seq?: unknown; note?: unknown };
    try {
      value = JSON.parse(raw.text) as typeof value;
    } catch {
      break;
    }
    const index = scan.leaves.length;
    if (typeof value.type === 'string' && RECEIPT_TYPES.has(value.type) && typeof value.seq === 'number')
      scan.receipts.set(value.seq, index);
    if (value.type === 'Checkpoint' && typeof value.note === 'string') scan.notes.push({ index, note: value.note });
    scan.leaves.push(leafHash(raw.text));
  }
  return scan;
}

/** Checks a note found in the log against its lines; throws naming the line when it does not commit to them. */
function checkLogNote(scan: LogTreeScan, found: LogNote): void {
  const body = parseCheckpointText(parseNote(found.note).text);
  if (body.size !== found.index || !body.root.equals(rootOf(scan.leaves, 0, found.index)))
    throw invalid(
      `line ${found.index + 1}: its checkpoint note does not commit to the ${found.index} lines before it ` +
        '(run verify on the log)',
    );
}

/** The latest checkpoint note of the log, checked against the lines before it. */
export function latestNote(scan: LogTreeScan): LogNote {
  const last = scan.notes.at(-1);
  if (!last) throw invalid('the log holds no checkpoint note (a version-4 log signed with an Ed25519 key has them)');
  checkLogNote(scan, last);
  return last;
}

/** A tlog-proof that the receipt with `seq` is in the tree of the latest checkpoint note. */
export function proveReceipt(scan: LogTreeScan, seq: number): { proof: string; index: number; size: number } {
  const index = scan.receipts.get(seq);
  if (index === undefined) throw invalid(`the log holds no receipt with seq ${seq}`);
  const note = latestNote(scan);
  if (note.index <= index)
    throw invalid(
      `receipt ${seq} (line ${index + 1}) comes after the last checkpoint note (line ${note.index + 1}): ` +
        'no checkpoint commits to it yet',
    );
  const proof: TlogProof = {
    index,
    path: inclusionProof(scan.leaves, index, note.index),
    checkpoint: note.note,
    extra: null,
  };
  return { proof: formatTlogProof(proof), index, size: note.index };
}

/** What a proof showed: the entry's index, and the checkpoint's origin and tree size. */
export interface ProofCheck {
  index: number;
  origin: string;
  size: number;
}

/**
 * Verifies a tlog-proof of `line` (the receipt line as written, without its newline) offline:
 * the checkpoint note's signature by one of `verifiers`, its origin (when `origin` is given),
 * then the inclusion path to its root. Throws naming what failed.
 */
export function verifyReceiptProof(
  proofText: string,
  line: string,
  verifiers: readonly NoteVerifier[],
  origin: string | null = null,
): ProofCheck {
  const proof = parseTlogProof(proofText);
  const opened = openNote(proof.checkpoint, verifiers);
  const body = parseCheckpointText(opened.text);
  // One key signs many logs: the origin says which one the proof is about (docs/design.md §6).
  if (origin !== null && body.origin !== origin)
    throw invalid(`the proof's checkpoint is of ${body.origin}, not of ${origin}`);
  if (!verifyInclusion(proof.index, body.size, leafHash(line), proof.path, body.root))
    throw invalid(
      `the line is not entry ${proof.index} of ${body.origin} at tree size ${body.size}: ` +
        'the inclusion proof does not lead to the checkpoint root',
    );
  return { index: proof.index, origin: body.origin, size: body.size };
}

/**
 * That the log extends the tree of `oldNote` (a checkpoint note taken earlier, signed by one
 * of `verifiers`): same origin, and an RFC 6962 consistency proof from its tree to the log's latest
 * checkpoint note verifies. Throws naming what failed.
 */
export function checkSince(
  scan: LogTreeScan,
  oldNote: string,
  verifiers: readonly NoteVerifier[],
): { oldSize: number; newSize: number; origin: string } {
  const old = parseCheckpointText(openNote(oldNote, verifiers).text);
  const latest = latestNote(scan);
  const now = parseCheckpointText(parseNote(latest.note).text);
  if (old.origin !== now.origin)
    throw invalid(`the earlier checkpoint is of ${old.origin}, but this log is ${now.origin}`);
  if (old.size > now.size)
    throw invalid(
      `the earlier checkpoint commits to ${old.size} lines, but the log's latest commits to ${now.size}: ` +
        'the log was cut',
    );
  const proof = consistencyProof(scan.leaves, old.size, now.size);
  if (!verifyConsistency(old.size, now.size, proof, old.root, now.root))
    throw invalid(
      `the log does not extend the earlier checkpoint: its first ${old.size} lines are not the ones ` +
        'that checkpoint committed to (the log was rewritten)',
    );
  return { oldSize: old.size, newSize: now.size, origin: now.origin };
}
