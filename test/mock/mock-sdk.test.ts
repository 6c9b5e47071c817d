/**
 * The stock `@a2a-js/sdk` client against the mock: a pause/resume session is recorded from the
 * real client against the deterministic reference peer, then the same client code runs against
 * the mock of that recording — over a socket (`startMockServer`) and in process
 * (`createMockFetch`) — and gets the recorded results: the stream stops at PAUSED and goes on
 * after the resume, the token the mock hands out resumes the task once, a wrong token and a
 * second resume get their errors.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Message, Role, TaskState } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { CounterIdSource } from '../../src/ids.js';
import { ExchangeRecorder } from '../../src/intercept/exchange-recorder.js';
import { createRecordingFetch } from '../../src/intercept/recording-fetch.js';
import { createMockFetch } from '../../src/mock/mock-fetch.js';
import { startMockServer } from '../../src/mock/mock-server.js';
import { startPeer } from '../../src/peer/start-peer.js';
import { fileLineSink } from '../../src/recording/line-sink.js';
import { type Recording, readRecording } from '../../src/recording/recording-reader.js';
import { RecordingWriter } from '../../src/recording/recording-writer.js';
import { tokenPlaceholder } from '../../src/recording/resume-token.js';

interface ExtensionTransport {
  callExtensionMethod(
    method: string,
    params: unknown,
    options?: { serviceParameters?: Record<string, string> },
  ): Promise<{ result?: unknown }>;
}

const VERSION = { serviceParameters: { 'A2A-Version': '1.0' } };

function message(text: string, messageId: string): Message {
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

function clientFor(fetchImpl: typeof fetch, url: string): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(url);
}

/** The error code a failed call got (the SDK throws typed errors carrying it). */
function codeOf(error: unknown): unknown {
  const e = error as { code?: unknown; envelopeCode?: unknown; message?: string };
  return e.envelopeCode ?? e.code ?? e.message;
}

/**
 * A client session: stream a task, pause it, resume with a wrong token, resume, resume again,
 * move the peer's clock to the end (a /control call through the same fetch), then read the task.
 */
async function session(fetchImpl: typeof fetch, url: string, messageId: string) {
  const client = await clientFor(fetchImpl, url);
  const transport = client.transport as unknown as ExtensionTransport;
  const events: unknown[] = [];
  let sawTask!: (id: string) => void;
  const taskId = new Promise<string>((resolve) => (sawTask = resolve));
  let sawPaused!: () => void;
  const paused = new Promise<void>((resolve) => (sawPaused = resolve));
  const streaming = (async () => {
    for await (const event of client.sendMessageStream({
      tenant: '',
      message: message('work:1 tool:2 work:1', messageId),
      configuration: undefined,
      metadata: undefined,
    })) {
      events.push(event);
      if (event.payload?.$case === 'task') sawTask(event.payload.value.id);
      // The SDK decodes TASK_STATE_PAUSED, which it does not know, as UNRECOGNIZED (-1).
      if (event.payload?.$case === 'statusUpdate' && event.payload.value.status?.state === TaskState.UNRECOGNIZED)
        sawPaused();
    }
  })();
  const id = await taskId;
  const pause = await transport.callExtensionMethod(
    'PauseTask',
    { taskId: id, mode: 'interrupt_immediate', reason: 'review' },
    VERSION,
  );
  await paused;
  // Nothing after PAUSED comes before the resume: the stream stays open, stopped there.
  const last = events.at(-1) as { payload?: { $case?: string; value?: { status?: { state?: number } } } } | undefined;
  const lastBeforeResume = `${last?.payload?.$case}:${last?.payload?.value?.status?.state}`;
  const token = (pause.result as { pause: { resumeToken: string } }).pause.resumeToken;
  const wrong = await transport
    .callExtensionMethod('ResumeTask', { taskId: id, resumeToken: 'not-the-token' }, VERSION)
    .catch(codeOf);
  const resumed = await transport.callExtensionMethod('ResumeTask', { taskId: id, resumeToken: token }, VERSION);
  const again = await transport
    .callExtensionMethod('ResumeTask', { taskId: id, resumeToken: token }, VERSION)
    .catch(codeOf);
  const moved = await fetchImpl(new URL('/control', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'AdvanceClock', params: { ms: 10_000 } }),
  });
  expect(moved.status).toBe(200);
  await moved.json();
  await streaming;
  const task = await client.getTask({ tenant: '', id, historyLength: undefined });
  return { id, token, events, lastBeforeResume, pause: pause.result, wrong, resumed: resumed.result, again, task };
}

let dir = '';
let recording: Recording;
let direct: Awaited<ReturnType<typeof session>>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mock-sdk-'));
  const peer = await startPeer({ deterministic: true });
  try {
    const file = join(dir, 'session.jsonl');
    const writer = new RecordingWriter({
      sink: fileLineSink(file),
      clock: new ManualClock(0),
      ids: new CounterIdSource(1),
      target: peer.url,
    });
    const fetchImpl = createRecordingFetch(fetch, {
      recorder: new ExchangeRecorder({ writer, ids: new CounterIdSource(2) }),
    });
    direct = await session(fetchImpl, peer.url, 'sdk-m1');
    await writer.close();
    recording = await readRecording(file);
  } finally {
    await peer.close();
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * What the mock's client must see: the direct session's results with the token as recorded (its
 * placeholder) and the client's own message id where the recording echoes the recorded one.
 */
function asRecorded(messageId: string): unknown {
  const text = JSON.stringify(direct)
    .replaceAll(direct.token, tokenPlaceholder(direct.token))
    .replaceAll('"sdk-m1"', JSON.stringify(messageId));
  return JSON.parse(text) as unknown;
}

function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

describe('the SDK client against the mock', () => {
  it('recorded a session that pauses, refuses a wrong token and a second resume, and completes', () => {
    expect(direct.lastBeforeResume).toBe('statusUpdate:-1');
    expect(direct.wrong).toBe(-32011);
    expect(direct.again).toBe(-32010);
    expect(direct.resumed).toMatchObject({ state: 'TASK_STATE_WORKING', cause: 'explicit_resume' });
    expect(direct.task.status?.state).toBe(3); // TASK_STATE_COMPLETED in the SDK's enum
  });

  it('gets the recorded results over a socket, the handed-out token resuming the task once', async () => {
    const mock = await startMockServer([{ source: 'session.jsonl', recording }]);
    try {
      const mocked = await session(fetch, mock.url, 'another-message-id');
      expect(mocked.token).toBe(tokenPlaceholder(direct.token));
      expect(plain(mocked)).toEqual(asRecorded('another-message-id'));
      expect(mocked.lastBeforeResume).toBe('statusUpdate:-1');
      expect(mock.report().recordings[0]?.unrequested).toEqual([]);
    } finally {
      await mock.close();
    }
  });

  it('gets the recorded results in process through createMockFetch', async () => {
    const mockFetch = createMockFetch(recording, { sources: ['session.jsonl'] });
    const mocked = await session(mockFetch, mockFetch.url, 'sdk-m1');
    expect(plain(mocked)).toEqual(asRecorded('sdk-m1'));
    expect(mockFetch.report().recordings[0]?.unrequested).toEqual([]);
    expect(mockFetch.report().unmatched).toEqual([]);
  });
});
