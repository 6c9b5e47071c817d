/**
 * @module cli/commands/tlog
 * The receipt log as a transparency log (docs/design.md §6, "Merkle checkpoints"):
 * - `a2a-replay checkpoint LOG [--out FILE]`: the log's latest C2SP checkpoint note;
 * - `a2a-replay prove LOG --seq N [--out FILE]`: a c2sp.org/tlog-proof@v1 file that receipt N is
 *   in the tree that note commits to;
 * - `a2a-replay verify-proof PROOF --receipt LINE_FILE (--vkey VKEY | --public-key FILE)... [--origin O]`:
 *   checks such a proof offline, with the one line and nothing else of the log (and, with
 *   `--origin`, that its checkpoint is of that log).
 * Exit 0 when done or verified, 1 when a proof does not verify, 2 on a usage error (no such file,
 * no note, a malformed proof or key).
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { A2aReplayError, writeOutputFile, printable } from '../../src/public/core.js';
import {
  loadKeyFile,
  latestNote,
  proveReceipt,
  scanLogTree,
  verifyReceiptProof,
  noteVerifierOf,
  type NoteVerifier,
  parseVerifierKey,
} from '../../src/public/receipts.js';
import { CliExit, EXIT } from '../io.js';
import { collect, integerOption } from '../options.js';

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new CliExit(EXIT.usage, `${what} ${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Runs `body`, turning this project's errors into a usage exit naming `where`. */
async function usage<T>(where: string, body: () => Promise<T> | T): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, `${where}: ${error.message}`);
    throw error;
  }
}

/** Writes `text` to `out` (a new file, mode 0600, as every output) or standard output. */
async function emit(text: string, out: string | undefined, what: string): Promise<void> {
  if (out === undefined) {
    process.stdout.write(text);
    return;
  }
  try {
    await writeOutputFile(out, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new CliExit(EXIT.usage, `--out ${out}: already exists`);
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, `--out ${out}: ${error.message}`);
    throw error;
  }
  process.stderr.write(`a2a-replay: wrote ${what} to ${out}\n`);
}

/** `--vkey` values (a verifier key, or a file holding one) and `--public-key` files, as note verifiers. */
async function verifiersFrom(vkeys: readonly string[], publicKeys: readonly string[]): Promise<NoteVerifier[]> {
  const verifiers: NoteVerifier[] = [];
  for (const given of vkeys) {
    const text = /^[^\s+]+\+[0-9a-f]{8}\+\S+$/.test(given.trim()) ? given : await readText(given, '--vkey');
    verifiers.push(await usage('--vkey', () => parseVerifierKey(text)));
  }
  for (const file of publicKeys) {
    const { key } = await usage(`--public-key ${file}`, () => loadKeyFile(file));
    verifiers.push(await usage(`--public-key ${file}`, () => noteVerifierOf(key)));
  }
  if (verifiers.length === 0) throw new CliExit(EXIT.usage, 'no key: pass --vkey VKEY or --public-key FILE');
  return verifiers;
}

export function registerTlog(program: Command): void {
  program
    .command('checkpoint')
    .description("write a receipt log's latest checkpoint as a C2SP signed note (tlog-checkpoint)")
    .argument('<log>', 'receipt log (*.receipts.jsonl), format version 4 with an Ed25519 key')
    .option('--out <file>', 'write the note to a new file instead of standard output')
    .action(async (log: string, options: { out?: string }) => {
      const scan = await usage(log, () => scanLogTree(log));
      const note = await usage(log, () => latestNote(scan));
      await emit(note.note, options.out, `the checkpoint note of ${note.index} lines`);
    });

  program
    .command('prove')
    .description('write a c2sp.org/tlog-proof@v1 file: receipt N is in the tree of the latest checkpoint note')
    .argument('<log>', 'receipt log (*.receipts.jsonl)')
    .requiredOption('--seq <n>', "the receipt's seq")
    .option('--out <file>', 'write the proof to a new file instead of standard output')
    .action(async (log: string, options: { seq: string; out?: string }) => {
      const seq = integerOption(options.seq, 'seq', 1);
      const scan = await usage(log, () => scanLogTree(log));
      const made = await usage(log, () => proveReceipt(scan, seq));
      await emit(made.proof, options.out, `the proof of receipt ${seq} (entry ${made.index} of ${made.size})`);
    });

  program
    .command('verify-proof')
    .description('check a tlog-proof of one receipt line offline, against the log key')
    .argument('<proof>', 'a c2sp.org/tlog-proof@v1 file (from `prove`)')
    .requiredOption('--receipt <file>', 'the receipt line, as written in the log')
    .option(
      '--vkey <vkey>',
      "the log key's verifier key (name+hash+key), or a file holding it (repeatable)",
      collect,
      [],
    )
    .option('--public-key <file>', 'an a2a-replay public key file (repeatable)', collect, [])
    .option('--origin <origin>', "refuse a proof whose checkpoint names another log's origin")
    .action(
      async (proofFile: string, options: { receipt: string; vkey: string[]; publicKey: string[]; origin?: string }) => {
        const verifiers = await verifiersFrom(options.vkey, options.publicKey);
        const proof = await readText(proofFile, 'proof');
        const text = await readText(options.receipt, '--receipt');
        // The line as written: one trailing newline (a file saved from the log) is not part of it.
        const line = text.endsWith('\n') ? text.slice(0, -1) : text;
        if (line.includes('\n'))
          throw new CliExit(EXIT.usage, `--receipt ${options.receipt}: holds more than one line`);
        try {
          const check = verifyReceiptProof(proof, line, verifiers, options.origin ?? null);
          process.stdout.write(
            `${printable(`${proofFile}: ok: entry ${check.index} of ${check.origin} (tree size ${check.size})`)}\n`,
          );
        } catch (error) {
          if (!(error instanceof A2aReplayError)) throw error;
          throw new CliExit(EXIT.drift, printable(`${proofFile}: INVALID: ${error.message}`));
        }
      },
    );
}
