/**
 * The examples of docs/api.md, run as they are written there (relative imports stand in for the
 * package name): a stock SDK client recorded in process, a receipt log verified and audited from
 * code, a recording replayed against the reference peer, and a stock SDK client pausing and resuming
 * a task against the mock of a recording and against the reference peer itself.
 */
import { join } from 'node:path';
import { Role, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { expect, it } from 'vitest';
import {
  CounterIdSource,
  Keyring,
  ManualClock,
  RecordingWriter,
  createRecordingFetch,
  loadKeyFile,
  readRecording,
  runRecording,
  startPeer,
  verifyReceiptLog,
} from '../../src/index.js';
import { ExchangeRecorder, MemoryLineSink } from '../../src/public/intercept.js';
import { auditReceiptLog } from '../../src/public/receipts.js';
import { createMockFetch } from '../../src/public/mock.js';
import { TOOL_NAME, parsePace, replayRecordings, runCorpus } from '../../src/public/replay.js';
import { ROOT } from '../helpers/cli.js';

it('records a stock SDK client in process through createRecordingFetch', async () => {
  const peer = await startPeer({ stepMs: 5 });
  try {
    const sink = new MemoryLineSink();
    const writer = new RecordingWriter({
      sink,
      clock: new ManualClock(0),
      ids: new CounterIdSource(1),
      target: peer.url,
    });
    const fetchImpl = createRecordingFetch(fetch, {
      recorder: new ExchangeRecorder({ writer, ids: new CounterIdSource(2) }),
    });
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    );
    const client = await factory.createFromUrl(peer.url);
    const task = await client.sendMessage({
      tenant: '',
      message: {
        messageId: 'm-1',
        contextId: '',
        taskId: '',
        role: Role.ROLE_USER,
        parts: [{ content: { $case: 'text', value: 'work:1' }, metadata: undefined, filename: '', mediaType: '' }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    });
    await writer.close();

    const methods = sink
      .lines()
      .slice(1)
      .map((line) => JSON.parse(line) as { kind: string; body?: { method?: string } })
      .filter((entry) => entry.kind === 'request')
      .map((entry) => entry.body?.method ?? 'GET');
    expect(methods).toEqual(['GET', 'SendMessage']);
    expect(task).toHaveProperty('id');
  } finally {
    await peer.close();
  }
});

it('verifies and audits a receipt log from code', async () => {
  const { key } = await loadKeyFile(join(ROOT, 'golden/test-key.json'));
  const keyring = new Keyring([key]);
  const log = join(ROOT, 'golden/wrong-token-then-right/recording.receipts.jsonl');

  const result = await verifyReceiptLog(log, { keyring });
  expect(result.ok).toBe(true);

  const { rows } = await auditReceiptLog(log, { keyring });
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ initiatedBy: 'PAUSE_INITIATOR_CLIENT', outcome: 'resumed' });
});

it('replays a recording against a fresh reference peer and finds no drift', async () => {
  const { key } = await loadKeyFile(join(ROOT, 'golden/test-key.json'));
  const file = join(ROOT, 'golden/wrong-token-then-right/recording.jsonl');
  const result = await runRecording(file, {
    openPeer: () => startPeer({ deterministic: true }),
    keyring: new Keyring([key]),
    tool: TOOL_NAME,
  });
  expect(result.outcome).toBe('match');
  expect((await readRecording(file)).entries.length).toBeGreaterThan(0);
});

