/**
 * `verify`, `lost` and `audit` with `--checkpoint HEAD` (docs/design.md §6, "The head of a
 * series"): a series recorded in-process through a rotating recorder in front of the reference
 * peer, its head kept by `witness`, a pause left open in its last log. With the last log dropped,
 * the logs alone verify and lose nothing; with the head, each command exits 1 naming the log
 * missing. The whole series with its head passes, and the first log alone is told a later log is
 * missing. What each command prints and exits with is shown by the built CLI once per command and
 * failing case; what is a verdict only (the whole series passes, the logs alone pass, the pause
 * listed, the first log alone) is the library call the command makes.
 */
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { type ReceiptKey, canonicalJson, generateReceiptKey } from '../../src/public/receipts.js';
import { startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { runCli } from '../helpers/cli.js';
import { lostVerdict, verifyVerdict } from '../helpers/verdicts.js';

let root = '';
let keyFile = '';
let key: ReceiptKey;
let head = '';
const series = (): string => join(root, 'series');
const cut = (): string => join(root, 'cut');
let last = '';
let count = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'series-head-cli-'));
  keyFile = join(root, 'key.json');
  head = join(root, 'head.checkpoint');
  key = generateReceiptKey({ kid: 'head-cli' });
  await writeFile(keyFile, canonicalJson(key.keyFile()), { mode: 0o600 });
  await mkdir(series());
  const peer = await startPeer({ deterministic: true });
  try {
    const recorder = await startRecorder({
      upstream: peer.url,
      out: join(series(), 'session.jsonl'),
      key: keyFile,
      witness: head,
      rotateBytes: 6000,
      warn: () => undefined,
    });
    const client = new A2aTestClient(recorder.url);
    const send = async (id: string, text: string): Promise<string> => {
      const { task } = await client.ok<{ task: { id: string } }>('SendMessage', {
        message: { messageId: id, role: 'ROLE_USER', parts: [{ text }] },
        configuration: { returnImmediately: true },
      });
      return task.id;
    };
    const a = await send('m-a', 'work:3');
    const paused = await client.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId: a, reason: 'first' });
    await client.ok('ResumeTask', { taskId: a, resumeToken: paused.pause.resumeToken });
    await send('m-pad', 'x'.repeat(7000));
    const b = await send('m-b', 'work:3');
    await client.ok('PauseTask', { taskId: b, reason: 'left open in the last log' });
    await recorder.close();
  } finally {
    await peer.close();
  }
  const logs = (await readdir(series())).filter((f) => f.endsWith('.receipts.jsonl'));
  count = logs.length;
  last = `session.${count}.receipts.jsonl`;
  await mkdir(cut());
  for (const name of logs) if (name !== last) await copyFile(join(series(), name), join(cut(), name));
}, 60_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a series head given with --checkpoint', () => {
  it('passes the whole series, and lost lists the pause left open in its last log', async () => {
    expect(count).toBeGreaterThanOrEqual(3);
    const verified = await verifyVerdict([series()], key, { head });
    expect(verified.stdout).toContain(`head: the head ${head} is ${join(series(), last)} (position ${count} of`);
    expect(verified.code).toBe(0);
    const lost = await lostVerdict([series()], { keys: key, head });
    expect(JSON.stringify(lost.json)).toContain('left open in the last log');
    expect(lost.code).toBe(1);
  });

  it('names the dropped last log in verify, lost and audit (exit 1), where the logs alone pass', async () => {
    const missing = `position ${count} (${join(cut(), last)})`;
    const alone = await verifyVerdict([cut()], key);
    expect(alone.code).toBe(0);
    const clean = await lostVerdict([cut()], { keys: key });
    expect(clean.code).toBe(0);

    const verified = await runCli(['verify', cut(), '--key', keyFile, '--checkpoint', head]);
    expect(verified.stdout).toContain(`head: MISSING LOG: the head ${head} is position ${count} of series`);
    expect(verified.stdout).toContain(`a later log is missing: ${missing}`);
    expect(verified.code).toBe(1);
    const lost = await runCli(['lost', cut(), '--key', keyFile, '--checkpoint', head]);
    expect(lost.stderr).toContain(`a later log is missing: ${missing}`);
    expect(lost.code).toBe(1);
    const audited = await runCli(['audit', cut(), '--key', keyFile, '--checkpoint', head]);
    expect(audited.stderr).toContain(`not audited: head MISSING LOG: `);
    expect(audited.stderr).toContain(missing);
    expect(audited.code).toBe(1);
  });

  it('tells the first log alone that later logs are missing, not that its checkpoint mismatches', async () => {
    const first = join(series(), 'session.receipts.jsonl');
    const verified = await verifyVerdict([first], key, { head });
    expect(verified.stdout).toMatch(/: ok: /);
    expect(verified.stdout).toContain(`head: MISSING LOG: `);
    expect(verified.stdout).toContain(`logs are missing: position 2 (${join(series(), 'session.2.receipts.jsonl')})`);
    expect(verified.stdout).not.toContain('checkpoint_mismatch');
    expect(verified.code).toBe(1);
  });

  it('refuses a head to lost without --key (exit 2)', async () => {
    const noKey = await runCli(['lost', cut(), '--checkpoint', head]);
    expect(noKey.stderr).toContain('--checkpoint needs --key');
    expect(noKey.code).toBe(2);
  });
});
