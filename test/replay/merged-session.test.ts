/** The merged stream of `run --merge` (docs/design.md §8, "Merged sessions"). */
import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Prefixed } from '../../src/canonical/canonical-json.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { diffFleetReceipts, diffMergedReceipts, mergeEntries } from '../../src/replay/merged-session.js';

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

/**
 * The receipt lines of one task that was paused (and resumed) and interrupted (and continued):
 * each log's own `seq`, `prev` and hashes, as a recorder writes them.
 */
describe('diffMergedReceipts and diffFleetReceipts pair interruptions', () => {
  const TASK = 'task-1';
  const header = canonicalJson({ type: 'ReceiptLog', version: 5 });
  const line = (value: Record<string, unknown>) => canonicalJson({ taskId: TASK, ...value });
  const suspension = (seq: number) =>
    line({ type: 'SuspensionReceipt', seq, resumeTokenHash: 'sha256:t1', pausedAt: '2026-01-01T00:00:05.000Z' });
  const resumption = (seq: number, of: string) =>
    line({ type: 'ResumptionReceipt', seq, suspension: of, cause: 'explicit_resume' });
  const interruption = (seq: number) =>
    line({ type: 'InterruptionReceipt', seq, state: 'TASK_STATE_INPUT_REQUIRED', promptHash: 'sha256:p' });
  const continuation = (seq: number, of: string, principal: string) =>
    line({ type: 'ContinuationReceipt', seq, interruption: of, cause: 'message', principal });
  /** Replica A asked (interruption and its continuation), replica B paused and resumed the task later. */
  const a = (principal = 'jwt:sub=alice') => {
    const i = interruption(1);
    return { file: 'a.receipts.jsonl', lines: [header, i, continuation(2, sha256Prefixed(i), principal)] };
  };
  const b = () => {
    const p = suspension(1);
    return { file: 'b.receipts.jsonl', lines: [header, p, resumption(2, sha256Prefixed(p))] };
  };
  /** The merged session's derived log, in recorded order: asked, continued, paused, resumed. */
  const derived = (() => {
    const i = interruption(1);
    const p = suspension(3);
    return [header, i, continuation(2, sha256Prefixed(i), 'jwt:sub=alice'), p, resumption(4, sha256Prefixed(p))];
  })();

  it('an interruption and its continuation pair as the K-th interruption of the task, whatever file order', () => {
    for (const golden of [
      [a(), b()],
      [b(), a()],
    ]) {
      const diff = diffMergedReceipts(golden, derived);
      expect(diff.differences).toEqual([]);
      expect([diff.expectedReceipts, diff.actualReceipts]).toEqual([4, 4]);
      expect(diffFleetReceipts(golden, [b(), a()]).differences).toEqual([]);
    }
  });

  it('a continuation by another principal drifts, named by the interruption it continues', () => {
    const diff = diffMergedReceipts([b(), a('jwt:sub=mallory')], derived);
    expect(diff.differences).toEqual([
      {
        path: 'a.receipts.jsonl:3 (task task-1 interruption 1 continuation 1).principal',
        expected: 'jwt:sub=mallory',
        actual: 'jwt:sub=alice',
      },
    ]);
  });
});
