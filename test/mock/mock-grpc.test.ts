/**
 * The mock over gRPC (docs/design.md §13, §16), on real sockets: a session recorded from real
 * gRPC traffic with the reference peer is served back on the mock's port — to the stock
 * `@a2a-js/sdk` gRPC client, which finds the mock through the GRPC interface of the card the
 * mock serves, and to a grpc-js client driving the whole session again (a stream that stays open
 * across PAUSED, a wrong token refused with its ErrorInfo, the resume), which gets the recorded
 * messages, statuses and details.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { type IncomingHttpHeaders, connect, constants } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import { type Message, Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../src/grpc/gen/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../src/grpc/gen/google/rpc/status_pb.js';
import { GetTaskRequestSchema } from '../../src/grpc/gen/lf/a2a/v1/a2a_pb.js';
import { type RunningMock, startMockServer } from '../../src/mock/mock-server.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { type Recording, readRecording } from '../../src/recording/recording-reader.js';
import { GrpcSessionWriter } from '../helpers/grpc-session-writer.js';
import { driveGrpcSession, recordGrpcSession } from '../replay/grpc-session.js';

let dir = '';
let recording: Recording;
let mock: RunningMock | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mock-grpc-'));
  const file = join(dir, 'grpc.jsonl');
  await recordGrpcSession(file);
  recording = await readRecording(file);
});

afterAll(async () => {
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

async function freshMock(): Promise<RunningMock> {
  await mock?.close();
  mock = await startMockServer([{ source: 'grpc.jsonl', recording }]);
  return mock;
}

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

/** An entry without what differs between two runs of one session: its position and time. */
function exchangeView(entries: readonly RecordingEntry[]): Record<string, unknown[]> {
  const byXid: Record<string, unknown[]> = {};
  for (const { seq: _s, at: _a, ...rest } of entries) (byXid[rest.xid] ??= []).push(rest);
  return byXid;
}

describe('mock over gRPC', () => {
  it('serves the stock SDK gRPC client, which it finds through its own card', async () => {
    const running = await freshMock();
    const card = (await (await fetch(`${running.url}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string }[];
    };
    const port = new URL(running.url).port;
    expect(card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC')?.url).toBe(`127.0.0.1:${port}`);

    const sdk = await new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(running.url);
    const recordedTask = recording.entries[1]?.body as { task: { id: string } };
    const sent = await sdk.sendMessage({
      tenant: '',
      message: sdkMessage('input', 'm-1'),
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: undefined,
        historyLength: undefined,
        returnImmediately: true,
      },
      metadata: undefined,
    });
    if (!('status' in sent)) throw new Error('expected a task');
    expect(sent.id).toBe(recordedTask.task.id);
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const got = await sdk.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const missing = await sdk
      .getTask({ tenant: '', id: 'task-nope', historyLength: undefined })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(TaskNotFoundError);
  });

  it('serves the whole session again: the stream stays open across PAUSED and errors carry their details', async () => {
    const running = await freshMock();
    const writer = new GrpcSessionWriter(`127.0.0.1:${new URL(running.url).port}`);
    try {
      await driveGrpcSession(writer, running.url);
    } finally {
      writer.close();
    }
    expect(exchangeView(writer.entries)).toEqual(exchangeView(recording.entries));
    const report = running.report();
    expect(report.unmatched).toEqual([]);
    expect(report.recordings[0]?.unrequested).toEqual([]);
  });

  it('sends a recorded error as Trailers-Only with grpc-status-details-bin', async () => {
    const running = await freshMock();
    const client = connect(`http://127.0.0.1:${new URL(running.url).port}`);
    try {
      const message = Buffer.from(toBinary(GetTaskRequestSchema, create(GetTaskRequestSchema, { id: 'task-nope' })));
      const frame = Buffer.alloc(5 + message.length);
      frame.writeUInt32BE(message.length, 1);
      message.copy(frame, 5);
      const call = client.request({
        ':method': 'POST',
        ':path': '/lf.a2a.v1.A2AService/GetTask',
        'content-type': 'application/grpc',
        te: 'trailers',
        'a2a-version': '1.0',
      });
      call.end(frame);
      const [headers, flags] = await new Promise<[IncomingHttpHeaders, number]>((resolve) =>
        call.once('response', (h, f) => resolve([h, f])),
      );
      // One HEADERS frame that ends the stream and carries the status: Trailers-Only.
      expect(flags & constants.NGHTTP2_FLAG_END_STREAM).toBe(constants.NGHTTP2_FLAG_END_STREAM);
      expect(headers['grpc-status']).toBe('5');
      const details = fromBinary(StatusSchema, Buffer.from(String(headers['grpc-status-details-bin']), 'base64'));
      expect(details.code).toBe(5);
      expect(details.details.map((any) => anyUnpack(any, ErrorInfoSchema)?.reason)).toEqual(['TASK_NOT_FOUND']);
    } finally {
      client.close();
    }
  });

  it('answers a call no recorded exchange matches with INTERNAL and the mock’s ErrorInfo', async () => {
    const running = await freshMock();
    const writer = new GrpcSessionWriter(`127.0.0.1:${new URL(running.url).port}`);
    try {
      const answer = await writer.unary('CancelTask', { id: 'task-other' });
      expect(answer).toMatchObject({
        ok: false,
        grpc: {
          status: 13,
          details: { details: [{ reason: 'NO_RECORDED_EXCHANGE', domain: 'a2a-replay.dev' }] },
        },
      });
    } finally {
      writer.close();
    }
  });
});
