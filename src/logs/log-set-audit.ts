/**
 * @module logs/log-set-audit
 * The audit of a log or a series (docs/design.md §6, §14.9): who paused which task, when, why and
 * how it ended, and who continued each interruption (INPUT_REQUIRED, AUTH_REQUIRED), when and with
 * what. The rows are built from the lines as they verify, so a log or a series that does not
 * verify is reported, never audited. A series is read as one log: its lines go in series order to
 * one pair of collectors, so a pause or an interruption begun in one log and ended in a later one
 * is one row, ended. With the log's recording, each row also gets the observer rules that decided
 * it and the A2A versions of its exchanges (§14.8, §14.10).
 */
import { A2aReplayError } from '../errors.js';
import { AuditCollector, type AuditFilter, type AuditRow } from '../receipts/audit.js';
import { InterruptionAuditCollector, type InterruptionAuditRow } from '../receipts/interruption-audit.js';
import { verifySeries } from '../receipts/series.js';
import { type VerifiedLine, verifyReceiptLog } from '../receipts/verify.js';
import { type LogSet, type LogSetVerification, keyringFor, placeHead, verifyLogSet } from './log-set.js';
import { type RecordingFacts, recordingFacts } from './recording-facts.js';

/** The kinds of row an audit lists: suspensions (`pause`) and interruptions. */
export const AUDIT_KINDS = ['pause', 'interruption'] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/** What {@link auditLogSet} lists, and from what. */
export interface LogSetAuditOptions {
  /**
   * Only one task's rows (`taskId`), or only pauses one side initiated (`initiatedBy`); an
   * interruption has no initiator, so with `initiatedBy` none is listed.
   */
  filter?: AuditFilter | undefined;
  /** Principals the agent itself acts as; other principals' AwaitTaskResumption calls are flagged. */
  agentPrincipals?: readonly string[] | undefined;
  /** One kind of row; both when absent. */
  kind?: AuditKind | undefined;
  /**
   * The path of the log's recording (one log only): the log must be its log, and each row gets
   * the rules that decided it and its A2A versions. One that cannot be read is an `A2aReplayError`.
   */
  recording?: string | undefined;
}

/** A row of either kind, with the file that holds the receipt it begins with. */
export type AuditEntry =
  { kind: 'pause'; file: string; row: AuditRow } | { kind: 'interruption'; file: string; row: InterruptionAuditRow };

/** What {@link auditLogSet} found. */
export interface LogSetAudit {
  /** Whether the set verified (and a head given was the checkpoint of a log given): only then are there rows. */
  ok: boolean;
  /** One row per suspension, in log order (none with `kind: 'interruption'`). */
  rows: AuditRow[];
  /** One row per interruption, in log order (none with `kind: 'pause'` or a `filter.initiatedBy`). */
  interruptions: InterruptionAuditRow[];
  /** Both kinds in log order (a series' in series order). */
  entries: AuditEntry[];
  /**
   * Resumptions naming a suspension the set does not hold, and continuations naming an
   * interruption it does not hold (all of them, whatever the filter).
   */
  orphans: { resumptions: number; continuations: number };
  verification: LogSetVerification;
}

/** Whether an audit with `options` lists rows of `kind` (an interruption has no initiator to filter by). */
export function lists(options: LogSetAuditOptions, kind: AuditKind): boolean {
  const wanted = options.kind === undefined || options.kind === kind;
  return wanted && (kind === 'pause' || options.filter?.initiatedBy === undefined);
}

/** What a log's or a series' lines make, fed in log order. */
class SetCollector {
  readonly pauses: AuditCollector;
  readonly interruptions = new InterruptionAuditCollector();
  /** The file of each suspension and interruption, by its receipt's hash, in the order they came. */
  readonly #begun = new Map<string, string>();

  constructor(agentPrincipals: readonly string[] | undefined) {
    this.pauses = new AuditCollector({ agentPrincipals: [...(agentPrincipals ?? [])] });
  }

  readonly onLine = (file: string, verified: VerifiedLine): void => {
    this.pauses.onLine(verified);
    this.interruptions.onLine(verified);
    const { type } = verified.line;
    if (type === 'SuspensionReceipt' || type === 'InterruptionReceipt') this.#begun.set(verified.hash, file);
  };

