import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { checkpointIntervalOf } from '../../src/replay/derive-receipts.js';
import { diffReceiptLogs } from '../../src/replay/diff.js';

const header = {
  type: 'ReceiptLog',
  format: 'a2a-replay.receipts',
  version: 2,
  recording: 'r1',
  kids: ['k1'],
  checkpoint: { alg: 'hmac-sha256', kid: 'k1' },
  createdAt: '2026-01-01T00:00:00.000Z',
  tool: 'a2a-replay@0.1.0',
};
const suspension = {
  type: 'SuspensionReceipt',
  seq: 1,
  prev: 'sha256:aa',
  taskId: 't1',
  via: 'PauseTask',
  pausedAt: '2026-01-01T00:00:01.000Z',
  sig: { alg: 'hmac-sha256', kid: 'k1', value: 'AAA' },
};
const resumption = {
  type: 'ResumptionReceipt',
  seq: 2,
  prev: 'sha256:bb',
  suspension: 'sha256:cc',
  taskId: 't1',
  cause: 'explicit_resume',
  resumedAt: '2026-01-01T00:00:02.000Z',
  sig: { alg: 'hmac-sha256', kid: 'k1', value: 'BBB' },
};
const log = (...lines: object[]): string[] => lines.map((l) => canonicalJson(l));

describe('diffReceiptLogs', () => {
  it('ignores volatile fields by default and lists them', () => {
    const actual = log(
      header,
      { ...suspension, pausedAt: '2026-09-09T00:00:00.000Z', sig: { ...suspension.sig, value: 'ZZZ' } },
      resumption,
    );
    const diff = diffReceiptLogs(log(header, suspension, resumption), actual);
    expect(diff.differences).toEqual([]);
    expect(diff.ignored).toEqual([
      { field: 'pausedAt', count: 1 },
      { field: 'sig', count: 1 },
    ]);
  });

  it('names the exact path of a differing field', () => {
    const diff = diffReceiptLogs(
      log(header, suspension, resumption),
      log(header, suspension, { ...resumption, cause: 'timeout' }),
    );
    expect(diff.differences).toEqual([{ path: 'receipts[1].cause', expected: 'explicit_resume', actual: 'timeout' }]);
  });

  it('reports a receipt only one side has, whole', () => {
    const diff = diffReceiptLogs(log(header, suspension, resumption), log(header, suspension));
    expect(diff.differences).toHaveLength(1);
    expect(diff.differences[0]).toMatchObject({
      path: 'receipts[1] (t1 suspension 1 resumption 1)',
      expected: { cause: 'explicit_resume' },
    });
    expect(diff.differences[0]).not.toHaveProperty('actual');
  });

  it('pairs receipts by identity: one extra pause in the middle is reported alone, the rest still pair', () => {
    const hashOf = (line: object): string => sha256Prefixed(canonicalJson(line));
    const pause = (taskId: string, seq: number) => ({ ...suspension, taskId, seq });
    const end = (of: object, taskId: string, seq: number) => ({ ...resumption, taskId, seq, suspension: hashOf(of) });
    const a1 = pause('t1', 1);
    const b1 = pause('t2', 2);
    const golden = log(header, a1, b1, end(a1, 't1', 3), end(b1, 't2', 4));
    const a2 = pause('t1', 4);
    const actual = log(header, a1, b1, end(a1, 't1', 3), a2, end(b1, 't2', 5), end(a2, 't1', 6));
    const diff = diffReceiptLogs(golden, actual);
    expect(diff.differences.map((d) => d.path)).toEqual([
      'receipts[3] (t1 suspension 2)',
      'receipts[5] (t1 suspension 2 resumption 1)',
    ]);
    expect(diff.differences.every((d) => d.expected === undefined && d.actual !== undefined)).toBe(true);
    // Nothing else drifts: the later receipts' shifted seq is counted as ignored, not reported.
    expect(diff.ignored).toContainEqual({ field: 'seq', count: 1 });
  });

  it('in strict mode, fails on a signature alone', () => {
    const actual = log(header, { ...suspension, sig: { ...suspension.sig, value: 'ZZZ' } }, resumption);
    const diff = diffReceiptLogs(log(header, suspension, resumption), actual, { strict: true });
    expect(diff.differences).toEqual([{ path: 'receipts[0].sig.value', expected: 'AAA', actual: 'ZZZ' }]);
  });

  it('in strict mode, reports bytes that differ with equal content', () => {
    const golden = log(header, suspension);
    const actual = [golden[0] as string, JSON.stringify(suspension, null, 1)];
    const diff = diffReceiptLogs(golden, actual, { strict: true });
    expect(diff.differences.map((d) => d.path)).toEqual(['receipts[0] (bytes)']);
  });

  it('ignores key ids in the header when the replay could not sign', () => {
    const diff = diffReceiptLogs(log(header), log({ ...header, kids: ['unsigned'] }), { signed: false });
    expect(diff.differences).toEqual([]);
  });
});

