/**
 * A disk that fills and empties again under the receipt log and the recording (docs/design.md §5,
 * "A full disk"), through the write seam of src/recording/line-sink.ts: a write the disk cannot
 * take fails the callers waiting for its lines, under every fsync policy; once the disk takes
 * writes again the same lines are written at the same place, the chain goes on, and the log
 * closes with its checkpoint and no torn line.
 */
import { existsSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { CounterIdSource } from '../../src/ids.js';
import { Keyring } from '../../src/receipts/keys.js';
import { FSYNC_POLICIES, ReceiptLogWriter } from '../../src/receipts/log-writer.js';
import { STALL_RECORD_BYTES, stallRecordPath } from '../../src/receipts/stall-record.js';
import { verifyReceiptLog } from '../../src/receipts/verify.js';
import { lostPauses, openLogSet } from '../../src/logs/log-set.js';
import { fileLineSink, setWriteAt } from '../../src/recording/line-sink.js';
import { RecordingWriter } from '../../src/recording/recording-writer.js';
import { CREATED_AT, fixedKey, suspensionDraftFor } from './fixtures.js';

/**
 * Every line write of this process through a disk with `room` bytes left (unlimited once
 * `free`): a write takes what fits, then ENOSPC, as a filling filesystem answers.
 */
function disk(): { fill(room: number): void; free(): void } {
  let room: number | null = null;
  setWriteAt((fd, bytes, position) => {
    if (room === null) return writeSync(fd, bytes, 0, bytes.length, position);
    if (room === 0)
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
    const n = Math.min(room, bytes.length);
    room -= n;
    return writeSync(fd, bytes, 0, n, position);
  });
  return {
    fill: (left) => (room = left),
    free: () => (room = null),
  };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'full-disk-'));
});
afterEach(async () => {
  setWriteAt(undefined);
  await rm(dir, { recursive: true, force: true });
});

const keyring = new Keyring([fixedKey('k')]);

describe('a receipt log on a disk that fills', () => {
  it.each(FSYNC_POLICIES)(
    'fails the wait for a receipt the disk cannot take, then writes it in place once it can (fsync %s)',
    async (fsync) => {
      const path = join(dir, `${fsync}.receipts.jsonl`);
      const space = disk();
      const writer = await ReceiptLogWriter.open(path, {
        keyring,
        fsync,
        recording: 'rec-test',
        clock: new ManualClock(Date.parse(CREATED_AT)),
        tool: 'a2a-replay@test',
      });
      // 40 bytes of the receipt reach the file, then the disk is full.
      space.fill(40);
      await writer.appendSuspension(suspensionDraftFor(0));
      await expect(writer.durable()).rejects.toThrow(/ENOSPC/);
      expect(writer.stalled?.message).toMatch(/cannot write receipt log .*ENOSPC/);
      // Still full: a later receipt is refused too, and nothing is lost from the queue.
      await writer.appendSuspension(suspensionDraftFor(1));
      await expect(writer.durable()).rejects.toThrow(/ENOSPC/);
      expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(2);

      space.free();
      await writer.appendSuspension(suspensionDraftFor(2));
      await writer.durable();
      expect(writer.stalled).toBeNull();
      await writer.close();

      const lines = readFileSync(path, 'utf8').split('\n');
      expect(lines.pop()).toBe('');
      // No torn line: every line is whole JSON, the three receipts in order, then the closing checkpoint.
      const types = lines.map((line) => (JSON.parse(line) as { type: string }).type);
      expect(types).toEqual([
        'ReceiptLog',
        'SuspensionReceipt',
        'SuspensionReceipt',
        'SuspensionReceipt',
        'Checkpoint',
      ]);
      const tasks = lines.slice(1, 4).map((line) => (JSON.parse(line) as { taskId: string }).taskId);
      expect(tasks).toEqual([0, 1, 2].map((n) => suspensionDraftFor(n).taskId));
      expect(await verifyReceiptLog(path, { keyring })).toMatchObject({ ok: true, receipts: 3, closed: true });
    },
  );

  it('closes without its checkpoint, and says so, when the disk never takes the lines back', async () => {
    const path = join(dir, 'never.receipts.jsonl');
    const space = disk();
    const writer = await ReceiptLogWriter.open(path, {
      keyring,
      fsync: 'always',
      clock: new ManualClock(Date.parse(CREATED_AT)),
      tool: 'a2a-replay@test',
    });
    space.fill(0);
    await writer.appendSuspension(suspensionDraftFor(0));
    await expect(writer.close()).rejects.toThrow(/cannot write receipt log .*ENOSPC/);
    space.free();
    const result = await verifyReceiptLog(path, { keyring });
    expect(result.ok).toBe(false);
    expect(result.closed).toBe(false);
  });
});

