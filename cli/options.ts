/**
 * @module cli/options
 * Option values every command reads the same way: whole numbers, receipt key files, and the
 * key options of `verify` and `audit`. Bad values are usage errors (exit 2) naming the option.
 */
import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { parseJsonText, A2aReplayError, errorMessage } from '../src/public/core.js';
import {
  KEY_FILE_ENV,
  type LoadedKey,
  loadKeyFile,
  loadKeyring,
  Keyring,
  readRecordingBinding,
  type Checkpoint,
  type RecordingBinding,
  readKeyFile,
  type SeriesHead,
  readSeriesHead,
} from '../src/public/receipts.js';
import { CONFIG_FILE, type ReplayConfig, readReplayConfig, parsePointerPattern } from '../src/public/replay.js';
import { CliExit, EXIT, readInput } from './io.js';

/**
 * A whole number of at least `min` (and at most `max` when given) from the text of `--name`.
 * Only digits are accepted: no sign, no fraction, no exponent.
 */
export function integerOption(text: string, name: string, min: number, max?: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min || (max !== undefined && n > max)) {
    const expected = max === undefined ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
    throw new CliExit(EXIT.usage, `--${name}: expected ${expected}; got ${JSON.stringify(text)}`);
  }
  return n;
}

/** A keyring from key files ("-" reads standard input); an unreadable or invalid file is a usage error. */
export async function keyringFromFiles(files: readonly string[]): Promise<Keyring> {
  const keyring = new Keyring();
  for (const file of files) {
    try {
      // A path goes through loadKeyFile, which also tells when others can read the secret in it.
      const { key, warnings } = file === '-' ? await keyFromStdin() : await loadKeyFile(file);
      keyring.add(key);
      for (const warning of warnings) process.stderr.write(`a2a-replay: warning: ${warning}\n`);
    } catch (error) {
      throw new CliExit(EXIT.usage, errorMessage(error));
    }
  }
  return keyring;
}

async function keyFromStdin(): Promise<LoadedKey> {
  const { text, source } = await readInput('-');
  return { key: readKeyFile(parseJsonText(text, source), source), warnings: [] };
}

/**
 * The receipt key of `record` and `run`: `--key FILE`, else the file named by
 * `A2A_REPLAY_KEY_FILE`; `undefined` when neither names one.
 */
export async function optionalKeyring(keyOption: string | undefined): Promise<Keyring | undefined> {
  const file = keyOption ?? process.env[KEY_FILE_ENV];
  return file === undefined || file === '' ? undefined : keyringFromFiles([file]);
}

/** The key options `verify` and `audit` share. */
export interface KeyOptions {
  key: string[];
  publicKey: string[];
  checkpoint?: string;
  recording?: string;
}

/** Commander's accumulator for a repeatable option. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Adds `--key`, `--public-key` and `--checkpoint` (the options of {@link KeyOptions}) to a command. */
export function withKeyOptions(command: Command): Command {
  return command
    .option('--key <file>', 'key file (repeat for rotated keys; default: $A2A_REPLAY_KEY_FILE)', collect, [])
    .option(
      '--public-key <file>',
      'public key file: verifies Ed25519 checkpoints without the HMAC secret (repeatable)',
      collect,
      [],
    )
    .option(
      '--checkpoint <file>',
      'the head kept outside the logs (`record --witness FILE`): detects a truncated tail, and names a later ' +
        'log of the series that was not given',
    )
    .option(
      '--recording <file>',
      "the log's recording: detects a log of another recording, and a recording cut or changed since the log closed",
    );
}

/** The facts of `--recording FILE` (see `readRecordingBinding`); an unreadable file is a usage error. */
export async function recordingOption(file: string | undefined): Promise<{ recording?: RecordingBinding }> {
  if (file === undefined) return {};
  try {
    return { recording: await readRecordingBinding(file) };
  } catch (error) {
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, error.message);
    throw error;
  }
}

