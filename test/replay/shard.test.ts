import { describe, expect, it } from 'vitest';
import { parseShard, selectShard } from '../../src/replay/shard.js';

describe('shard', () => {
  const files = ['b/r.jsonl', './a/r.jsonl', 'c.jsonl', 'a/r.jsonl', 'd/e/f.jsonl'];

  it('puts every recording in exactly one shard', () => {
    for (const n of [1, 2, 3, 7]) {
      const seen = [];
      for (let i = 1; i <= n; i++) seen.push(...selectShard(files, { index: i, count: n }, '/base'));
      expect(seen.map((f) => f.replace(/^\.\//, '')).sort()).toEqual([
        'a/r.jsonl',
        'b/r.jsonl',
        'c.jsonl',
        'd/e/f.jsonl',
      ]);
    }
  });

  it('splits the same way whatever order the files are given in', () => {
    const a = selectShard(files, { index: 2, count: 2 }, '/base');
    const b = selectShard([...files].reverse(), { index: 2, count: 2 }, '/base');
    expect(a.map((f) => f.replace(/^\.\//, ''))).toEqual(b.map((f) => f.replace(/^\.\//, '')));
  });

  it('rejects a malformed or out-of-range shard', () => {
    expect(() => parseShard('0/2')).toThrow(/--shard/);
    expect(() => parseShard('3/2')).toThrow(/--shard/);
    expect(() => parseShard('x')).toThrow(/--shard/);
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
  });
});