describe('the stall record of a receipt log', () => {
  it.each(FSYNC_POLICIES)(
    'lists what a disk full until the close kept back, and verify fails the log for it (fsync %s)',
    async (fsync) => {
      const path = join(dir, `stall-${fsync}.receipts.jsonl`);
      const space = disk();
      const writer = await ReceiptLogWriter.open(path, {
        keyring,
        fsync,
        clock: new ManualClock(Date.parse(CREATED_AT)),
        tool: 'a2a-replay@test',
        stallRecord: stallRecordPath(path),
      });
      await writer.appendSuspension(suspensionDraftFor(0));
      await writer.durable();
      space.fill(30);
      await writer.appendSuspension(suspensionDraftFor(1));
      await writer.appendSuspension(suspensionDraftFor(2));
      await expect(writer.durable()).rejects.toThrow(/ENOSPC/);
      await expect(writer.close()).rejects.toThrow(/ENOSPC/);
      space.free();
      // The record takes the space it was given when the log was created, no more.
      expect(statSync(stallRecordPath(path)).size).toBe(STALL_RECORD_BYTES);
      const result = await verifyReceiptLog(path, { keyring, allowOpen: true, allowTornTail: true });
      expect(result).toMatchObject({
        ok: false,
        lines: 2,
        firstError: { line: 3, reason: 'unreceipted' },
        stall: { line: 3, count: 3, unlisted: 0, error: 'ENOSPC', signature: 'checked', writtenSince: false },
      });
      expect(result.stall?.receipts.map((r) => r.seq)).toEqual([2, 3]);
      expect(result.firstError?.message).toMatch(/UNRECEIPTED: .* 3 lines from line 3 on .*SuspensionReceipt seq 2/);
      // Without the record, the same log passes as a killed recorder's: what the record adds.
      expect(
        (await verifyReceiptLog(path, { keyring, allowOpen: true, allowTornTail: true, stallRecord: false })).ok,
      ).toBe(true);
    },
  );

  it('is removed when the log closes whole, and a forged or foreign one fails the log', async () => {
    const path = join(dir, 'whole.receipts.jsonl');
    const space = disk();
    const writer = await ReceiptLogWriter.open(path, {
      keyring,
      clock: new ManualClock(Date.parse(CREATED_AT)),
      tool: 'a2a-replay@test',
      stallRecord: stallRecordPath(path),
    });
    space.fill(10);
    await writer.appendSuspension(suspensionDraftFor(0));
    await expect(writer.durable()).rejects.toThrow(/ENOSPC/);
    const record = readFileSync(stallRecordPath(path), 'utf8');
    space.free();
    await writer.close();
    expect(existsSync(stallRecordPath(path))).toBe(false);
    expect((await verifyReceiptLog(path, { keyring })).ok).toBe(true);
    // The record as it stood during the stall: the log holds its lines since, so it is only noted.
    writeFileSync(stallRecordPath(path), record);
    const stale = await verifyReceiptLog(path, { keyring });
    expect(stale).toMatchObject({ ok: true, stall: { writtenSince: true } });
    writeFileSync(stallRecordPath(path), record.replace('"count":1', '"count":9'));
    expect((await verifyReceiptLog(path, { keyring })).firstError).toMatchObject({
      line: 0,
      reason: 'unreceipted',
      message: expect.stringMatching(/stall record .* has a bad signature/) as unknown,
    });
  });
});

describe('a fleet with a log a full disk left short', () => {
  it('is no clean verdict for lostPauses, with keys or without: the log and what it lacks are named', async () => {
    const short = join(dir, 'a.receipts.jsonl');
    const space = disk();
    const writer = await ReceiptLogWriter.open(short, {
      keyring,
      clock: new ManualClock(Date.parse(CREATED_AT)),
      tool: 'a2a-replay@test',
      stallRecord: stallRecordPath(short),
    });
    await writer.appendSuspension(suspensionDraftFor(0));
    await writer.durable();
    space.fill(0);
    await writer.appendSuspension(suspensionDraftFor(1));
    await expect(writer.close()).rejects.toThrow(/ENOSPC/);
    space.free();
    // Another recorder's log: its header (its own start) names another series.
    const other = await ReceiptLogWriter.open(join(dir, 'b.receipts.jsonl'), {
      keyring,
      clock: new ManualClock(Date.parse(CREATED_AT) + 1000),
      tool: 'a2a-replay@test',
    });
    await other.appendSuspension(suspensionDraftFor(2));
    await other.close();
    for (const keys of [undefined, keyring]) {
      const set = await openLogSet([dir], { keys });
      try {
        expect(set.kind).toBe('fleet');
        await expect(lostPauses(set)).rejects.toMatchObject({
          code: 'RECEIPT_INVALID',
          message: expect.stringMatching(/a\.receipts\.jsonl.*UNRECEIPTED: .*SuspensionReceipt seq 2/) as unknown,
        });
      } finally {
        await set.close();
      }
    }
  });
});

describe('a recording on a disk that fills', () => {
  it('tells the wait for a line the disk cannot take, then writes it in place once it can', async () => {
    const path = join(dir, 'rec.jsonl');
    const space = disk();
    const errors: unknown[] = [];
    const writer = new RecordingWriter({
      sink: fileLineSink(path),
      clock: new ManualClock(Date.parse(CREATED_AT)),
      ids: new CounterIdSource('rec'),
      target: 'http://peer',
      onError: (error) => errors.push(error),
    });
    // The file opens with its first write (asynchronous); from then on lines go through the seam.
    expect(await writer.durable(true)).toBeUndefined();
    const entry = (xid: string): void => {
      writer.append({ xid, kind: 'request', http: { method: 'POST', path: '/' }, body: { n: xid } });
    };
    space.fill(25);
    entry('x1');
    expect(await writer.durable(true)).toMatchObject({ code: 'ENOSPC' });
    entry('x2');
    expect(await writer.durable(false)).toMatchObject({ code: 'ENOSPC' });
    expect(errors).toHaveLength(1);

    space.free();
    entry('x3');
    expect(await writer.durable(true)).toBeUndefined();
    expect(writer.stalled).toBeUndefined();
    await writer.close();
    expect(writer.dropped).toBe(0);
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    const seqs = lines.slice(1).map((line) => (JSON.parse(line) as { seq: number; xid: string }).xid);
    expect(seqs).toEqual(['x1', 'x2', 'x3']);
  });
});
