/**
 * @module receipts/key-file
 * Key files on disk: loading (with a warning when a secret is readable by others), writing with
 * mode 0600 (refusing to overwrite unless forced), and reading a checkpoint kept outside a log.
 * Errors name the file and the problem; they never contain key material.
 */
import { readFile, stat } from 'node:fs/promises';
import { writeOutputFile } from '../output-file.js';
import { parseJsonText } from '../canonical/parse-json.js';
import { A2aReplayError } from '../errors.js';
import { formatIssue } from '../protocol/read.js';
import { Keyring, type ReceiptKey, readKeyFile } from './keys.js';
import { readReceiptLogLine } from './read-line.js';
import type { Checkpoint } from './types.js';

/** Environment variable naming a key file when no `--key` is given. */
export const KEY_FILE_ENV = 'A2A_REPLAY_KEY_FILE';

export interface LoadedKey {
  key: ReceiptKey;
  /** E.g. that the file is readable by group or others. */
  warnings: string[];
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (cause) {
    throw new A2aReplayError(
      'IO_FAILED',
      `cannot read ${what} ${path}: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`,
      { cause },
    );
  }
}

/** Reads a key file or public key file. JSON errors report only a position, never the text. */
export async function loadKeyFile(path: string): Promise<LoadedKey> {
  const text = await readText(path, 'key file');
  let value: unknown;
  try {
    value = parseJsonText(text, path);
  } catch {
    throw new A2aReplayError('KEY_INVALID', `${path}: not a JSON key file`);
  }
  const key = readKeyFile(value, path);
  const warnings: string[] = [];
  if (key.hasHmac || key.hasEd25519Secret) {
    const mode = (await stat(path)).mode & 0o777;
    if (mode & 0o077)
      warnings.push(
        `${path} holds secret keys but is readable by group or others (mode ` +
          `${mode.toString(8).padStart(4, '0')}); run chmod 600 ${path}`,
      );
  }
  return { key, warnings };
}

/**
 * A keyring from key files (`--key`) and public key files (`--public-key`); with neither, the
 * file named by `A2A_REPLAY_KEY_FILE` in `env`. Throws KEY_INVALID when no key is given.
 */
export async function loadKeyring(options: {
  keys?: readonly string[];
  publicKeys?: readonly string[];
  env?: NodeJS.ProcessEnv;
}): Promise<{ keyring: Keyring; warnings: string[] }> {
  const paths = [...(options.keys ?? []), ...(options.publicKeys ?? [])];
  const fromEnv = options.env?.[KEY_FILE_ENV];
  if (paths.length === 0 && fromEnv) paths.push(fromEnv);
  if (paths.length === 0)
    throw new A2aReplayError('KEY_INVALID', `no key: pass --key FILE (or --public-key FILE) or set ${KEY_FILE_ENV}`);
  const keyring = new Keyring();
  const warnings: string[] = [];
  for (const path of paths) {
    const loaded = await loadKeyFile(path);
    keyring.add(loaded.key);
    warnings.push(...loaded.warnings);
  }
  return { keyring, warnings };
}

/**
 * Writes `text` to a new file with mode 0600 (src/output-file.ts: never through a symbolic link);
 * refuses an existing file unless `force`, which replaces it by a new one.
 */
export async function writeSecretFile(
  path: string,
  text: string,
  options: { force?: boolean; mode?: number } = {},
): Promise<void> {
  try {
    await writeOutputFile(path, text, { replace: options.force === true, mode: options.mode ?? 0o600, sync: true });
  } catch (cause) {
    if (cause instanceof A2aReplayError) throw cause;
    const code = (cause as NodeJS.ErrnoException).code ?? 'error';
    throw new A2aReplayError(
      'IO_FAILED',
      code === 'EEXIST' ? `${path} already exists (pass --force to replace it)` : `cannot write ${path}: ${code}`,
      { cause },
    );
  }
}

/** Reads a checkpoint kept outside a log: a file whose last non-empty line is a Checkpoint. */
export async function loadCheckpointFile(path: string): Promise<Checkpoint> {
  const text = await readText(path, 'checkpoint file');
  const last = text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .at(-1);
  if (last === undefined) throw new A2aReplayError('RECEIPT_INVALID', `${path}: no checkpoint line`);
  const parsed = readReceiptLogLine(parseJsonText(last, path));
  if (!parsed.ok) throw new A2aReplayError('RECEIPT_INVALID', `${path}: ${formatIssue(parsed.issue)}`);
  if (parsed.value.type !== 'Checkpoint')
    throw new A2aReplayError('RECEIPT_INVALID', `${path}: the last line is a ${parsed.value.type}, not a Checkpoint`);
  return parsed.value;
}
