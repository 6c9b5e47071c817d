/**
 * What clients may send that receipts and recordings cannot hold as it is, through a recorder with
 * a key (`startRecorder`) in front of the reference peer (`startPeer`), both in this process; what
 * `verify`, `audit`, `lost` and `run` conclude is the calls they make:
 * - a pause whose reason or conditions are as large as the recorder's body cap (1 MiB by default):
 *   before receipts bounded what they keep, the receipt line was longer than a log reader takes and
 *   the whole log stopped verifying there; now the text is cut and the conditions left out, their
 *   hashes kept and the members listed in `repaired`;
 * - a resume whose input holds a number beyond the double range (`1e400`): the observer could not
 *   hash it, wrote no ResumptionReceipt, and the resumed pause was listed as lost; now the number is
 *   recorded as null (as JSON.stringify writes it) and the resume is receipted and replays.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canonicalJson, hashCanonical } from '../../src/canonical/canonical-json.js';
import { RECEIPT_TEXT_MAX } from '../../src/receipts/drafts.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { MAX_LINE_BYTES } from '../../src/receipts/log-reader.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { auditLogSet, auditRefusal, loadKeyring, openLogSet } from '../../src/public/receipts.js';
import { type TestRecorder, startTestRecorder } from '../helpers/in-process.js';
import { replayReport } from '../helpers/run-report.js';
import { lostVerdict, verifyVerdict } from '../helpers/verdicts.js';

let dir = '';
const recorders: TestRecorder[] = [];
const peers: RunningPeer[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-oversized-'));
});
afterEach(async () => {
  for (const r of recorders.splice(0)) await r.close();
  for (const p of peers.splice(0)) await p.close();
  await rm(dir, { recursive: true, force: true });
});

async function call(base: string, method: string, params: unknown, raw?: string): Promise<Record<string, unknown>> {
  const res = await fetch(base, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: raw ?? JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const answer = (await res.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (answer.result === undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/** A key, the reference peer and a recorder with the key in front of it, writing `name.jsonl`. */
async function session(name: string): Promise<{ keyFile: string; out: string; recorder: TestRecorder }> {
  const keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: name }).keyFile()), { mode: 0o600 });
  const peer = await startPeer({ deterministic: true });
  peers.push(peer);
  const out = join(dir, `${name}.jsonl`);
  const recorder = await startTestRecorder({ upstream: peer.url, out, key: keyFile });
  recorders.push(recorder);
  return { keyFile, out, recorder };
}

/** Closes `recorder` as `record` stops on SIGTERM; every line written (`record` exits 0). */
async function stopped(recorder: TestRecorder): Promise<void> {
  expect((await recorder.close()).complete, recorder.warnings.join('\n')).toBe(true);
}

it('keeps a log whose pauses carry a megabyte of reason or conditions verifiable, cut and listed', async () => {
  const { keyFile, out, recorder } = await session('big');

  // Each request stays under the recorder's 1 MiB body cap; each would make a receipt line over it.
  const pauses = [
    { reason: 'r'.repeat(1_048_000) },
    { reason: '\u0001'.repeat(174_000) },
    { reason: 'waiting', conditions: { onEvent: '\u0001'.repeat(170_000) } },
  ];
  // A pause with conditions is the agent's, asked for with AwaitTaskResumption.
  const methodOf = (i: number): string => (i === 2 ? 'AwaitTaskResumption' : 'PauseTask');
  const tasks: string[] = [];
  for (const [i, pause] of pauses.entries()) {
    const { task } = (await call(recorder.url, 'SendMessage', {
      message: { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    })) as { task: { id: string } };
    tasks.push(task.id);
    const paused = (await call(recorder.url, methodOf(i), { taskId: task.id, ...pause })) as {
      pause: { resumeToken: string };
    };
    if (i === 0) await call(recorder.url, 'ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
  }
  await stopped(recorder);

  const log = out.replace(/\.jsonl$/, '.receipts.jsonl');
  const lines = (await readFile(log, 'utf8')).trimEnd().split('\n');
  for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThan(MAX_LINE_BYTES / 4);
  const receipts = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const suspensions = receipts.filter((r) => r.type === 'SuspensionReceipt');
  expect(suspensions.map((s) => s.taskId)).toEqual(tasks);
  for (const [i, s] of suspensions.slice(0, 2).entries()) {
    const reason = pauses[i]?.reason as string;
    const sha = createHash('sha256').update(reason, 'utf8').digest('hex');
    expect(s.reason).toBe(`${reason.slice(0, 256)}…[cut: ${reason.length} UTF-16 code units, sha256:${sha}]`);
    expect((s.reason as string).length).toBeLessThan(RECEIPT_TEXT_MAX);
    expect(s).toMatchObject({ conditions: null, conditionsHash: null, repaired: ['reason'] });
  }
  // Conditions too large are left out, their hash kept: it still matches what the client sent.
  expect(suspensions[2]).toMatchObject({
    reason: 'waiting',
    conditions: null,
    conditionsHash: hashCanonical(pauses[2]?.conditions),
    repaired: ['conditions'],
  });
  expect(receipts.filter((r) => r.type === 'ResumptionReceipt').map((r) => r.taskId)).toEqual([tasks[0]]);

  const verdict = await verifyVerdict([log], [keyFile]);
  expect(verdict.stdout).toContain(': ok: 4 receipts, 1 checkpoint');
  expect(verdict.code).toBe(0);
  // `audit` exits 0 when auditRefusal finds nothing to refuse.
  const set = await openLogSet([log], { keys: [keyFile] });
  try {
    const audit = await auditLogSet(set);
    expect(auditRefusal(audit)).toBeNull();
    expect(audit.rows).toHaveLength(3);
  } finally {
    await set.close();
  }
});

it('receipts and replays a resume whose input holds a number beyond the double range', async () => {
  const { keyFile, out, recorder } = await session('num');
  const { task } = (await call(recorder.url, 'SendMessage', {
    message: { messageId: 'm-n', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
    configuration: { returnImmediately: true },
  })) as { task: { id: string } };
  const paused = (await call(recorder.url, 'PauseTask', { taskId: task.id, mode: 'finish_step' })) as {
    pause: { resumeToken: string };
  };
  const params = `{"taskId":${JSON.stringify(task.id)},"resumeToken":${JSON.stringify(paused.pause.resumeToken)}`;
  const resumed = await call(
    recorder.url,
    'ResumeTask',
    null,
    `{"jsonrpc":"2.0","id":3,"method":"ResumeTask","params":${params},"input":{"budget":1e400,"n":2}}}`,
  );
  expect(resumed).toMatchObject({ state: 'TASK_STATE_WORKING' });
  await stopped(recorder);

  const log = out.replace(/\.jsonl$/, '.receipts.jsonl');
  const receipts = (await readFile(log, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(receipts.find((r) => r.type === 'ResumptionReceipt')).toMatchObject({
    taskId: task.id,
    outcome: 'resumed',
    inputHash: hashCanonical({ budget: null, n: 2 }),
    repaired: [],
  });
  const recorded = (await readFile(out, 'utf8')).split('\n').find((l) => l.includes('"method":"ResumeTask"'));
  expect(JSON.parse(recorded as string)).toMatchObject({ body: { params: { input: { budget: null, n: 2 } } } });
  const lost = await lostVerdict([out]);
  expect(lost.found.lost).toEqual([]);
  const { keyring } = await loadKeyring({ keys: [keyFile], env: {} });
  const replay = await replayReport([out], { keyring });
  expect(replay.stdout).toMatch(/^PASS/);
  expect(replay.code).toBe(0);
});
