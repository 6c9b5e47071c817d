/**
 * `a2a-replay peer --store DIR` outlives a kill -9: a client pauses a task through a keyed
 * recorder (`startRecorder`, what `record --key` runs, in this process), the peer process is
 * killed with SIGKILL and started again on the same store and port, and the client resumes
 * through the same recorder with the token it was given. The recorder's receipt log pairs the
 * ResumptionReceipt with the SuspensionReceipt, `verify` passes, `lost` finds nothing (the library
 * calls they make), and a second use of the token is refused.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canonicalJson, sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/public/receipts.js';
import { type Recorder, startRecorder } from '../../src/public/record.js';
import { runCli } from '../helpers/cli.js';
import { type CliProcess, startCliProcess, stopProcess } from '../helpers/cli-process.js';
import { lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { PeerClient } from '../peer/peer-client.js';

let dir = '';
const processes: CliProcess[] = [];
const recorders: Recorder[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'peer-store-'));
});
afterEach(async () => {
  for (const recorder of recorders.splice(0)) await recorder.close();
  for (const proc of processes.splice(0)) await stopProcess(proc, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

async function startPeerProcess(store: string, port: number): Promise<CliProcess> {
  const peer = await startCliProcess(['peer', '--deterministic', '--store', store, '--port', String(port)]);
  processes.push(peer);
  return peer;
}

it('resumes a pause with its token after the peer is killed with SIGKILL and restarted on its store', async () => {
  const store = join(dir, 'store');
  const keyFile = join(dir, 'key.json');
  const key = generateReceiptKey({ kid: 'e2e' });
  await writeFile(keyFile, canonicalJson(key.keyFile()), { mode: 0o600 });
  let peer = await startPeerProcess(store, 0);
  const port = Number(new URL(peer.url).port);
  const out = join(dir, 'session.jsonl');
  const recorder = await startRecorder({ upstream: peer.url, out, key: keyFile, warn: () => undefined });
  recorders.push(recorder);
  const client = new PeerClient(recorder.url);

  const task = await client.start('work:3');
  await client.advance(1500);
  const paused = await client.result<{ state: string; pause: { resumeToken: string } }>('PauseTask', {
    taskId: task.id,
    reason: 'operator review',
    mode: 'interrupt_immediate',
  });
  expect(paused.state).toBe('TASK_STATE_PAUSED');
  const token = paused.pause.resumeToken;
  expect((await stat(join(store, 'peer-store.jsonl'))).mode & 0o777).toBe(0o600);

  peer.child.kill('SIGKILL');
  await peer.exited;
  peer = await startPeerProcess(store, port);
  expect(peer.url).toBe(`http://127.0.0.1:${port}`);

  // The paused task, its pause and its clock came back: not TASK_NOT_FOUND.
  const after = await client.getTask(task.id);
  expect(after.status.state).toBe('TASK_STATE_PAUSED');
  expect(after.status.pause?.resumeToken).toBe(token);
  expect(after.artifacts).toHaveLength(1);
  const resumed = await client.result<{ state: string; cause: string }>('ResumeTask', {
    taskId: task.id,
    resumeToken: token,
  });
  expect(resumed).toMatchObject({ state: 'TASK_STATE_WORKING', cause: 'explicit_resume' });
  const again = await client.call('ResumeTask', { taskId: task.id, resumeToken: token });
  expect(again.error?.code).toBe(-32010);
  // The step interrupt_immediate aborted is redone; the script completes after the restart.
  await client.advance(3000);
  const done = await client.getTask(task.id);
  expect(done.status.state).toBe('TASK_STATE_COMPLETED');
  expect(done.artifacts).toHaveLength(3);

  recorders.splice(0);
  expect((await recorder.close()).complete).toBe(true);
  const receiptsFile = join(dir, 'session.receipts.jsonl');
  const lines = (await readFile(receiptsFile, 'utf8')).trimEnd().split('\n');
  const suspension = lines.find((l) => (JSON.parse(l) as { type: string }).type === 'SuspensionReceipt');
  const resumptions = lines
    .map((l) => JSON.parse(l) as { type: string; suspension?: string; outcome?: string; cause?: string })
    .filter((l) => l.type === 'ResumptionReceipt');
  expect(suspension).toBeDefined();
  expect(resumptions.map((r) => [r.suspension, r.outcome, r.cause])).toContainEqual([
    sha256Prefixed(suspension ?? ''),
    'resumed',
    'explicit_resume',
  ]);
  const verified = await verifyVerdict([receiptsFile], key, { checks: { recording: out } });
  expect(verified.code, verified.stdout).toBe(0);
  const lost = await lostVerdict([out]);
  expect(lost.code, JSON.stringify(lost.json)).toBe(0);
  expect(await stopProcess(peer)).toBe(0);
});

it('refuses to start a second peer on a store in use, naming the process that holds it', async () => {
  const store = join(dir, 'store');
  const first = await startPeerProcess(store, 0);
  const second = await runCli(['peer', '--deterministic', '--store', store]);
  expect(second.code).toBe(3);
  expect(second.stderr).toContain(`in use by process ${first.child.pid}`);
});
