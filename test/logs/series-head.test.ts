/**
 * The head of a series (src/logs/series-head.ts, src/receipts/log-head.ts): a rotating recorder in
 * front of the reference peer writes its witness file for each log in turn, so it holds the last
 * log's closing checkpoint and the LogHead naming that log. A pause left open in the last log is
 * in no other log: with the last log dropped, the series alone verifies and loses nothing, and the
 * head says which log is missing; the whole series with its head passes, and a tampered head fails.
 */
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { startPeer } from '../../src/public/peer.js';
import {
  Keyring,
  ReceiptKey,
  generateReceiptKey,
  lostPauses,
  openLogSet,
  readSeriesHead,
  verifyLogSet,
} from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';

/** Bytes past which the recording rotates: task A's exchanges fill the first files, B's the last. */
const ROTATE_BYTES = 6000;
const PADDING = 'x'.repeat(7000);

const ed25519 = generateReceiptKey({ kid: 'head-ed' });
const hmacOnly = new ReceiptKey('head-mac', { hmac: Buffer.alloc(32, 7) });
let root = '';

interface Recorded {
  dir: string;
  /** The series' id: its first log's recording id. */
  series: string;
  witness: string;
  files: string[];
  keyring: Keyring;
}
const recorded = new Map<string, Recorded>();

/** A session through a rotating recorder: A paused and resumed, a padding message, B paused and left open. */
async function recordSeries(name: string, key: ReceiptKey, peerUrl: string): Promise<Recorded> {
  const dir = join(root, name);
  await mkdir(dir);
  const witness = join(root, `${name}.head`);
  const recorder = await startRecorder({
    upstream: peerUrl,
    out: join(dir, 'session.jsonl'),
    key,
    witness,
    rotateBytes: ROTATE_BYTES,
    warn: () => undefined,
  });
  const client = new A2aTestClient(recorder.url);
  const send = async (text: string): Promise<string> => {
    const { task } = await client.ok<{ task: { id: string } }>('SendMessage', {
      message: { messageId: `m-${text.length}-${text.slice(0, 8)}`, role: 'ROLE_USER', parts: [{ text }] },
      configuration: { returnImmediately: true },
    });
    return task.id;
  };
  const a = await send('work:3');
  const paused = await client.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId: a, reason: 'first' });
  await client.ok('ResumeTask', { taskId: a, resumeToken: paused.pause.resumeToken });
  await send(PADDING);
  const b = await send('work:3');
  await client.ok('PauseTask', { taskId: b, reason: 'left open in the last log' });
  const summary = await recorder.close();
  const files = (await readdir(dir))
    .filter((f) => f.endsWith('.receipts.jsonl'))
    .map((f) => join(dir, f))
    .sort((x, y) => position(x) - position(y));
  expect(summary.receiptFiles?.length).toBe(files.length);
  const header = JSON.parse((await readFile(files[0]!, 'utf8')).split('\n', 1)[0]!) as { recording: string };
  return { dir, series: header.recording, witness, files, keyring: new Keyring([key]) };
}

const position = (file: string): number => Number(/\.(\d+)\.receipts\.jsonl$/.exec(file)?.[1] ?? 1);

