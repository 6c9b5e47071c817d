/**
 * @module cli/commands/keygen
 * `a2a-replay keygen --out FILE [--kid ID] [--public FILE] [--vkey FILE] [--force]`: a new receipt key file
 * (HMAC secret + Ed25519 pair), mode 0600, and optionally its public half for auditors.
 * Prints where it wrote what — never key material.
 *
 * A key file inside a git work tree that git does not ignore is one `git add .` away from being
 * published: keygen refuses to write it there unless `--allow-unignored` (docs/design.md §9).
 */
import { execFile } from 'node:child_process';
import { basename, dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { canonicalJson, A2aReplayError } from '../../src/public/core.js';
import { generateReceiptKey, writeSecretFile, keyVerifierKey } from '../../src/public/receipts.js';
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

/** Runs git in `cwd`; its exit code, or undefined when git cannot be run at all. */
function git(cwd: string, args: string[]): Promise<number | undefined> {
  return new Promise((done) => {
    execFile('git', ['-C', cwd, ...args], { windowsHide: true }, (error) => {
      if (error === null) return done(0);
      const code = (error as { code?: unknown }).code;
      done(typeof code === 'number' ? code : undefined);
    });
  });
}

/**
 * True when `path` lies in a git work tree and git does not ignore it (`git check-ignore`: a file
 * tracked already is not ignored either). Without git, or outside a work tree, false.
 */
export async function unignoredInWorkTree(path: string): Promise<boolean> {
  const absolute = resolve(path);
  const dir = dirname(absolute);
  if ((await git(dir, ['rev-parse', '--is-inside-work-tree'])) !== 0) return false;
  // 0: ignored; 1: not ignored; anything else (128: an error) is not a clean "ignored".
  return (await git(dir, ['check-ignore', '-q', '--', basename(absolute)])) !== 0;
}

interface KeygenOptions {
  out: string;
  kid?: string;
  public?: string;
  vkey?: string;
  force?: boolean;
  allowUnignored?: boolean;
}

export function registerKeygen(program: Command): void {
  program
    .command('keygen')
    .description('create a receipt signing key file (HMAC-SHA256 secret + Ed25519 pair), mode 0600')
    .requiredOption('--out <file>', 'key file to write (secret: keep it private)')
    .option('--kid <id>', 'key id recorded in every signature (default: derived from the public key)')
    .option('--public <file>', 'also write the public half, for auditors who verify checkpoints')
    .option(
      '--vkey <file>',
      "also write the key's C2SP verifier key (name+hash+key), which other transparency-log tools take",
    )
    .option('--force', 'replace existing files')
    .option('--allow-unignored', 'write the key file inside a git work tree although git does not ignore it')
    .action(async (options: KeygenOptions) => {
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
      if (options.vkey !== undefined && (options.vkey === options.out || options.vkey === options.public))
        throw new CliExit(EXIT.usage, '--vkey must name another file than --out and --public');
      if (options.allowUnignored !== true && (await unignoredInWorkTree(options.out)))
        throw new CliExit(
          EXIT.usage,
          `--out: ${options.out} is inside a git work tree and git does not ignore it: a commit could ` +
            'publish the secret key. Write it outside the work tree, add it to .gitignore, or pass ' +
            '--allow-unignored',
        );
      await write(options.out, `${canonicalJson(key.keyFile())}\n`, force, 0o600);
      process.stdout.write(`wrote key ${key.kid} to ${options.out} (mode 0600)\n`);
      const pub = key.publicKeyFile();
      if (options.public !== undefined && pub) {
        await write(options.public, `${canonicalJson(pub)}\n`, force, 0o644);
        process.stdout.write(`wrote public key ${key.kid} to ${options.public}\n`);
      }
      const vkey = keyVerifierKey(key);
      if (options.vkey !== undefined && vkey) {
        await write(options.vkey, `${vkey}\n`, force, 0o644);
        process.stdout.write(`wrote verifier key ${vkey} to ${options.vkey}\n`);
      }
    });
}
