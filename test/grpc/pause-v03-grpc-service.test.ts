/**
 * The pause extension spoken over A2A v0.3 gRPC, end to end over real sockets through the recorder
 * with the test key (`startRecorder`, what `record --key` starts), in-process through the public
 * entries (docs/design.md §4, §14.10, §16): the stock 0.3.14 gRPC client starts the reference
 * peer's task over `a2a.v1.A2AService`; the pause and the resume travel as
 * `a2a.v1.pause.A2APauseService`'s PauseTask and ResumeTask (proto/a2a/v1/pause.proto), and a v0.3
 * GetTask between them reads the task PAUSED with its pause. One Suspension and one Resumption
 * receipt, both of binding GRPC, and no finding: `lost` is clean and `verify --recording` passes
 * (the calls each makes: `lostPauses`, `verifyLogSet`); `replayRecordings` (what `run` calls) on
 * the embedded peer derives them again; the mock (`startMockServer`) serves the pause, the paused
 * GetTask and the resume back over v0.3 gRPC (the token as the recording keeps it: its placeholder).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type JsonValue, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import { Client, Metadata, credentials } from '@grpc/grpc-js';
import type { Task } from 'a2a-sdk-v03';
import { GrpcTransport } from 'a2a-sdk-v03/client/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V03GrpcName } from '../../src/grpc/method-paths.js';
import { GRPC_V03_METHODS } from '../../src/grpc/methods.js';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import { tokenPlaceholder } from '../../src/recording/resume-token.js';
import { startRecorder } from '../../src/public/record.js';
import { GOLDEN_KEY } from '../golden/golden-receipts.js';
import { startMock, stopMock } from '../helpers/mock-in-process.js';
import { lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { replayReport } from '../helpers/run-report.js';

const KEY = GOLDEN_KEY;
type Json = Record<string, unknown>;

let dir = '';
let out = '';
let taskId = '';
const answers: Record<string, Json> = {};

/** A unary call of v0.3's services sent raw, its message and answer as ProtoJSON of their v0.3 messages. */
function unary(target: string, name: V03GrpcName, message: Json): Promise<Json> {
  const { service, request, response } = GRPC_V03_METHODS[name];
  const client = new Client(target, credentials.createInsecure());
  return new Promise<Json>((resolve, reject) => {
    client.makeUnaryRequest(
      `/${service}/${name}`,
      (value: JsonValue) => Buffer.from(toBinary(request, fromJson(request, value))),
      (bytes: Buffer) => toJson(response, fromBinary(response, bytes)),
      message as JsonValue,
      new Metadata(),
      (error, value) => {
        client.close();
        if (error) reject(error);
        else resolve(value as Json);
      },
    );
  });
}

/** Starts `work:5` with the stock client, then pauses, reads and resumes it over v0.3 gRPC at `target`. */
async function session(target: string, into: Record<string, Json>): Promise<string> {
  const started = (await new GrpcTransport({ endpoint: target }).sendMessage({
    message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'work:5' }] },
    configuration: { blocking: false, acceptedOutputModes: [] },
  })) as Task;
  const id = started.id;
  into.paused = await unary(target, 'PauseTask', { taskId: id, mode: 'interrupt_immediate', reason: 'review' });
  into.whilePaused = await unary(target, 'GetTask', { name: `tasks/${id}` });
  const token = (into.paused.pause as { resumeToken: string }).resumeToken;
  into.resumed = await unary(target, 'ResumeTask', { taskId: id, resumeToken: token });
  into.after = await unary(target, 'GetTask', { name: `tasks/${id}` });
  return id;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pause-v03-grpc-service-'));
  out = join(dir, 'pause.jsonl');
  const peer: RunningPeer = await startPeer({ deterministic: true, stepMs: 1000 });
  try {
    const warnings: string[] = [];
    const recorder = await startRecorder({ upstream: peer.url, out, key: KEY, warn: (l) => warnings.push(l) });
    try {
      taskId = await session(new URL(recorder.url).host, answers);
    } finally {
      // `record` exits 0 when every line was written.
      expect((await recorder.close()).complete, warnings.join('\n')).toBe(true);
    }
  } finally {
    await peer.close();
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the pause extension over v0.3 gRPC (a2a.v1.pause.A2APauseService), through record --key', () => {
  it('pauses, shows the pause to a v0.3 GetTask and resumes, each answer in the v0.3 superset messages', () => {
    expect(answers.paused).toMatchObject({
      taskId,
      state: 'TASK_STATE_PAUSED',
      pause: { initiatedBy: 'PAUSE_INITIATOR_CLIENT', reason: 'review', resumable: true },
    });
    expect(answers.whilePaused).toMatchObject({
      id: taskId,
      status: { state: 'TASK_STATE_PAUSED', pause: { resumeToken: (answers.paused?.pause as Json).resumeToken } },
    });
    expect(answers.resumed).toMatchObject({
      taskId,
      state: 'TASK_STATE_WORKING',
      previousState: 'TASK_STATE_PAUSED',
      cause: 'explicit_resume',
    });
    expect(answers.after).toMatchObject({ id: taskId, status: { state: 'TASK_STATE_WORKING' } });
  });

  it('receipts the pause and the resume with binding GRPC, and lost and verify --recording find nothing', async () => {
    const log = join(dir, 'pause.receipts.jsonl');
    const lines = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json)
      .filter((l) => l.type !== 'ReceiptLog' && l.type !== 'Checkpoint');
    expect(lines).toMatchObject([
      { type: 'SuspensionReceipt', taskId, binding: 'GRPC', initiatedBy: 'PAUSE_INITIATOR_CLIENT', reason: 'review' },
      { type: 'ResumptionReceipt', taskId, binding: 'GRPC', outcome: 'resumed' },
    ]);
    const lost = await lostVerdict([out]);
    expect(lost.code, JSON.stringify(lost.json)).toBe(0);
    expect(lost.json).toMatchObject({ lost: [], understood: true, read: true, dialects: { '0.3': 5 } });
    const verified = await verifyVerdict([log], KEY, { checks: { recording: out } });
    expect(verified.code, verified.lines.join('\n')).toBe(0);
  });

  it('replays on the embedded peer to a PASS, the receipts derived again', async () => {
    const r = await replayReport([out], { key: KEY, json: true });
    expect(r.code, r.stdout).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      results: [{ outcome: 'match', receipts: { expectedReceipts: 2, actualReceipts: 2, differences: [] } }],
    });
  });

  it('serves the pause, the paused task and the resume back from mock over v0.3 gRPC', async () => {
    const mock = await startMock([out]);
    try {
      const served: Record<string, Json> = {};
      expect(await session(new URL(mock.url).host, served)).toBe(taskId);
      // The recording keeps no token in clear: the mock pauses with its placeholder and takes it back.
      const token = (answers.paused?.pause as Json).resumeToken as string;
      const placeholder = tokenPlaceholder(token);
      expect((served.paused?.pause as Json).resumeToken).toBe(placeholder);
      expect(JSON.parse(JSON.stringify(served).replaceAll(placeholder, token))).toEqual(answers);
    } finally {
      await stopMock(mock);
    }
  });
});
