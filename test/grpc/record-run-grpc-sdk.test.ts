/**
 * The stock SDK over gRPC end to end (docs/design.md §8, §16): the stock `@a2a-js/sdk` gRPC
 * client, resolving the card through a recorder with `grpcUpstream` (`startRecorder`, what
 * `a2a-replay record --grpc-upstream` runs), drives the SDK's own gRPC server (a send, a get, a
 * stream, a not-found error, a cancel); what `run` concludes of that recording against the SDK
 * server (`replayReport`) is a pass, and the mock of it (`startMockServer`, what `mock` starts)
 * serves the same client what it got through the recorder. All in this process, over real sockets.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { startRecorder } from '../../src/public/record.js';
import { startMock } from '../helpers/mock-in-process.js';
import { replayReport } from '../helpers/run-report.js';
import { sdkSession, startSdkEchoServer } from '../intercept/sdk-echo-server.js';

let dir = '';
let recording = '';
let recorded: unknown;
const KEY = fileURLToPath(new URL('../../golden/test-key.json', import.meta.url));

const sdkClient = (url: string) => new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(url);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-run-grpc-sdk-'));
  recording = join(dir, 'sdk-grpc.jsonl');
  const upstream = await startSdkEchoServer({ grpc: true });
  try {
    const recorder = await startRecorder({
      upstream: upstream.url,
      out: recording,
      grpcUpstream: upstream.grpcUrl,
      key: KEY,
      warn: () => undefined,
    });
    try {
      recorded = await sdkSession(await sdkClient(recorder.url));
    } finally {
      expect((await recorder.close()).complete).toBe(true);
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
      const r = await replayReport([recording], { peer: upstream.url, key: KEY });
      // The card and the five gRPC calls, each re-driven against the SDK server.
      expect(r.stdout).toMatch(/^PASS +.*sdk-grpc\.jsonl \(6 exchanges/m);
      expect(r.code).toBe(0);
    } finally {
      await upstream.close();
    }
  });

  it('serves the SDK gRPC client the recorded results from mock', async () => {
    const mock = await startMock([recording]);
    try {
      expect(await sdkSession(await sdkClient(mock.url))).toEqual(recorded);
      expect(mock.report().unmatched).toEqual([]);
    } finally {
      await mock.close();
    }
  });
});