export interface OpenEndOptions {
  allowTornTail?: boolean;
  allowOpen?: boolean;
}

/** `--allow-torn-tail` and `--allow-open`: how a log cut short by a crash may end. */
export function withOpenEndOptions(command: Command): Command {
  return command
    .option('--allow-torn-tail', 'accept a last line cut off by a crash (it is reported, not verified)')
    .option(
      '--allow-open',
      'accept a log that does not end in a checkpoint (a recorder still running or killed): ' +
        'says how many receipts a checkpoint vouches for',
    );
}

/** The verifier options that `withOpenEndOptions` parsed. */
export function openEnd(options: OpenEndOptions): { allowTornTail: boolean; allowOpen: boolean } {
  return { allowTornTail: options.allowTornTail === true, allowOpen: options.allowOpen === true };
}

/** Loads keys and the outside checkpoint for verifying `log`; problems are usage errors (exit 2). */
export async function loadVerifyInputs(
  log: string,
  options: KeyOptions,
): Promise<{ keyring: Keyring; anchor?: Checkpoint; head?: SeriesHead; recording?: RecordingBinding }> {
  try {
    if (!(await stat(log)).isFile()) throw new CliExit(EXIT.usage, `${log}: not a file`);
  } catch (error) {
    if (error instanceof CliExit) throw error;
    throw new CliExit(EXIT.usage, `${log}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const { keyring, warnings } = await loadKeyring({
      keys: options.key,
      publicKeys: options.publicKey,
      env: process.env,
    });
    for (const warning of warnings) process.stderr.write(`a2a-replay: warning: ${warning}\n`);
    const recording = await recordingOption(options.recording);
    if (options.checkpoint === undefined) return { keyring, ...recording };
    const head = await readSeriesHead(options.checkpoint);
    return { keyring, anchor: head.checkpoint, head, ...recording };
  } catch (error) {
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, error.message);
    throw error;
  }
}

/**
 * The recordings among a command's arguments: a glob over a folder also matches the golden logs,
 * and X.receipts.jsonl is never a recording. None left, or one that is not a readable file, is a
 * usage error naming it.
 */
export async function recordingArguments(given: readonly string[]): Promise<string[]> {
  const recordings = given.filter((f) => !f.endsWith('.receipts.jsonl'));
  if (recordings.length === 0)
    throw new CliExit(EXIT.usage, 'no recordings given (X.receipts.jsonl files are golden logs, not recordings)');
  for (const file of recordings) {
    const found = await stat(file).then(
      (s) => (s.isFile() ? null : 'not a file'),
      (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? 'no such file' : (error.code ?? 'cannot read')),
    );
    if (found !== null) throw new CliExit(EXIT.usage, `${file}: ${found}`);
  }
  return recordings;
}

/** Adds `--ignore POINTER...` and `--config FILE`, the noise rules of `run` and `mock`; `what` is what they compare. */
export function withNoiseOptions(command: Command, what: 'answers' | 'requests'): Command {
  return command
    .option(
      '--ignore <pointer>',
      `never compare this JSON pointer in ${what} (\`*\` one segment, \`**\` any; repeatable)`,
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--config <file>', `noise rules per method (default: ./${CONFIG_FILE} when present)`);
}

/** Checks every `--ignore` pointer; a bad one is a usage error saying why. */
export function checkIgnorePointers(pointers: readonly string[]): void {
  for (const pointer of pointers) {
    try {
      parsePointerPattern(pointer);
    } catch (error) {
      throw new CliExit(EXIT.usage, `--ignore: ${errorMessage(error)}`);
    }
  }
}

/** The noise rules of `--config FILE` (required), else of ./{@link CONFIG_FILE} when present. */
export async function noiseRules(config: string | undefined): Promise<ReplayConfig['noise']> {
  try {
    return (await readReplayConfig(config ?? CONFIG_FILE, { required: config !== undefined })).noise;
  } catch (error) {
    throw new CliExit(EXIT.usage, errorMessage(error));
  }
}
