/**
 * What `a2a-replay verify`, `lost` and `audit` conclude, in the test's process: the library calls
 * the commands make (cli/commands/verify.ts, lost.ts, audit.ts), the lines and JSON they print,
 * and the exit code each maps its result to (0 ok, 1 drift or invalid, 2 input it cannot read, 3
 * the disk or the peer failed). For tests whose subject is the verdict, not the process; the
 * commands' own printing and exit codes are shown by the whole-process tests that run them. Every
 * log set opened here is closed before the call returns.
 */
import { expect } from 'vitest';
import { A2aReplayError, isInfrastructureError, printable } from '../../src/public/core.js';
import {
  type AuditEntry,
  type FleetAuditEntry,
  type Keyring,
  type LogChecks,
  type LogSetAudit,
  type LogSetAuditOptions,
  type LogSetVerification,
  type LostPauses,
  type ReceiptKey,
  auditFleet,
  auditLogSet,
  auditNotes,
  auditRefusal,
  gapless,
  loadKeyring,
  lostOutcome,
  lostPauses,
  lostPausesJson,
  lostSource,
  openLogSet,
  readRecordingBinding,
  verificationJson,
  verificationLines,
  verifyLogSet,
} from '../../src/public/receipts.js';

/** Keys as `--key FILE...` gives them (paths), or loaded. */
export type VerdictKeys = Keyring | ReceiptKey | string | readonly string[];

/** The flags that say how a set of logs is read. */
export interface SetOptions {
  /** `--allow-open` */
  allowOpen?: boolean | undefined;
  /** `--allow-torn-tail` */
  allowTornTail?: boolean | undefined;
  /** `--checkpoint HEAD`: the series' head, a file or its text. */
  head?: string | undefined;
  /** `--jobs N` (default 1, as `verify` checks a log under 4 MiB). */
  jobs?: number | undefined;
}

/** What a command refusing its input concluded: the code it exits with and its `a2a-replay: ` line. */
export interface Refusal {
  code: number;
  error: string;
}

/**
 * The code and message of a failure as the CLI reports it (cli/io.ts `reportFailure`): a library
 * error is bad input (2) unless the peer or the disk failed (3); `asInvalid` codes are exit 1
 * (what `lost` does with logs that do not verify). Anything else is thrown on.
 */
function refusal(error: unknown, asInvalid: readonly string[] = []): Refusal {
  if (!(error instanceof A2aReplayError)) throw error;
  if (asInvalid.includes(error.code)) return { code: 1, error: error.message };
  return { code: isInfrastructureError(error) ? 3 : 2, error: error.message };
}

/** The keyring `--key FILE...` loads: a key or public key per file (`loadKeyring`, none from the environment). */
export async function keyringOf(files: readonly string[]): Promise<Keyring> {
  return (await loadKeyring({ keys: files, env: {} })).keyring;
}

export interface VerifyVerdict {
  /** The exit code of `verify`: 0 when it verifies, 1 when not. */
  code: 0 | 1;
  /** What `verify` prints, one line each. */
  lines: string[];
  /** What `verify` prints, as it prints it. */
  stdout: string;
  /** What `verify --json` prints, parsed. */
  json: Record<string, unknown>;
  verified: LogSetVerification;
}

/**
 * `a2a-replay verify PATHS --key KEYS [--allow-open] [--allow-torn-tail] [--checkpoint HEAD]
 * [--jobs N]`, with `checks` what `--recording`, `--since` and `--witness-vkey` ask of one log.
 */
export async function verifyVerdict(
  paths: readonly string[],
  keys: VerdictKeys,
  options: SetOptions & { checks?: LogChecks } = {},
): Promise<VerifyVerdict> {
  const { checks, ...read } = options;
  const set = await openLogSet(paths, { keys, ...read, jobs: read.jobs ?? 1 });
  try {
    const verified = await verifyLogSet(set, checks);
    const lines = verificationLines(verified).map((l) => printable(l));
    return {
      code: verified.ok ? 0 : 1,
      lines,
      stdout: lines.map((l) => `${l}\n`).join(''),
      // Through JSON, as the command prints it.
      json: JSON.parse(JSON.stringify(verificationJson(verified))) as Record<string, unknown>,
      verified,
    };
  } finally {
    await set.close();
  }
}

/** The exit codes of `lost`: 0 clean, 1 lost, 2 input it does not understand. */
const LOST_EXIT = { clean: 0, lost: 1, untrusted: 1, 'not-understood': 2 } as const;

export interface LostVerdict {
  code: 0 | 1 | 2;
  /** What `lost --json` prints, parsed. */
  json: Record<string, unknown>;
  found: LostPauses;
}

/**
 * What `lost FILES [--key KEYS] [--allow-torn-tail] [--explain] [--recording R] [--checkpoint HEAD]` lists (as `--json`
 * prints it) and the code it exits with. Logs that do not verify are refused, not listed: see
 * {@link lostRefusal}.
 */
