/**
 * ReceiptLogWriter's `onDurable`: followers of the log (witnesses, a telemetry pipeline) are told
 * each line once, in file order, header first, and only once the line is durable under the policy.
 */
import fs, { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { SealedLine } from '../../src/receipts/chain.js';
import { Keyring } from '../../src/receipts/keys.js';
import { FSYNC_POLICIES, ReceiptLogWriter } from '../../src/receipts/log-writer.js';
import { CREATED_AT, fixedKey, suspensionDraftFor } from './fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'receipts-durable-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('onDurable', () => {
  it.each(FSYNC_POLICIES)('tells every line once, in file order, under fsync %s', async (fsync) => {
    const told: SealedLine[] = [];
    const path = join(dir, `${fsync}.receipts.jsonl`);
    const writer = await ReceiptLogWriter.open(path, {
      keyring: new Keyring([fixedKey('k')]),
      checkpointEvery: 3,
      fsync,
      fsyncEvery: 4,
      recording: 'rec-test',
      clock: new ManualClock(Date.parse(CREATED_AT)),
      tool: 'a2a-replay@test',
      onDurable: (lines) => told.push(...lines),
    });
    for (let n = 0; n < 7; n++) {
      await writer.appendSuspension(suspensionDraftFor(n));
      // What was told is on disk already.
      const onDisk = readFileSync(path, 'utf8').split('\n').filter(Boolean);
      expect(onDisk.slice(0, told.length)).toEqual(told.map((l) => l.text));
    }
    await writer.durable();
    await writer.close();
    expect(told.map((l) => l.text)).toEqual(readFileSync(path, 'utf8').split('\n').filter(Boolean));
    expect(told[0]!.line.type).toBe('ReceiptLog');
    expect(told.at(-1)!.line).toMatchObject({ type: 'Checkpoint', final: true });
  });

  it('tells nothing of lines written and not yet synced', async () => {
    const told: SealedLine[] = [];
    const path = join(dir, 'unsynced.receipts.jsonl');
    const writer = await ReceiptLogWriter.open(path, {
      keyring: new Keyring([fixedKey('k')]),
      checkpointEvery: 0,
      fsync: 'batch',
      fsyncEvery: 1000,
      recording: 'rec-test',
      clock: new ManualClock(Date.parse(CREATED_AT)),
      tool: 'a2a-replay@test',
      onDurable: (lines) => told.push(...lines),
    });
    for (let n = 0; n < 3; n++) await writer.appendSuspension(suspensionDraftFor(n));
    // The lines are written at the end of the turn; no sync is due yet under `batch`.
    await new Promise((resolve) => setImmediate(resolve));
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(4);
    expect(told).toEqual([]);
    await writer.durable();
    expect(told.map((l) => l.line.type)).toEqual([
      'ReceiptLog',
      'SuspensionReceipt',
      'SuspensionReceipt',
      'SuspensionReceipt',
    ]);
    await writer.close();
  });

  it('keeps writing when the listener throws', async () => {
    const path = join(dir, 'throws.receipts.jsonl');
    const writer = await ReceiptLogWriter.open(path, {
      keyring: new Keyring([fixedKey('k')]),
      recording: 'rec-test',
      clock: new ManualClock(Date.parse(CREATED_AT)),
      tool: 'a2a-replay@test',
      fsync: 'always',
      onDurable: () => {
        throw new Error('follower down');
      },
    });
    await writer.appendSuspension(suspensionDraftFor(0));
    await writer.close();
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
  });
});

describe('durable within one turn', () => {
  it('gives the callers of one event-loop turn one write and one fdatasync', async () => {
    const datasync = vi.spyOn(fs, 'fdatasync');
    try {
      const path = join(dir, 'turn.receipts.jsonl');
      const writer = await ReceiptLogWriter.open(path, {
        keyring: new Keyring([fixedKey('k')]),
        checkpointEvery: 0,
        fsync: 'batch',
        recording: 'rec-test',
        clock: new ManualClock(Date.parse(CREATED_AT)),
        tool: 'a2a-replay@test',
      });
      await writer.appendSuspension(suspensionDraftFor(0));
      const first = writer.durable();
      // A second receipt later in the same turn, once the first caller's microtasks have run.
      for (let i = 0; i < 50; i++) await Promise.resolve();
      await writer.appendSuspension(suspensionDraftFor(1));
      const second = writer.durable();
      await Promise.all([first, second]);
      expect(datasync).toHaveBeenCalledTimes(1);
      expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
      await writer.close();
    } finally {
      datasync.mockRestore();
    }
  });
});
