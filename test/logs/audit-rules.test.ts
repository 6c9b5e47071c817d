/**
 * `audit --json` names the observer rules that decided each row (docs/design.md §14.8): the rule
 * that proved the pause and the one that ended it, worked out again from the recording given with
 * `--recording`; with the receipt log alone they are null. The log's bytes are not touched. The
 * peer and the keyed recorder (`startPeer`, `startRecorder`) run in this process, and the rows are
 * what `audit --json` and `lost --json` conclude (`auditLogSet`, `lostPauses`).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { generateReceiptKey } from '../../src/public/receipts.js';
import { type Recorder, startRecorder } from '../../src/public/record.js';
import { auditVerdict, lostVerdict } from '../helpers/verdicts.js';

let dir = '';
const open: (RunningPeer | Recorder)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'audit-rules-'));
});
afterEach(async () => {
  for (const server of open.splice(0).reverse()) await server.close();
  await rm(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;

async function rpc(url: string, method: string, params: unknown): Promise<Json> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as Json;
}

interface Row {
  taskId: string;
  outcome: string;
  rules: { pause: string | null; end: string | null } | null;
}

it('gives each row the rules that proved and ended its pause from the recording, null from the log alone', async () => {
  const key = join(dir, 'key.json');
  const receiptKey = generateReceiptKey({ kid: 'rules' });
  await writeFile(key, canonicalJson(receiptKey.keyFile()), { mode: 0o600 });
  const peer = await startPeer({ deterministic: true });
  open.push(peer);
  const out = join(dir, 'session.jsonl');
  const recorder = await startRecorder({ upstream: peer.url, out, key, warn: () => undefined });
  open.push(recorder);

  const send = async (text: string): Promise<string> => {
    const r = (await rpc(recorder.url, 'SendMessage', {
      message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] },
      configuration: { returnImmediately: true },
    })) as { result: { task: { id: string } } };
    return r.result.task.id;
  };
  const resumed = await send('work:3');
  const left = await send('work:3');
  await rpc(`${recorder.url}/control`, 'AdvanceClock', { ms: 1000 });
  const paused = (await rpc(recorder.url, 'PauseTask', { taskId: resumed, reason: 'review' })) as {
    result: { pause: { resumeToken: string } };
  };
  await rpc(recorder.url, 'PauseTask', { taskId: left, reason: 'later' });
  expect(
    await rpc(recorder.url, 'ResumeTask', { taskId: resumed, resumeToken: paused.result.pause.resumeToken }),
  ).toHaveProperty('result');
  open.pop();
  expect((await recorder.close()).complete).toBe(true);

  const log = join(dir, 'session.receipts.jsonl');
  const before = await readFile(log);
  const audit = async (recording?: string): Promise<Map<string, Row>> => {
    const r = await auditVerdict([log], receiptKey, { recording });
    expect(r.code, r.why ?? '').toBe(0);
    return new Map((r.rows as unknown as Row[]).map((row) => [row.taskId, row]));
  };

  const withRecording = await audit(out);
  expect(withRecording.get(resumed)).toMatchObject({
    outcome: 'resumed',
    rules: { pause: 'pending/proven', end: 'open/resume-answered' },
  });
  // The lost pause's end is the rule `lost` names for it.
  const lost = await lostVerdict([out]);
  const lostRules = (lost.json as unknown as { lost: { taskId: string; rule: string | null }[] }).lost;
  expect(lostRules.map((l) => l.taskId)).toEqual([left]);
  expect(withRecording.get(left)).toMatchObject({
    outcome: 'open',
    rules: { pause: 'pending/proven', end: lostRules[0]?.rule },
  });

  const alone = await audit();
  expect([...alone.values()].map((r) => r.rules)).toEqual([null, null]);
  expect(await readFile(log)).toEqual(before);
});
