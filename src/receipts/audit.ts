/**
 * @module receipts/audit
 * Who paused which task, when, why, and how it ended (docs/design.md §6): one row per suspension, built
 * from lines as the verifier accepts them, so a tampered log is reported, never audited.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import type { PauseInitiator } from '../protocol/types.js';
import { type VerifiedLine, type VerifyOptions, type VerifyResult, verifyReceiptLog } from './verify.js';
import type { ReceiptBinding, ResumeReceiptCause, SpanRef, SuspensionReceipt, SuspensionVia } from './types.js';

/** How a suspension ended: `open` when no closing receipt was logged. */
export type AuditOutcome = 'resumed' | 'canceled' | 'failed' | 'open';

export interface AuditRow {
  /** Line and hash of the SuspensionReceipt. */
  line: number;
  suspension: string;
  taskId: string;
  contextId: string | null;
  initiatedBy: PauseInitiator;
  principal: string | null;
  via: SuspensionVia;
  /** The A2A binding the pause was seen over (JSON-RPC or HTTP+JSON). */
  binding: ReceiptBinding;
  reason: string | null;
  conditions: JsonValue;
  pausedAt: string;
  pausedUntil: string | null;
  outcome: AuditOutcome;
  /** Of the closing receipt, else null. */
  cause: ResumeReceiptCause | null;
  closedAt: string | null;
  closedBy: string | null;
  closedAtLine: number | null;
  /** Rejected resume attempts (e.g. -32011) against this suspension. */
  rejectedAttempts: number;
  rejectedCodes: number[];
  /** What an auditor should look at (docs/design.md §6, "Audit flags"); empty when nothing. */
  flags: AuditFlag[];
  /**
   * Whether a valid checkpoint covers this row's receipts (the suspension and what closed it).
   * False only in a log accepted with `allowOpen`: the rows after its last checkpoint.
   */
  vouched: boolean;
  /**
   * The observer rules that decided this suspension (docs/design.md §14.8): `pause` proved it,
   * `end` closed it or declared it lost (null while nothing did). A receipt log holds no rule, so
   * they are worked out again from the recording given beside the log; null without one, or when
   * the recording shows no pause with this receipt's span.
   */
  rules: AuditRules | null;
  /** The Suspension span its receipt names: where it is in Jaeger (docs/design.md §7). */
  span: SpanRef;
  /**
   * The A2A versions of the exchanges behind its receipts (the suspension and what closed it), as
   * the recording given beside the log recorded them (docs/design.md §14.10); absent without one.
   */
  a2aVersions?: string[];
}

/** The A2A versions of the recording entries `seqs` (`EntryVersions.ofEntries` of observe/entry-versions). */
export type VersionsOf = (seqs: readonly number[]) => string[];

/** The rules that decided a suspension, as the observer names them (docs/design.md §14.8). */
export interface AuditRules {
  readonly pause: string | null;
  readonly end: string | null;
}

/** The rules of the pause whose Suspension span is `span`, undefined when unknown. */
export type RulesOf = (span: SpanRef) => AuditRules | undefined;

/**
 * `agent-pause-requested-by-other-principal`: an agent-initiated pause that arrived as a client
 * request (`AwaitTaskResumption`) from a principal that is not one of the agent's own — or from
 * any principal when the agent's principals are not configured.
 */
export const AUDIT_FLAGS = ['agent-pause-requested-by-other-principal'] as const;
export type AuditFlag = (typeof AUDIT_FLAGS)[number];

export interface AuditCollectorOptions {
  /** The principals the agent itself acts as (`audit --agent-principal`). */
  agentPrincipals?: readonly string[];
}

export interface AuditFilter {
  taskId?: string;
  initiatedBy?: PauseInitiator;
}

export interface AuditResult {
  verify: VerifyResult;
  /** Empty when verification failed. */
  rows: AuditRow[];
  /** ResumptionReceipts naming a suspension this log does not hold. */
  orphans: number;
}

/** Collects audit rows from verified lines (feed it as the verifier's `onLine`). */
export class AuditCollector {
  readonly #rows = new Map<string, AuditRow>();
  /** The highest receipt seq each row rests on. */
  readonly #lastSeq = new Map<AuditRow, number>();
  /** Each row's Suspension span, by which its rules are found. */
  readonly #span = new Map<AuditRow, SpanRef>();
  /** The recording entries each row's receipts name (the suspension's, then what closed it). */
  readonly #entries = new Map<AuditRow, number[]>();
  readonly #agentPrincipals: ReadonlySet<string>;
  #orphans = 0;

  constructor(options: AuditCollectorOptions = {}) {
    this.#agentPrincipals = new Set(options.agentPrincipals ?? []);
  }

