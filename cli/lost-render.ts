/**
 * @module cli/lost-render
 * What `lost` prints (docs/design.md §7, §14): the listing of lost pauses and interruptions, where a
 * recording is incomplete or not understood, the dialects it mixed, and the chains `--explain` shows.
 */
import { printable } from '../src/public/core.js';
import type { LostChain, LostInterruptionListing, LostPauseListing } from '../src/public/observe.js';
import {
  type Dialects,
  type FleetVerdict,
  type Incomplete,
  type LostPauses,
  type RecordingGaps,
  fleetLostLines,
} from '../src/public/receipts.js';
import { fleetPauseVerdict } from '../src/public/observe.js';
import { textTableLines, withVersionColumn } from './text-table.js';

/** The trace id of a row's span, or `-`: where to open it in Jaeger. */
const traceOf = (span: { traceId: string } | null): string => span?.traceId ?? '-';

/** For each lost pause, the chain of facts and rules that led to it (docs/design.md §14.8). */
export function* renderChains(file: string, chains: readonly LostChain[]): Generator<string> {
  for (const c of chains) {
    yield `why ${c.suspension} of task ${c.taskId} is lost (${c.reason}), by rule ${c.rule ?? '-'}:`;
    for (const step of c.steps) {
      const where = step.line === null ? 'end of recording' : `${file}:${step.line}: seq ${step.seq ?? '-'}`;
      yield `  ${where}: ${step.fact} -> ${step.rule}`;
    }
  }
}

/** A gap's first line, then one line per entry listed (and how many more): what leaves a listing short. */
function renderGap(file: string, gap: Incomplete, head: (n: number) => string): string {
  if (gap.count === 0) return '';
  const lines = [head(gap.count), ...gap.listed.map((i) => `${file}:${i.line}: seq ${i.seq}: ${i.why}`)];
  if (gap.count > gap.listed.length) lines.push(`... and ${gap.count - gap.listed.length} more`);
  return `${printable(lines.join('\n'))}\n`;
}

const entries = (n: number): string => `${n} entr${n === 1 ? 'y' : 'ies'}`;

/**
 * Where a recording is incomplete (docs/design.md §5), holds requests no dialect reads (§14.10), or
 * where the observer could not read what the peer said (§14.2), after the listing: what they
 * carried is not seen, so no listing of that recording is clean.
 */
export function renderGaps(file: string, gaps: RecordingGaps): string {
  const notClean = 'so the listing above is not a clean bill:';
  return (
    renderGap(
      file,
      gaps.incomplete,
      (n) =>
        `INCOMPLETE: ${entries(n)} of ${file} do not hold all the peer sent; a pause or resume they carried ` +
        `cannot be seen here, ${notClean}`,
    ) +
    renderGap(
      file,
      gaps.notUnderstood,
      (n) =>
        `NOT UNDERSTOOD: ${n} request${n === 1 ? '' : 's'} of ${file} ${n === 1 ? 'is' : 'are'} in no A2A dialect ` +
        `this tool reads; what they carried cannot be seen here, ${notClean}`,
    ) +
    renderGap(
      file,
      gaps.unread,
      (n) =>
        `UNREAD: the observer could not read what the peer said at ${entries(n)} of ${file}; a pause, resume or ` +
        `interruption shown there cannot be seen here, ${notClean}`,
    )
  );
}

/** The line naming the dialects a recording mixed, when any is not v1.0 (a v1.0 recording reads as before). */
export function renderDialects(dialects: Dialects): string {
  const versions = Object.keys(dialects).sort();
  if (versions.every((v) => v === '1.0')) return '';
  const plural = (n: number): string => `${n} exchange${n === 1 ? '' : 's'}`;
  return `${printable(`dialects: ${versions.map((v) => `A2A ${v} (${plural(dialects[v] ?? 0)})`).join(', ')}`)}\n`;
}

const LOST_HEADER = ['TASK', 'INITIATOR', 'REASON', 'SINCE', 'TRACE', 'PAUSE REASON'];
/** With the rules known (a recording): the rule that declared each pause lost (docs/design.md §14.8). */
const LOST_HEADER_WITH_RULE = ['TASK', 'INITIATOR', 'REASON', 'RULE', 'SINCE', 'TRACE', 'PAUSE REASON'];