  /** `rows` and `interruptions` merged in the order their first receipts came. */
  entries(rows: readonly AuditRow[], interruptions: readonly InterruptionAuditRow[]): AuditEntry[] {
    const order = new Map([...this.#begun.keys()].map((hash, at) => [hash, at]));
    const at = (e: AuditEntry): number =>
      order.get(e.kind === 'pause' ? e.row.suspension : e.row.interruption) ?? Number.POSITIVE_INFINITY;
    const file = (hash: string): string => this.#begun.get(hash) ?? '';
    return [
      ...rows.map((row): AuditEntry => ({ kind: 'pause', file: file(row.suspension), row })),
      ...interruptions.map((row): AuditEntry => ({ kind: 'interruption', file: file(row.interruption), row })),
    ].sort((a, b) => at(a) - at(b));
  }

  get orphans(): LogSetAudit['orphans'] {
    return { resumptions: this.pauses.orphans, continuations: this.interruptions.orphans };
  }
}

/** An audit that listed nothing: the set did not verify, as `verification` says. */
function refused(verification: LogSetVerification): LogSetAudit {
  return {
    ok: false,
    rows: [],
    interruptions: [],
    entries: [],
    orphans: { resumptions: 0, continuations: 0 },
    verification,
  };
}

/**
 * The audit of a log or a series (see the module doc), verified as it is read with the set's keys,
 * open end and head. A head that is no given log's checkpoint (a later log missing, a head that does
 * not check) leaves nothing to audit: `ok` is false and the verification says why. A fleet is
 * audited with `auditFleet`.
 */
export async function auditLogSet(set: LogSet, options: LogSetAuditOptions = {}): Promise<LogSetAudit> {
  const keyring = keyringFor(set, 'auditing');
  if (set.kind === 'fleet')
    throw new A2aReplayError(
      'INVALID_ARGUMENT',
      'auditLogSet reads one log or one series; audit a fleet with auditFleet',
    );
  if (options.recording !== undefined && set.kind !== 'log')
    throw new A2aReplayError('INVALID_ARGUMENT', 'a recording applies to one log, not to a series');
  const facts = options.recording === undefined ? null : await recordingFacts(options.recording, set.allowTornTail);
  const placed = await placeHead(set, keyring);
  if (placed !== null && placed.kind !== 'at') return refused(await verifyLogSet(set));
  const head = placed === null ? {} : { head: placed };
  const checkpoint = set.head?.checkpoint;
  const openEnd = { allowOpen: set.allowOpen, allowTornTail: set.allowTornTail };
  const collector = new SetCollector(options.agentPrincipals);
  let verification: LogSetVerification;
  let vouched = Number.POSITIVE_INFINITY;
  if (set.kind === 'series') {
    const series = await verifySeries(
      set.group.files,
      { keyring, ...openEnd, ...(placed && checkpoint ? { anchorAt: { path: placed.path, checkpoint } } : {}) },
      collector.onLine,
    );
    verification = { kind: 'series', ok: series.ok, series, ...head };
  } else {
    const result = await verifyReceiptLog(set.files[0]!, {
      keyring,
      ...openEnd,
      ...(checkpoint ? { anchor: checkpoint } : {}),
      ...(facts ? { recording: facts.binding } : {}),
      onLine: (line) => collector.onLine(set.given, line),
    });
    verification = { kind: 'log', ok: result.ok, file: set.given, result, ...head };
    vouched = result.vouched;
  }
  if (!verification.ok) return refused(verification);
  return { ok: true, ...listed(collector, options, vouched, facts), verification };
}

/** The rows the options ask for, of lines that verified. */
function listed(
  collector: SetCollector,
  options: LogSetAuditOptions,
  vouched: number,
  facts: RecordingFacts | null,
): Pick<LogSetAudit, 'rows' | 'interruptions' | 'entries' | 'orphans'> {
  const filter = options.filter ?? {};
  const rows = lists(options, 'pause') ? collector.pauses.rows(filter, vouched, facts?.rulesOf, facts?.versionsOf) : [];
  const interruptions = lists(options, 'interruption')
    ? collector.interruptions.rows(filter.taskId, vouched, facts?.versionsOf)
    : [];
  return { rows, interruptions, entries: collector.entries(rows, interruptions), orphans: collector.orphans };
}
