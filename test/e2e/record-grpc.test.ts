/**
 * gRPC through the recorder (`startRecorder` in this process, docs/design.md §16): the stock `@a2a-js/sdk`
 * gRPC client, resolving the card through the recorder, against the SDK's gRPC server gets what it
 * gets directly, and the recording holds each call as ProtoJSON with its status and decoded error
 * details; a gzip-compressed call passes and is recorded decoded; a path that is no A2A method gets
 * UNIMPLEMENTED and an unreachable gRPC upstream UNAVAILABLE, each recorded as an error entry and
 * said (the recorder's `warn`). A call its client resets while `record` (a process of its own, so
 * that its gRPC forwarder is not loaded yet) loads the forwarder is forwarded nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { connect as connectHttp2, constants as http2Constants } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DescMessage, type MessageInitShape, create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { ClientFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { Client as GrpcClient, Metadata, type ServiceError, credentials, status } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type MessageSchema, Role, SendMessageRequestSchema } from '../../src/grpc/gen/lf/a2a/v1/a2a_pb.js';
import { SendMessageResponseSchema } from '../../src/grpc/gen/lf/a2a/v1/pause_pb.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { startPeer } from '../../src/public/peer.js';
import { startRecordProcess, stopProcess } from '../helpers/cli-process.js';
import { type TestRecorder, startTestRecorder } from '../helpers/in-process.js';
import { sdkSession, startSdkEchoServer } from '../intercept/sdk-echo-server.js';

const stringContaining = (text: string): unknown => expect.stringContaining(text) as unknown;

let dir = '';
let upstream: Awaited<ReturnType<typeof startSdkEchoServer>>;
let recorder: TestRecorder | undefined;
const channels: GrpcClient[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-grpc-'));
  upstream = await startSdkEchoServer({ grpc: true });
});

afterEach(async () => {
  for (const channel of channels.splice(0)) channel.close();
  await upstream.close();
  await recorder?.close();
  recorder = undefined;
  await rm(dir, { recursive: true, force: true });
});

function grpcRecordArgs(out: string): string[] {
  return ['--upstream', upstream.url, '--out', out, '--grpc-upstream', upstream.grpcUrl];
}

/** A recorder in front of the SDK echo server, its gRPC calls going to the server's gRPC port. */
function grpcRecorder(out: string): Promise<TestRecorder> {
  return startTestRecorder({ upstream: upstream.url, out, grpcUpstream: upstream.grpcUrl });
}

/** The recorder's gRPC target (`HOST:PORT`) from its `http://HOST:PORT`. */
function targetOf(url: string): string {
  return new URL(url).host;
}

function channel(target: string, options: Record<string, number> = {}): GrpcClient {
  const client = new GrpcClient(target, credentials.createInsecure(), options);
  channels.push(client);
  return client;
}

/** One unary call of raw bytes; resolves with the answer's bytes or the gRPC error. */
function unary<I extends DescMessage>(
  client: GrpcClient,
  path: string,
  input: I,
  request: MessageInitShape<I>,
): Promise<{ ok: true; value: Buffer } | { ok: false; error: ServiceError }> {
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      path,
      (value: MessageInitShape<I>) => Buffer.from(toBinary(input, create(input, value))),
      (bytes: Buffer) => bytes,
      request,
      metadata,
      (error, value) => resolve(error ? { ok: false, error } : { ok: true, value: value as Buffer }),
    );
  });
}

/** Closes the recorder (every line written, as `record` exits 0) and reads its recording. */
async function stopped(proc: TestRecorder, out: string): Promise<RecordingEntry[]> {
  expect((await proc.close()).complete, proc.warnings.join('\n')).toBe(true);
  return (await readRecording(out)).entries;
}

const SEND = '/lf.a2a.v1.A2AService/SendMessage';
const message: MessageInitShape<typeof MessageSchema> = {
  messageId: 'm-raw',
  role: Role.USER,
  parts: [{ content: { case: 'text', value: 'zipped' } }],
};