const lostCells = (l: LostPauseListing): string[] => [
  l.taskId,
  l.initiatedBy ?? '-',
  l.reason,
  l.since,
  traceOf(l.span),
  l.pauseReason === null ? '-' : JSON.stringify(l.pauseReason),
];

const lostCellsWithRule = (l: LostPauseListing): string[] => [
  l.taskId,
  l.initiatedBy ?? '-',
  l.reason,
  l.rule ?? '-',
  l.since,
  traceOf(l.span),
  l.pauseReason === null ? '-' : JSON.stringify(l.pauseReason),
];

const LOST_INTERRUPTION_HEADER = ['TASK', 'STATE', 'REASON', 'RULE', 'SINCE', 'TRACE'];
/** A fleet's lost interruption names where its receipt is: every row of a fleet's listing, none of another's. */
const placeOf = ({ interruptedIn: at }: LostInterruptionListing): string[] => (at ? [`${at.file}:${at.line}`] : []);

/** Lost interruptions (docs/design.md §14.9) after the pauses: a count, then their table. */
export function* renderInterruptions(file: string, lost: readonly LostInterruptionListing[]): Generator<string> {
  if (lost.length === 0) return;
  yield `${lost.length} lost interruption${lost.length === 1 ? '' : 's'} in ${file}`;
  const state = (l: LostInterruptionListing): string => l.state?.replace(/^TASK_STATE_/, '') ?? '-';
  const [header, cells] = withVersionColumn(
    lost,
    [...LOST_INTERRUPTION_HEADER, ...(placeOf(lost[0]!).length > 0 ? ['INTERRUPTED IN'] : [])],
    (l) => [l.taskId, state(l), l.reason, l.rule ?? '-', l.since, traceOf(l.span), ...placeOf(l)],
    (l) => l.a2aVersions,
  );
  yield* textTableLines(header, lost, cells);
}

/** The listing, line by line: a count, then the table (rows are written as they are made). */
export function* render(
  file: string,
  source: string,
  lost: readonly LostPauseListing[],
  incomplete: boolean,
): Generator<string> {
  if (lost.length === 0) {
    yield incomplete
      ? `no lost pauses seen in ${file} (${source}, INCOMPLETE)`
      : `no lost pauses in ${file} (${source})`;
    return;
  }
  yield `${lost.length} lost pause${lost.length === 1 ? '' : 's'} in ${file} (${source})`;
  // A receipt log holds no rule: its table has no RULE column rather than one of dashes.
  const [header, cells] = lost.some((l) => l.rule !== null)
    ? withVersionColumn(lost, LOST_HEADER_WITH_RULE, lostCellsWithRule, (l) => l.a2aVersions)
    : withVersionColumn(lost, LOST_HEADER, lostCells, (l) => l.a2aVersions);
  yield* textTableLines(header, lost, cells);
}

const FLEET_HEADER = ['TASK', 'INITIATOR', 'REASON', 'SINCE', 'PAUSED IN', 'TRACE', 'PAUSE REASON'];

/** A fleet's listing (docs/design.md §17): the pauses open when every log ended, its interruptions, its notes. */
export function* renderFleet(found: LostPauses & { fleet: FleetVerdict }): Generator<string> {
  const { files } = found;
  const { lost } = found.fleet;
  const where = `a fleet of ${files.length} logs (${files.join(', ')})`;
  yield lost.length === 0
    ? `no lost pauses in ${where}`
    : `${lost.length} lost pause${lost.length === 1 ? '' : 's'} in ${where}`;
  if (lost.length > 0)
    yield* textTableLines(FLEET_HEADER, lost, (p) => [
      p.taskId,
      p.initiatedBy,
      'recording_ended',
      p.pausedAt,
      `${p.begun.file}:${p.begun.line}`,
      traceOf(fleetPauseVerdict(p).span),
      p.reason === null ? '-' : JSON.stringify(p.reason),
    ]);
  yield* renderInterruptions(`a fleet of ${files.length} logs`, found.interruptions);
  for (const line of fleetLostLines(found)) yield printable(line);
}
