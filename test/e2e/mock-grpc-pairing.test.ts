/**
 * `mock` pairs ids over gRPC as over the JSON bindings (docs/design.md §13, §16): a session
 * recorded through `a2a-replay record` with a gRPC client, holding calls told apart only by the
 * task id they name (two GetTask of a task the peer does not know, answered NOT_FOUND, beside gets
 * of a task it does), is served by `mock` by that id: a client asking in another order than the
 * recorded one gets each get's own answer, and `run --strict` of the recording passes against it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { startCliProcess, startRecordProcess, stopProcess, startMockProcess } from '../helpers/cli-process.js';

const KEY = join(ROOT, 'golden', 'test-key.json');
let dir = '';
let recording = '';

/** Two gets of an unknown task around a task's send, get and resume; the unknown one answered NOT_FOUND each time. */
async function session(client: A2aTestClient): Promise<void> {
  const missing = await client.call('GetTask', { id: 'task-nope' });
  expect(missing.error?.code).toBe(-32001);
  const sent = await client.ok<{ task: { id: string } }>('SendMessage', {
    message: { messageId: 'pair-m1', role: 'ROLE_USER', parts: [{ text: 'work:2' }] },
    configuration: { returnImmediately: true },
  });
  await client.ok('GetTask', { id: sent.task.id });
  const again = await client.call('GetTask', { id: 'task-nope' });
  expect(again.error?.code).toBe(-32001);
  await client.control('AdvanceClock', { ms: 2000 });
  await client.ok('GetTask', { id: sent.task.id });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mock-grpc-pairing-'));
  recording = join(dir, 'pairing.jsonl');
  const peer = await startCliProcess(['peer', '--deterministic']);
  const recorder = await startRecordProcess(['--upstream', peer.url, '--out', recording, '--key', KEY]);
  const client = new A2aTestClient(recorder.url, 'operator', 'GRPC');
  try {
    await session(client);
  } finally {
    client.close();
    await stopProcess(recorder);
    await stopProcess(peer);
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('answers each gRPC get by the task it names, also asked in another order than recorded', async () => {
  const mock = await startMockProcess([recording, '--expect-all']);
  const client = new A2aTestClient(mock.url, 'operator', 'GRPC');
  try {
    expect((await client.call('GetTask', { id: 'task-nope' })).error?.code).toBe(-32001);
    const sent = await client.ok<{ task: { id: string } }>('SendMessage', {
      message: { messageId: 'pair-m1', role: 'ROLE_USER', parts: [{ text: 'work:2' }] },
      configuration: { returnImmediately: true },
    });
    // Recorded: the get of the known task, then the second get of the unknown one.
    const missing = await client.call('GetTask', { id: 'task-nope' });
    expect(missing.error?.code, JSON.stringify(missing)).toBe(-32001);
    const got = await client.ok<{ id: string; status: { state: string } }>('GetTask', { id: sent.task.id });
    expect(got.id).toBe(sent.task.id);
    expect(got.status.state).toBe('TASK_STATE_WORKING');
  } finally {
    client.close();
    await stopProcess(mock);
  }
  expect(mock.stdout()).not.toMatch(/no recorded exchange matches/);
});

it('serves a gRPC recording with two gets of an unknown task so that run --strict passes', async () => {
  const direct = await runCli(['run', recording, '--key', KEY, '--strict']);
  expect(direct.code, direct.stdout + direct.stderr).toBe(0);
  const mock = await startMockProcess([recording, '--expect-all']);
  let passed = false;
  try {
    const r = await runCli(['run', recording, '--peer', mock.url, '--key', KEY, '--strict']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^PASS /m);
    passed = true;
  } finally {
    const code = await stopProcess(mock);
    if (passed) expect(code, mock.stdout() + mock.stderr()).toBe(0);
  }
});
