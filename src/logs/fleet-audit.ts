/**
 * @module logs/fleet-audit
 * The audit of a fleet (docs/design.md §17): each recorder's log audited as alone (a series as one
 * log), then a pause open in its own log that a resumption in another given log ended takes that
 * end; every row says which file saw the pause begin and which saw it end. A log or a series that
 * does not verify is not audited.
 */
import { AuditCollector, type AuditFilter, type AuditRow, auditReceiptLog } from '../receipts/audit.js';
import { FleetLedger, type FleetPlace, type FleetVerdict, ambiguityText, fleetFails } from '../receipts/fleet.js';
import type { Keyring } from '../receipts/keys.js';
import type { VerifyOptions } from '../receipts/verify.js';
import { seriesLine, verifySummary } from './describe-verification.js';
import type { LogGroup } from './given-logs.js';
import { verifyGroupInto } from './group-series.js';

/** An audit row of a fleet: which log saw the pause begin, and which saw it end. */
export type FleetAuditRow = AuditRow & { pausedIn: FleetPlace; endedIn: FleetPlace | null };

/** How a fleet is audited. */
export interface FleetAuditOptions {
  keyring: Keyring;
  filter?: AuditFilter | undefined;
  /** Principals the agent itself acts as; other principals' AwaitTaskResumption calls are flagged. */
  agentPrincipals?: readonly string[] | undefined;
  allowOpen?: boolean | undefined;
  allowTornTail?: boolean | undefined;
}

/** What {@link auditFleet} found. */
export type FleetAudit =
  | {
      ok: boolean;
      audited: true;
      rows: FleetAuditRow[];
      /** What the rows rest on, a line each: the count, each log's or series' verification, orphans, ambiguities. */
      notes: string[];
      verdict: FleetVerdict;
    }
  /** A log or a series did not verify: the line saying which and why. */
  | { ok: false; audited: false; why: string };

type GroupRows = { ok: true; rows: FleetAuditRow[]; note: string } | { ok: false; why: string };

/**
 * The rows of one replica's series: the series verified and its lines, in series order, fed to one
 * collector (a pause begun in one log and resumed in a later one is one row) and to the fleet's
 * ledger; each row says which of its logs saw the pause begin and end.
 */
async function auditGroup(
  ledger: FleetLedger,
  group: LogGroup,
  verify: Omit<VerifyOptions, 'onLine' | 'jobs'>,
  options: FleetAuditOptions,
): Promise<GroupRows> {
  const collector = new AuditCollector({ agentPrincipals: [...(options.agentPrincipals ?? [])] });
  // Which log holds each suspension and each resumption that closed one (by the suspension's hash).
  const begunIn = new Map<string, string>();
  const endedIn = new Map<string, string>();
  const series = await verifyGroupInto(ledger, group, verify, (path, verified) => {
    collector.onLine(verified);
    const { line, hash } = verified;
    if (line.type === 'SuspensionReceipt') begunIn.set(hash, path);
    else if (line.type === 'ResumptionReceipt' && line.suspension !== null && line.outcome !== 'rejected')
      endedIn.set(line.suspension, path);
  });
  if (!series.ok) return { ok: false, why: `series INVALID: ${series.error?.message ?? ''}` };
  const rows = collector.rows(options.filter ?? {}).map((row) => {
    const file = begunIn.get(row.suspension) ?? group.files[0]!;
    const closed = endedIn.get(row.suspension);
    return {
      ...row,
      pausedIn: { file, line: row.line },
      endedIn: row.closedAtLine === null || closed === undefined ? null : { file: closed, line: row.closedAtLine },
    };
  });
  return { ok: true, rows, note: seriesLine(series) };
}

/** Audits the fleet of `groups` (a fleet log set's groups; see the module doc). */
export async function auditFleet(
  set: { files: readonly string[]; groups: readonly LogGroup[] },
  options: FleetAuditOptions,
): Promise<FleetAudit> {
  const verify = {
    keyring: options.keyring,
    allowOpen: options.allowOpen ?? false,
    allowTornTail: options.allowTornTail ?? false,
  };
  const ledger = new FleetLedger();
  const rows: FleetAuditRow[] = [];
  const notes: string[] = [];
  for (const group of set.groups) {
    if (group.linked) {
      const read = await auditGroup(ledger, group, verify, options);
      if (!read.ok) return { ok: false, audited: false, why: read.why };
      // One push per row: a spread of a long series' rows would overflow the stack (as in audit's tables).
      for (const row of read.rows) rows.push(row);
      notes.push(read.note);
      continue;
    }
    const file = group.files[0]!;
    ledger.startLog(file);
    const result = await auditReceiptLog(file, {
      ...verify,
      ...(options.filter ? { filter: options.filter } : {}),
      agentPrincipals: [...(options.agentPrincipals ?? [])],
      onLine: ({ number, line, hash }) => ledger.add(line, number, hash),
    });
    if (!result.verify.ok) return { ok: false, audited: false, why: verifySummary(file, result.verify) };
    notes.push(verifySummary(file, result.verify));
    for (const row of result.rows) {
      const closedHere = row.closedAtLine === null ? null : { file, line: row.closedAtLine };
      rows.push({ ...row, pausedIn: { file, line: row.line }, endedIn: closedHere });
    }
  }
  const verdict = ledger.finish();
  const ends = new Map(verdict.paired.map(({ pause, end }) => [`${pause.begun.file}\n${pause.begun.line}`, end]));
  for (const row of rows) {
    const end = ends.get(`${row.pausedIn.file}\n${row.pausedIn.line}`);
    if (!end || row.outcome !== 'open') continue;
    Object.assign(row, {
      outcome: end.outcome,
      cause: end.cause,
      closedAt: end.resumedAt,
      closedBy: end.principal,
      closedAtLine: end.ended.line,
      endedIn: { file: end.ended.file, line: end.ended.line },
    });
  }
  notes.unshift(`${rows.length} suspension${rows.length === 1 ? '' : 's'} in a fleet of ${set.files.length} logs`);
  for (const o of verdict.orphans)
    notes.push(
      `orphan: task ${o.taskId} ${o.outcome} in ${o.ended.file}:${o.ended.line}, naming a pause no given log holds`,
    );
  for (const a of verdict.ambiguous) notes.push(`ambiguous: ${ambiguityText(a)}`);
  // An orphan is what a forger would use, an ambiguity a guess not made: as verify and lost, the
  // audit fails on either (docs/design.md §17).
  return { ok: !fleetFails(verdict), audited: true, rows, notes, verdict };
}
