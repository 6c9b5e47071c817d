/**
 * A pause of a task reached over A2A v0.3 gRPC, end to end through a keyed recorder
 * (`startRecorder`, what `record --key` runs; docs/design.md §4, §14.10, §16): the stock 0.3.14
 * gRPC client starts the reference peer's task over `a2a.v1.A2AService`; the pause and the resume
 * travel over another binding, as the v0.3 JSON-RPC extension (`tasks/pause`, `tasks/resume`; over
 * v0.3 gRPC itself: test/e2e/pause-v03-grpc-service.test.ts); a v0.3 gRPC GetTask after them reads
 * the task working again. One Suspension and one Resumption receipt, no finding; `run` on the
 * embedded peer derives them again; `mock` serves the session back, the GetTask over gRPC. The
 * peer, the recorder, the replay, `lost` and the mock run in this process, as the commands call
 * them.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type JsonValue, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import { Client, Metadata, credentials } from '@grpc/grpc-js';
import type { Task } from 'a2a-sdk-v03';
import { GrpcTransport } from 'a2a-sdk-v03/client/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRPC_V03_METHODS } from '../../src/grpc/methods.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { lostVerdict } from '../helpers/verdicts.js';
import { startMock } from '../helpers/mock-in-process.js';
import { replayReport } from '../helpers/run-report.js';

const KEY = fileURLToPath(new URL('../../golden/test-key.json', import.meta.url));
type Json = Record<string, unknown>;

let dir = '';
let out = '';
let taskId = '';
let afterTask: Json = {};

/** A v0.3 gRPC GetTask sent raw, its answer as ProtoJSON of the v0.3 Task. */
function getTaskRaw(target: string, id: string): Promise<Json> {
  const { request, response } = GRPC_V03_METHODS.GetTask;
  const client = new Client(target, credentials.createInsecure());
  return new Promise<Json>((resolve, reject) => {
    client.makeUnaryRequest(
      '/a2a.v1.A2AService/GetTask',
      (value: JsonValue) => Buffer.from(toBinary(request, fromJson(request, value))),
      (bytes: Buffer) => toJson(response, fromBinary(response, bytes)),
      { name: `tasks/${id}` } as JsonValue,
      new Metadata(),
      (error, value) => {
        client.close();
        if (error) reject(error);
        else resolve(value as Json);
      },
    );
  });
}

async function rpc(url: string, method: string, params: Json): Promise<Json> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: Json }).result;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pause-v03-grpc-'));
  out = join(dir, 'pause.jsonl');
  const peer: RunningPeer = await startPeer({ deterministic: true, stepMs: 1000 });
  try {
    const recorder = await startRecorder({ upstream: peer.url, out, key: KEY, warn: () => undefined });
    try {
      const target = new URL(recorder.url).host;
      const client = new GrpcTransport({ endpoint: target });
      const started = (await client.sendMessage({
        message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'work:5' }] },
        configuration: { blocking: false, acceptedOutputModes: [] },
      })) as Task;
      taskId = started.id;
      const paused = await rpc(recorder.url, 'tasks/pause', { taskId, mode: 'interrupt_immediate' });
      expect(paused).toMatchObject({ taskId, state: 'paused' });
      const token = (paused.pause as { resumeToken: string }).resumeToken;
      expect(await rpc(recorder.url, 'tasks/resume', { taskId, resumeToken: token })).toMatchObject({
        previousState: 'paused',
      });
      afterTask = await getTaskRaw(target, taskId);
    } finally {
      expect((await recorder.close()).complete).toBe(true);
    }
  } finally {
    await peer.close();
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a pause of a task reached over v0.3 gRPC, through record --key', () => {
  it('receipts the pause and its resume of a task started over v0.3 gRPC', async () => {
    expect(afterTask).toMatchObject({ id: taskId, status: { state: 'TASK_STATE_WORKING' } });
    const lines = (await readFile(join(dir, 'pause.receipts.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json)
      .filter((l) => l.type !== 'ReceiptLog' && l.type !== 'Checkpoint');
    expect(lines).toMatchObject([
      { type: 'SuspensionReceipt', taskId },
      { type: 'ResumptionReceipt', taskId },
    ]);
    const lost = await lostVerdict([out]);
    expect(lost.code, JSON.stringify(lost.json)).toBe(0);
    expect(lost.json).toMatchObject({ understood: true, dialects: { '0.3': 4 } });
  });

  it('replays on the embedded peer to a PASS, the receipts derived again', async () => {
    const r = await replayReport([out], { key: KEY, json: true });
    expect(r.code, r.stdout).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      results: [{ outcome: 'match', receipts: { expectedReceipts: 2, actualReceipts: 2, differences: [] } }],
    });
  });

  it('serves the session back from mock, the v0.3 gRPC calls over gRPC', async () => {
    const mock = await startMock([out]);
    try {
      const target = new URL(mock.url).host;
      await new GrpcTransport({ endpoint: target }).sendMessage({
        message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'work:5' }] },
        configuration: { blocking: false, acceptedOutputModes: [] },
      });
      const paused = await rpc(mock.url, 'tasks/pause', { taskId, mode: 'interrupt_immediate' });
      const token = (paused.pause as { resumeToken: string }).resumeToken;
      expect(await rpc(mock.url, 'tasks/resume', { taskId, resumeToken: token })).toMatchObject({ state: 'working' });
      expect(await getTaskRaw(target, taskId)).toEqual(afterTask);
    } finally {
      await mock.close();
    }
  });
});
