/** The merged stream of `run --merge` (docs/design.md §8, "Merged sessions"). */
import { describe, expect, it } from 'vitest';
import type { RecordingEntry } from '../../src/recording/format.js';
import { mergeEntries } from '../../src/replay/merged-session.js';

function entry(seq: number, at: string, xid: string): RecordingEntry {
  return { seq, at, xid, kind: 'request', http: { method: 'POST', path: '/' } };
}

describe('mergeEntries', () => {
  it('orders by recorded time, keeps each file’s order, breaks ties by the order the files were given', () => {
    const a = [
      entry(1, '2026-01-01T00:00:01.000Z', 'x1'),
      entry(2, '2026-01-01T00:00:03.000Z', 'x2'),
      // Recorded out of time order: its file's order is kept.
      entry(3, '2026-01-01T00:00:02.000Z', 'x3'),
    ];
    const b = [entry(1, '2026-01-01T00:00:01.000Z', 'y1'), entry(2, '2026-01-01T00:00:02.500Z', 'y2')];
    const merged = mergeEntries([
      { file: 'a.jsonl', entries: a },
      { file: 'b.jsonl', entries: b },
    ]);
    expect(merged.map((e) => [e.seq, e.xid])).toEqual([
      [1, '1/x1'],
      [2, '2/y1'],
      [3, '2/y2'],
      [4, '1/x2'],
      [5, '1/x3'],
    ]);
    const swapped = mergeEntries([
      { file: 'b.jsonl', entries: b },
      { file: 'a.jsonl', entries: a },
    ]);
    expect(swapped.slice(0, 2).map((e) => e.xid)).toEqual(['1/y1', '2/x1']);
  });
});
