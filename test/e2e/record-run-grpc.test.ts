/**
 * gRPC end to end with real processes (docs/design.md §8, §13, §16): the stock `@a2a-js/sdk` gRPC
 * client and a grpc-js client drive the reference peer through `a2a-replay record` (a unary send,
 * a get, a not-found error, a stream the peer's clock moves to its end, a pause, a wrong token and
 * a resume on a stream open across PAUSED); `run --strict` of that recording against the embedded
 * peer passes, its receipts GRPC ones, and `mock` of it serves the same clients the recorded results.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Message, Role, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { GrpcSessionWriter } from '../helpers/grpc-session-writer.js';
import { startCliProcess, startRecordProcess, stopProcess, startMockProcess } from '../helpers/cli-process.js';
import { driveGrpcSession } from '../replay/grpc-session.js';

let dir = '';
let recording = '';
let recordedTaskId = '';
const KEY = join(ROOT, 'golden', 'test-key.json');

function sdkMessage(text: string, messageId: string): Message {
  return {
    messageId,
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The SDK's part of the session: a send, a get and a get of an unknown task; the task's id. */
async function sdkCalls(sdk: Client): Promise<string> {
  const sent = await sdk.sendMessage({
    tenant: '',
    message: sdkMessage('input', 'sdk-1'),
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      historyLength: undefined,
      returnImmediately: true,
    },
    metadata: undefined,
  });
  if (!('status' in sent)) throw new Error('expected a task');
  expect(sent.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const got = await sdk.getTask({ tenant: '', id: sent.id, historyLength: undefined });
  expect(got.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const missing = await sdk.getTask({ tenant: '', id: 'task-nope', historyLength: undefined }).catch((e: unknown) => e);
  expect(missing).toBeInstanceOf(TaskNotFoundError);
  return sent.id;
}

/** The whole session against `url` (the recorder or the mock), both clients finding gRPC through its card. */
async function session(url: string): Promise<string> {
  const sdk = await new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(url);
  const taskId = await sdkCalls(sdk);
  const writer = new GrpcSessionWriter(new URL(url).host);
  try {
    await driveGrpcSession(writer, url);
  } finally {
    writer.close();
  }
  return taskId;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-run-grpc-'));
  recording = join(dir, 'grpc.jsonl');
  const peer = await startCliProcess(['peer', '--deterministic']);
  const recorder = await startRecordProcess(['--upstream', peer.url, '--out', recording, '--key', KEY]);
  try {
    recordedTaskId = await session(recorder.url);
  } finally {
    await stopProcess(recorder);
    await stopProcess(peer);
  }
  const update = await runCli(['run', recording, '--update', '--key', KEY]);
  expect(update.stdout).not.toMatch(/rewritten/);
  expect(update.code).toBe(0);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('record, run and mock over gRPC', () => {
  it('records every gRPC call of the session', async () => {
    const text = await readFile(recording, 'utf8');
    expect(text).toContain('"path":"/lf.a2a.v1.A2AService/SendStreamingMessage"');
    expect(text).toContain('"path":"/lf.a2a.v1.pause.A2APauseService/ResumeTask"');
    expect(text).toContain('"reason":"RESUME_TOKEN_MISMATCH"');
    expect(text).toContain('"reason":"TASK_NOT_FOUND"');
  });

  it('replays the recording with --strict against the embedded peer, its receipts GRPC ones', async () => {
    const golden = await readFile(join(dir, 'grpc.receipts.jsonl'), 'utf8');
    expect(golden).toContain('"binding":"GRPC"');
    const r = await runCli(['run', recording, '--strict', '--key', KEY]);
    expect(r.stdout).toMatch(/^PASS +.*grpc\.jsonl/m);
    expect(r.code).toBe(0);
  });

  it('serves the recording to the same clients from mock', async () => {
    const mock = await startMockProcess([recording]);
    try {
      expect(await session(mock.url)).toBe(recordedTaskId);
    } finally {
      await stopProcess(mock);
    }
    expect(mock.stdout()).not.toMatch(/unmatched|not requested/i);
  });
});
