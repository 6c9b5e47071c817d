/**
 * The real `@a2a-js/sdk` client through `a2a-replay record` (a child process) to a stock SDK
 * server: the client's results are the same with and without the recorder, streams included,
 * and the recording holds every exchange. The in-process fetch wrapper is checked the same way.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { CounterIdSource } from '../../src/ids.js';
import { ExchangeRecorder } from '../../src/intercept/exchange-recorder.js';
import { createRecordingFetch } from '../../src/intercept/recording-fetch.js';
import { MemoryLineSink } from '../../src/recording/line-sink.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { RecordingWriter } from '../../src/recording/recording-writer.js';
import { type CliProcess, startRecordProcess } from '../helpers/cli-process.js';
import { sdkSession as session, startSdkEchoServer } from '../intercept/sdk-echo-server.js';

let dir = '';
let upstream: Awaited<ReturnType<typeof startSdkEchoServer>> | undefined;
let recorder: CliProcess | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-sdk-'));
  upstream = await startSdkEchoServer();
});

afterEach(async () => {
  if (recorder && recorder.child.exitCode === null) recorder.child.kill('SIGKILL');
  recorder = undefined;
  await upstream?.close();
  await rm(dir, { recursive: true, force: true });
});

it('gives the SDK client the same results with and without the proxy, and records every exchange', async () => {
  const base = (upstream as { url: string }).url;
  const direct = await session(await new ClientFactory().createFromUrl(base));

  const out = join(dir, 'session.jsonl');
  recorder = await startRecordProcess(['--upstream', base, '--out', out]);
  const proxied = await session(await new ClientFactory().createFromUrl(recorder.url));
  expect(proxied).toEqual(direct);
  expect(JSON.stringify(direct)).toContain('"state":3'); // TASK_STATE_COMPLETED in the SDK's enum
  expect(JSON.stringify(direct)).toContain('TaskNotFoundError');

  recorder.child.kill('SIGTERM');
  expect(await recorder.exited).toBe(0);
  expect(recorder.stderr()).toContain('recording without receipts');

  const recording = await readRecording(out);
  expect(recording.header).toMatchObject({ type: 'recording', version: 1, target: { url: base } });
  const requests = recording.entries.filter((e) => e.kind === 'request');
  expect(
    requests.map((e) =>
      `${e.http.method} ${e.http.path} ${(e.body as { method?: string } | undefined)?.method ?? ''}`.trim(),
    ),
  ).toEqual([
    'GET /.well-known/agent-card.json',
    'POST /a2a/jsonrpc SendMessage',
    'POST /a2a/jsonrpc GetTask',
    'POST /a2a/jsonrpc SendStreamingMessage',
    'POST /a2a/jsonrpc GetTask',
    'POST /a2a/jsonrpc CancelTask',
  ]);
  // The recording keeps the card as the upstream sent it; the client got the proxy's address.
  const card = recording.entries.find((e) => e.kind === 'response' && e.http.path === '/.well-known/agent-card.json');
  expect(card?.body).toMatchObject({ supportedInterfaces: [{ url: `${base}/a2a/jsonrpc` }] });
  const streamXid = requests[3]?.xid;
  expect(recording.entries.filter((e) => e.xid === streamXid).map((e) => e.kind)).toEqual([
    'request',
    'response',
    'event',
    'event',
    'event',
    'event',
    'event',
    'event',
    'end',
  ]);
  expect(recording.entries.map((e) => e.seq)).toEqual(recording.entries.map((_, i) => i + 1));
});

it('drops into ClientFactory as its fetch and records the same exchanges in process', async () => {
  const base = (upstream as { url: string }).url;
  const direct = await session(await new ClientFactory().createFromUrl(base));
  const sink = new MemoryLineSink();
  const writer = new RecordingWriter({ sink, clock: new ManualClock(0), ids: new CounterIdSource(1), target: base });
  const fetchImpl = createRecordingFetch(fetch, {
    recorder: new ExchangeRecorder({ writer, ids: new CounterIdSource(2) }),
  });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  expect(await session(await factory.createFromUrl(base))).toEqual(direct);
  await writer.close();
  const kinds = sink
    .lines()
    .slice(1)
    .map((l) => (JSON.parse(l) as { kind: string }).kind);
  expect(kinds.filter((k) => k === 'request')).toHaveLength(6);
  expect(kinds.filter((k) => k === 'event')).toHaveLength(6);
  expect(kinds.filter((k) => k === 'end')).toHaveLength(1);
});
