/**
 * The reference peer's HTTP+JSON binding over real sockets (docs/design.md §15): the proto's routes
 * under `/rest`, the pause extension's `:pause` / `:resume` / `:awaitResumption`, SSE streams, the
 * A2A error model over HTTP, and the stock `@a2a-js/sdk` REST transport against it.
 */
import { type Message, Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, RestTransportFactory } from '@a2a-js/sdk/client';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SseParser } from '../../src/intercept/sse-parser.js';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import type { PauseTaskResult, ResumeTaskResult, Task } from '../../src/protocol/types.js';
import { PeerClient } from './peer-client.js';

const HEADERS = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };

let peer: RunningPeer;
let control: PeerClient;

beforeEach(async () => {
  peer = await startPeer({ deterministic: true });
  control = new PeerClient(peer.url);
});
afterEach(async () => {
  control.closeStreams();
  await peer.close();
});

async function rest(
  verb: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = HEADERS,
): Promise<{ status: number; json: unknown; headers: Headers }> {
  const res = await fetch(`${peer.restUrl}${path}`, {
    method: verb,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined, headers: res.headers };
}

async function start(script: string): Promise<Task> {
  const sent = await rest('POST', '/message:send', {
    message: { messageId: `m-${script}`, role: 'ROLE_USER', parts: [{ text: script }] },
    configuration: { returnImmediately: true },
  });
  expect(sent.status).toBe(200);
  return (sent.json as { task: Task }).task;
}

/** Reads an SSE response's `data` frames (and `event` names) until it ends. */
async function readSse(res: Response): Promise<{ event: string | undefined; data: Record<string, unknown> }[]> {
  const parser = new SseParser();
  const out: { event: string | undefined; data: Record<string, unknown> }[] = [];
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    for (const ev of parser.push(value))
      if (ev.data) out.push({ event: ev.event, data: JSON.parse(ev.data) as Record<string, unknown> });
  }
}

interface RestErrorJson {
  error: { code: number; status: string; message: string; details: { reason: string; domain: string }[] };
}

function errorInfo(json: unknown): { reason: string; domain: string } {
  return (json as RestErrorJson).error.details[0]!;
}

function messageOf(json: unknown): string {
  return (json as RestErrorJson).error.message;
}

