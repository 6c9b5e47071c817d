/**
 * @module replay/config
 * The project's replay settings, `a2a-replay.config.json` (docs/design.md §8):
 *
 * ```json
 * { "replay": { "ignore": { "*": ["/result/task/metadata/trace"], "GetTask": ["/result/history"] } } }
 * ```
 *
 * `replay.ignore` maps a JSON-RPC method (or `*` for every method) to JSON pointers into the answer
 * body that are never compared (`*` matches one segment, `**` any number). Bad input is a
 * RECORDING_MALFORMED error naming the file and the field.
 */
import { readFile } from 'node:fs/promises';
import { A2aReplayError } from '../errors.js';
import { type NoiseRules, parsePointerPattern } from './content.js';

/** The config file's name, looked up in the working directory. */
export const CONFIG_FILE = 'a2a-replay.config.json';

export interface ReplayConfig {
  noise: NoiseRules;
}

/** Reads `path`; a missing file is an empty config unless `required` (a file the user named). */
export async function readReplayConfig(path: string, options: { required?: boolean } = {}): Promise<ReplayConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && options.required !== true) return { noise: {} };
    throw new A2aReplayError('IO_FAILED', `${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new A2aReplayError('RECORDING_MALFORMED', `${path}: not valid JSON (${(error as Error).message})`);
  }
  const bad = (field: string, why: string): A2aReplayError =>
    new A2aReplayError('RECORDING_MALFORMED', `${path}: ${field}: ${why}`);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad('(root)', 'must be an object');
  const replay = (value as Record<string, unknown>).replay;
  if (replay === undefined) return { noise: {} };
  if (replay === null || typeof replay !== 'object' || Array.isArray(replay)) throw bad('replay', 'must be an object');
  const ignore = (replay as Record<string, unknown>).ignore;
  if (ignore === undefined) return { noise: {} };
  if (ignore === null || typeof ignore !== 'object' || Array.isArray(ignore))
    throw bad('replay.ignore', 'must map a method (or "*") to a list of JSON pointers');
  const noise: Record<string, string[]> = {};
  for (const [method, paths] of Object.entries(ignore as Record<string, unknown>)) {
    if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string'))
      throw bad(`replay.ignore.${method}`, 'must be a list of JSON pointer strings');
    paths.forEach((p: string, i) => {
      try {
        parsePointerPattern(p);
      } catch (error) {
        throw bad(`replay.ignore.${method}[${i}]`, (error as Error).message);
      }
    });
    noise[method] = paths as string[];
  }
  return { noise };
}
