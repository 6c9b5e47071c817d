/**
 * What `verify`, `lost` and `audit` conclude about receipt logs, as the library calls those
 * commands make (cli/commands/verify.ts, cli/commands/lost.ts, cli/commands/audit.ts), in the
 * test's process: the same lines, JSON and exit code the command prints and exits with, without a
 * child process. Whatever is opened is closed before each returns.
 */
import { A2aReplayError, printable } from '../../src/public/core.js';
import {
  type AuditEntry,
  type Keyring,
  type LogChecks,
  type LogSetAudit,
  type LogSetAuditOptions,
  type LogSetVerification,
  type LostPauses,
  type ReceiptKey,
  auditLogSet,
  auditRefusal,
  lostOutcome,
  lostPausesJson,
  lostPauses,
  openLogSet,
  verificationJson,
  verificationLines,
  verifyLogSet,
} from '../../src/public/receipts.js';

/** Keys as `--key FILE...` gives them (paths), or loaded. */
export type VerdictKeys = Keyring | ReceiptKey | string | readonly string[];

export interface OpenEnd {
  /** `--allow-open` */
  allowOpen?: boolean | undefined;
  /** `--allow-torn-tail` */
  allowTornTail?: boolean | undefined;
}

export interface VerifyVerdict {
  /** The exit code of `verify`: 0 when it verifies, 1 when not. */
  code: 0 | 1;
  /** What `verify` prints, one line each. */
  lines: string[];
  /** What `verify --json` prints, parsed. */
  json: ReturnType<typeof verificationJson>;
  verified: LogSetVerification;
}

/**
 * `a2a-replay verify PATHS --key KEYS [--allow-open] [--allow-torn-tail]`, and of one log the
 * checks of `--recording`, `--since` and `--witness-vkey` (`checks`).
 */
export async function verifyVerdict(
  paths: readonly string[],
  keys: VerdictKeys,
  openEnd: OpenEnd = {},
  checks: LogChecks = {},
): Promise<VerifyVerdict> {
  const set = await openLogSet(paths, { keys, ...openEnd });
  try {
    const verified = await verifyLogSet(set, checks);
    return {
      code: verified.ok ? 0 : 1,
      lines: verificationLines(verified).map((l) => printable(l)),
      // Through JSON, as the command prints it.
      json: JSON.parse(JSON.stringify(verificationJson(verified))) as ReturnType<typeof verificationJson>,
      verified,
    };
  } finally {
    await set.close();
  }
}

export interface LostVerdict {
  /** The exit code of `lost`: 0 none lost, 1 lost (or the logs do not verify), 2 input not understood. */
  code: 0 | 1 | 2;
  /** What was found; undefined when the logs do not verify. */
  found?: LostPauses;
  /** What `lost --json` prints, parsed; undefined when the logs do not verify. */
  json?: unknown;
  /** The error `lost` prints when the logs do not verify. */
  invalid?: string;
}

/** `a2a-replay lost FILES [--key KEYS] [--allow-torn-tail]`. */
export async function lostVerdict(
  files: readonly string[],
  options: { keys?: VerdictKeys | undefined; allowTornTail?: boolean | undefined } = {},
): Promise<LostVerdict> {
  const set = await openLogSet(files, { allowTornTail: options.allowTornTail, keys: options.keys });
  try {
    let found: LostPauses;
    try {
      found = await lostPauses(set, { explain: false });
    } catch (error) {
      if (error instanceof A2aReplayError && error.code === 'RECEIPT_INVALID')
        return { code: 1, invalid: error.message };
      throw error;
    }
    const outcome = lostOutcome(found);
    const code = outcome === 'not-understood' ? 2 : outcome === 'clean' ? 0 : 1;
    return { code, found, json: JSON.parse(JSON.stringify(lostPausesJson(found, { explain: false }))) };
  } finally {
    await set.close();
  }
}

export interface AuditVerdict {
  /** The exit code of `audit`: 0 audited, 1 not (the logs do not verify). */
  code: 0 | 1;
  /** What `audit --json` prints, parsed (empty when not audited). */
  rows: Record<string, unknown>[];
  /** Why it was not audited (`a2a-replay: not audited: …` on stderr); null when it was. */
  refusal: string | null;
  audit: LogSetAudit;
}

/** Each row with its kind, as `audit --json` prints them. */
const kinded = (entries: readonly AuditEntry[]): object[] =>
  entries.map((e) => (e.kind === 'pause' ? { kind: 'pause', ...e.row } : e.row));

/** `a2a-replay audit LOGS --key KEYS --json [--allow-open] [--allow-torn-tail]` of a log or a series. */
export async function auditVerdict(
  logs: readonly string[],
  keys: VerdictKeys,
  openEnd: OpenEnd = {},
  asked: LogSetAuditOptions = {},
): Promise<AuditVerdict> {
  const set = await openLogSet(logs, { keys, ...openEnd });
  try {
    if (set.kind === 'fleet') throw new Error('auditVerdict: a fleet is audited by auditFleet');
    const audit = await auditLogSet(set, asked);
    const refusal = auditRefusal(audit);
    const rows =
      refusal === null ? (JSON.parse(JSON.stringify(kinded(audit.entries))) as Record<string, unknown>[]) : [];
    return { code: refusal === null ? 0 : 1, rows, refusal, audit };
  } finally {
    await set.close();
  }
}