export async function lostVerdict(
  files: readonly string[],
  options: {
    keys?: VerdictKeys | undefined;
    explain?: boolean;
    allowTornTail?: boolean;
    recording?: string;
    /** `--checkpoint HEAD`: the series' head, a file or its text. */
    head?: string;
  } = {},
): Promise<LostVerdict> {
  const set = await openLogSet(files, { keys: options.keys, allowTornTail: options.allowTornTail, head: options.head });
  try {
    const explain = options.explain ?? false;
    const recording =
      options.recording === undefined ? {} : { recording: await readRecordingBinding(options.recording) };
    const found = await lostPauses(set, { explain, ...recording });
    const json = JSON.parse(JSON.stringify(lostPausesJson(found, { explain }))) as Record<string, unknown>;
    return { code: LOST_EXIT[lostOutcome(found)], json, found };
  } finally {
    await set.close();
  }
}

/**
 * What `lost FILES` says of input it refuses: logs that do not verify or hold together (exit 1),
 * input it cannot read (exit 2); throws when it lists instead.
 */
export async function lostRefusal(
  files: readonly string[],
  options: { keys?: VerdictKeys | undefined; allowTornTail?: boolean; recording?: string } = {},
): Promise<Refusal> {
  try {
    const { code } = await lostVerdict(files, options);
    throw new Error(`lost ${files.join(' ')} listed (exit ${code}) instead of refusing`);
  } catch (error) {
    return refusal(error, ['RECEIPT_INVALID']);
  }
}

/** What `verify`, `lost` or `audit` says of input it cannot open (exit 2); throws when it opens. */
export async function openRefusal(logs: readonly string[]): Promise<Refusal> {
  try {
    const set = await openLogSet(logs);
    await set.close();
    throw new Error(`${logs.join(' ')} opened instead of being refused`);
  } catch (error) {
    return refusal(error);
  }
}

/**
 * Asserts what makes `lost RECORDING` print exactly `no lost pauses in RECORDING (recording)` and
 * exit 0: read as a recording, nothing lost, no lost interruption, nothing incomplete, not
 * understood or unread, no receipt stall, and one dialect (A2A 1.0) so no dialect line.
 */
export function expectNoLostInRecording(found: LostPauses): void {
  expect(lostSource(found)).toBe('recording');
  expect(found.lost).toEqual([]);
  expect(found.interruptions).toEqual([]);
  expect(found.gaps !== null && gapless(found.gaps)).toBe(true);
  expect(found.unreceipted ?? null).toBeNull();
  expect(Object.keys(found.recording?.dialects ?? {}).filter((v) => v !== '1.0')).toEqual([]);
  expect(lostOutcome(found)).toBe('clean');
}

/** Each entry as `audit --json` prints it: a pause row gets `kind: 'pause'`, an interruption row says its own. */
const kinded = (entries: readonly (AuditEntry | FleetAuditEntry)[]): Record<string, unknown>[] =>
  JSON.parse(JSON.stringify(entries.map((e) => (e.kind === 'pause' ? { kind: 'pause', ...e.row } : e.row)))) as Record<
    string,
    unknown
  >[];

export interface AuditVerdict {
  /** The exit code of `audit`: 0 audited, 1 not (the logs do not verify or hold together). */
  code: 0 | 1;
  /** What `audit --json` prints, parsed (none when not audited). */
  rows: Record<string, unknown>[];
  /** Why it was not audited (`a2a-replay: not audited: …` on stderr); null when it was. */
  why: string | null;
  /** The notes `audit` prints on stderr after its rows. */
  notes: string[];
  /** The audit of one log or a series (undefined for a fleet). */
  audit?: LogSetAudit;
}

/**
 * `a2a-replay audit LOGS --key KEYS --json [--allow-open] [--allow-torn-tail]` of a log, a series
 * or a fleet, with `asked` its filters (`--kind`, `--task`, `--initiator`, …).
 */
export async function auditVerdict(
  logs: readonly string[],
  keys: VerdictKeys,
  asked: LogSetAuditOptions & SetOptions = {},
): Promise<AuditVerdict> {
  const { allowOpen = false, allowTornTail, head, jobs, ...filters } = asked;
  const set = await openLogSet(logs, { keys, allowTornTail, head, jobs });
  try {
    if (set.kind === 'fleet') {
      if (set.keyring === undefined) throw new Error('auditVerdict: a fleet is audited with keys');
      const audit = await auditFleet(set, { keyring: set.keyring, ...filters, allowOpen });
      if (!audit.audited) return { code: 1, rows: [], why: audit.why, notes: [] };
      return { code: audit.ok ? 0 : 1, rows: kinded(audit.entries), why: null, notes: audit.notes };
    }
    const audit = await auditLogSet({ ...set, allowOpen }, filters);
    const why = auditRefusal(audit);
    if (why !== null) return { code: 1, rows: [], why, notes: [], audit };
    return { code: 0, rows: kinded(audit.entries), why: null, notes: auditNotes(audit, filters), audit };
  } finally {
    await set.close();
  }
}