describe('diffReceiptLogs across sessions', () => {
  const session = (observedAt: string, entry: number, spanId: string) => ({
    observedAt,
    entries: [entry],
    span: { traceId: `${spanId}${spanId}`, spanId },
  });

  it('ignores what names the session with otherSession, and nothing else', () => {
    const golden = log(
      header,
      { ...suspension, ...session('2026-01-01T00:00:01.000Z', 3, 'aa') },
      { ...resumption, ...session('2026-01-01T00:00:02.000Z', 5, 'bb') },
    );
    const other = log(
      { ...header, recording: 'r2' },
      { ...suspension, ...session('2026-06-01T00:00:01.000Z', 4, 'cc') },
      { ...resumption, ...session('2026-06-01T00:00:02.000Z', 7, 'dd') },
    );
    expect(diffReceiptLogs(golden, other).differences.map((d) => d.path)).toContain('header.recording');
    expect(diffReceiptLogs(golden, other, { otherSession: true }).differences).toEqual([]);
    const changed = log(
      { ...header, recording: 'r2' },
      { ...suspension, ...session('2026-06-01T00:00:01.000Z', 4, 'cc') },
      { ...resumption, ...session('2026-06-01T00:00:02.000Z', 7, 'dd'), cause: 'timeout' },
    );
    expect(diffReceiptLogs(golden, changed, { otherSession: true }).differences).toEqual([
      { path: 'receipts[1].cause', expected: 'explicit_resume', actual: 'timeout' },
    ]);
  });
});

describe('checkpointIntervalOf', () => {
  const cp = (size: number) => `{"root":"sha256:x","sig":{},"size":${size},"type":"Checkpoint"}`;
  const receipt = '{"type":"SuspensionReceipt"}';

  it('reads the interval from the first of several checkpoints', () => {
    expect(checkpointIntervalOf(['{"type":"ReceiptLog"}', receipt, cp(1), receipt, cp(2)])).toBe(1);
  });

  it('reads a lone closing checkpoint beyond the default interval as checkpoints only at close', () => {
    expect(checkpointIntervalOf(['{"type":"ReceiptLog"}', cp(300)])).toBe(0);
  });

  it('keeps the default when a lone checkpoint says nothing more', () => {
    expect(checkpointIntervalOf(['{"type":"ReceiptLog"}', receipt, cp(1)])).toBeUndefined();
    expect(checkpointIntervalOf(['{"type":"ReceiptLog"}'])).toBeUndefined();
  });
});

const sig = { alg: 'hmac-sha256', kid: 'k1', value: 'CCC' };

it('compares a version-2 golden and a version-3 log of the same receipts as equal, and strictly as not', () => {
  const v3 = log({ ...header, version: 3 }, suspension, {
    type: 'Checkpoint',
    size: 1,
    root: sha256Prefixed('x'),
    final: true,
    recording: null,
    sig,
  });
  const v2 = log(header, suspension, { type: 'Checkpoint', size: 1, root: sha256Prefixed('x'), sig });
  expect(diffReceiptLogs(v2, v3).differences).toEqual([]);
  expect(diffReceiptLogs(v2, v3).ignored.map((i) => i.field)).toEqual(['final', 'recording', 'version']);
  expect(diffReceiptLogs(v2, v3, { strict: true }).differences.map((d) => d.path)).toEqual([
    'header.version',
    'checkpoints[0].final',
    'checkpoints[0].recording',
  ]);
  // The same version: a checkpoint's final mark is compared.
  const open = log({ ...header, version: 3 }, suspension, {
    type: 'Checkpoint',
    size: 1,
    root: sha256Prefixed('x'),
    final: false,
    recording: null,
    sig,
  });
  expect(diffReceiptLogs(open, v3).differences.map((d) => d.path)).toEqual(['checkpoints[0].final']);
});
