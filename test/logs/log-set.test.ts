/**
 * Log sets (src/logs/log-set.ts) over logs the library recorder writes: a series whose second log's
 * header carries hundreds of open pauses (well past 64 KiB) is still told for a receipt log when
 * its files are given by name, verifies as one series, and lists the pauses still open at its end;
 * one log verified with a public key alone and no checkpoint says nothing signed was checked.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { startPeer } from '../../src/public/peer.js';
import {
  Keyring,
  describeVerification,
  generateReceiptKey,
  lostPauses,
  openLogSet,
  verifyLogSet,
  verifySummary,
} from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';

const PAUSED = 300;
const RESUMED = 5;
const key = generateReceiptKey({ kid: 'log-set' });
let dir = '';
const first = (): string => join(dir, 'first.jsonl');
const second = (): string => join(dir, 'second.jsonl');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'log-set-'));
  const peer = await startPeer({ deterministic: true });
  try {
    const one = await startRecorder({ upstream: peer.url, out: first(), key, warn: () => undefined });
    const client = new A2aTestClient(one.url);
    const tokens: { taskId: string; token: string }[] = [];
    for (let i = 0; i < PAUSED; i += 1) {
      const { task } = await client.ok<{ task: { id: string } }>('SendMessage', {
        message: { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
        configuration: { returnImmediately: true },
      });
      const paused = await client.ok<{ pause: { resumeToken: string } }>('PauseTask', {
        taskId: task.id,
        reason: `waiting for approval number ${i} from the finance team`,
      });
      tokens.push({ taskId: task.id, token: paused.pause.resumeToken });
    }
    expect((await one.close()).pauses).toBe(PAUSED);
    const two = await startRecorder({
      upstream: peer.url,
      out: second(),
      key,
      continueFrom: first(),
      warn: () => undefined,
    });
    const next = new A2aTestClient(two.url);
    for (const { taskId, token } of tokens.slice(0, RESUMED))
      await next.ok('ResumeTask', { taskId, resumeToken: token });
    expect((await two.close()).resumes).toBe(RESUMED);
  } finally {
    await peer.close();
  }
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('openLogSet', () => {
  it('tells a series by name whose header is over 64 KiB, verifies it and lists what is still open', async () => {
    const logs = [join(dir, 'second.receipts.jsonl'), join(dir, 'first.receipts.jsonl')];
    const header = (await readFile(logs[0]!, 'utf8')).split('\n', 1)[0]!;
    expect(header.length).toBeGreaterThan(1 << 16);
    const set = await openLogSet(logs, { keys: new Keyring([key]) });
    expect(set.kind).toBe('series');
    const verification = await verifyLogSet(set);
    expect(verification.ok).toBe(true);
    const lost = await lostPauses(set);
    expect(lost.kind).toBe('series');
    expect(lost.lost.length).toBe(PAUSED - RESUMED);
  });

  it('reads a recording given for its lost pauses, without a key', async () => {
    const lost = await lostPauses(first());
    expect(lost.kind).toBe('recording');
    expect(lost.lost.length).toBe(PAUSED);
  });

  it('says nothing signed was checked when only a public key verified a log with no checkpoint', async () => {
    const set = await openLogSet([join(dir, 'first.receipts.jsonl')], { keys: new Keyring([key]) });
    const verification = await verifyLogSet(set);
    expect(verification.kind === 'log' && describeVerification(verification.result).status).toBe('verified');
    const forged = describeVerification({
      ...(verification.kind === 'log' ? verification.result : ({} as never)),
      receiptSignatures: 'unchecked',
      checkpoints: 0,
    });
    expect(forged.status).toBe('unsigned');
    expect(forged.word).toBe('NOT VERIFIED (no signed checkpoint)');
    expect(forged.basis.join('; ')).toMatch(/NOT VERIFIED: .*no signature was checked/);
    expect(
      verifySummary('x', {
        ...(verification.kind === 'log' ? verification.result : ({} as never)),
        receiptSignatures: 'unchecked',
        checkpoints: 0,
      }),
    ).toMatch(/NOT VERIFIED: only a public key was given/);
  });
});
