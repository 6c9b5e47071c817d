/**
 * The library records as `record` does (src/public/record.ts): a script with no CLI starts the
 * reference peer with `startPeer`, records through `startRecorder` with `rotateBytes`, pauses and
 * resumes tasks, closes the recorder, and gets several linked logs that `a2a-replay verify DIR`
 * accepts as one series, and that `openLogSet`, `verifyLogSet` and `lostPauses` read as one series,
 * verified, with no pause lost.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { canonicalJson, generateReceiptKey, lostPauses, openLogSet, verifyLogSet } from '../../src/public/receipts.js';
import { startPeer } from '../../src/public/peer.js';
import { type RecordSummary, RecorderOptionError, startRecorder } from '../../src/public/record.js';
import { runCli } from '../helpers/cli.js';

let dir = '';
let keyFile = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'library-record-'));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'library' }).keyFile()), { mode: 0o600 });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Three tasks, each paused and resumed twice, with reads between: enough lines for several files. */
async function pausesAndResumes(url: string): Promise<void> {
  const client = new A2aTestClient(url);
  for (const name of ['a', 'b', 'c']) {
    const { task } = await client.ok<{ task: { id: string } }>('SendMessage', {
      message: { messageId: `m-${name}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    for (let round = 0; round < 2; round += 1) {
      const paused = await client.ok<{ pause: { resumeToken: string } }>('PauseTask', {
        taskId: task.id,
        reason: `${name}${round}`,
      });
      await client.ok('GetTask', { id: task.id });
      await client.ok('ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
    }
  }
}

describe('startRecorder', () => {
  const series = (): string => join(dir, 'series');
  let summary: RecordSummary;

  beforeAll(async () => {
    await rm(series(), { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(series()));
    const peer = await startPeer({ deterministic: true });
    try {
      const warnings: string[] = [];
      const recorder = await startRecorder({
        upstream: peer.url,
        out: join(series(), 'session.jsonl'),
        key: keyFile,
        rotateBytes: 3000,
        fsync: 'always',
        warn: (line) => warnings.push(line),
      });
      await pausesAndResumes(recorder.url);
      summary = await recorder.close();
      expect(warnings).toEqual([]);
    } finally {
      await peer.close();
    }
  });

  it('writes several linked logs that verify as one series, with every pause resumed', async () => {
    expect(summary.complete).toBe(true);
    expect(summary).toMatchObject({ exchanges: 21, pauses: 6, resumes: 6, receipts: 12, lostPauses: 0 });
    expect(summary.receiptFiles!.length).toBeGreaterThanOrEqual(3);
    expect(summary.recordingFiles.length).toBe(summary.receiptFiles!.length);
    const names = (await readdir(series())).filter((f) => f.endsWith('.receipts.jsonl')).sort();
    expect(names.length).toBe(summary.receiptFiles!.length);

    const verified = await runCli(['verify', series(), '--key', keyFile]);
    expect(verified.stderr).toBe('');
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/series/);
  });

  it('reads the directory as one series through the library: verified, no pause lost', async () => {
    const set = await openLogSet([series()], { keys: keyFile });
    try {
      expect(set.kind).toBe('series');
      expect(set.files.length).toBe(summary.receiptFiles!.length);
      const verification = await verifyLogSet(set);
      expect(verification.ok).toBe(true);
      expect(verification.kind === 'series' && verification.series.members.length).toBe(set.files.length);
      const lost = await lostPauses(set);
      expect(lost).toMatchObject({ kind: 'series', lost: [], interruptions: [] });
      expect(lost.verification).toMatch(/verified/);
    } finally {
      await set.close();
    }
  });

  it('refuses a bad option before writing anything, naming it', async () => {
    const out = join(dir, 'refused.jsonl');
    const refused = startRecorder({ upstream: 'http://127.0.0.1:9', out, rotateBytes: 0 });
    await expect(refused).rejects.toThrow(RecorderOptionError);
    await expect(refused).rejects.toThrow(/^rotateBytes: expected an integer of at least 1/);
    expect((await readdir(dir)).includes('refused.jsonl')).toBe(false);
  });
});
