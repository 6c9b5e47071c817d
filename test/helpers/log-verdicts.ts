/**
 * What `verify` and `lost` conclude, in the test's process: the library calls the commands make
 * (cli/commands/verify.ts, cli/commands/lost.ts) and the exit code each maps the result to (0 ok,
 * 1 drift, 2 usage), for tests whose subject is the verdict, not the process. `verify`'s text is
 * `verificationLines`; `lost`'s verdict is `lostPausesJson` (what `lost --json` prints); `audit`'s
 * (cli/commands/audit.ts, one log or a series) is `auditLogSet`, its rows as `audit --json` prints them.
 */
import {
  Keyring,
  type LogSetAuditOptions,
  auditFleet,
  auditLogSet,
  auditNotes,
  auditRefusal,
  type LostPauses,
  lostOutcome,
  lostPauses,
  lostPausesJson,
  openLogSet,
  verificationJson,
  verificationLines,
  verifyLogSet,
} from '../../src/public/receipts.js';
import type { ReceiptKey } from '../../src/public/receipts.js';

export interface VerifyVerdict {
  /** The exit code `verify` exits with. */
  code: number;
  /** What `verify` prints (without `--json`). */
  stdout: string;
  /** What `verify --json` prints, parsed. */
  json: ReturnType<typeof verificationJson>;
}

/**
 * `a2a-replay verify PATHS --key …` in this process, with `recording` as `--recording` and
 * `checkpoint` as `--checkpoint`.
 */
export async function verifyVerdict(
  paths: readonly string[],
  keys: readonly ReceiptKey[] | Keyring,
  options: { recording?: string; allowOpen?: boolean; checkpoint?: string } = {},
): Promise<VerifyVerdict> {
  const set = await openLogSet(paths, { head: options.checkpoint });
  try {
    const verified = await verifyLogSet(
      { ...set, keyring: keyringOf(keys), ...(options.allowOpen ? { allowOpen: true } : {}) },
      set.kind === 'log' ? { recording: options.recording } : {},
    );
    return {
      code: verified.ok ? 0 : 1,
      stdout: verificationLines(verified)
        .map((l) => `${l}\n`)
        .join(''),
      json: verificationJson(verified),
    };
  } finally {
    await set.close();
  }
}

export interface LostVerdict {
  /** The exit code `lost` exits with. */
  code: number;
  /** What `lost --json` prints, parsed. */
  json: ReturnType<typeof lostPausesJson>;
  found: LostPauses;
}

/** `a2a-replay lost PATHS [--key …] [--checkpoint HEAD]` in this process. */
export async function lostVerdict(
  paths: readonly string[],
  options: { keys?: readonly ReceiptKey[] | Keyring; explain?: boolean; checkpoint?: string } = {},
): Promise<LostVerdict> {
  const set = await openLogSet(paths, { head: options.checkpoint });
  try {
    const keyring = options.keys === undefined ? undefined : keyringOf(options.keys);
    const explain = options.explain ?? false;
    const found = await lostPauses({ ...set, keyring }, { explain });
    const outcome = lostOutcome(found);
    const code = outcome === 'clean' ? 0 : outcome === 'not-understood' ? 2 : 1;
    return { code, json: lostPausesJson(found, { explain }), found };
  } finally {
    await set.close();
  }
}

export interface AuditVerdict {
  /** The exit code `audit` exits with. */
  code: number;
  /** What `audit --json` prints, parsed: each row with its kind. */
  rows: Record<string, unknown>[];
  /** Why the log was not audited (`a2a-replay: not audited: …` on stderr), or null. */
  refusal: string | null;
  /** The notes `audit` writes on stderr after its table. */
  notes: string[];
}

/** `a2a-replay audit PATHS --key …` in this process, with the asked filters (a fleet: `auditFleet`). */
export async function auditVerdict(
  paths: readonly string[],
  keys: readonly ReceiptKey[] | Keyring,
  asked: LogSetAuditOptions = {},
): Promise<AuditVerdict> {
  const set = await openLogSet(paths);
  try {
    const keyring = keyringOf(keys);
    if (set.kind === 'fleet') {
      const fleet = await auditFleet(set, { keyring, ...asked });
      if (!fleet.audited) return { code: 1, rows: [], refusal: fleet.why, notes: [] };
      return { code: fleet.ok ? 0 : 1, rows: kinded(fleet.entries), refusal: null, notes: fleet.notes };
    }
    const audit = await auditLogSet({ ...set, keyring }, asked);
    const refusal = auditRefusal(audit);
    const rows = kinded(audit.entries);
    return { code: refusal === null ? 0 : 1, rows, refusal, notes: refusal === null ? auditNotes(audit, asked) : [] };
  } finally {
    await set.close();
  }
}

/** Each row with its kind, as `audit --json` prints them; an interruption row says its own. */
const kinded = (entries: readonly { kind: string; row: object }[]): Record<string, unknown>[] =>
  entries.map((e) => (e.kind === 'pause' ? { kind: 'pause', ...e.row } : { ...e.row }));

const keyringOf = (keys: readonly ReceiptKey[] | Keyring): Keyring =>
  keys instanceof Keyring ? keys : new Keyring([...keys]);
