/**
 * Interop in A2A v0.3 over gRPC: the stock `@a2a-js/sdk` 0.3.14 gRPC client (package `a2a.v1`)
 * against the reference peer over real sockets (docs/design.md §4 "Two dialects", §16): send, an
 * input-required ask and its continuation with a DataPart, get, a stream with its kinds and one
 * `final` event, cancel, a missing task; and `--a2a-version` deciding which packages the one gRPC
 * server serves. The peer is deterministic: its clock moves only when the test advances it.
 */
import type { Message, Task, TaskStatusUpdateEvent } from 'a2a-sdk-v03';
import { GrpcTransport } from 'a2a-sdk-v03/client/grpc';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import type { A2aVersionSetting } from '../../src/peer/v03-dialect.js';
import { GrpcTestClient } from '../helpers/grpc-test-client.js';
import { PeerClient } from './peer-client.js';

let peer: RunningPeer | undefined;
let n = 0;

afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

async function start(a2aVersion?: A2aVersionSetting): Promise<{ client: GrpcTransport; control: PeerClient }> {
  peer = await startPeer({ deterministic: true, stepMs: 1000, ...(a2aVersion ? { a2aVersion } : {}) });
  return { client: new GrpcTransport({ endpoint: peer.grpcUrl }), control: new PeerClient(peer.url) };
}

function message(parts: Message['parts'], task?: { id: string; contextId: string }): Message {
  return {
    kind: 'message',
    messageId: `v03-grpc-${++n}`,
    role: 'user',
    parts,
    ...(task ? { taskId: task.id, contextId: task.contextId } : {}),
  };
}

const text = (t: string): Message['parts'] => [{ kind: 'text', text: t }];

describe('the stock 0.3.14 gRPC client against the reference peer', () => {
  it('sends, continues an input-required task with a DataPart, gets and cancels in v0.3 shapes', async () => {
    const { client } = await start();
    const asked = (await client.sendMessage({ message: message(text('input')) })) as Task;
    expect(asked).toMatchObject({ kind: 'task', status: { state: 'input-required' } });
    expect(asked.history?.[0]).toMatchObject({
      kind: 'message',
      role: 'user',
      parts: [{ kind: 'text', text: 'input' }],
    });

    const approval: Message['parts'] = [{ kind: 'data', data: { callId: 'c-1', outcome: 'approved' } }];
    const answered = (await client.sendMessage({ message: message(approval, asked) })) as Task;
    expect(answered).toMatchObject({ kind: 'task', id: asked.id, status: { state: 'completed' } });
    // The approval travelled as a v0.3 DataPart (`data.data` in the proto) and comes back as one.
    expect(answered.history).toContainEqual(
      expect.objectContaining({
        role: 'user',
        parts: [{ kind: 'data', data: { callId: 'c-1', outcome: 'approved' } }],
      }),
    );

    const got = await client.getTask({ id: asked.id });
    expect(got).toMatchObject({ kind: 'task', id: asked.id, status: { state: 'completed' } });

    const running = (await client.sendMessage({
      message: message(text('work:5')),
      configuration: { blocking: false, acceptedOutputModes: [] },
    })) as Task;
    expect(['submitted', 'working']).toContain(running.status.state);
    const canceled = await client.cancelTask({ id: running.id });
    expect(canceled).toMatchObject({ kind: 'task', id: running.id, status: { state: 'canceled' } });

    await expect(client.getTask({ id: 'no-such-task' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });

  it('streams kinds and one final status update, and ends the stream at input-required', async () => {
    const { client, control } = await start();
    const drain = async (stream: AsyncGenerator<unknown>): Promise<unknown[]> => {
      const first = await stream.next();
      const advanced = control.advance(1000);
      const events: unknown[] = [first.value];
      // The stream ends by itself after its final event: the loop ends without a cancel.
      for await (const event of stream) events.push(event);
      await advanced;
      return events;
    };
    const events = await drain(client.sendMessageStream({ message: message(text('work:1 input work:1')) }));
    const kinds = events.map((e) => (e as { kind: string }).kind);
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('artifact-update');
    const last = events.at(-1) as TaskStatusUpdateEvent;
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
    expect(events.filter((e) => (e as { final?: boolean }).final === true)).toHaveLength(1);

    const more = await drain(
      client.sendMessageStream({ message: message(text('approved'), { id: last.taskId, contextId: last.contextId }) }),
    );
    expect(more.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  it('serves a2a.v1 and lf.a2a.v1 on one server as --a2a-version says', async () => {
    const { client } = await start('both');
    const v10 = new GrpcTestClient(peer!.url);
    expect(await client.sendMessage({ message: message(text('work:0')) })).toMatchObject({ kind: 'task' });
    const sent = await v10.ok('SendMessage', {
      message: { messageId: 'n-1', role: 'ROLE_USER', parts: [{ text: 'work:0' }] },
    });
    expect(sent).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' } } });
    await peer!.close();

    const only03 = await start('0.3');
    expect(await only03.client.sendMessage({ message: message(text('work:0')) })).toMatchObject({ kind: 'task' });
    await expect(new GrpcTestClient(peer!.url).ok('GetTask', { id: 'x' })).rejects.toThrow(/^GetTask failed: 12 /);
    await peer!.close();

    const only10 = await start('1.0');
    await expect(only10.client.getTask({ id: 'x' })).rejects.toThrow(/UNIMPLEMENTED|12/);
  });
});