it('lists JSON-RPC, HTTP+JSON, gRPC and the three v0.3 interfaces in the agent card, each with its URL', async () => {
  const card = (await (await fetch(`${peer.url}/.well-known/agent-card.json`)).json()) as {
    supportedInterfaces: unknown[];
  };
  expect(card.supportedInterfaces).toEqual([
    { url: peer.url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: `${peer.url}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: peer.grpcUrl, protocolBinding: 'GRPC', protocolVersion: '1.0' },
    { url: peer.url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    { url: `${peer.url}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    { url: peer.grpcUrl, protocolBinding: 'GRPC', protocolVersion: '0.3' },
  ]);
});

it('pauses, reads and resumes a task over HTTP+JSON with the path naming the task', async () => {
  const task = await start('work:3');
  await control.advance(500);
  const paused = await rest('POST', `/tasks/${task.id}:pause`, { reason: 'review', mode: 'interrupt_immediate' });
  expect(paused.status).toBe(200);
  const pause = paused.json as PauseTaskResult;
  expect(pause).toMatchObject({ taskId: task.id, state: 'TASK_STATE_PAUSED', pause: { reason: 'review' } });

  const got = await rest('GET', `/tasks/${task.id}?historyLength=1`);
  expect(got.json).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_PAUSED' } });
  expect((got.json as Task).history).toHaveLength(1);

  const resumed = await rest('POST', `/tasks/${task.id}:resume`, { resumeToken: pause.pause.resumeToken });
  expect(resumed.status).toBe(200);
  expect(resumed.json as ResumeTaskResult).toMatchObject({ taskId: task.id, cause: 'explicit_resume' });
  await control.advance(3000);
  expect((await rest('GET', `/tasks/${task.id}`)).json).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
  const listed = await rest('GET', '/tasks?pageSize=5');
  expect((listed.json as { tasks: Task[] }).tasks.map((t) => t.id)).toEqual([task.id]);
});

it('answers a wrong resume token with HTTP 400 FAILED_PRECONDITION and reason RESUME_TOKEN_MISMATCH', async () => {
  const task = await start('work:3');
  await control.advance(1000);
  const waiting = await rest('POST', `/tasks/${task.id}:awaitResumption`, {
    summary: 'waiting',
    conditions: { onEvent: 'ci.done' },
  });
  expect(waiting.json).toMatchObject({ taskId: task.id, state: 'TASK_STATE_PAUSED' });
  const wrong = await rest('POST', `/tasks/${task.id}:resume`, { resumeToken: 'not-the-token' });
  expect(wrong.status).toBe(400);
  expect(wrong.json).toMatchObject({ error: { code: 400, status: 'FAILED_PRECONDITION' } });
  expect(errorInfo(wrong.json)).toMatchObject({ reason: 'RESUME_TOKEN_MISMATCH', domain: 'a2a-protocol.org' });
});

it('answers a pause of a finished task with 400 INVALID_TASK_STATE, an unknown task with 404', async () => {
  const task = await start('work:1');
  await control.advance(2000);
  const late = await rest('POST', `/tasks/${task.id}:pause`, {});
  expect(late.status).toBe(400);
  expect(late.json).toMatchObject({ error: { status: 'FAILED_PRECONDITION' } });
  expect(errorInfo(late.json).reason).toBe('INVALID_TASK_STATE');
  const missing = await rest('GET', '/tasks/no-such-task');
  expect(missing.status).toBe(404);
  expect(missing.json).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
  expect(errorInfo(missing.json).reason).toBe('TASK_NOT_FOUND');
});

it('refuses a body naming another task than its path, bad params, no A2A-Version, unknown routes', async () => {
  const task = await start('work:3');
  const conflict = await rest('POST', `/tasks/${task.id}:pause`, { taskId: 'other' });
  expect(conflict.status).toBe(400);
  expect(errorInfo(conflict.json).reason).toBe('INVALID_PARAMS');
  expect(messageOf(conflict.json)).toContain('params.taskId');

  const badMode = await rest('POST', `/tasks/${task.id}:pause`, { mode: 'sideways' });
  expect(badMode.status).toBe(400);
  expect(messageOf(badMode.json)).toContain('params.mode');

  const noVersion = await rest('GET', `/tasks/${task.id}`, undefined, {});
  expect(noVersion.status).toBe(400);
  expect(errorInfo(noVersion.json).reason).toBe('VERSION_NOT_SUPPORTED');

  const notJson = await fetch(`${peer.restUrl}/message:send`, { method: 'POST', headers: HEADERS, body: '{' });
  expect(notJson.status).toBe(400);
  expect(errorInfo(await notJson.json()).reason).toBe('PARSE_ERROR');

  expect((await rest('GET', '/nowhere')).status).toBe(404);
  const wrongVerb = await rest('DELETE', `/tasks/${task.id}:pause`);
  expect(wrongVerb.status).toBe(405);
  expect(wrongVerb.headers.get('allow')).toBe('POST');
  expect(wrongVerb.json).toMatchObject({ error: { code: 405, status: 'INVALID_ARGUMENT' } });
  const push = await rest('GET', `/tasks/${task.id}/pushNotificationConfigs`);
  expect(push.status).toBe(400);
  expect(errorInfo(push.json).reason).toBe('PUSH_NOTIFICATION_NOT_SUPPORTED');
  const card = await rest('GET', '/extendedAgentCard');
  expect(errorInfo(card.json).reason).toBe('UNSUPPORTED_OPERATION');
});

it('streams StreamResponses as bare SSE data frames, and subscribes by GET and by POST', async () => {
  const streamed = await fetch(`${peer.restUrl}/message:stream`, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ message: { messageId: 's-1', role: 'ROLE_USER', parts: [{ text: 'work:1' }] } }),
  });
  expect(streamed.headers.get('content-type')).toBe('text/event-stream');
  const first = (await start('work:2')).id;
  const byGet = await fetch(`${peer.restUrl}/tasks/${first}:subscribe`, { headers: HEADERS });
  const byPost = await fetch(`${peer.restUrl}/tasks/${first}:subscribe`, { method: 'POST', headers: HEADERS });
  expect(byGet.headers.get('content-type')).toBe('text/event-stream');
  expect(byPost.headers.get('content-type')).toBe('text/event-stream');
  const reading = [readSse(streamed), readSse(byGet), readSse(byPost)];
  await control.advance(5000);
  const [own, got, posted] = await Promise.all(reading);
  expect(own![0]!.data).toHaveProperty('task');
  expect(own!.at(-1)!.data).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
  expect(own!.every((f) => !('jsonrpc' in f.data))).toBe(true);
  expect(got!.map((f) => f.data)).toEqual(posted!.map((f) => f.data));
  expect(got!.at(-1)!.data).toMatchObject({
    statusUpdate: { taskId: first, status: { state: 'TASK_STATE_COMPLETED' } },
  });

  const terminal = await fetch(`${peer.restUrl}/tasks/${first}:subscribe`, { headers: HEADERS });
  expect(terminal.status).toBe(400);
  expect(errorInfo(await terminal.json()).reason).toBe('UNSUPPORTED_OPERATION');
});

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

