/**
 * `run` sends a recorded gRPC call's deadline (docs/design.md §16): a client's `grpc-timeout`,
 * recorded through the recorder (`startRecorder`, what `a2a-replay record` runs) in front of the
 * reference peer (`startPeer`), reaches the live gRPC peer of the replay (`replayReport`, what
 * `run --update --grpc-peer` runs; all in this process) with its recorded value (a time-out
 * relative to the call, so it is sent as it was), and a call recorded without one goes out
 * without one. The live gRPC peer here is an HTTP/2 server that keeps the headers of every call
 * and answers each NOT_FOUND.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { type Http2Server, type IncomingHttpHeaders, createServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromBinary, fromJson, toBinary } from '@bufbuild/protobuf';
import { Client, Metadata, credentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GRPC_METHODS } from '../../src/grpc/methods.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { replayReport } from '../helpers/run-report.js';

const GET_TASK = '/lf.a2a.v1.A2AService/GetTask';
let dir = '';
let recording = '';

/** A GetTask of `id` over gRPC to `target`, with `timeout` as its `grpc-timeout` when given. */
function getTask(target: string, id: string, timeout?: string): Promise<number> {
  const method = GRPC_METHODS.GetTask;
  const client = new Client(target, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  if (timeout !== undefined) metadata.set('grpc-timeout', timeout);
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      GET_TASK,
      (value: { id: string }) => Buffer.from(toBinary(method.request, fromJson(method.request, value))),
      (bytes: Buffer) => fromBinary(method.response, bytes),
      { id },
      metadata,
      (error) => {
        client.close();
        resolve(error?.code ?? 0);
      },
    );
  });
}

/** An HTTP/2 server answering every gRPC call NOT_FOUND (Trailers-Only), keeping each call's headers. */
async function headerKeeper(): Promise<{ server: Http2Server; target: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer();
  server.on('stream', (stream, headers) => {
    seen.push(headers);
    stream.on('data', () => {});
    stream.respond(
      { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '5', 'grpc-message': 'no such task' },
      { endStream: true },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, target: `127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-grpc-timeout-'));
  recording = join(dir, 'timeout.jsonl');
  const peer = await startPeer({ deterministic: true });
  const recorder = await startRecorder({ upstream: peer.url, out: recording, warn: () => undefined });
  try {
    const target = new URL(recorder.url).host;
    expect(await getTask(target, 'task-with-deadline', '7S')).toBe(5);
    expect(await getTask(target, 'task-without-deadline')).toBe(5);
  } finally {
    await recorder.close();
    await peer.close();
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('sends the recorded grpc-timeout of a call to the live gRPC peer, and none for a call without one', async () => {
  const requests = (await readRecording(recording)).entries.filter((e) => e.kind === 'request');
  expect(requests.map((e) => [e.body, e.grpc?.timeoutMs])).toEqual([
    [{ id: 'task-with-deadline' }, 7000],
    [{ id: 'task-without-deadline' }, undefined],
  ]);
  const live = await headerKeeper();
  try {
    const r = await replayReport([recording], { update: true, grpcPeer: live.target });
    expect(r.code, r.stdout + r.warnings.join('\n')).toBe(0);
    expect(live.seen.map((h) => [h[':path'], h['grpc-timeout']])).toEqual([
      [GET_TASK, '7S'],
      [GET_TASK, undefined],
    ]);
  } finally {
    await new Promise((resolve) => live.server.close(resolve));
  }
});
