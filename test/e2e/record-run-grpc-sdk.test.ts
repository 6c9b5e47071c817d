/**
 * The stock SDK over gRPC end to end with real processes (docs/design.md §8, §16): the stock
 * `@a2a-js/sdk` gRPC client, resolving the card through `a2a-replay record --grpc-upstream`,
 * drives the SDK's own gRPC server (a send, a get, a stream, a not-found error, a cancel); `run`
 * of that recording against the SDK server passes, and `mock` of it serves the same client what
 * it got through the recorder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { startRecordProcess, stopProcess, startMockProcess } from '../helpers/cli-process.js';
import { sdkSession, startSdkEchoServer } from '../intercept/sdk-echo-server.js';

let dir = '';
let recording = '';
let recorded: unknown;
const KEY = join(ROOT, 'golden', 'test-key.json');

const sdkClient = (url: string) => new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(url);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-run-grpc-sdk-'));
  recording = join(dir, 'sdk-grpc.jsonl');
  const upstream = await startSdkEchoServer({ grpc: true });
  try {
    const recorder = await startRecordProcess([
      '--upstream',
      upstream.url,
      '--out',
      recording,
      '--grpc-upstream',
      upstream.grpcUrl,
      '--key',
      KEY,
    ]);
    try {
      recorded = await sdkSession(await sdkClient(recorder.url));
    } finally {
      expect(await stopProcess(recorder)).toBe(0);
    }
  } finally {
    await upstream.close();
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the stock SDK over gRPC: record, run, mock', () => {
  it('replays the recording against the SDK gRPC server to a pass', async () => {
    const upstream = await startSdkEchoServer({ grpc: true });
    try {
      const r = await runCli(['run', recording, '--peer', upstream.url, '--key', KEY]);
      // The card and the five gRPC calls, each re-driven against the SDK server.
      expect(r.stdout).toMatch(/^PASS +.*sdk-grpc\.jsonl \(6 exchanges/m);
      expect(r.code).toBe(0);
    } finally {
      await upstream.close();
    }
  });

  it('serves the SDK gRPC client the recorded results from mock', async () => {
    const mock = await startMockProcess([recording]);
    try {
      expect(await sdkSession(await sdkClient(mock.url))).toEqual(recorded);
    } finally {
      await stopProcess(mock);
    }
    expect(mock.stdout()).not.toMatch(/unmatched|not requested/i);
  });
});
