import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { checkpointIntervalOf } from '../../src/replay/derive-receipts.js';
import { diffReceiptLogs } from '../../src/replay/diff.js';
import { conditionsHashOf } from '../../src/receipts/drafts.js';

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

describe('diffReceiptLogs of interruptions (format 5)', () => {
  const v5 = { ...header, version: 5, series: null };
  const hashOf = (line: object): string => sha256Prefixed(canonicalJson(line));
  const span = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
  const asked = (seq: number, promptHash: string) => ({
    type: 'InterruptionReceipt',
    seq,
    prev: 'sha256:aa',
    taskId: 't1',
    contextId: 'c1',
    state: 'TASK_STATE_INPUT_REQUIRED',
    promptHash,
    interruptedAt: '2026-01-01T00:00:01.000Z',
    observedAt: '2026-01-01T00:00:01.000Z',
    entries: [seq],
    span,
    binding: 'JSONRPC',
    repaired: [],
    sig: { alg: 'hmac-sha256', kid: 'k1', value: 'III' },
  });
  const answered = (seq: number, of: object, inputHash: string) => ({
    type: 'ContinuationReceipt',
    seq,
    prev: 'sha256:bb',
    interruption: hashOf(of),
    taskId: 't1',
    cause: 'message',
    principal: 'jwt:sub=alice',
    inputHash,
    observedAt: '2026-01-01T00:00:02.000Z',
    entries: [seq],
    span,
    interruptionSpan: span,
    binding: 'JSONRPC',
    repaired: [],
    sig: { alg: 'hmac-sha256', kid: 'k1', value: 'CCC' },
  });
  const first = asked(1, 'sha256:p1');
  const second = asked(3, 'sha256:p2');
  const golden = log(v5, first, answered(2, first, 'sha256:i1'), second, answered(4, second, 'sha256:i2'));

  it('ignores the peer-clock interruptedAt and the hash of the interruption a continuation names', () => {
    const later = { ...first, interruptedAt: '2026-09-09T00:00:00.000Z' };
    const actual = log(v5, later, answered(2, later, 'sha256:i1'), second, answered(4, second, 'sha256:i2'));
    const diff = diffReceiptLogs(golden, actual);
    expect(diff.differences).toEqual([]);
    expect(diff.ignored).toEqual([
      { field: 'interruptedAt', count: 1 },
      { field: 'interruption', count: 1 },
    ]);
  });

  it('names the interruption and its golden line when its state, prompt hash, input hash or principal differ', () => {
    const auth = { ...first, state: 'TASK_STATE_AUTH_REQUIRED', promptHash: 'sha256:px' };
    const actual = log(v5, auth, { ...answered(2, auth, 'sha256:ix'), principal: 'jwt:sub=mallory' }, second);
    expect(diffReceiptLogs(golden, [...actual, canonicalJson(answered(4, second, 'sha256:i2'))]).differences).toEqual([
      {
        path: 'receipts[0] (t1 interruption 1, line 2).promptHash',
        expected: 'sha256:p1',
        actual: 'sha256:px',
      },
      {
        path: 'receipts[0] (t1 interruption 1, line 2).state',
        expected: 'TASK_STATE_INPUT_REQUIRED',
        actual: 'TASK_STATE_AUTH_REQUIRED',
      },
      {
        path: 'receipts[1] (t1 interruption 1 continuation 1, line 3).inputHash',
        expected: 'sha256:i1',
        actual: 'sha256:ix',
      },
      {
        path: 'receipts[1] (t1 interruption 1 continuation 1, line 3).principal',
        expected: 'jwt:sub=alice',
        actual: 'jwt:sub=mallory',
      },
    ]);
  });

  it('reports a missing continuation alone, by identity and golden line; the later interruption still pairs', () => {
    const actual = log(v5, first, second, answered(4, second, 'sha256:i2'));
    const diff = diffReceiptLogs(golden, actual);
    expect(diff.differences).toHaveLength(1);
    expect(diff.differences[0]).toMatchObject({
      path: 'receipts[1] (t1 interruption 1 continuation 1, line 3)',
      expected: { type: 'ContinuationReceipt', inputHash: 'sha256:i1' },
    });
    expect(diff.differences[0]).not.toHaveProperty('actual');
  });

  it('reports an extra interruption by identity and its line in the replayed log', () => {
    const third = asked(5, 'sha256:p3');
    const diff = diffReceiptLogs(golden, [...golden, canonicalJson(third)]);
    expect(diff.differences).toEqual([
      { path: 'receipts[4] (t1 interruption 3, replayed line 6)', actual: JSON.parse(canonicalJson(third)) as unknown },
    ]);
  });

  it('keeps an interruption apart from a suspension of the same task', () => {
    const pause = { ...suspension, seq: 1 };
    const withPause = log(v5, pause, first, answered(3, first, 'sha256:i1'));
    const missing = log(v5, pause, answered(3, first, 'sha256:i1'));
    expect(diffReceiptLogs(withPause, missing).differences.map((d) => d.path)).toEqual([
      'receipts[1] (t1 interruption 1, line 3)',
      'receipts[2] (t1 interruption 1 continuation 1, line 4)',
      'receipts[1] (t1 interruption ? continuation 1, replayed line 3)',
    ]);
  });

  it('compares a version-4 golden with a version-5 log of the same session without its interruptions', () => {
    const v4 = log({ ...header, version: 4 }, suspension);
    const diff = diffReceiptLogs(v4, log(v5, suspension, first, answered(3, first, 'sha256:i1')));
    expect(diff.differences).toEqual([]);
  });
});

