/**
 * What `a2a-replay lost` and `a2a-replay audit` conclude, as the library calls the commands make
 * (cli/commands/lost.ts, cli/commands/audit.ts), for tests whose subject is the verdict and not
 * the process: the same calls, the same JSON the commands print with `--json`, and the exit code
 * the commands map the outcome to. The commands' own printing and exit codes are shown by the
 * whole-process tests that run them.
 */
import { expect } from 'vitest';
import { A2aReplayError } from '../../src/public/core.js';
import {
  Keyring,
  type LogChecks,
  type LogSetAuditOptions,
  type LostPauses,
  auditFleet,
  auditLogSet,
  auditNotes,
  auditRefusal,
  gapless,
  lostOutcome,
  lostPauses,
  lostPausesJson,
  loadKeyFile,
  lostSource,
  openLogSet,
  readRecordingBinding,
  verificationJson,
  verificationLines,
  verifyLogSet,
} from '../../src/public/receipts.js';

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
  const infra = ['PEER_UNREACHABLE', 'PEER_CRASHED', 'DEADLINE_EXCEEDED', 'IO_FAILED'].includes(error.code);
  return { code: infra ? 3 : 2, error: error.message };
}

/** The keyring `--key FILE...` loads (cli/options.ts `keyringFromFiles`): a key or public key per file. */
export async function keyringOf(files: readonly string[]): Promise<Keyring> {
  const keyring = new Keyring();
  for (const file of files) keyring.add((await loadKeyFile(file)).key);
  return keyring;
}

/** The exit codes of `lost` and `audit`: 0 clean, 1 lost or invalid, 2 input it cannot read. */
const EXIT_OF = { clean: 0, lost: 1, untrusted: 1, 'not-understood': 2 } as const;

/** What `lost FILES [--key K]... [--json]` lists (as `--json` prints it) and the code it exits with. */
export async function lostVerdict(
  files: string[],
  options: { keys?: Keyring | undefined; explain?: boolean; allowTornTail?: boolean; recording?: string } = {},
): Promise<{ code: number; json: Record<string, unknown>; found: LostPauses }> {
  const set = await openLogSet(files, { allowTornTail: options.allowTornTail });
  try {
    const recording =
      options.recording === undefined ? {} : { recording: await readRecordingBinding(options.recording) };
    const found = await lostPauses(
      { ...set, keyring: options.keys },
      { explain: options.explain ?? false, ...recording },
    );
    const json = JSON.parse(JSON.stringify(lostPausesJson(found, { explain: options.explain ?? false }))) as Record<
      string,
      unknown
    >;
    return { code: EXIT_OF[lostOutcome(found)], json, found };
  } finally {
    await set.close();
  }
}

/**
 * What `lost FILES` says of input it refuses: logs that do not verify or hold together (exit 1),
 * input it cannot read (exit 2); throws when it lists instead.
 */
export async function lostRefusal(
  files: string[],
  options: { keys?: Keyring | undefined; allowTornTail?: boolean; recording?: string } = {},
): Promise<Refusal> {
  try {
    const { code } = await lostVerdict(files, options);
    throw new Error(`lost ${files.join(' ')} listed (exit ${code}) instead of refusing`);
  } catch (error) {
    return refusal(error, ['RECEIPT_INVALID']);
  }
}

/**
 * What `verify LOGS --key K... [--checkpoint HEAD] [--jobs N] [--allow-open]` prints (with `checks`,
 * what `--recording`, `--since` and `--witness-vkey` ask of one log) (its lines, or the object `--json`
 * prints) and the code it exits with (1 when the set does not verify).
 */
export async function verifyVerdict(
  logs: string[],
  keys: Keyring,
  options: { head?: string; jobs?: number; allowOpen?: boolean; checks?: LogChecks } = {},
): Promise<{ code: number; lines: string[]; json: Record<string, unknown> }> {
  const set = await openLogSet(logs, { head: options.head });
  try {
    const verified = await verifyLogSet(
      {
        ...set,
        keyring: keys,
        jobs: options.jobs ?? 1,
        allowOpen: options.allowOpen ?? false,
      },
      options.checks,
    );
    const json = JSON.parse(JSON.stringify(verificationJson(verified))) as Record<string, unknown>;
    return { code: verified.ok ? 0 : 1, lines: verificationLines(verified), json };
  } finally {
    await set.close();
  }
}

/** What `verify`, `lost` or `audit` says of input it cannot open (exit 2); throws when it opens. */
export async function openRefusal(logs: string[]): Promise<Refusal> {
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
const kinded = (entries: readonly { kind: string; row: object }[]): Record<string, unknown>[] =>
  entries.map((e) => (e.kind === 'pause' ? { kind: 'pause', ...e.row } : { ...e.row })) as Record<string, unknown>[];

/**
 * What `audit LOGS --key K [--allow-open] [--json]` prints with `--json` (the rows, none when it refuses) and the
 * code it exits with (1 when the logs do not verify), for one log, a series or a fleet.
 */
export async function auditVerdict(
  logs: string[],
  keys: Keyring,
  asked: LogSetAuditOptions & { allowOpen?: boolean } = {},
): Promise<{ code: number; rows: Record<string, unknown>[]; why: string | null; notes: string[] }> {
  const set = await openLogSet(logs);
  const allowOpen = asked.allowOpen ?? false;
  try {
    if (set.kind === 'fleet') {
      const audit = await auditFleet(set, { keyring: keys, ...asked, allowOpen });
      if (!audit.audited) return { code: 1, rows: [], why: audit.why, notes: [] };
      const rows = JSON.parse(JSON.stringify(kinded(audit.entries))) as Record<string, unknown>[];
      return { code: audit.ok ? 0 : 1, rows, why: null, notes: audit.notes };
    }
    const audit = await auditLogSet({ ...set, keyring: keys, allowOpen }, asked);
    const why = auditRefusal(audit);
    if (why !== null) return { code: 1, rows: [], why, notes: [] };
    const rows = JSON.parse(JSON.stringify(kinded(audit.entries))) as Record<string, unknown>[];
    return { code: 0, rows, why: null, notes: auditNotes(audit, asked) };
  } finally {
    await set.close();
  }
}
