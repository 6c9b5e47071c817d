/**
 * The mock pairs ids over gRPC as over the JSON bindings (docs/design.md §13, §16), in-process
 * through the public entries: a session recorded through the recorder (`startRecorder` with the
 * test key, in front of `startPeer`) with a gRPC client, holding calls told apart only by the task
 * id they name (two GetTask of a task the peer does not know, answered NOT_FOUND, beside gets of a
 * task it does), is served by the mock (`startMockServer`, what `mock` starts) by that id: a client
 * asking in another order than the recorded one gets each get's own answer, and `replayRecordings`
 * strict (what `run --strict` calls) of the recording passes on the embedded peer and against the
 * mock, which then holds no exchange unrequested (`mock --expect-all` exits 0).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { GOLDEN_KEY } from '../golden/golden-receipts.js';
import { startMock, stopMock } from '../helpers/mock-in-process.js';
import { replayReport } from '../helpers/run-report.js';

const KEY = GOLDEN_KEY;
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
  const peer = await startPeer({ deterministic: true });
  try {
    const recorder = await startRecorder({ upstream: peer.url, out: recording, key: KEY, warn: () => undefined });
    const client = new A2aTestClient(recorder.url, 'operator', 'GRPC');
    try {
      await session(client);
    } finally {
      client.close();
      await recorder.close();
    }
  } finally {
    await peer.close();
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('answers each gRPC get by the task it names, also asked in another order than recorded', async () => {
  const mock = await startMock([recording]);
  const client = new A2aTestClient(mock.url, 'operator', 'GRPC');
  let stopped;
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
    stopped = await stopMock(mock);
  }
  expect(stopped.unmatched).toEqual([]);
});

it('serves a gRPC recording with two gets of an unknown task so that run --strict passes', async () => {
  const direct = await replayReport([recording], { key: KEY, strict: true });
  expect(direct.code, direct.stdout).toBe(0);
  const mock = await startMock([recording]);
  let passed = false;
  try {
    const r = await replayReport([recording], { peer: mock.url, key: KEY, strict: true });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^PASS /m);
    passed = true;
  } finally {
    const { unrequested } = await stopMock(mock);
    if (passed) expect(unrequested).toEqual([]);
  }
});
