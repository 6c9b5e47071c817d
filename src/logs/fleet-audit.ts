/**
 * @module logs/fleet-audit
 * The audit of a fleet (docs/design.md §17): each recorder's log audited as alone (a series as one
 * log), then a pause open in its own log that a resumption in another given log ended takes that
 * end; every row says which file saw the pause begin and which saw it end. A log or a series that
 * does not verify is not audited. Interruptions (INPUT_REQUIRED, AUTH_REQUIRED, §14.9) are rows
 * too, each saying which file holds its InterruptionReceipt and which its ContinuationReceipt: a
 * continuation names its interruption by that receipt's hash, so it pairs within its own log or
 * series only. A recorder writes a continuation only of an interruption it saw, so an ask seen
 * through one replica and answered through another is open in the first log and absent from the
 * second: the fleet audit lists it open, and no receipt ties the answer to it (§17).
 */
import { AuditCollector, type AuditFilter, type AuditRow, auditReceiptLog } from '../receipts/audit.js';
import { InterruptionAuditCollector, type InterruptionAuditRow } from '../receipts/interruption-audit.js';
import { FleetLedger, type FleetPlace, type FleetVerdict, ambiguityText, fleetFails } from '../receipts/fleet.js';
import type { Keyring } from '../receipts/keys.js';
import type { VerifiedLine, VerifyOptions } from '../receipts/verify.js';
import { seriesLine, verifySummary } from './describe-verification.js';
import type { LogGroup } from './given-logs.js';
import { verifyGroupInto } from './group-series.js';
import { type AuditKind, lists } from './log-set-audit.js';

/** An audit row of a fleet: which log saw the pause begin, and which saw it end. */
export type FleetAuditRow = AuditRow & { pausedIn: FleetPlace; endedIn: FleetPlace | null };

/** An interruption row of a fleet: which log holds its InterruptionReceipt, and which its ContinuationReceipt. */
export type FleetInterruptionRow = InterruptionAuditRow & { interruptedIn: FleetPlace; continuedIn: FleetPlace | null };

/** A fleet row of either kind, in the order the logs were given (each log's rows in log order). */
export type FleetAuditEntry =
  { kind: 'pause'; row: FleetAuditRow } | { kind: 'interruption'; row: FleetInterruptionRow };

/** How a fleet is audited. */
export interface FleetAuditOptions {
  keyring: Keyring;
  filter?: AuditFilter | undefined;
  /** Principals the agent itself acts as; other principals' AwaitTaskResumption calls are flagged. */
  agentPrincipals?: readonly string[] | undefined;
  allowOpen?: boolean | undefined;
  allowTornTail?: boolean | undefined;
  /** One kind of row; both when absent (an interruption has no initiator: none with `filter.initiatedBy`). */
  kind?: AuditKind | undefined;
}

/** What {@link auditFleet} found. */
export type FleetAudit =
  | {
      ok: boolean;
      audited: true;
      /** One row per suspension (none with `kind: 'interruption'`). */
      rows: FleetAuditRow[];
      /** One row per interruption (none with `kind: 'pause'` or a `filter.initiatedBy`). */
      interruptions: FleetInterruptionRow[];
      /** Both kinds: the logs in the order given, each log's (or series') rows in its order. */
      entries: FleetAuditEntry[];
      /** Continuations naming an interruption no given log holds. */
      orphanContinuations: number;
      /** What the rows rest on, a line each: the count, each log's or series' verification, orphans, ambiguities. */
      notes: string[];
      verdict: FleetVerdict;
    }
  /** A log or a series did not verify: the line saying which and why. */
  | { ok: false; audited: false; why: string };

type GroupRows = { ok: true; rows: FleetAuditRow[]; note: string } | { ok: false; why: string };

/**
 * The interruptions of one log or one series, and the order of its rows: each interruption paired
 * with its continuation by the hash the ContinuationReceipt names (the InterruptionAuditCollector's
 * pairing), each place the file that holds the receipt.
 */
class GroupInterruptions {
  readonly collector = new InterruptionAuditCollector();
  /** The file of each suspension and interruption, by its receipt's hash, in the order they came. */
  readonly #begun = new Map<string, string>();
  /** The file of each continuation, by the hash of the interruption it names. */
  readonly #continued = new Map<string, string>();

  readonly onLine = (file: string, verified: VerifiedLine): void => {
    this.collector.onLine(verified);
    const { line, hash } = verified;
    if (line.type === 'SuspensionReceipt' || line.type === 'InterruptionReceipt') this.#begun.set(hash, file);
    else if (line.type === 'ContinuationReceipt') this.#continued.set(line.interruption, file);
  };

