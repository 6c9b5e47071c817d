/**
 * @module logs/describe-verification
 * What a verification result means, said one way for every reader (docs/design.md §6): the
 * one-line summary `verify` prints, what a listing from a verified log rests on (`lost`), and the
 * report's word and notes, all from {@link describeVerification}. Each says when nothing signed
 * was checked: a log verified with a public key alone and no checkpoint could have been written
 * by anybody.
 */
import type { VerifyResult } from '../receipts/verify.js';
import type { SeriesResult } from '../receipts/series.js';

/** What a verification result means. */
export interface VerificationDescription {
  /** `verified`, `open` (verified, not closed by a checkpoint), `unsigned` (nothing signed checked), `invalid`. */
  status: 'verified' | 'open' | 'unsigned' | 'invalid';
  /** The word for it: `verified`, `verified, OPEN`, `NOT VERIFIED (no signed checkpoint)`, `DOES NOT VERIFY`. */
  word: string;
  /** What a listing from the log rests on, shortest first (`verified`, `torn last line 5 skipped`, ...). */
  basis: string[];
  /** Each caveat as a sentence (the report's notes). */
  notes: string[];
  /** Why nothing signed was checked, or null when something was. */
  unsigned: string | null;
}

const UNSIGNED =
  'only a public key was given and no checkpoint vouches for any receipt, so no signature was checked ' +
  '(pass --key to check the receipts themselves)';

/** What `result` means (see {@link VerificationDescription}). */
export function describeVerification(result: VerifyResult): VerificationDescription {
  // Verified means a signature was checked over the lines: each receipt's HMAC (a secret key), or
  // the Ed25519 checkpoints that cover them (a public key). With a public key and no checkpoint,
  // nothing signed was checked: anybody could have written that log.
  const unsigned = result.ok && result.receiptSignatures === 'unchecked' && result.checkpoints === 0 ? UNSIGNED : null;
  const open = result.ok && !result.closed;
  const basis = [result.receiptSignatures === 'checked' ? 'verified' : 'chain verified, signatures unchecked'];
  const notes: string[] = [];
  if (!result.ok) notes.push(`does not verify: ${result.firstError?.message ?? 'invalid'}`);
  if (result.tornTail !== null) basis.push(`torn last line ${result.tornTail} skipped`);
  if (result.recordingCheck === 'bound') basis.push('bound to the recording given');
  else if (result.recordingCheck === 'id only') basis.push('not bound to a recording: only its id was compared');
  if (!result.closed) {
    basis.push('not closed by a checkpoint: lines may be missing at its end');
    const unvouched = result.receipts - result.vouched;
    if (unvouched > 0) basis.push(`${unvouched} after the last checkpoint not vouched for`);
  }
  // An open end is shown (a recorder killed, or lines cut off), never passed for a closed log:
  // what was cut may have resumed a pause the rows show open or lost.
  if (open)
    notes.push(
      `not closed by a checkpoint: ${result.vouched} of ${result.receipts} receipts vouched for; lines after ` +
        'the last checkpoint may be missing, so a pause shown open or lost may have been resumed in them',
    );
  if (result.ok && result.tornTail !== null) notes.push(`torn last line ${result.tornTail} skipped`);
  if (unsigned !== null) {
    basis.push(`NOT VERIFIED: ${unsigned}`);
    notes.push(`not verified: ${unsigned}`);
  }
  const status = !result.ok ? 'invalid' : unsigned !== null ? 'unsigned' : open ? 'open' : 'verified';
  const word = {
    invalid: 'DOES NOT VERIFY',
    unsigned: 'NOT VERIFIED (no signed checkpoint)',
    open: 'verified, OPEN',
    verified: 'verified',
  }[status];
  return { status, word, basis, notes, unsigned };
}

