/**
 * @module cli/commands/verify
 * `a2a-replay verify LOG [--key FILE]... [--public-key FILE]... [--checkpoint FILE] [--recording FILE]
 * [--allow-torn-tail] [--allow-open] [--jobs N] [--json]`: streams a receipt log in constant memory; with `--jobs N`
 * (default: the cores available, one thread for a log under 4 MiB) N threads (N - 1 workers and
 * the main one) check signatures and canonical forms while the chain is checked in order
 * (docs/design.md §6). With `--recording FILE` a log of another recording, or a recording cut or
 * changed since the closing checkpoint bound it, fails. Exit 0
 * with a one-line summary when it verifies, 1 naming the first bad line and why (a log that does
 * not end in a checkpoint included, unless --allow-open), 2 on a usage error (no such file, no
 * key, a bad --jobs).
 */
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { type VerifyResult, defaultVerifyJobs, printable, verifyReceiptLog } from '../../src/internal.js';
import { CliExit, EXIT } from '../io.js';
import {
  type KeyOptions,
  type OpenEndOptions,
  integerOption,
  loadVerifyInputs,
  openEnd,
  withKeyOptions,
  withOpenEndOptions,
} from '../options.js';

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
    `${log}: ok: ${plural(result.receipts, 'receipt')}, ` +
      `${plural(result.checkpoints, 'checkpoint')}, ${plural(result.lines, 'line')}`,
    result.kids.length > 0 ? `kids ${result.kids.join(', ')}` : 'no receipts',
    result.closed
      ? 'closed by a checkpoint'
      : result.vouched === result.receipts && result.checkpoints > 0 && result.version !== 2
        ? `OPEN: ends at an intermediate checkpoint, not the closing one (lines after it may have been cut)`
        : `OPEN: ${result.vouched} of ${plural(result.receipts, 'receipt')} vouched for by a checkpoint, ` +
          `${result.receipts - result.vouched} after the last one not`,
  ];
  if (result.version === 2)
    parts.push('format version 2: no checkpoint is marked closing, so a cut at a checkpoint cannot be told');
  if (result.bound)
    parts.push(
      `bound to recording ${result.bound.id} (${plural(result.bound.lines, 'line')})` +
        (result.recordingCheck === 'bound' ? ', which the recording given matches' : ''),
    );
  else if (result.recordingCheck === 'id only')
    parts.push('not bound to a recording: only the recording id given was compared');
  else if (result.closed) parts.push('not bound to a recording');
  if (result.anchored) parts.push('matches the outside checkpoint');
  if (result.tornTail !== null) parts.push(`torn tail at line ${result.tornTail} skipped`);
  if (result.receiptSignatures === 'unchecked')
    parts.push('receipt HMACs NOT checked (public key only; chain, sequence and checkpoints verified)');
  return parts.join('; ');
}

export function registerVerify(program: Command): void {
  withOpenEndOptions(withKeyOptions(program.command('verify')))
    .description('verify a signed, hash-chained receipt log (streams it in constant memory)')
    .argument('<log>', 'receipt log (*.receipts.jsonl)')
    .option('--json', 'print the result as JSON')
    .option(
      '--jobs <n>',
      'threads checking signatures and canonical forms (N - 1 workers and the main one; the chain is ' +
        'checked in order; 1: no workers; default: the cores available, 1 for a log under 4 MiB)',
    )
    .action(async (log: string, options: KeyOptions & OpenEndOptions & { json?: boolean; jobs?: string }) => {
      const given = options.jobs === undefined ? null : integerOption(options.jobs, 'jobs', 1, 256);
      const inputs = await loadVerifyInputs(log, options);
      const jobs = given ?? defaultVerifyJobs((await stat(log)).size, availableParallelism());
      const result = await verifyReceiptLog(log, {
        keyring: inputs.keyring,
        jobs,
        ...(inputs.anchor ? { anchor: inputs.anchor } : {}),
        ...(inputs.recording ? { recording: inputs.recording } : {}),
        ...openEnd(options),
      });
      process.stdout.write(
        options.json ? `${JSON.stringify({ file: log, ...result })}\n` : `${printable(verifySummary(log, result))}\n`,
      );
      if (!result.ok) throw new CliExit(EXIT.drift, '');
    });
}