  /** The interruption rows asked for, with their places. */
  rows(options: FleetAuditOptions, fallback: string): FleetInterruptionRow[] {
    if (!lists(options, 'interruption')) return [];
    return this.collector.rows(options.filter?.taskId).map((row) => {
      const continued = this.#continued.get(row.interruption);
      return {
        ...row,
        interruptedIn: { file: this.#begun.get(row.interruption) ?? fallback, line: row.line },
        continuedIn:
          row.continuedAtLine === null || continued === undefined
            ? null
            : { file: continued, line: row.continuedAtLine },
      };
    });
  }

  /** `pauses` and `interruptions` merged in the order their first receipts came. */
  entries(pauses: readonly FleetAuditRow[], interruptions: readonly FleetInterruptionRow[]): FleetAuditEntry[] {
    const order = new Map([...this.#begun.keys()].map((hash, at) => [hash, at]));
    const at = (e: FleetAuditEntry): number =>
      order.get(e.kind === 'pause' ? e.row.suspension : e.row.interruption) ?? Number.POSITIVE_INFINITY;
    const out: FleetAuditEntry[] = [];
    for (const row of pauses) out.push({ kind: 'pause', row });
    for (const row of interruptions) out.push({ kind: 'interruption', row });
    return out.sort((a, b) => at(a) - at(b));
  }
}

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
  interruptions: GroupInterruptions,
): Promise<GroupRows> {
  const collector = new AuditCollector({ agentPrincipals: [...(options.agentPrincipals ?? [])] });
  // Which log holds each suspension and each resumption that closed one (by the suspension's hash).
  const begunIn = new Map<string, string>();
  const endedIn = new Map<string, string>();
  const series = await verifyGroupInto(ledger, group, verify, (path, verified) => {
    collector.onLine(verified);
    interruptions.onLine(path, verified);
    const { line, hash } = verified;
    if (line.type === 'SuspensionReceipt') begunIn.set(hash, path);
    else if (line.type === 'ResumptionReceipt' && line.suspension !== null && line.outcome !== 'rejected')
      endedIn.set(line.suspension, path);
  });
  if (!series.ok) return { ok: false, why: `series INVALID: ${series.error?.message ?? ''}` };
  const rows = lists(options, 'pause')
    ? collector.rows(options.filter ?? {}).map((row) => {
        const file = begunIn.get(row.suspension) ?? group.files[0]!;
        const closed = endedIn.get(row.suspension);
        return {
          ...row,
          pausedIn: { file, line: row.line },
          endedIn: row.closedAtLine === null || closed === undefined ? null : { file: closed, line: row.closedAtLine },
        };
      })
    : [];
  return { ok: true, rows, note: seriesLine(series) };
}

/** One unlinked log's rows, verified as read and fed to the fleet's ledger. */
async function auditOne(
  ledger: FleetLedger,
  file: string,
  verify: Omit<VerifyOptions, 'onLine' | 'jobs'>,
  options: FleetAuditOptions,
  interruptions: GroupInterruptions,
): Promise<GroupRows> {
  ledger.startLog(file);
  const result = await auditReceiptLog(file, {
    ...verify,
    ...(options.filter ? { filter: options.filter } : {}),
    agentPrincipals: [...(options.agentPrincipals ?? [])],
    onLine: (verified) => {
      ledger.add(verified.line, verified.number, verified.hash);
      interruptions.onLine(file, verified);
    },
  });
  if (!result.verify.ok) return { ok: false, why: verifySummary(file, result.verify) };
  const rows = lists(options, 'pause')
    ? result.rows.map((row) => {
        const closedHere = row.closedAtLine === null ? null : { file, line: row.closedAtLine };
        return { ...row, pausedIn: { file, line: row.line }, endedIn: closedHere };
      })
    : [];
  return { ok: true, rows, note: verifySummary(file, result.verify) };
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
  const interruptions: FleetInterruptionRow[] = [];
  const entries: FleetAuditEntry[] = [];
  const notes: string[] = [];
  let orphanContinuations = 0;
  for (const group of set.groups) {
    const held = new GroupInterruptions();
    const read = group.linked
      ? await auditGroup(ledger, group, verify, options, held)
      : await auditOne(ledger, group.files[0]!, verify, options, held);
    if (!read.ok) return { ok: false, audited: false, why: read.why };
    const asked = held.rows(options, group.files[0]!);
    // One push per row: a spread of a long series' rows would overflow the stack (as in audit's tables).
    for (const row of read.rows) rows.push(row);
    for (const row of asked) interruptions.push(row);
    for (const entry of held.entries(read.rows, asked)) entries.push(entry);
    orphanContinuations += held.collector.orphans;
    notes.push(read.note);
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
  if (interruptions.length > 0)
    notes.splice(1, 0, `${interruptions.length} interruption${interruptions.length === 1 ? '' : 's'}`);
  if (orphanContinuations > 0)
    notes.push(
      `orphan: ${orphanContinuations} continuation${orphanContinuations === 1 ? '' : 's'} ` +
        'naming an interruption no given log holds',
    );
  // An orphan is what a forger would use, an ambiguity a guess not made: as verify and lost, the
  // audit fails on either (docs/design.md §17); an orphan continuation as an orphan resumption.
  const ok = !fleetFails(verdict) && orphanContinuations === 0;
  return { ok, audited: true, rows, interruptions, entries, orphanContinuations, notes, verdict };
}