/** The line that says whether a series verified. */
export function seriesLine(series: SeriesResult): string {
  return series.ok
    ? `series ${series.id ?? '-'}: ok: ${series.members.length} logs, each linked to the one before it; ` +
        `${series.open} pause${series.open === 1 ? '' : 's'} open at its end`
    : `series ${series.id ?? '-'}: INVALID: ${series.error?.message ?? ''}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** One line: `ok` or the first bad line and why. */
export function verifySummary(log: string, result: VerifyResult): string {
  if (!result.ok && result.firstError) {
    const outside = result.firstError.reason === 'unreceipted' ? 'stall record' : 'checkpoint file';
    const where = result.firstError.line === 0 ? outside : `line ${result.firstError.line}`;
    return `${log}: INVALID at ${where}: ${result.firstError.reason}: ${result.firstError.message}`;
  }
  const parts = [
    `${log}: ok: ${plural(result.receipts, 'receipt')}, ` +
      `${plural(result.checkpoints, 'checkpoint')}, ${plural(result.lines, 'line')}`,
    result.kids.length > 0 ? `kids ${result.kids.join(', ')}` : 'no receipts',
    result.closed
      ? 'closed by a checkpoint'
      : result.vouched === result.receipts && result.checkpoints > 0 && result.version !== 2
        ? `OPEN: ends at an intermediate checkpoint, not the closing one (lines after it may have been cut)`
        : `OPEN: ${result.vouched} of ${plural(result.receipts, 'receipt')} vouched for by a checkpoint, ` +
          `${result.receipts - result.vouched} after the last one not`,
  ];
  if (result.version === 2)
    parts.push('format version 2: no checkpoint is marked closing, so a cut at a checkpoint cannot be told');
  if (result.bound)
    parts.push(
      `bound to recording ${result.bound.id} (${plural(result.bound.lines, 'line')})` +
        (result.recordingCheck === 'bound' ? ', which the recording given matches' : ''),
    );
  else if (result.recordingCheck === 'id only')
    parts.push('not bound to a recording: only the recording id given was compared');
  else if (result.closed) parts.push('not bound to a recording');
  if (result.notes > 0)
    parts.push(`${plural(result.notes, 'checkpoint note')} of ${result.origin} match the Merkle tree of the lines`);
  if (result.anchored) parts.push('matches the outside checkpoint');
  if (result.tornTail !== null) parts.push(`torn tail at line ${result.tornTail} skipped`);
  if (result.stall)
    parts.push(
      `a full disk stalled its writes from line ${result.stall.line} (${result.stall.error} since ` +
        `${result.stall.since}); the log holds those lines since`,
    );
  if (result.receiptSignatures === 'unchecked')
    parts.push('receipt HMACs NOT checked (public key only; chain, sequence and checkpoints verified)');
  const { unsigned } = describeVerification(result);
  if (unsigned !== null) parts.push(`NOT VERIFIED: ${unsigned}`);
  return parts.join('; ');
}

/**
 * Version 5: the resumptions of suspensions outside the log (docs/design.md §17), one line for the
 * count, then one per reference listed. Not holes: they pair only with another recorder's log.
 */
export function outsideLines(log: string, result: VerifyResult): string[] {
  if (result.outsideCount === 0) return [];
  const tasks = [...new Set(result.outside.map((o) => o.taskId))];
  const lines = [
    `${log}: ${plural(result.outsideCount, 'resumption')} of suspensions outside this log: ` +
      `task ${tasks.join(', task ')}${result.outside.length < result.outsideCount ? ', ...' : ''}`,
  ];
  for (const o of result.outside)
    lines.push(
      `${log}:${o.line}: seq ${o.seq}: task ${o.taskId} ${o.outcome}, pause ` +
        `${o.resumeTokenHash === null ? '' : `token ${o.resumeTokenHash}`}` +
        `${o.resumeTokenHash !== null && o.pausedAt !== null ? ', ' : ''}` +
        `${o.pausedAt === null ? '' : `pausedAt ${o.pausedAt}`}` +
        `${o.resumeTokenHash === null && o.pausedAt === null ? 'identified by its task alone' : ''}`,
    );
  return lines;
}
