/**
 * The reference peer's gRPC binding (docs/design.md §16) over real sockets: the stock
 * `@a2a-js/sdk` 1.3.0 gRPC client (GrpcTransportFactory, picking the card's GRPC interface) for
 * the core methods, and a grpc-js client built from the generated codec for the pause extension's
 * service, which the SDK does not know. JSON-RPC keeps working on the same port.
 */
import { type DescMessage, type MessageInitShape, create, fromBinary, toBinary, toJson } from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import { type Message, Role, TaskState as SdkTaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { Client as GrpcClient, Metadata, type ServiceError, credentials, status } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../src/grpc/gen/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../src/grpc/gen/google/rpc/status_pb.js';
import { GetTaskRequestSchema } from '../../src/grpc/gen/lf/a2a/v1/a2a_pb.js';
import {
  PauseTaskRequestSchema,
  PauseTaskResponseSchema,
  ResumeTaskRequestSchema,
  ResumeTaskResponseSchema,
  TaskSchema,
} from '../../src/grpc/gen/lf/a2a/v1/pause_pb.js';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import type { Task } from '../../src/protocol/types.js';
import { PeerClient } from './peer-client.js';

let peer: RunningPeer;
let sdk: Client;
let json: PeerClient;
let grpc: GrpcClient;
let n = 0;

beforeEach(async () => {
  peer = await startPeer({ deterministic: true });
  sdk = await new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(peer.url);
  json = new PeerClient(peer.url);
  grpc = new GrpcClient(peer.grpcUrl, credentials.createInsecure());
});
afterEach(async () => {
  json.closeStreams();
  grpc.close();
  await peer.close();
});

function sdkMessage(text: string): Message {
  return {
    messageId: `grpc-${++n}`,
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function versioned(): Metadata {
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  return metadata;
}

/** One unary call with the generated codec; resolves with the decoded answer or the gRPC error. */
function unary<I extends DescMessage, O extends DescMessage>(
  path: string,
  input: I,
  output: O,
  request: MessageInitShape<I>,
  metadata: Metadata = versioned(),
): Promise<{ ok: true; value: unknown } | { ok: false; error: ServiceError }> {
  return new Promise((resolve) => {
    grpc.makeUnaryRequest(
      path,
      (value: MessageInitShape<I>) => Buffer.from(toBinary(input, create(input, value))),
      (bytes: Buffer) => fromBinary(output, bytes),
      request,
      metadata,
      (error, value) => {
        if (error) resolve({ ok: false, error });
        else resolve({ ok: true, value: toJson(output, value as never) });
      },
    );
  });
}

/** The reason of the ErrorInfo in an error's `grpc-status-details-bin`. */
function reasonOf(error: ServiceError): string | undefined {
  const bin = error.metadata.get('grpc-status-details-bin')[0];
  if (!Buffer.isBuffer(bin)) return undefined;
  const details = fromBinary(StatusSchema, bin);
  expect(details.code).toBe(error.code);
  const info = details.details.map((any) => anyUnpack(any, ErrorInfoSchema)).find((i) => i !== undefined);
  expect(info?.domain).toBe('a2a-protocol.org');
  return info?.reason;
}

const PAUSE = '/lf.a2a.v1.pause.A2APauseService/PauseTask';
const RESUME = '/lf.a2a.v1.pause.A2APauseService/ResumeTask';

describe('gRPC binding of the reference peer', () => {
  it('lists JSONRPC, HTTP+JSON and GRPC interfaces in its card, gRPC on the same port, then v0.3 ones', async () => {
    const card = (await (await fetch(`${peer.url}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string }[];
    };
    const port = new URL(peer.url).port;
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url])).toEqual([
      ['JSONRPC', peer.url],
      ['HTTP+JSON', peer.restUrl],
      ['GRPC', `127.0.0.1:${port}`],
      ['JSONRPC', peer.url],
      ['HTTP+JSON', peer.restUrl],
      ['GRPC', `127.0.0.1:${port}`],
    ]);
  });

  it('sends, gets and streams through the stock SDK gRPC client', async () => {
    const sent = await sdk.sendMessage({
      tenant: '',
      message: sdkMessage('input'),
      configuration: undefined,
      metadata: undefined,
    });
    if (!('status' in sent)) throw new Error('expected a task');
    expect(sent.status?.state).toBe(SdkTaskState.TASK_STATE_INPUT_REQUIRED);

    const got = await sdk.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    expect(got.id).toBe(sent.id);
    expect(got.status?.state).toBe(SdkTaskState.TASK_STATE_INPUT_REQUIRED);
    // The same task over JSON-RPC on the same port.
    expect((await json.getTask(sent.id)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');

    const events: string[] = [];
    for await (const ev of sdk.sendMessageStream({
      tenant: '',
      message: sdkMessage('work:1'),
      configuration: undefined,
      metadata: undefined,
    })) {
      const p = ev.payload;
      events.push(p?.$case === 'statusUpdate' ? `status:${p.value.status?.state}` : (p?.$case ?? 'none'));
      if (p?.$case === 'task') await json.advance(1000);
    }
    expect(events).toEqual([
      'task',
      `status:${SdkTaskState.TASK_STATE_WORKING}`,
      'artifactUpdate',
      `status:${SdkTaskState.TASK_STATE_COMPLETED}`,
    ]);
  });

  it('answers an unknown task with NOT_FOUND and the TASK_NOT_FOUND ErrorInfo', async () => {
    const failure = await sdk.getTask({ tenant: '', id: 'nope', historyLength: undefined }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TaskNotFoundError);
    expect((failure as { status?: number }).status).toBe(status.NOT_FOUND);

    const raw = await unary('/lf.a2a.v1.A2AService/GetTask', GetTaskRequestSchema, TaskSchema, { id: 'nope' });
    if (raw.ok) throw new Error('expected an error');
    expect(raw.error.code).toBe(status.NOT_FOUND);
    expect(reasonOf(raw.error)).toBe('TASK_NOT_FOUND');
  });

  it('refuses a call without A2A-Version 1.0 with FAILED_PRECONDITION VERSION_NOT_SUPPORTED', async () => {
    const raw = await unary(
      '/lf.a2a.v1.A2AService/GetTask',
      GetTaskRequestSchema,
      TaskSchema,
      { id: 'x' },
      new Metadata(),
    );
    if (raw.ok) throw new Error('expected an error');
    expect(raw.error.code).toBe(status.FAILED_PRECONDITION);
    expect(reasonOf(raw.error)).toBe('VERSION_NOT_SUPPORTED');
  });

  it('pauses, refuses a wrong token, resumes, and keeps the stream open across PAUSED', async () => {
    const task = await json.start('work:2');
    const events: string[] = [];
    let first!: () => void;
    const subscribed = new Promise<void>((resolve) => (first = resolve));
    const streaming = (async () => {
      for await (const ev of sdk.resubscribeTask({ tenant: '', id: task.id })) {
        const p = ev.payload;
        events.push(p?.$case === 'statusUpdate' ? `status:${p.value.status?.state}` : (p?.$case ?? 'none'));
        first();
      }
    })();
    await subscribed;

    const paused = await unary(PAUSE, PauseTaskRequestSchema, PauseTaskResponseSchema, {
      taskId: task.id,
      mode: 'interrupt_immediate',
      reason: 'operator review',
    });
    if (!paused.ok) throw paused.error;
    const pause = paused.value as {
      taskId: string;
      state: string;
      pause: { resumeToken: string; initiatedBy: string };
    };
    expect(pause).toMatchObject({
      taskId: task.id,
      state: 'TASK_STATE_PAUSED',
      pause: { initiatedBy: 'PAUSE_INITIATOR_CLIENT', reason: 'operator review', resumable: true },
    });
    expect(pause.pause.resumeToken).not.toBe('');
    // JSON-RPC on the same port sees the same pause.
    expect((await json.getTask(task.id)).status.pause?.resumeToken).toBe(pause.pause.resumeToken);

    const wrong = await unary(RESUME, ResumeTaskRequestSchema, ResumeTaskResponseSchema, {
      taskId: task.id,
      resumeToken: 'not-the-token',
    });
    if (wrong.ok) throw new Error('expected an error');
    expect(wrong.error.code).toBe(status.FAILED_PRECONDITION);
    expect(reasonOf(wrong.error)).toBe('RESUME_TOKEN_MISMATCH');

    const again = await unary(PAUSE, PauseTaskRequestSchema, PauseTaskResponseSchema, { taskId: 'nope' });
    if (again.ok) throw new Error('expected an error');
    expect(again.error.code).toBe(status.NOT_FOUND);

    const resumed = await unary(RESUME, ResumeTaskRequestSchema, ResumeTaskResponseSchema, {
      taskId: task.id,
      resumeToken: pause.pause.resumeToken,
    });
    if (!resumed.ok) throw resumed.error;
    expect(resumed.value).toMatchObject({
      taskId: task.id,
      state: 'TASK_STATE_WORKING',
      previousState: 'TASK_STATE_PAUSED',
      cause: 'explicit_resume',
    });

    const notPaused = await unary(RESUME, ResumeTaskRequestSchema, ResumeTaskResponseSchema, {
      taskId: task.id,
      resumeToken: pause.pause.resumeToken,
    });
    if (notPaused.ok) throw new Error('expected an error');
    expect(notPaused.error.code).toBe(status.FAILED_PRECONDITION);
    expect(reasonOf(notPaused.error)).toBe('INVALID_TASK_STATE');

    await json.advance(2000);
    await streaming;
    // The SDK's codec reads state 9 as the number it is; the stream stayed open through it.
    expect(events).toEqual([
      'task',
      'status:9',
      `status:${SdkTaskState.TASK_STATE_WORKING}`,
      'artifactUpdate',
      'artifactUpdate',
      `status:${SdkTaskState.TASK_STATE_COMPLETED}`,
    ]);
    const done = (await json.getTask(task.id)) satisfies Task;
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
