/**
 * @module logs/lost-report
 * What a listing of lost pauses ({@link LostPauses}) comes to, said one way for every reader
 * (docs/design.md §7, §14, §17): whether it is clean ({@link lostOutcome}), what it rests on
 * ({@link lostSource}), the verdicts to draw as spans ({@link lostVerdicts}), the listing as one
 * JSON value ({@link lostPausesJson}, what `lost --json` prints), and the lines a fleet's listing
 * ends with ({@link fleetLostLines}).
 */
import { basename } from 'node:path';
import { ambiguityText, fleetFails } from '../receipts/fleet.js';
import {
  type LostInterruptionVerdict,
  type LostPauseVerdict,
  fleetPauseVerdict,
} from '../tracing/lost-verdict-spans.js';
import { fleetPauseJson } from './given-logs.js';
import type { LostPauses } from './log-set.js';
import { gapless } from './recording-gaps.js';

/**
 * What a listing comes to. `clean`: nothing lost, everything read. `lost`: a pause or an
 * interruption never came back (in a fleet also a resumption that pairs with no pause given, or
 * with several, and a continuation naming no interruption given). `untrusted`: nothing listed may
 * still not be a clean bill, for a recording holds entries incomplete or unread, or a log lacks
 * lines its recorder could not write. `not-understood`: a recording holds requests in no A2A
 * dialect this tool reads, input it cannot judge.
 */
export type LostOutcome = 'clean' | 'lost' | 'untrusted' | 'not-understood';

/** What `found` comes to (see {@link LostOutcome}); `not-understood` before any other. */
export function lostOutcome(found: LostPauses): LostOutcome {
  const { gaps } = found;
  if (gaps !== null && gaps.notUnderstood.count > 0) return 'not-understood';
  if (found.lost.length > 0 || found.interruptions.length > 0) return 'lost';
  if (found.fleet !== undefined && (found.fleet.lost.length > 0 || fleetFails(found.fleet))) return 'lost';
  // A continuation naming no interruption given fails a fleet as an orphan resumption does (§17).
  if ((found.orphanContinuations ?? []).length > 0) return 'lost';
  if ((gaps !== null && !gapless(gaps)) || (found.unreceipted ?? null) !== null) return 'untrusted';
  return 'clean';
}

/** What the listing rests on, in words: `recording`, `receipt log, verified`, `receipt logs, unverified`, ... */
export function lostSource(found: LostPauses): string {
  if (found.kind === 'recording') return 'recording';
  return found.kind === 'fleet' ? found.verification : `receipt log, ${found.verification}`;
}

/**
 * The name `lost --traces DIR` gives the trace file of `found`'s verdict spans (`DIR/<name>.otlp.json`,
 * the `name` of `exportLostVerdicts`' options): `lost-fleet`, `lost-<last log of a series>`, else
 * `lost-<file>` without `.jsonl`.
 */
export function lostTraceName(found: LostPauses): string {
  if (found.kind === 'fleet') return 'lost-fleet';
  if (found.kind === 'series') return `lost-${basename(found.files.at(-1) ?? 'series')}`;
  return `lost-${basename(found.files[0] ?? 'lost').replace(/\.jsonl$/, '')}`;
}

/** The lost pauses and interruptions of `found` as verdicts to draw as spans (`exportLostVerdicts`). */
export function lostVerdicts(found: LostPauses): {
  pauses: LostPauseVerdict[];
  interruptions: LostInterruptionVerdict[];
} {
  if (found.fleet === undefined) return { pauses: found.lost, interruptions: found.interruptions };
  const interruptions = found.interruptions.map((i) =>
    i.interruptedIn === undefined ? i : { ...i, begun: [`${i.interruptedIn.file}:${i.interruptedIn.line}`] },
  );
  return { pauses: found.fleet.lost.map(fleetPauseVerdict), interruptions };
}

/**
 * What a fleet's listing of lost interruptions rests on (docs/design.md §14.9, §17), said once
 * when it lists any: a continuation names its interruption by that receipt's hash in its own log,
 * and a replica writes none of an ask it never saw, so an answer given through another replica is
 * not seen; null otherwise.
 */
