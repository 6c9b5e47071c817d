import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditReceiptLog } from '../../src/receipts/audit.js';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { Keyring } from '../../src/receipts/keys.js';
import { CREATED_AT, fixedKey, resumptionDraftFor, suspensionDraftFor } from './fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'receipts-audit-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const keyring = new Keyring([fixedKey('key-a')]);

async function logFile(): Promise<string> {
  const chain = new ReceiptChain({ keyring, checkpointEvery: 3, recording: 'rec', createdAt: CREATED_AT, tool: 't' });
  const texts = [chain.header.text];
  const push = (sealed: { receipt: { text: string; hash: string }; checkpoint: { text: string } | null }): string => {
    texts.push(sealed.receipt.text);
    if (sealed.checkpoint) texts.push(sealed.checkpoint.text);
    return sealed.receipt.hash;
  };
  const s0 = push(chain.sealSuspension(suspensionDraftFor(0))); // client, task-0
  const s1 = push(chain.sealSuspension(suspensionDraftFor(1))); // agent, task-1
  const s2 = push(chain.sealSuspension(suspensionDraftFor(2))); // client, task-2
  push(chain.sealResumption(resumptionDraftFor(10, 'rejected', 'task-0'), s0));
  push(chain.sealResumption(resumptionDraftFor(10, 'rejected', 'task-0'), s0));
  push(chain.sealResumption(resumptionDraftFor(11, 'resumed', 'task-0'), s0));
  push(chain.sealResumption(resumptionDraftFor(12, 'canceled', 'task-2'), s2));
  void s1;
  texts.push((chain.close() as { text: string }).text);
  const path = join(dir, 'a.receipts.jsonl');
  await writeFile(path, `${texts.join('\n')}\n`);
  return path;
}

describe('auditReceiptLog', () => {
  it('gives one row per suspension with how it ended and its rejected attempts', async () => {
    const result = await auditReceiptLog(await logFile(), { keyring });
    expect(result.verify.ok).toBe(true);
    expect(
      result.rows.map((r) => [
        r.taskId,
        r.initiatedBy,
        r.principal,
        r.outcome,
        r.cause,
        r.closedBy,
        r.rejectedAttempts,
        r.rejectedCodes,
      ]),
    ).toEqual([
      [
        'task-0',
        'PAUSE_INITIATOR_CLIENT',
        'jwt:sub=alice',
        'resumed',
        'explicit_resume',
        'jwt:sub=bob',
        2,
        [-32011, -32011],
      ],
      ['task-1', 'PAUSE_INITIATOR_AGENT', null, 'open', null, null, 0, []],
      ['task-2', 'PAUSE_INITIATOR_CLIENT', 'jwt:sub=alice', 'canceled', 'canceled', 'jwt:sub=bob', 0, []],
    ]);
    expect(result.rows[0]).toMatchObject({
      reason: 'waiting for approval 0',
      conditions: null,
      pausedAt: '2026-01-01T09:00:00.000Z',
    });
    expect(result.rows[1]?.conditions).toEqual({
      onEvent: 'approval-1',
      timeout: { durationMinutes: 30, onTimeout: 'fail' },
    });
  });

  it('filters by task and initiator', async () => {
    const path = await logFile();
    expect((await auditReceiptLog(path, { keyring, filter: { taskId: 'task-2' } })).rows.map((r) => r.taskId)).toEqual([
      'task-2',
    ]);
    expect(
      (await auditReceiptLog(path, { keyring, filter: { initiatedBy: 'PAUSE_INITIATOR_AGENT' } })).rows.map(
        (r) => r.taskId,
      ),
    ).toEqual(['task-1']);
  });

  it('audits nothing from a log that does not verify', async () => {
    const path = await logFile();
    const { readFile } = await import('node:fs/promises');
    await writeFile(path, (await readFile(path, 'utf8')).replace('waiting for approval 1', 'waiting for approval 7'));
    const result = await auditReceiptLog(path, { keyring });
    expect(result.verify.firstError).toMatchObject({ line: 3, reason: 'bad_signature' });
    expect(result.rows).toEqual([]);
  });
});
