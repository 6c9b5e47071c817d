import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { Keyring } from '../../src/receipts/keys.js';
import { LineSplitter, readLogLines } from '../../src/receipts/log-reader.js';
import { type FsyncPolicy, ReceiptLogWriter } from '../../src/receipts/log-writer.js';
import { verifyReceiptLog } from '../../src/receipts/verify.js';
import { CREATED_AT, buildLogLines, fixedKey, resumptionDraftFor, suspensionDraftFor, taskFor } from './fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'receipts-writer-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const keyring = new Keyring([fixedKey('key-a')]);
/** The file's lines, read synchronously: nothing else runs in between. */
const readFileSyncLines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').filter(Boolean);
const clock = new ManualClock(Date.parse(CREATED_AT));

/** Writes the same sequence `buildLogLines` seals in memory. */
async function writeLog(
  path: string,
  count: number,
  options: { fsync?: FsyncPolicy; keyring?: Keyring; rotateAt?: { seq: number; kid: string } } = {},
): Promise<void> {
  const writer = await ReceiptLogWriter.open(path, {
    keyring: options.keyring ?? keyring,
    checkpointEvery: 10,
    fsync: options.fsync ?? 'batch',
    recording: 'rec-test',
    clock,
    tool: 'a2a-replay@test',
  });
  const open: { hash: string; task: string }[] = [];
  let n = 0;
  while (writer.chain.size < count) {
    if (options.rotateAt && writer.chain.size + 1 === options.rotateAt.seq) writer.rotate(options.rotateAt.kid);
    const step = n % 4;
    const first = open[0];
    if (step === 3 && first) {
      open.shift();
      await writer.appendResumption(resumptionDraftFor(n, 'resumed', first.task), first.hash);
    } else if (step === 2 && first)
      await writer.appendResumption(resumptionDraftFor(n, 'rejected', first.task), first.hash);
    else open.push({ hash: (await writer.appendSuspension(suspensionDraftFor(n))).hash, task: taskFor(n) });
    n++;
  }
  await writer.close();
}

