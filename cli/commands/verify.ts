/**
 * @module cli/commands/verify
 * `a2a-replay verify LOG [--key FILE]... [--public-key FILE]... [--checkpoint FILE] [--recording FILE]
 * [--allow-torn-tail] [--allow-open] [--jobs N] [--json]`: streams a receipt log in constant memory
 * (and with `--recording`, the recording beside it: the log's own, every answer read whole,
 * docs/design.md §5); with `--jobs N`
 * (default: the cores available, one thread for a log under 4 MiB) N threads (N - 1 workers and
 * the main one) check signatures and canonical forms while the chain is checked in order
 * (docs/design.md §6). With `--recording FILE` a log of another recording, or a recording cut or
 * changed since the closing checkpoint bound it, fails. Exit 0
 * with a one-line summary when it verifies, 1 naming the first bad line and why (a log that does
 * not end in a checkpoint included, unless --allow-open), 2 on a usage error (no such file, no
 * key, a bad --jobs). What is checked and said is `verifyLogSet` and `verificationLines`.
 */
import { readFile, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { printable } from '../../src/public/core.js';
import {
  type LogChecks,
  type LogSet,
  defaultVerifyJobs,
  openLogSet,
  verificationJson,
  verificationLines,
  verifyLogSet,
  witnessKeys,
} from '../../src/public/receipts.js';
import { usageFailure } from '../record-flags.js';
import { CliExit, EXIT } from '../io.js';
import {
  collect,
  type KeyOptions,
  type OpenEndOptions,
  integerOption,
  loadVerifyInputs,
  openEnd,
  withKeyOptions,
  withOpenEndOptions,
} from '../options.js';

type VerifyCommandOptions = KeyOptions &
  OpenEndOptions & {
    witnessVkey: string[];
    witnessQuorum?: string;
    cosignatures?: string;
    json?: boolean;
    jobs?: string;
    since?: string;
  };

/** Refuses the flags that apply to one log only, and `--checkpoint` for a fleet. */
function refuseOneLogFlags(set: LogSet, options: VerifyCommandOptions): void {
  const several = set.kind === 'series' ? 'a series' : 'several';
  if (set.kind === 'fleet' && options.checkpoint !== undefined)
    throw new CliExit(EXIT.usage, '--checkpoint applies to one log or one series, not to a fleet');
  for (const [flag, given] of [
    ['--recording', options.recording !== undefined],
    ['--since', options.since !== undefined],
    ['--witness-vkey', options.witnessVkey.length > 0],
  ] as const)
    if (given) throw new CliExit(EXIT.usage, `${flag} applies to one log, not to ${several}`);
}

/**
 * What `--recording`, `--since`, `--witness-vkey`, `--witness-quorum` and `--cosignatures` ask of
 * one log; a witness key or a note that cannot be read is a usage error before the log is read.
 */
async function logChecks(options: VerifyCommandOptions): Promise<LogChecks> {
  const checks: LogChecks = { recording: options.recording };
  if (options.witnessVkey.length === 0) {
    if (options.witnessQuorum !== undefined || options.cosignatures !== undefined)
      throw new CliExit(EXIT.usage, '--witness-quorum and --cosignatures need --witness-vkey');
  } else {
    const quorum =
      options.witnessQuorum === undefined
        ? 1
        : integerOption(options.witnessQuorum, 'witness-quorum', 1, options.witnessVkey.length);
    const witnesses = await witnessKeys(options.witnessVkey).catch(usageFailure);
    checks.witnesses = { witnesses, quorum, cosignatures: options.cosignatures };
  }
  if (options.since !== undefined) {
    const name = options.since;
    const note = await readFile(name, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new CliExit(EXIT.usage, `--since ${name}: cannot read (${error.code ?? 'error'})`);
    });
    checks.since = { note, name };
  }
  return checks;
}

export function registerVerify(program: Command): void {
  withOpenEndOptions(withKeyOptions(program.command('verify')))
    .description(
      'verify signed, hash-chained receipt logs (streams each in constant memory); several logs, or ' +
        'directories of them, are one fleet: resumptions of pauses outside a log are paired across them',
    )
    .argument('<logs...>', 'receipt logs (*.receipts.jsonl), recordings (their logs beside them) or directories')
    .option('--json', 'print the result as JSON')
    .option(
      '--since <note>',
      'a checkpoint note taken earlier (`checkpoint`): the log must extend it (RFC 6962 consistency)',
    )
    .option(
      '--witness-vkey <vkey>',
      "a witness's verifier key (name+hash+key, type 0x04), or a file holding it (repeatable)",
      collect,
      [],
    )
    .option('--witness-quorum <k>', 'cosignatures of the witnesses given the latest checkpoint needs (default 1)')
    .option('--cosignatures <file>', 'the cosignature file (default: X.receipts.cosignatures.jsonl beside the log)')
    .option(
      '--jobs <n>',
      'threads checking signatures and canonical forms (N - 1 workers and the main one; the chain is ' +
        'checked in order; 1: no workers; default: the cores available, 1 for a log under 4 MiB)',
    )
    .action(async (logs: string[], options: VerifyCommandOptions) => {
      const given = options.jobs === undefined ? null : integerOption(options.jobs, 'jobs', 1, 256);
      const set = await openLogSet(logs);
      try {
        if (set.kind !== 'log') refuseOneLogFlags(set, options);
        const checks = set.kind === 'log' ? await logChecks(options) : {};
        const read = set.files[0]!;
        const { keyring, head } = await loadVerifyInputs(read, {
          key: options.key,
          publicKey: options.publicKey,
          ...(options.checkpoint === undefined ? {} : { checkpoint: options.checkpoint }),
        });
        // The recording is read by verifyLogSet (checks.recording).
        // One log of 4 MiB or more is checked on every core unless --jobs says otherwise; several, on one.
        const jobs =
          given ?? (set.kind === 'log' ? defaultVerifyJobs((await stat(read)).size, availableParallelism()) : 1);
        const verified = await verifyLogSet({ ...set, keyring, head, jobs, ...openEnd(options) }, checks);
        process.stdout.write(
          options.json
            ? `${JSON.stringify(verificationJson(verified))}\n`
            : verificationLines(verified)
                .map((l) => `${printable(l)}\n`)
                .join(''),
        );
        if (!verified.ok) throw new CliExit(EXIT.drift, '');
      } finally {
        await set.close();
      }
    });
}
