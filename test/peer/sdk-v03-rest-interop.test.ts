/**
 * Interop in A2A v0.3 HTTP+JSON: the stock `@a2a-js/sdk` 0.3.14 client (the `a2a-sdk-v03` alias),
 * choosing the HTTP+JSON interface the reference peer's v0.3 card lists, over real sockets
 * (docs/design.md §4 "Two dialects", §15): send, get, stream, cancel, an input-required ask and
 * its continuation in ProtoJSON of the v0.3 proto, errors as the v0.3 SDK reads them, and a pause
 * and resume through this project's v0.3 routes `/v1/tasks/{id}:pause` and `:resume`. The peer
 * decides the dialect per request: a v1.0 client on the same interface is served in v1.0.
 */
import type { Message, Task, TaskStatusUpdateEvent } from 'a2a-sdk-v03';
import { type Client, ClientFactory, ClientFactoryOptions, TaskNotFoundError } from 'a2a-sdk-v03/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import type { A2aVersionSetting } from '../../src/peer/v03-dialect.js';
import { PeerClient } from './peer-client.js';

let peer: RunningPeer | undefined;
let n = 0;

afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

async function start(a2aVersion?: A2aVersionSetting): Promise<{ client: Client; control: PeerClient }> {
  peer = await startPeer({ deterministic: true, stepMs: 1000, ...(a2aVersion ? { a2aVersion } : {}) });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] }),
  );
  return { client: await factory.createFromUrl(peer.url), control: new PeerClient(peer.url) };
}

function message(text: string, task?: { id: string; contextId: string }): Message {
  return {
    kind: 'message',
    messageId: `v03-rest-${++n}`,
    role: 'user',
    parts: [{ kind: 'text', text }],
    ...(task ? { taskId: task.id, contextId: task.contextId } : {}),
  };
}

/** A raw v0.3 HTTP+JSON POST (no A2A-Version), answered with its status and JSON body. */
async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${peer!.url}/rest${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('the stock 0.3.14 client against the reference peer over v0.3 HTTP+JSON', () => {
  it('picks the HTTP+JSON interface of the v0.3 card and sends, gets and cancels in v0.3 shapes', async () => {
    const { client } = await start();
    const asked = (await client.sendMessage({ message: message('input') })) as Task;
    expect(asked).toMatchObject({ kind: 'task', status: { state: 'input-required' } });
    expect(asked.history?.[0]).toMatchObject({
      kind: 'message',
      role: 'user',
      parts: [{ kind: 'text', text: 'input' }],
    });

    const answered = (await client.sendMessage({
      message: message('yes', { id: asked.id, contextId: asked.contextId }),
    })) as Task;
    expect(answered).toMatchObject({ kind: 'task', id: asked.id, status: { state: 'completed' } });
    expect(await client.getTask({ id: asked.id })).toMatchObject({ id: asked.id, status: { state: 'completed' } });

    const running = (await client.sendMessage({
      message: message('work:5'),
      configuration: { blocking: false },
    })) as Task;
    expect(['submitted', 'working']).toContain(running.status.state);
    const canceled = await client.cancelTask({ id: running.id });
    expect(canceled).toMatchObject({ kind: 'task', id: running.id, status: { state: 'canceled' } });

    await expect(client.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('answers ProtoJSON of the v0.3 proto: 201 for message:send, content, CANCELLED, {code, message}', async () => {
    await start();
    const sent = await post('/v1/message:send', {
      message: {
        messageId: 'p1',
        role: 'ROLE_USER',
        content: [{ data: { data: { ask: 'input' } } }, { text: 'input' }],
      },
    });
    expect(sent.status).toBe(201);
    const task = sent.body.task as { id: string; status: { state: string; message?: { content: unknown[] } } };
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const prompt = task.status.message?.content ?? [];
    expect(prompt).toHaveLength(1);
    expect(typeof (prompt[0] as { text?: unknown }).text).toBe('string');
    expect(JSON.stringify(sent.body)).not.toContain('"parts"');
    const canceled = await post(`/v1/tasks/${task.id}:cancel`, {});
    expect(canceled).toMatchObject({ status: 200, body: { status: { state: 'TASK_STATE_CANCELLED' } } });
    const missing = await fetch(`${peer!.url}/rest/v1/tasks/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: -32001 });
    const unknown = await post('/v1/tasks', {});
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: -32601 });
  });

  it('streams a final status update and ends the stream at input-required', async () => {
    const { client, control } = await start();
    const drain = async (stream: AsyncGenerator<unknown>): Promise<unknown[]> => {
      const first = await stream.next();
      const advanced = control.advance(1000);
      const events: unknown[] = [first.value];
      for await (const event of stream) events.push(event);
      await advanced;
      return events;
    };
    const events = await drain(client.sendMessageStream({ message: message('work:1 input work:1') }));
    expect((events[0] as { kind: string }).kind).toBe('task');
    expect(events.map((e) => (e as { kind: string }).kind)).toContain('artifact-update');
    const last = events.at(-1) as TaskStatusUpdateEvent;
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
    expect(events.filter((e) => (e as { final?: boolean }).final === true)).toHaveLength(1);

    const more = await drain(
      client.sendMessageStream({ message: message('approved', { id: last.taskId, contextId: last.contextId }) }),
    );
    expect(more.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  it('pauses and resumes through /v1/tasks/{id}:pause and :resume, the pause state TASK_STATE_PAUSED', async () => {
    const { client } = await start();
    const running = (await client.sendMessage({
      message: message('work:5'),
      configuration: { blocking: false },
    })) as Task;
    const paused = await post(`/v1/tasks/${running.id}:pause`, { mode: 'interrupt_immediate' });
    expect(paused).toMatchObject({ status: 200, body: { taskId: running.id, state: 'TASK_STATE_PAUSED' } });
    // The v0.3 proto has no PAUSED: a client built from it cannot read the state (docs/design.md §4).
    await expect(client.getTask({ id: running.id })).rejects.toThrow(/Invalid task state: -1/);
    const raw = (await (await fetch(`${peer!.url}/rest/v1/tasks/${running.id}`)).json()) as Task;
    expect(raw.status.state).toBe('TASK_STATE_PAUSED');
    const token = (paused.body.pause as { resumeToken: string }).resumeToken;
    const resumed = await post(`/v1/tasks/${running.id}:resume`, { resumeToken: token });
    expect(resumed.body).toMatchObject({ state: 'TASK_STATE_WORKING', previousState: 'TASK_STATE_PAUSED' });
  });

  it('serves a v1.0 client on the same interface in v1.0, and refuses v0.3 routes on a v1.0-only peer', async () => {
    await start();
    const res = await fetch(`${peer!.url}/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'v1', role: 'ROLE_USER', parts: [{ text: 'input' }] } }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ task: { status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    await peer!.close();

    peer = await startPeer({ deterministic: true, a2aVersion: '1.0' });
    const refused = await post('/v1/message:send', { message: { messageId: 'p', role: 'ROLE_USER', content: [] } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { details: [{ reason: 'VERSION_NOT_SUPPORTED' }] } });
  });
});