describe('ReceiptLogWriter', () => {
  it('writes exactly the lines the in-memory chain seals, one per line, under every fsync policy', async () => {
    const expected = `${buildLogLines({ count: 30, keyring }).join('\n')}\n`;
    for (const fsync of ['always', 'batch', 'never'] as const) {
      const path = join(dir, `${fsync}.receipts.jsonl`);
      await writeLog(path, 30, { fsync });
      expect(await readFile(path, 'utf8'), fsync).toBe(expected);
      expect(await verifyReceiptLog(path, { keyring })).toMatchObject({
        ok: true,
        receipts: 30,
        // Three every 10 receipts, then the closing one.
        checkpoints: 4,
        closed: true,
      });
    }
  });

  it('has each line in the file when its append resolves under fsync always', async () => {
    const path = join(dir, 'always.receipts.jsonl');
    const writer = await ReceiptLogWriter.open(path, {
      keyring,
      clock,
      tool: 't',
      fsync: 'always',
      checkpointEvery: 0,
    });
    for (let i = 1; i <= 3; i++) {
      const { hash } = await writer.appendSuspension(suspensionDraftFor(i));
      const lines = (await readFile(path, 'utf8')).split('\n');
      expect(lines.length).toBe(i + 2);
      expect(lines[i]).toContain(`"seq":${i}`);
      expect(hash).toMatch(/^sha256:/);
    }
    await writer.close();
  });

  it('writes the lines of one turn together at its end, at once when durable() or close() waits for them', async () => {
    const path = join(dir, 'turn.receipts.jsonl');
    const writer = await ReceiptLogWriter.open(path, { keyring, clock, tool: 't', fsync: 'never', checkpointEvery: 0 });
    expect(readFileSyncLines(path)).toHaveLength(1);
    // Appended and awaited in this turn: queued, not yet written; nobody waits, so the end of the
    // turn writes them all.
    for (let i = 1; i <= 5; i++) await writer.appendSuspension(suspensionDraftFor(i));
    expect(readFileSyncLines(path)).toHaveLength(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(readFileSyncLines(path)).toHaveLength(6);
    // durable() does not wait for the turn to end: the lines are in the file when it resolves.
    for (let i = 6; i <= 8; i++) await writer.appendSuspension(suspensionDraftFor(i));
    await writer.durable();
    expect(readFileSyncLines(path)).toHaveLength(9);
    // Nor does close(): the last line and the closing checkpoint are there.
    await writer.appendSuspension(suspensionDraftFor(9));
    await writer.close();
    expect(await verifyReceiptLog(path, { keyring })).toMatchObject({ ok: true, receipts: 9, checkpoints: 1 });
  });

  it('writes at once, within the turn, once 64 KiB of lines are queued', async () => {
    const path = join(dir, 'full.receipts.jsonl');
    const writer = await ReceiptLogWriter.open(path, { keyring, clock, tool: 't', fsync: 'never', checkpointEvery: 0 });
    let appended = 0;
    while (readFileSyncLines(path).length === 1 && appended < 10_000) {
      await writer.appendSuspension(suspensionDraftFor(++appended));
    }
    // Still the same turn: the first write holds every line so far, 64 KiB or more of them, and
    // did not wait for more than that.
    const written = readFileSyncLines(path).slice(1);
    expect(written).toHaveLength(appended);
    const bytes = written.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    expect(bytes).toBeGreaterThanOrEqual(64 * 1024);
    expect(bytes - Buffer.byteLength(written.at(-1)!) - 1).toBeLessThan(64 * 1024);
    await writer.close();
    expect(await verifyReceiptLog(path, { keyring })).toMatchObject({ ok: true, receipts: appended });
  });

  it('keeps call order when appends are not awaited one by one', async () => {
    const path = join(dir, 'concurrent.receipts.jsonl');
    const writer = await ReceiptLogWriter.open(path, { keyring, clock, tool: 't', checkpointEvery: 4 });
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => writer.appendSuspension(suspensionDraftFor(i))),
    );
    await writer.close();
    expect(results.map((r) => r.receipt.seq)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(await verifyReceiptLog(path, { keyring })).toMatchObject({ ok: true, receipts: 25, checkpoints: 7 });
  });

  it('takes createdAt from the injected clock and refuses to replace an existing log', async () => {
    const path = join(dir, 'x.receipts.jsonl');
    const writer = await ReceiptLogWriter.open(path, {
      keyring,
      clock: new ManualClock(Date.parse('2030-05-06T07:08:09.010Z')),
      tool: 't',
    });
    await writer.close();
    await writer.close();
    expect(JSON.parse((await readFile(path, 'utf8')).split('\n')[0] as string)).toMatchObject({
      createdAt: '2030-05-06T07:08:09.010Z',
    });
    await expect(ReceiptLogWriter.open(path, { keyring, clock, tool: 't' })).rejects.toThrow(/already exists/);
    await expect(writer.appendSuspension(suspensionDraftFor(1))).rejects.toThrow(/closed/);
    const again = await ReceiptLogWriter.open(path, { keyring, clock, tool: 't', overwrite: true });
    await again.close();
  });

  it('creates the log with mode 0600, and sets an overwritten one to 0600', async () => {
    const path = join(dir, 'private.receipts.jsonl');
    await (await ReceiptLogWriter.open(path, { keyring, clock, tool: 't' })).close();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await chmod(path, 0o644);
    await (await ReceiptLogWriter.open(path, { keyring, clock, tool: 't', overwrite: true })).close();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('verifies a log rotated from kid A to kid B with both keys, and names kid B with only A', async () => {
    const both = new Keyring([fixedKey('key-a'), fixedKey('key-b')]);
    const path = join(dir, 'rotated.receipts.jsonl');
    await writeLog(path, 20, { keyring: both, rotateAt: { seq: 11, kid: 'key-b' } });
    expect(await verifyReceiptLog(path, { keyring: both })).toMatchObject({ ok: true, kids: ['key-a', 'key-b'] });
    const onlyA = await verifyReceiptLog(path, { keyring: new Keyring([fixedKey('key-a')]) });
    expect(onlyA.firstError).toMatchObject({ reason: 'unknown_kid' });
    expect(onlyA.firstError?.message).toContain('key-b');
    const onlyB = await verifyReceiptLog(path, { keyring: new Keyring([fixedKey('key-b')]) });
    expect(onlyB.firstError).toMatchObject({ line: 2, reason: 'unknown_kid' });
    expect(onlyB.firstError?.message).toContain('key-a');
  });

  it('says the given key holds no Ed25519 public key when it cannot check an Ed25519 checkpoint', async () => {
    const path = join(dir, 'ed25519.receipts.jsonl');
    await writeLog(path, 4);
    const hmacOnly = await verifyReceiptLog(path, { keyring: new Keyring([fixedKey('key-a', 'key-a', false)]) });
    expect(hmacOnly.firstError).toMatchObject({ reason: 'unknown_kid' });
    expect(hmacOnly.firstError?.message).toMatch(/ed25519-signed by key-a, and the key given for it holds no Ed25519/);
    const none = await verifyReceiptLog(path, { keyring: new Keyring([fixedKey('other')]) });
    expect(none.firstError?.message).toMatch(/no key for it was given/);
  });

  it('reports a torn tail on disk distinctly, with its line number', async () => {
    const path = join(dir, 'torn.receipts.jsonl');
    await writeLog(path, 12);
    const text = await readFile(path, 'utf8');
    const lines = text.split('\n');
    const cutAt = lines.slice(0, 8).join('\n').length + 1 + 50;
    await truncate(path, Buffer.byteLength(text.slice(0, cutAt)));
    expect((await verifyReceiptLog(path, { keyring })).firstError).toMatchObject({ line: 9, reason: 'torn_tail' });
    await writeFile(path, `${lines.slice(0, 8).join('\n')}\n{"type":"Check\n${lines.slice(8).join('\n')}`);
    expect((await verifyReceiptLog(path, { keyring })).firstError).toMatchObject({ line: 9, reason: 'malformed_line' });
  });
});

describe('LineSplitter', () => {
  it('gives the same lines whatever the chunk boundaries', async () => {
    const path = join(dir, 'chunks.receipts.jsonl');
    await writeLog(path, 5);
    const bytes = await readFile(path);
    const whole: string[] = [];
    for await (const raw of readLogLines(path, { highWaterMark: 7 })) whole.push(raw.text as string);
    const splitter = new LineSplitter();
    const byteByByte = [...bytes].flatMap((b) => splitter.push(Buffer.from([b])).map((l) => l.text));
    expect(byteByByte).toEqual(whole);
    expect(whole.join('\n')).toBe(bytes.toString('utf8').slice(0, -1));
  });

  it('cuts off an over-long line instead of buffering it, and rejects invalid UTF-8', () => {
    const splitter = new LineSplitter(16);
    const lines = [
      ...splitter.push(Buffer.from('x'.repeat(40))),
      ...splitter.push(Buffer.from('\nok\n\xff\n', 'latin1')),
    ];
    expect(lines.map((l) => [l.number, l.text, l.problem])).toEqual([
      [1, null, 'longer than 16 bytes'],
      [2, 'ok', null],
      [3, null, 'not valid UTF-8'],
    ]);
  });
});
