/**
 * @module replay/shard
 * `--shard I/N`: splits a corpus of recordings deterministically across CI machines. Paths are
 * normalized (relative to a base directory, forward slashes), de-duplicated and sorted by code
 * unit; shard I (1-based) takes the recordings whose sorted index is I-1 mod N. Every machine that
 * sees the same corpus computes the same split, every recording lands in exactly one shard, and
 * shards differ in size by at most one. (A hash of the path would keep a recording in its shard
 * when others are added, but leaves small corpora unbalanced — often with empty shards.)
 */
import path from 'node:path';
import { A2aReplayError } from '../errors.js';

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** Parses `I/N` (1 <= I <= N). */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new A2aReplayError('INVALID_ARGUMENT', `--shard: expected I/N with 1 <= I <= N (e.g. 1/4), got "${text}"`);
  }
  return { index, count };
}

/** The normalized form a path is sharded by. */
export function normalizeRecordingPath(file: string, base: string): string {
  return path.relative(base, path.resolve(base, file)).split(path.sep).join('/');
}

/** The recordings of one shard, in sorted order (all of them when `shard` is undefined). */
export function selectShard(files: readonly string[], shard: Shard | undefined, base: string): string[] {
  const byKey = new Map<string, string>();
  for (const f of files) {
    const key = normalizeRecordingPath(f, base);
    if (!byKey.has(key)) byKey.set(key, f);
  }
  const keys = [...byKey.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const picked = shard ? keys.filter((_, i) => i % shard.count === shard.index - 1) : keys;
  return picked.map((k) => byKey.get(k) as string);
}