export function fleetInterruptionNote(found: LostPauses): string | null {
  if (found.kind !== 'fleet' || found.interruptions.length === 0) return null;
  return (
    'note: an interruption (INPUT_REQUIRED, AUTH_REQUIRED) answered through another replica than the one ' +
    'that saw the ask is listed as lost: that replica writes no continuation of an ask it never saw, so no ' +
    'receipt ties the answer to it'
  );
}

/**
 * The lines a fleet's listing ends with, after its tables: each orphan resumption, each ambiguous
 * one, each orphan continuation, and {@link fleetInterruptionNote}. Empty for anything but a fleet.
 */
export function fleetLostLines(found: LostPauses): string[] {
  if (found.fleet === undefined) return [];
  const { orphans, ambiguous } = found.fleet;
  const lines = orphans.map(
    (o) =>
      `orphan: task ${o.taskId}: ${o.outcome} in ${o.ended.file}:${o.ended.line} (seq ${o.ended.seq}), ` +
      'naming a pause outside its log that no given log holds',
  );
  for (const a of ambiguous) lines.push(`ambiguous: ${ambiguityText(a)}`);
  for (const { taskId, continuedIn: at, interruption } of found.orphanContinuations ?? [])
    lines.push(
      `orphan: task ${taskId}: continued in ${at.file}:${at.line} (seq ${at.seq}), ` +
        `naming an interruption (${interruption}) no given log holds`,
    );
  const note = fleetInterruptionNote(found);
  if (note !== null) lines.push(note);
  return lines;
}

/**
 * A fleet's listing: each pause open when every log ended, each orphan and ambiguous resumption,
 * each interruption open when every log ended (`interruptedIn`), each orphan continuation, and the
 * note on what the interruptions rest on.
 */
function fleetJson(found: LostPauses & { fleet: NonNullable<LostPauses['fleet']> }): Record<string, unknown> {
  const { lost, orphans, ambiguous } = found.fleet;
  return {
    files: found.files,
    source: lostSource(found),
    lost: lost.map((p) => ({
      ...fleetPauseJson(p, null),
      reason: 'recording_ended',
      traceId: fleetPauseVerdict(p).span?.traceId ?? null,
    })),
    orphans: orphans.map((o) => ({ ...o, reason: 'orphan' })),
    ambiguous: ambiguous.map(({ end, candidates }) => ({
      ...end,
      reason: 'ambiguous',
      candidates: candidates.map((p) => fleetPauseJson(p, null)),
    })),
    lostInterruptions: found.interruptions,
    orphanContinuations: (found.orphanContinuations ?? []).map((o) => ({ ...o, reason: 'orphan' })),
    note: fleetInterruptionNote(found),
  };
}

/**
 * `found` as one JSON value: the files read (a series', a fleet's) or the file, what the listing
 * rests on, the lost pauses and interruptions; of one log, the lines its recorder could not write;
 * of a recording, where it is incomplete, not understood or unread, its dialects, and with
 * `explain` each lost pause's chain of rules.
 */
export function lostPausesJson(found: LostPauses, options: { explain?: boolean } = {}): Record<string, unknown> {
  if (found.fleet !== undefined) return fleetJson({ ...found, fleet: found.fleet });
  const { lost, interruptions, gaps } = found;
  const source = lostSource(found);
  if (found.kind === 'series') return { files: found.files, source, lost, interruptions };
  const { dialects, chains } = found.recording ?? { dialects: {}, chains: [] };
  return {
    file: found.files[0],
    source,
    lost,
    lostInterruptions: interruptions,
    ...(found.kind === 'recording' ? {} : { unreceipted: found.unreceipted ?? null }),
    ...(gaps !== null
      ? {
          complete: gaps.incomplete.count === 0,
          incomplete: gaps.incomplete.listed,
          understood: gaps.notUnderstood.count === 0,
          notUnderstood: gaps.notUnderstood.listed,
          read: gaps.unread.count === 0,
          unread: gaps.unread.listed,
          dialects,
        }
      : {}),
    ...(options.explain ? { explain: chains } : {}),
  };
}