describe('record carries gRPC', () => {
  it('gives the stock SDK gRPC client, resolving the card through the recorder, what it gets directly', async () => {
    const direct = await sdkSession(
      await new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(upstream.url),
    );
    const out = join(dir, 'sdk.jsonl');
    recorder = await grpcRecorder(out);
    const sdk = await new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(recorder.url);
    const proxied = await sdkSession(sdk);
    expect(proxied).toEqual(direct);
    expect(JSON.stringify(direct)).toContain('TaskNotFoundError');

    const entries = await stopped(recorder, out);
    const grpc = entries.filter((e) => e.grpc !== undefined);
    // Every call went through the recorder: the card sent the client there.
    expect(grpc.filter((e) => e.kind === 'request').map((e) => e.http.path)).toEqual([
      '/lf.a2a.v1.A2AService/SendMessage',
      '/lf.a2a.v1.A2AService/GetTask',
      '/lf.a2a.v1.A2AService/SendStreamingMessage',
      '/lf.a2a.v1.A2AService/GetTask',
      '/lf.a2a.v1.A2AService/CancelTask',
    ]);
    const [send, sent] = grpc;
    expect(send).toMatchObject({
      kind: 'request',
      http: { method: 'POST', headers: { 'content-type': 'application/grpc' } },
      body: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
    });
    expect(sent).toMatchObject({ kind: 'response', xid: send?.xid, grpc: { status: 0 }, body: { task: {} } });
    const stream = grpc.filter((e) => e.xid === grpc[4]?.xid);
    expect(stream.map((e) => e.kind)).toEqual(['request', 'event', 'event', 'event', 'event', 'event', 'event', 'end']);
    expect(stream.at(-1)).toMatchObject({ grpc: { status: 0 } });
    expect(stream[2]?.body).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_WORKING' } } });
    const notFound = grpc.filter((e) => e.xid === grpc[12]?.xid);
    expect(notFound).toMatchObject([
      { kind: 'request', body: { id: 'no-such-task' } },
      {
        kind: 'response',
        grpc: {
          status: status.NOT_FOUND,
          details: {
            code: status.NOT_FOUND,
            details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND' }],
          },
        },
      },
    ]);
    expect(notFound[1]?.body).toBeUndefined();
  });

  it('passes a gzip-compressed call and records its messages decoded', async () => {
    const out = join(dir, 'gzip.jsonl');
    recorder = await grpcRecorder(out);
    const zipped = channel(targetOf(recorder.url), { 'grpc.default_compression_algorithm': 2 });
    const answer = await unary(zipped, SEND, SendMessageRequestSchema, { message });
    if (!answer.ok) throw answer.error;
    const task = fromBinary(SendMessageResponseSchema, answer.value);
    expect(task.payload.case).toBe('task');

    const entries = await stopped(recorder, out);
    const request = entries.find((e) => e.kind === 'request' && e.http.path === SEND);
    expect(request).toMatchObject({
      grpc: { encoding: 'gzip' },
      body: { message: { messageId: 'm-raw', parts: [{ text: 'zipped' }] } },
    });
    expect(entries.find((e) => e.kind === 'response' && e.xid === request?.xid)).toMatchObject({
      grpc: { status: 0 },
      body: { task: { status: { state: 'TASK_STATE_COMPLETED' } } },
    });
  });

  it('refuses a path that is no A2A method with UNIMPLEMENTED, an error entry and a word on stderr', async () => {
    const out = join(dir, 'unknown.jsonl');
    recorder = await grpcRecorder(out);
    const answer = await unary(channel(targetOf(recorder.url)), '/other.Service/Do', SendMessageRequestSchema, {
      message,
    });
    if (answer.ok) throw new Error('expected UNIMPLEMENTED');
    expect(answer.error.code).toBe(status.UNIMPLEMENTED);
    expect(answer.error.details).toContain('/other.Service/Do');
    const entries = await stopped(recorder, out);
    expect(entries).toMatchObject([
      { kind: 'request', http: { path: '/other.Service/Do' }, bodyText: stringContaining('no method of A2A') },
      {
        kind: 'error',
        error: stringContaining('does not forward /other.Service/Do'),
        grpc: { status: status.UNIMPLEMENTED, trailersOnly: true },
      },
    ]);
    expect(recorder.warnings.join('\n')).toMatch(/gRPC call refused: .*\/other\.Service\/Do/);
  });

  it('forwards nothing of a call its client reset before the recorder loaded its gRPC forwarder', async () => {
    const out = join(dir, 'reset.jsonl');
    // A process of its own: in this one the forwarder's modules are loaded already by the tests before.
    const proc = await startRecordProcess(grpcRecordArgs(out));
    try {
      // The first gRPC call of this recorder: its forwarder loads while the client resets the call.
      const session = connectHttp2(proc.url);
      const reset = session.request({
        ':method': 'POST',
        ':path': SEND,
        'content-type': 'application/grpc',
        te: 'trailers',
        'a2a-version': '1.0',
      });
      reset.on('error', () => undefined);
      reset.close(http2Constants.NGHTTP2_CANCEL);
      await new Promise((resolve) => reset.on('close', resolve));
      session.close();
      const answer = await unary(channel(targetOf(proc.url)), SEND, SendMessageRequestSchema, { message });
      if (!answer.ok) throw answer.error;
    } finally {
      expect(await stopProcess(proc)).toBe(0);
    }
    const entries = (await readRecording(out)).entries;
    expect(entries.map((e) => [e.kind, e.http.path])).toEqual([
      ['request', SEND],
      ['response', SEND],
    ]);
    expect(entries[0]?.body).toMatchObject({ message: { messageId: 'm-raw' } });
  });

  it('answers UNAVAILABLE naming the gRPC upstream it cannot reach, and records the error', async () => {
    const out = join(dir, 'down.jsonl');
    const closed = channel('127.0.0.1:1');
    closed.close();
    recorder = await startTestRecorder({ upstream: upstream.url, out, grpcUpstream: '127.0.0.1:1' });
    const answer = await unary(channel(targetOf(recorder.url)), SEND, SendMessageRequestSchema, { message });
    if (answer.ok) throw new Error('expected UNAVAILABLE');
    expect(answer.error.code).toBe(status.UNAVAILABLE);
    expect(answer.error.details).toContain('gRPC upstream 127.0.0.1:1');
    const entries = await stopped(recorder, out);
    expect(entries).toMatchObject([
      { kind: 'request', http: { path: SEND }, body: { message: { messageId: 'm-raw' } } },
      { kind: 'error', grpc: { status: status.UNAVAILABLE }, error: stringContaining('127.0.0.1:1') },
    ]);
    expect(recorder.warnings.join('\n')).toContain('cannot reach the gRPC upstream 127.0.0.1:1');
  });

  it("records a client's cancel, its grpc-timeout and principal, following the card's GRPC interface", async () => {
    const peer = await startPeer({ deterministic: true });
    try {
      const out = join(dir, 'cancel.jsonl');
      recorder = await startTestRecorder({ upstream: peer.url, out });
      const metadata = new Metadata();
      metadata.set('a2a-version', '1.0');
      metadata.set('authorization', 'Bearer grpc-secret');
      const request: MessageInitShape<typeof SendMessageRequestSchema> = {
        message: { ...message, parts: [{ content: { case: 'text', value: 'work:3' } }] },
      };
      const call = channel(targetOf(recorder.url)).makeServerStreamRequest(
        '/lf.a2a.v1.A2AService/SendStreamingMessage',
        (value: typeof request) =>
          Buffer.from(toBinary(SendMessageRequestSchema, create(SendMessageRequestSchema, value))),
        (bytes: Buffer) => bytes,
        request,
        metadata,
        { deadline: Date.now() + 600_000 },
      );
      await new Promise<void>((resolve) => call.once('data', () => resolve()));
      const ended = new Promise<void>((resolve) => call.on('error', () => resolve()));
      call.cancel();
      await ended;

      const entries = await stopped(recorder, out);
      const [sent] = entries;
      expect(sent).toMatchObject({
        kind: 'request',
        http: {
          path: '/lf.a2a.v1.A2AService/SendStreamingMessage',
          headers: { authorization: stringContaining('[redacted') },
        },
        principal: stringContaining('bearer:hmac:'),
      });
      expect(sent?.grpc?.timeoutMs).toBeGreaterThan(0);
      expect(JSON.stringify(entries)).not.toContain('grpc-secret');
      // The peer had the whole request: its stream is read on after the cancel, until the stop cuts it.
      expect(entries.at(-1)).toMatchObject({
        kind: 'error',
        xid: sent?.xid,
        grpc: { cancelled: true },
        undelivered: 'the client cancelled the call (RST_STREAM) before the answer ended',
      });
      expect(entries.filter((e) => e.kind === 'event').length).toBeGreaterThan(0);
    } finally {
      await recorder?.close();
      await peer.close();
    }
  });
});
