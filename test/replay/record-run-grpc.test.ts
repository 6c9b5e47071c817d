/**
 * gRPC end to end over real sockets, in-process through the public entries (docs/design.md §8,
 * §13, §16): the stock `@a2a-js/sdk` gRPC client and a grpc-js client drive the reference peer
 * (`startPeer`) through the recorder (`startRecorder` with the test key, what `record --key` starts:
 * a unary send, a get, a not-found error, a stream the peer's clock moves to its end, a pause, a
 * wrong token and a resume on a stream open across PAUSED); `replayRecordings` of that recording
 * (what `run --update` and `run --strict` call) against the embedded peer passes, its receipts GRPC
 * ones, and the mock of it (`startMockServer`, what `mock` starts) serves the same clients the
 * recorded results, every recorded exchange requested and every request matched.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Message, Role, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { GOLDEN_KEY } from '../golden/golden-receipts.js';
import { startMock, stopMock } from '../helpers/mock-in-process.js';
import { replayReport } from '../helpers/run-report.js';
import { GrpcSessionWriter } from '../helpers/grpc-session-writer.js';
import { driveGrpcSession } from './grpc-session.js';

let dir = '';
let recording = '';
let recordedTaskId = '';
const KEY = GOLDEN_KEY;

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
  const peer = await startPeer({ deterministic: true });
  try {
    const recorder = await startRecorder({ upstream: peer.url, out: recording, key: KEY, warn: () => undefined });
    try {
      recordedTaskId = await session(recorder.url);
    } finally {
      await recorder.close();
    }
  } finally {
    await peer.close();
  }
  const update = await replayReport([recording], { update: true, key: KEY });
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
    const r = await replayReport([recording], { strict: true, key: KEY });
    expect(r.stdout).toMatch(/^PASS +.*grpc\.jsonl/m);
    expect(r.code).toBe(0);
  });

  it('serves the recording to the same clients from mock', async () => {
    const mock = await startMock([recording]);
    let stopped;
    try {
      expect(await session(mock.url)).toBe(recordedTaskId);
    } finally {
      stopped = await stopMock(mock);
    }
    expect(stopped).toEqual({ unrequested: [], unmatched: [] });
  });
});