/** A directory holding every log of `r` but the last. */
async function withoutLast(r: Recorded): Promise<string> {
  const dir = `${r.dir}-cut`;
  await mkdir(dir, { recursive: true });
  for (const file of r.files.slice(0, -1)) await copyFile(file, join(dir, file.slice(r.dir.length + 1)));
  return dir;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'series-head-'));
  const peer = await startPeer({ deterministic: true });
  try {
    recorded.set('ed25519', await recordSeries('ed25519', ed25519, peer.url));
    recorded.set('hmac', await recordSeries('hmac', hmacOnly, peer.url));
  } finally {
    await peer.close();
  }
}, 60_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe.each(['ed25519', 'hmac'])('a series head (%s checkpoints)', (kind) => {
  const r = (): Recorded => recorded.get(kind)!;

  it('is written by every log of a rotating recorder: it names the last log, with its closing checkpoint', async () => {
    const { files, witness } = r();
    expect(files.length).toBeGreaterThanOrEqual(3);
    const head = await readSeriesHead(witness);
    expect(head.head).toMatchObject({ type: 'LogHead', position: files.length, series: r().series });
    expect(head.checkpoint.final).toBe(true);
    const lastLines = (await readFile(files.at(-1)!, 'utf8')).trimEnd().split('\n');
    expect(JSON.parse(lastLines.at(-1)!)).toEqual(head.checkpoint);
    // The pause left open was sealed in the last log, and in no other.
    expect(lastLines.some((l) => l.includes('"type":"SuspensionReceipt"'))).toBe(true);
  });

  it('passes the whole series with its head, and loses the pause left open', async () => {
    const set = await openLogSet([r().dir], { keys: r().keyring, head: r().witness });
    const verified = await verifyLogSet(set);
    expect(verified).toMatchObject({ kind: 'series', ok: true, head: { kind: 'at', path: r().files.at(-1) } });
    expect((await lostPauses(set)).lost.map((p) => p.pauseReason)).toEqual(['left open in the last log']);
  });

  it('names the dropped last log: verify and lost fail where, without the head, both are clean', async () => {
    const cut = await withoutLast(r());
    const n = r().files.length;
    const bare = await openLogSet([cut], { keys: r().keyring });
    expect((await verifyLogSet(bare)).ok).toBe(true);
    expect((await lostPauses(bare)).lost).toEqual([]);

    const set = await openLogSet([cut], { keys: r().keyring, head: r().witness });
    const verified = await verifyLogSet(set);
    expect(verified.ok).toBe(false);
    const missing = join(cut, `session.${n}.receipts.jsonl`);
    expect(verified).toMatchObject({
      kind: 'series',
      head: { kind: 'missing', series: r().series, missing: [{ position: n, file: missing }] },
    });
    expect(verified.kind === 'series' && verified.head?.message).toContain(`position ${n} (${missing})`);
    await expect(lostPauses(set)).rejects.toThrow(`a later log is missing: position ${n} (${missing})`);
  });

  it('says of the first log alone that later logs are missing, not that its checkpoint mismatches', async () => {
    const set = await openLogSet([r().files[0]!], { keys: r().keyring, head: r().witness });
    const verified = await verifyLogSet(set);
    expect(verified.ok).toBe(false);
    expect(verified.kind === 'log' && verified.result.ok).toBe(true);
    expect(verified).toMatchObject({ kind: 'log', head: { kind: 'missing' } });
    const head = verified.kind === 'log' ? verified.head : undefined;
    expect(head?.kind === 'missing' && head.missing.map((m) => m.position)).toEqual(
      r()
        .files.slice(1)
        .map((_, i) => i + 2),
    );
  });

  it('passes the first log alone with its own head', async () => {
    const own = join(root, `${kind}-own.head`);
    const first = r().files[0]!;
    const lines = (await readFile(first, 'utf8')).trimEnd().split('\n');
    // The first log's closing checkpoint, without a LogHead: the log it names is then the one given.
    await writeFile(own, `${lines.at(-1)!}\n`);
    const set = await openLogSet([first], { keys: r().keyring, head: own });
    const verified = await verifyLogSet(set);
    expect(verified).toMatchObject({ kind: 'log', ok: true, head: { kind: 'at', path: first } });
    expect(verified.kind === 'log' && verified.result.anchored).toBe(true);
  });

  it('without its LogHead, names the dropped log by its note if it has one, else checks the last log', async () => {
    const checkpointOnly = join(root, `${kind}-checkpoint-only.head`);
    const lines = (await readFile(r().witness, 'utf8')).trimEnd().split('\n');
    await writeFile(checkpointOnly, `${lines.at(-1)!}\n`);
    const verified = await verifyLogSet(
      await openLogSet([await withoutLast(r())], { keys: r().keyring, head: checkpointOnly }),
    );
    expect(verified.ok).toBe(false);
    // An Ed25519 checkpoint's note names its origin, series and position; an HMAC one names no log.
    if (kind === 'ed25519')
      expect(verified).toMatchObject({ head: { kind: 'missing', missing: [{ position: r().files.length }] } });
    else {
      expect(verified).toMatchObject({ head: { kind: 'at' } });
      expect(verified.kind === 'series' && verified.series.error?.message).toMatch(/checkpoint_mismatch|truncated/);
    }
  });

  it('fails a tampered head: a LogHead moved to another position, or a checkpoint changed', async () => {
    const [headLine, checkpointLine] = (await readFile(r().witness, 'utf8')).trimEnd().split('\n');
    const moved = join(root, `${kind}-moved.head`);
    const logHead = JSON.parse(headLine!) as { position: number };
    await writeFile(moved, `${JSON.stringify({ ...logHead, position: 1 })}\n${checkpointLine!}\n`);
    const set = await openLogSet([r().dir], { keys: r().keyring, head: moved });
    const verified = await verifyLogSet(set);
    expect(verified).toMatchObject({ ok: false, head: { kind: 'refused' } });
    expect(verified.kind === 'series' && verified.head?.message).toMatch(/LogHead has a bad signature/);

    const changed = join(root, `${kind}-changed.head`);
    const checkpoint = JSON.parse(checkpointLine!) as { size: number };
    await writeFile(changed, `${JSON.stringify({ ...checkpoint, size: checkpoint.size + 1 })}\n`);
    const again = await verifyLogSet(await openLogSet([r().dir], { keys: r().keyring, head: changed }));
    expect(again).toMatchObject({ ok: false, head: { kind: 'refused' } });
  });
});

describe('a series continued by --continue-from', () => {
  it('keeps its head in the one witness file, which names the second log when it is dropped', async () => {
    const dir = join(root, 'continued');
    await mkdir(dir);
    const witness = join(root, 'continued.head');
    const peer = await startPeer({ deterministic: true });
    try {
      const options = { upstream: peer.url, key: ed25519, witness, warn: (): undefined => undefined };
      const one = await startRecorder({ ...options, out: join(dir, 'x.jsonl') });
      await one.close();
      const two = await startRecorder({ ...options, out: join(dir, 'x.2.jsonl'), continueFrom: join(dir, 'x.jsonl') });
      const client = new A2aTestClient(two.url);
      const { task } = await client.ok<{ task: { id: string } }>('SendMessage', {
        message: { messageId: 'm-c', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
        configuration: { returnImmediately: true },
      });
      await client.ok('PauseTask', { taskId: task.id, reason: 'open after the restart' });
      await two.close();
    } finally {
      await peer.close();
    }
    const keys = new Keyring([ed25519]);
    const whole = await openLogSet([dir], { keys, head: witness });
    expect(await verifyLogSet(whole)).toMatchObject({ ok: true, head: { kind: 'at', position: 2 } });
    expect((await lostPauses(whole)).lost.map((p) => p.pauseReason)).toEqual(['open after the restart']);
    const first = join(dir, 'x.receipts.jsonl');
    const alone = await openLogSet([first], { keys, head: witness });
    expect((await lostPauses(await openLogSet([first], { keys }))).lost).toEqual([]);
    await expect(lostPauses(alone)).rejects.toThrow(`position 2 (${join(dir, 'x.2.receipts.jsonl')})`);
  });
});
