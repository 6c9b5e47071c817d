/**
 * @module cli/commands/verify
 * `a2a-replay verify LOG [--key FILE]... [--public-key FILE]... [--checkpoint FILE] [--json]`:
 * streams a receipt log in constant memory; exit 0 with a one-line summary when it verifies,
 * 1 naming the first bad line and why, 2 on a usage error (no such file, no key).
 */
import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import {
  A2aReplayError,
  type Checkpoint,
  type Keyring,
  type VerifyResult,
  loadCheckpointFile,
  loadKeyring,
  verifyReceiptLog,
} from '../../src/index.js';
import { CliExit, EXIT } from '../io.js';

export interface KeyOptions {
  key: string[];
  publicKey: string[];
  checkpoint?: string;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The key options `verify` and `audit` share. */
export function withKeyOptions(command: Command): Command {
  return command
    .option('--key <file>', 'key file (repeat for rotated keys; default: $A2A_REPLAY_KEY_FILE)', collect, [])
    .option('--public-key <file>', 'public key file: verifies Ed25519 checkpoints without the HMAC secret (repeatable)', collect, [])
    .option('--checkpoint <file>', 'a checkpoint kept outside the log: detects a truncated tail');
}

/** Loads keys and the outside checkpoint; problems are usage errors (exit 2). */
export async function loadVerifyInputs(log: string, options: KeyOptions): Promise<{ keyring: Keyring; anchor?: Checkpoint }> {
  try {
    if (!(await stat(log)).isFile()) throw new CliExit(EXIT.usage, `${log}: not a file`);
  } catch (error) {
    if (error instanceof CliExit) throw error;
    throw new CliExit(EXIT.usage, `${log}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const { keyring, warnings } = await loadKeyring({ keys: options.key, publicKeys: options.publicKey, env: process.env });
    for (const warning of warnings) process.stderr.write(`a2a-replay: warning: ${warning}\n`);
    if (options.checkpoint === undefined) return { keyring };
    return { keyring, anchor: await loadCheckpointFile(options.checkpoint) };
  } catch (error) {
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, error.message);
    throw error;
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** One line: `ok` or the first bad line and why. */
export function verifySummary(log: string, result: VerifyResult): string {
  if (!result.ok && result.firstError) {
    const where = result.firstError.line === 0 ? 'checkpoint file' : `line ${result.firstError.line}`;
    return `${log}: INVALID at ${where}: ${result.firstError.reason}: ${result.firstError.message}`;
  }
  const parts = [
    `${log}: ok: ${plural(result.receipts, 'receipt')}, ${plural(result.checkpoints, 'checkpoint')}, ${plural(result.lines, 'line')}`,
    result.kids.length > 0 ? `kids ${result.kids.join(', ')}` : 'no receipts',
    result.closed ? 'closed by a checkpoint' : 'not closed (no final checkpoint)',
  ];
  if (result.anchored) parts.push('matches the outside checkpoint');
  if (result.tornTail !== null) parts.push(`torn tail at line ${result.tornTail} skipped`);
  if (result.receiptSignatures === 'unchecked') parts.push('receipt HMACs NOT checked (public key only; chain, sequence and checkpoints verified)');
  return parts.join('; ');
}

export function registerVerify(program: Command): void {
  withKeyOptions(program.command('verify'))
    .description('verify a signed, hash-chained receipt log (streams it in constant memory)')
    .argument('<log>', 'receipt log (*.receipts.jsonl)')
    .option('--allow-torn-tail', 'accept a last line cut off by a crash (it is reported, not verified)')
    .option('--json', 'print the result as JSON')
    .action(async (log: string, options: KeyOptions & { json?: boolean; allowTornTail?: boolean }) => {
      const inputs = await loadVerifyInputs(log, options);
      const result = await verifyReceiptLog(log, {
        keyring: inputs.keyring,
        ...(inputs.anchor ? { anchor: inputs.anchor } : {}),
        allowTornTail: options.allowTornTail === true,
      });
      process.stdout.write(options.json ? `${JSON.stringify({ file: log, ...result })}\n` : `${verifySummary(log, result)}\n`);
      if (!result.ok) throw new CliExit(EXIT.drift, '');
    });
}