it('serves the stock SDK client forced to its REST transport: send, get, list, stream, cancel, errors', async () => {
  const paths: string[] = [];
  const real = await startPeer({
    stepMs: 5,
    wrapHandler: (handler) => (req, res) => {
      paths.push(`${req.method ?? ''} ${req.url ?? ''}`);
      handler(req, res);
    },
  });
  try {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new RestTransportFactory()],
        preferredTransports: ['HTTP+JSON'],
      }),
    );
    const client = await factory.createFromUrl(real.url);
    const sent = await client.sendMessage({
      tenant: '',
      message: sdkMessage('work:2', 'sdk-1'),
      configuration: undefined,
      metadata: undefined,
    });
    if (!('status' in sent)) throw new Error('expected a task');
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sent.artifacts).toHaveLength(2);
    expect((await client.getTask({ tenant: '', id: sent.id, historyLength: undefined })).id).toBe(sent.id);
    const listed = await client.listTasks({
      tenant: '',
      contextId: '',
      status: 0,
      pageSize: 10,
      pageToken: '',
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    });
    expect(listed.tasks.map((t) => t.id)).toEqual([sent.id]);
    const events: unknown[] = [];
    for await (const ev of client.sendMessageStream({
      tenant: '',
      message: sdkMessage('work:1', 'sdk-2'),
      configuration: undefined,
      metadata: undefined,
    })) {
      events.push(ev);
    }
    expect(events.length).toBeGreaterThanOrEqual(3);
    const missing = await client
      .getTask({ tenant: '', id: 'no-such-task', historyLength: undefined })
      .catch((e: Error) => e);
    expect((missing as Error).name).toBe('TaskNotFoundError');
    const cancel = await client.cancelTask({ tenant: '', id: sent.id, metadata: undefined }).catch((e: Error) => e);
    expect((cancel as Error).name).toBe('TaskNotCancelableError');
    expect(paths[0]).toBe('GET /.well-known/agent-card.json');
    expect(paths.slice(1).map((p) => p.replace(/task-[0-9a-f-]+/, '{id}'))).toEqual([
      'POST /rest/message:send',
      'GET /rest/tasks/{id}',
      'GET /rest/tasks?pageSize=10&includeArtifacts=false',
      'POST /rest/message:stream',
      'GET /rest/tasks/no-such-task',
      'POST /rest/tasks/{id}:cancel',
    ]);
  } finally {
    await real.close();
  }
});
