/**
 * @module receipts/witness-check
 * `verify --witness-vkey … --witness-quorum K` (docs/design.md §6, "Witnesses"): the checkpoint a
 * verification relies on is the log's latest note; it counts as witnessed when K of the witnesses
 * given cosigned exactly that note's text (cosignature/v1, in the cosignature file beside the log).
 * A fork a witness reported for this log (another tree it holds for the origin) fails the check
 * whatever the count.
 */
import { checkCosignatures } from '../tlog/cosignature.js';
import { type NoteVerifier, parseNote } from '../tlog/note.js';
import type { RefusalRecord, WitnessRecord } from './cosignature-file.js';
import type { LogNote } from './log-proofs.js';

export interface WitnessCheck {
  ok: boolean;
  /** The tree size of the checkpoint relied on. */
  size: number;
  quorum: number;
  /** The witnesses given whose cosignature on it verifies, with when they signed (POSIX seconds). */
  signed: { witness: string; timestamp: number }[];
  /** Witnesses given whose line on it does not verify. */
  invalid: string[];
  /** Forks and refusals the recorder was answered with, by witnesses given. */
  refusals: RefusalRecord[];
  message: string;
}

/** Checks the witness records of a log against its latest note. */
export function checkWitnessQuorum(
  latest: LogNote,
  records: readonly WitnessRecord[],
  witnesses: readonly NoteVerifier[],
  quorum: number,
): WitnessCheck {
  const text = parseNote(latest.note).text;
  const signed: WitnessCheck['signed'] = [];
  const invalid: string[] = [];
  const names = new Set(witnesses.map((w) => w.name));
  const refusals: RefusalRecord[] = [];
  for (const record of records) {
    if (!names.has(record.witness)) continue;
    if (record.type === 'WitnessRefusal') {
      refusals.push(record);
      continue;
    }
    if (record.size !== latest.index) continue;
    let parsed;
    try {
      parsed = parseNote(record.note);
    } catch {
      if (!invalid.includes(record.witness)) invalid.push(record.witness);
      continue;
    }
    // Cosigned text other than the log's own note is a cosignature on some other checkpoint.
    if (parsed.text !== text) continue;
    const check = checkCosignatures(text, parsed.signatures, witnesses);
    for (const c of check.valid)
      if (!signed.some((s) => s.witness === c.witness)) signed.push({ witness: c.witness, timestamp: c.timestamp });
    for (const name of check.invalid) if (!invalid.includes(name)) invalid.push(name);
  }
  const forks = refusals.filter((r) => r.kind === 'fork');
  const ok = signed.length >= quorum && forks.length === 0;
  const who = signed.length > 0 ? signed.map((s) => s.witness).join(', ') : 'no witness given';
  const parts = [`checkpoint of ${latest.index} lines cosigned by ${who} (${signed.length} of quorum ${quorum})`];
  if (invalid.length > 0) parts.push(`cosignatures that do not verify: ${invalid.join(', ')}`);
  for (const fork of forks)
    parts.push(`FORK: witness ${fork.witness} refused the checkpoint of ${fork.size} lines: ${fork.message}`);
  for (const refusal of refusals.filter((r) => r.kind === 'refused'))
    parts.push(`witness ${refusal.witness} refused the checkpoint of ${refusal.size} lines: ${refusal.message}`);
  return { ok, size: latest.index, quorum, signed, invalid, refusals, message: parts.join('; ') };
}
