/**
 * @module cli/commands/keygen
 * `a2a-replay keygen --out FILE [--kid ID] [--public FILE] [--force]`: a new receipt key file
 * (HMAC secret + Ed25519 pair), mode 0600, and optionally its public half for auditors.
 * Prints where it wrote what — never key material.
 */
import type { Command } from 'commander';
import { A2aReplayError, canonicalJson, generateReceiptKey, writeSecretFile } from '../../src/internal.js';
import { CliExit, EXIT } from '../io.js';

async function write(path: string, text: string, force: boolean, mode: number): Promise<void> {
  try {
    await writeSecretFile(path, text, { force, mode });
  } catch (error) {
    const code = error instanceof A2aReplayError ? (error.cause as NodeJS.ErrnoException | undefined)?.code : undefined;
    if (code === 'EEXIST') throw new CliExit(EXIT.usage, `${path} already exists (pass --force to replace it)`);
    throw error;
  }
}

export function registerKeygen(program: Command): void {
  program
    .command('keygen')
    .description('create a receipt signing key file (HMAC-SHA256 secret + Ed25519 pair), mode 0600')
    .requiredOption('--out <file>', 'key file to write (secret: keep it private)')
    .option('--kid <id>', 'key id recorded in every signature (default: derived from the public key)')
    .option('--public <file>', 'also write the public half, for auditors who verify checkpoints')
    .option('--force', 'replace existing files')
    .action(async (options: { out: string; kid?: string; public?: string; force?: boolean }) => {
      let key;
      try {
        key = generateReceiptKey(options.kid === undefined ? {} : { kid: options.kid });
      } catch (error) {
        if (error instanceof A2aReplayError)
          throw new CliExit(EXIT.usage, `--kid: ${error.message.replace(/^key: kid: /, '')}`);
        throw error;
      }
      const force = options.force === true;
      if (options.public !== undefined && options.public === options.out)
        throw new CliExit(EXIT.usage, '--public must name another file than --out');
      await write(options.out, `${canonicalJson(key.keyFile())}\n`, force, 0o600);
      process.stdout.write(`wrote key ${key.kid} to ${options.out} (mode 0600)\n`);
      const pub = key.publicKeyFile();
      if (options.public !== undefined && pub) {
        await write(options.public, `${canonicalJson(pub)}\n`, force, 0o644);
        process.stdout.write(`wrote public key ${key.kid} to ${options.public}\n`);
      }
    });
}