it('replays as a2a-replay run does in one call, replayRecordings, and refuses a bad combination', async () => {
  const { key } = await loadKeyFile(join(ROOT, 'golden/test-key.json'));
  const file = join(ROOT, 'golden/wrong-token-then-right/recording.jsonl');
  const summary = await replayRecordings([file], { keyring: new Keyring([key]), seed: 0 });
  expect(summary.results.map((r) => r.outcome)).toEqual(['match']);
  expect(summary.exitCode).toBe(0);
  // The peer option is the one replayed against: one that does not answer is an infrastructure failure.
  const unreachable = await replayRecordings([file], { keyring: new Keyring([key]), peer: 'http://127.0.0.1:9' });
  expect(unreachable.results.map((r) => r.outcome)).toEqual(['infrastructure']);
  expect(unreachable.exitCode).toBe(3);
  await expect(replayRecordings([file], { peer: 'http://127.0.0.1:9', peerCmd: 'x' })).rejects.toMatchObject({
    code: 'INVALID_ARGUMENT',
  });
  await expect(replayRecordings([file], { merge: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
});

it('pauses and resumes a task with a stock SDK client against a recording, through createMockFetch', async () => {
  const recording = await readRecording(join(ROOT, 'golden/caller-pause-interrupt-immediate/recording.jsonl'));
  // The SDK sends a default `configuration` the recorded client did not: a noise rule, as for `run`.
  const fetchImpl = createMockFetch(recording, { ignore: ['/params/configuration'] });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  const client = await factory.createFromUrl(fetchImpl.url); // the card the mock serves points at the mock
  const transport = client.transport as unknown as {
    callExtensionMethod(method: string, params: unknown, options?: object): Promise<{ result?: unknown }>;
  };
  // The SDK adds A2A-Version to its own methods only: an extension call must carry it itself.
  const version = { serviceParameters: { 'A2A-Version': client.protocolVersion } };
  const stream = client.sendMessageStream({
    tenant: '',
    message: {
      messageId: 'my-m1',
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [
        { content: { $case: 'text', value: 'work:1 tool:4 work:1' }, metadata: undefined, filename: '', mediaType: '' },
      ],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  });
  const states: string[] = [];
  for await (const event of stream) {
    const p = event.payload;
    if (p?.$case === 'task') {
      // The SDK has no pause methods: PauseTask and ResumeTask go through its transport.
      const paused = await transport.callExtensionMethod(
        'PauseTask',
        {
          taskId: p.value.id,
          reason: 'operator review',
          mode: 'interrupt_immediate',
        },
        version,
      );
      const { resumeToken } = (paused.result as { pause: { resumeToken: string } }).pause;
      await transport.callExtensionMethod('ResumeTask', { taskId: p.value.id, resumeToken }, version);
    }
    if (p?.$case === 'statusUpdate') states.push(String(TaskState[p.value.status?.state ?? 0]));
  }
  // The SDK decodes TASK_STATE_PAUSED, which it does not know, as UNRECOGNIZED.
  expect(states).toEqual(['TASK_STATE_WORKING', 'UNRECOGNIZED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
  expect(fetchImpl.report().unmatched).toEqual([]);
});
it('pauses and resumes a task of the reference peer from a stock SDK client', async () => {
  const peer = await startPeer({ deterministic: true }); // its clock moves only through /control
  const client = await new ClientFactory().createFromUrl(peer.url);
  // The SDK has no pause methods: PauseTask and ResumeTask go through its transport, which adds
  // A2A-Version to the SDK's own methods only; without it the peer answers -32009.
  const transport = client.transport as unknown as {
    callExtensionMethod(method: string, params: unknown, options?: object): Promise<{ result?: unknown }>;
  };
  const version = { serviceParameters: { 'A2A-Version': client.protocolVersion } };
  const advance = (ms: number) =>
    fetch(`${peer.url}/control`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'AdvanceClock', params: { ms } }),
    });
  const stream = client.sendMessageStream({
    tenant: '',
    message: {
      messageId: 'm-1',
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: 'work:3' }, metadata: undefined, filename: '', mediaType: '' }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  });
  const states: string[] = [];
  for await (const event of stream) {
    const p = event.payload;
    if (p?.$case === 'task') {
      const paused = await transport.callExtensionMethod(
        'PauseTask',
        {
          taskId: p.value.id,
          reason: 'operator review',
          mode: 'interrupt_immediate',
        },
        version,
      );
      const { resumeToken } = (paused.result as { pause: { resumeToken: string } }).pause;
      await transport.callExtensionMethod('ResumeTask', { taskId: p.value.id, resumeToken }, version);
      await advance(3000); // the three steps of work:3
    }
    if (p?.$case === 'statusUpdate') states.push(String(TaskState[p.value.status?.state ?? 0]));
  }
  // The SDK decodes TASK_STATE_PAUSED, which it does not know, as UNRECOGNIZED.
  expect(states).toEqual(['TASK_STATE_WORKING', 'UNRECOGNIZED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
  await peer.close();
});

it('replays against a live peer at the pace asked, and reads a pace as the CLI does', async () => {
  const live = await startPeer({ stepMs: 5 }); // real time: a clock of its own, which no replay moves
  const summary = await runCorpus([join(ROOT, 'golden/wrong-token-then-right/recording.jsonl')], {
    openPeer: async () => ({ url: live.url, close: async () => {} }),
    pace: parsePace('none'), // as fast as the answers allow
    tool: TOOL_NAME,
  });
  const timing = summary.results[0]?.drift.filter((d) => d.type === 'timing');
  await live.close();
  expect(['match', 'drift']).toContain(summary.results[0]?.outcome);
  for (const d of timing ?? []) expect(d).toMatchObject({ clock: 'wall', replayedMs: expect.any(Number) as number });
  expect(parsePace('x2')).toEqual({ kind: 'scaled', factor: 2 });
  expect(() => parsePace('fast')).toThrow(/expected recorded, none, or xN/);
});