describe('diffReceiptLogs of an earlier golden and a version-5 log: the peer times', () => {
  const v5header = { ...header, version: 5, series: null };
  const conditionsOf = (at: string): { trigger: { at: string } } => ({ trigger: { at } });
  const parked = (at: string, pausedAt: string): object => ({
    ...suspension,
    pausedAt,
    conditions: conditionsOf(at),
    conditionsHash: conditionsHashOf(conditionsOf(at)),
  });

  it('reads the golden peer times in the canonical text version 5 writes, and their conditions hash', () => {
    const golden = log({ ...header, version: 4 }, parked('2026-01-01T00:10:00Z', '2026-01-01T00:00:01Z'));
    const actual = log(v5header, parked('2026-01-01T00:10:00.000Z', '2026-01-01T00:00:01.000Z'));
    expect(diffReceiptLogs(golden, actual).differences).toEqual([]);
    // Two logs of one version are compared as written.
    const v4actual = log({ ...header, version: 4 }, parked('2026-01-01T00:10:00.000Z', '2026-01-01T00:00:01Z'));
    expect(diffReceiptLogs(golden, v4actual).differences.map((d) => d.path)).toEqual([
      'receipts[0].conditions.trigger.at',
      'receipts[0].conditionsHash',
    ]);
  });

  it('still drifts on another instant, and on a golden hash that is not its own conditions’', () => {
    const golden = log({ ...header, version: 4 }, parked('2026-01-01T00:10:00Z', '2026-01-01T00:00:01Z'));
    const later = log(v5header, parked('2026-01-01T00:20:00.000Z', '2026-01-01T00:00:01.000Z'));
    expect(diffReceiptLogs(golden, later).differences.map((d) => d.path)).toEqual([
      'receipts[0].conditions.trigger.at',
      'receipts[0].conditionsHash',
    ]);
    const forged = log(
      { ...header, version: 4 },
      { ...parked('2026-01-01T00:10:00Z', '2026-01-01T00:00:01Z'), conditionsHash: 'sha256:00' },
    );
    const actual = log(v5header, parked('2026-01-01T00:10:00.000Z', '2026-01-01T00:00:01.000Z'));
    expect(diffReceiptLogs(forged, actual).differences.map((d) => d.path)).toEqual(['receipts[0].conditionsHash']);
  });
});
