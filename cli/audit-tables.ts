/**
 * @module cli/audit-tables
 * The plain-text tables `audit` prints (docs/design.md §6, §14.9, §17): one row per suspension,
 * one per interruption (`--kind interruption`), both kinds in log order with a KIND column, and a
 * fleet's rows with the files that saw each pause begin and end.
 */
import { canonicalJson } from '../src/public/core.js';
import type {
  AuditEntry,
  AuditRow,
  FleetAuditEntry,
  FleetAuditRow,
  FleetInterruptionRow,
  InterruptionAuditRow,
} from '../src/public/receipts.js';
import { textTableLines, withVersionColumn } from './text-table.js';

function initiatorLabel(value: AuditRow['initiatedBy']): string {
  switch (value) {
    case 'PAUSE_INITIATOR_CLIENT':
      return 'client';
    case 'PAUSE_INITIATOR_AGENT':
      return 'agent';
    case 'PAUSE_INITIATOR_UNSPECIFIED':
      return 'unspecified';
    default: {
      const never: never = value;
      return String(never);
    }
  }
}

function ending(row: AuditRow): string {
  if (row.outcome === 'open') return 'still open';
  return [
    row.outcome,
    row.cause ? `(${row.cause})` : '',
    row.closedAt ? `at ${row.closedAt}` : '',
    row.closedBy ? `by ${row.closedBy}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

function flagText(row: AuditRow): string {
  const flags: string[] = [...row.flags];
  if (!row.vouched) flags.push('not-vouched-for-by-a-checkpoint');
  return flags.length === 0 ? '-' : flags.map((f) => `! ${f}`).join(', ');
}

const AUDIT_HEADER = [
  'TASK',
  'INITIATED BY',
  'PRINCIPAL',
  'REASON',
  'CONDITIONS',
  'PAUSED AT',
  'ENDED',
  'REJECTED',
  'FLAG',
  'TRACE',
];

/** A row's cells in the plain-text table. */
function auditCells(r: AuditRow): string[] {
  return [
    r.taskId,
    initiatorLabel(r.initiatedBy),
    r.principal ?? '-',
    r.reason ?? '-',
    r.conditions === null ? '-' : canonicalJson(r.conditions),
    r.pausedAt,
    ending(r),
    String(r.rejectedAttempts),
    flagText(r),
    r.span.traceId,
  ];
}

/** The plain-text table, one row per suspension, line by line. */
export function auditTableLines(rows: readonly AuditRow[]): Iterable<string> {
  const [header, cells] = withVersionColumn(rows, AUDIT_HEADER, auditCells, (r) => r.a2aVersions);
  return textTableLines(header, rows, cells);
}

/** `INPUT_REQUIRED` for `TASK_STATE_INPUT_REQUIRED`. */
const stateLabel = (r: InterruptionAuditRow): string => r.state.replace(/^TASK_STATE_/, '');

function continued(r: InterruptionAuditRow): string {
  if (r.outcome === 'open') return 'still open';
  return [
    `continued (${r.cause ?? '-'})`,
    r.continuedAt ? `at ${r.continuedAt}` : '',
    r.continuedBy ? `by ${r.continuedBy}` : '',
    r.inputHash ? `with ${r.inputHash}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

const INTERRUPTION_HEADER = ['TASK', 'STATE', 'PROMPT', 'INTERRUPTED AT', 'CONTINUED', 'FLAG', 'TRACE'];

/** The plain-text table of `--kind interruption`: who continued each interruption, when and with what. */
export function interruptionTableLines(rows: readonly InterruptionAuditRow[]): Iterable<string> {
  const [header, cells] = withVersionColumn(rows, INTERRUPTION_HEADER, interruptionCells, (r) => r.a2aVersions);
  return textTableLines(header, rows, cells);
}

function interruptionCells(r: InterruptionAuditRow): string[] {
  return [
    r.taskId,
    stateLabel(r),
    r.promptHash ?? '-',
    r.interruptedAt,
    continued(r),
    r.vouched ? '-' : '! not-vouched-for-by-a-checkpoint',
    r.span.traceId,
  ];
}

const BOTH_HEADER = ['KIND', ...AUDIT_HEADER];

/** An interruption's cells under the both-kinds header. */
function interruptionAsBoth(i: InterruptionAuditRow): string[] {
  return [
    'interruption',
    i.taskId,
    stateLabel(i),
    i.continuedBy ?? '-',
    i.promptHash === null ? '-' : `prompt ${i.promptHash}`,
    '-',
    i.interruptedAt,
    continued(i),
    '-',
    i.vouched ? '-' : '! not-vouched-for-by-a-checkpoint',
    i.span.traceId,
  ];
}

/** Both kinds in one table, in log order, with a KIND column (docs/design.md §6). */
export function bothTableLines(rows: readonly AuditEntry[]): Iterable<string> {
  const [header, cells] = withVersionColumn(
    rows,
    BOTH_HEADER,
    (r) => (r.kind === 'pause' ? ['pause', ...auditCells(r.row)] : interruptionAsBoth(r.row)),
    (r) => r.row.a2aVersions,
  );
  return textTableLines(header, rows, cells);
}

const place = (p: FleetAuditRow['pausedIn'] | null): string => (p === null ? '-' : `${p.file}:${p.line}`);

/** A fleet's table: each row with the files (and lines) that saw its pause begin and end. */
export function fleetTableLines(rows: readonly FleetAuditRow[]): Iterable<string> {
  return textTableLines([...AUDIT_HEADER, 'PAUSED IN', 'ENDED IN'], rows, (r) => [
    ...auditCells(r),
    place(r.pausedIn),
    place(r.endedIn),
  ]);
}

/** A fleet's interruptions (`--kind interruption`), each with the files holding its two receipts. */
export function fleetInterruptionTableLines(rows: readonly FleetInterruptionRow[]): Iterable<string> {
  const header = [...INTERRUPTION_HEADER, 'INTERRUPTED IN', 'CONTINUED IN'];
  return textTableLines(header, rows, (r) => [...interruptionCells(r), place(r.interruptedIn), place(r.continuedIn)]);
}

/** A fleet's rows of both kinds with a KIND column, each with the files that saw it begin and end. */
export function fleetBothTableLines(rows: readonly FleetAuditEntry[]): Iterable<string> {
  return textTableLines([...BOTH_HEADER, 'PAUSED IN', 'ENDED IN'], rows, (e) =>
    e.kind === 'pause'
      ? ['pause', ...auditCells(e.row), place(e.row.pausedIn), place(e.row.endedIn)]
      : [...interruptionAsBoth(e.row), place(e.row.interruptedIn), place(e.row.continuedIn)],
  );
}