  #flagsOf(receipt: SuspensionReceipt): AuditFlag[] {
    const requested = receipt.initiatedBy === 'PAUSE_INITIATOR_AGENT' && receipt.via === 'AwaitTaskResumption';
    if (!requested) return [];
    const own = receipt.principal !== null && this.#agentPrincipals.has(receipt.principal);
    return own ? [] : ['agent-pause-requested-by-other-principal'];
  }

  readonly onLine = (verified: VerifiedLine): void => {
    const { line, hash, number } = verified;
    switch (line.type) {
      case 'SuspensionReceipt': {
        const row: AuditRow = {
          line: number,
          suspension: hash,
          taskId: line.taskId,
          contextId: line.contextId,
          initiatedBy: line.initiatedBy,
          principal: line.principal,
          via: line.via,
          binding: line.binding,
          reason: line.reason,
          conditions: (line.conditions ?? null) as JsonValue,
          pausedAt: line.pausedAt,
          pausedUntil: line.pausedUntil,
          outcome: 'open',
          cause: null,
          closedAt: null,
          closedBy: null,
          closedAtLine: null,
          rejectedAttempts: 0,
          rejectedCodes: [],
          flags: this.#flagsOf(line),
          vouched: true,
          rules: null,
          span: line.span,
        };
        this.#rows.set(hash, row);
        this.#span.set(row, line.span);
        this.#entries.set(row, [...line.entries]);
        this.#lastSeq.set(row, line.seq);
        return;
      }
      case 'ResumptionReceipt': {
        const row = line.suspension === null ? undefined : this.#rows.get(line.suspension);
        if (!row) {
          this.#orphans++;
          return;
        }
        this.#lastSeq.set(row, line.seq);
        if (line.outcome === 'rejected') {
          row.rejectedAttempts++;
          if (line.errorCode !== null) row.rejectedCodes.push(line.errorCode);
          return;
        }
        this.#entries.get(row)?.push(...line.entries);
        row.outcome = line.outcome;
        row.cause = line.cause;
        row.closedAt = line.resumedAt;
        row.closedBy = line.principal;
        row.closedAtLine = number;
        return;
      }
      case 'ReceiptLog':
      case 'InterruptionReceipt':
      case 'ContinuationReceipt':
      case 'Checkpoint':
        return;
      default: {
        const never: never = line;
        throw new Error(`unhandled line ${JSON.stringify(never)}`);
      }
    }
  };

  get orphans(): number {
    return this.#orphans;
  }

  /**
   * Forgets the row of the suspension `hash` (a reader that keeps only some rows, as the report
   * does past its listed ones); a later resumption naming it counts as an orphan.
   */
  release(hash: string): void {
    const row = this.#rows.get(hash);
    if (!row) return;
    this.#rows.delete(hash);
    this.#span.delete(row);
    this.#entries.delete(row);
    this.#lastSeq.delete(row);
  }

  /**
   * Rows in log order, filtered; `vouched` is how many receipts a checkpoint covers (default all);
   * `rulesOf` gives each row its rules (else they are null), `versionsOf` its A2A versions.
   */
  rows(
    filter: AuditFilter = {},
    vouched = Number.POSITIVE_INFINITY,
    rulesOf?: RulesOf,
    versionsOf?: VersionsOf,
  ): AuditRow[] {
    return [...this.#rows.values()]
      .filter(
        (r) =>
          (filter.taskId === undefined || r.taskId === filter.taskId) &&
          (filter.initiatedBy === undefined || r.initiatedBy === filter.initiatedBy),
      )
      .map((r) => {
        const span = this.#span.get(r);
        const rules = rulesOf && span ? (rulesOf(span) ?? null) : null;
        const row: AuditRow = { ...r, vouched: (this.#lastSeq.get(r) ?? 0) <= vouched, rules };
        if (versionsOf) row.a2aVersions = versionsOf(this.#entries.get(r) ?? []);
        return row;
      });
  }
}

/** Verifies `path` while collecting rows; rows are returned only when the log verifies. */
export async function auditReceiptLog(
  path: string,
  options: VerifyOptions & AuditCollectorOptions & { filter?: AuditFilter; rulesOf?: RulesOf; versionsOf?: VersionsOf },
): Promise<AuditResult> {
  const collector = new AuditCollector(options.agentPrincipals ? { agentPrincipals: options.agentPrincipals } : {});
  const outer = options.onLine;
  const verify = await verifyReceiptLog(path, {
    ...options,
    onLine: (line) => {
      collector.onLine(line);
      outer?.(line);
    },
  });
  return {
    verify,
    rows: verify.ok ? collector.rows(options.filter, verify.vouched, options.rulesOf, options.versionsOf) : [],
    orphans: collector.orphans,
  };
}
