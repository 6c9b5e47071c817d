/**
 * `audit --json` names the observer rules that decided each row (docs/design.md §14.8): the rule
 * that proved the pause and the one that ended it, worked out again from the recording given with
 * `--recording`; with the receipt log alone they are null. The log's bytes are not touched.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { runCli } from '../helpers/cli.js';
import { type CliProcess, startCliProcess, startRecordProcess, stopProcess } from '../helpers/cli-process.js';

let dir = '';
const procs: CliProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'audit-rules-'));
});
afterEach(async () => {
  for (const p of procs.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
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
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'rules' }).keyFile()), { mode: 0o600 });
  const peer = await startCliProcess(['peer', '--deterministic']);
  procs.push(peer);
  const out = join(dir, 'session.jsonl');
  const recorder = await startRecordProcess(['--upstream', peer.url, '--out', out, '--key', key]);
  procs.push(recorder);

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
  expect(await stopProcess(recorder)).toBe(0);

  const log = join(dir, 'session.receipts.jsonl');
  const before = await readFile(log);
  const audit = async (extra: string[]): Promise<Map<string, Row>> => {
    const r = await runCli(['audit', log, '--key', key, '--json', ...extra]);
    expect(r.code, r.stderr).toBe(0);
    return new Map((JSON.parse(r.stdout) as Row[]).map((row) => [row.taskId, row]));
  };

  const withRecording = await audit(['--recording', out]);
  expect(withRecording.get(resumed)).toMatchObject({
    outcome: 'resumed',
    rules: { pause: 'pending/proven', end: 'open/resume-answered' },
  });
  // The lost pause's end is the rule `lost` names for it.
  const lost = await runCli(['lost', out, '--json']);
  const lostRules = (JSON.parse(lost.stdout) as { lost: { taskId: string; rule: string | null }[] }).lost;
  expect(lostRules.map((l) => l.taskId)).toEqual([left]);
  expect(withRecording.get(left)).toMatchObject({
    outcome: 'open',
    rules: { pause: 'pending/proven', end: lostRules[0]?.rule },
  });

  const alone = await audit([]);
  expect([...alone.values()].map((r) => r.rules)).toEqual([null, null]);
  expect(await readFile(log)).toEqual(before);
});
