/**
 * Interop in A2A v0.3: the stock `@a2a-js/sdk` 0.3.14 client (the `a2a-sdk-v03` alias) against the
 * reference peer over real sockets (docs/design.md §4 "Two dialects"): its card, send, get,
 * stream, cancel, an input-required ask and its continuation, and a pause and resume through the
 * v0.3 method extensions `tasks/pause` / `tasks/resume`. The peer is deterministic: its clock moves
 * only when the test advances it.
 */
import type { AgentCard, Message, Task, TaskStatusUpdateEvent } from 'a2a-sdk-v03';
import { A2AClient } from 'a2a-sdk-v03/client';
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

async function start(a2aVersion?: A2aVersionSetting): Promise<{ client: A2AClient; control: PeerClient }> {
  peer = await startPeer({ deterministic: true, stepMs: 1000, ...(a2aVersion ? { a2aVersion } : {}) });
  const client = await A2AClient.fromCardUrl(`${peer.url}/.well-known/agent-card.json`);
  return { client, control: new PeerClient(peer.url) };
}

function message(text: string, task?: { id: string; contextId: string }): Message {
  return {
    kind: 'message',
    messageId: `v03-${++n}`,
    role: 'user',
    parts: [{ kind: 'text', text }],
    ...(task ? { taskId: task.id, contextId: task.contextId } : {}),
  };
}

function taskOf(answer: unknown): Task {
  const r = answer as { result?: Task; error?: unknown };
  if (r.result === undefined) throw new Error(`expected a result, got ${JSON.stringify(answer)}`);
  return r.result;
}

describe('the stock 0.3.14 client against the reference peer', () => {
  it('reads the v0.3 card, sends, gets and cancels in v0.3 shapes', async () => {
    const { client } = await start();
    const card = await client.getAgentCard();
    expect(card.protocolVersion).toBe('0.3.0');
    expect(card.url).toBe(peer!.url);

    const asked = taskOf(await client.sendMessage({ message: message('input') }));
    expect(asked).toMatchObject({ kind: 'task', status: { state: 'input-required' } });
    expect(asked.history?.[0]).toMatchObject({
      kind: 'message',
      role: 'user',
      parts: [{ kind: 'text', text: 'input' }],
    });

    const answered = taskOf(
      await client.sendMessage({ message: message('yes', { id: asked.id, contextId: asked.contextId }) }),
    );
    expect(answered).toMatchObject({ kind: 'task', id: asked.id, status: { state: 'completed' } });

    const got = taskOf(await client.getTask({ id: asked.id }));
    expect(got).toMatchObject({ kind: 'task', id: asked.id, status: { state: 'completed' } });

    const running = taskOf(
      await client.sendMessage({ message: message('work:5'), configuration: { blocking: false } }),
    );
    expect(['submitted', 'working']).toContain(running.status.state);
    const canceled = taskOf(await client.cancelTask({ id: running.id }));
    expect(canceled).toMatchObject({ kind: 'task', id: running.id, status: { state: 'canceled' } });

    const missing = (await client.getTask({ id: 'no-such-task' })) as { error?: { code: number } };
    expect(missing.error?.code).toBe(-32001);
  });

  it('streams kinds and a final status update, and ends the stream at input-required', async () => {
    const { client, control } = await start();
    /** Every event of a stream, the clock advanced one step once its first event arrived. */
    const drain = async (stream: AsyncGenerator<unknown>): Promise<unknown[]> => {
      const first = await stream.next();
      const advanced = control.advance(1000);
      const events: unknown[] = [first.value];
      // The stream ends by itself after its final event: the loop ends without a cancel.
      for await (const event of stream) events.push(event);
      await advanced;
      return events;
    };
    const events = await drain(client.sendMessageStream({ message: message('work:1 input work:1') }));
    const kinds = events.map((e) => (e as { kind: string }).kind);
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('artifact-update');
    const last = events.at(-1) as TaskStatusUpdateEvent;
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
    const finals = events.filter((e) => (e as { final?: boolean }).final === true);
    expect(finals).toHaveLength(1);

    // The continuation, streamed: the rest of the script, then `completed` with final: true.
    const go = message('approved', { id: last.taskId, contextId: last.contextId });
    const more = await drain(client.sendMessageStream({ message: go }));
    expect(more.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  it('pauses and resumes through the v0.3 method extensions tasks/pause and tasks/resume', async () => {
    const { client } = await start();
    const running = taskOf(
      await client.sendMessage({ message: message('work:5'), configuration: { blocking: false } }),
    );
    const paused = (await client.callExtensionMethod('tasks/pause', {
      taskId: running.id,
      mode: 'interrupt_immediate',
    })) as { result?: { taskId: string; state: string; pause: { resumeToken: string; initiatedBy: string } } };
    expect(paused.result).toMatchObject({ taskId: running.id, state: 'paused' });
    expect(taskOf(await client.getTask({ id: running.id })).status.state).toBe('paused');

    const resumed = (await client.callExtensionMethod('tasks/resume', {
      taskId: running.id,
      resumeToken: paused.result!.pause.resumeToken,
    })) as { result?: { state: string; previousState: string } };
    expect(resumed.result).toMatchObject({ state: 'working', previousState: 'paused' });
  });

  it('refuses v0.3 calls on a v1.0-only peer and v1.0 calls on a v0.3-only one, naming the way', async () => {
    peer = await startPeer({ deterministic: true, a2aVersion: '1.0' });
    // A v1.0-only card names no v0.3 `url`: the client is pointed at the endpoint.
    const card = (await (await fetch(`${peer.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expect(card).not.toHaveProperty('protocolVersion');
    const v10 = new A2AClient({ ...card, url: peer.url, protocolVersion: '0.3.0' } as unknown as AgentCard);
    const refused = (await v10.sendMessage({ message: message('work:1') })) as {
      error?: { code: number; message: string };
    };
    expect(refused.error?.code).toBe(-32009);
    expect(refused.error?.message).toMatch(/message\/send" is A2A v0\.3, which this peer does not serve/);
    await peer!.close();

    await start('0.3');
    const v10Call = await new PeerClient(peer!.url).call('GetTask', { id: 'x' });
    expect(v10Call.error?.code).toBe(-32009);
    expect(v10Call.error?.message).toMatch(/speaks A2A 0\.3\.0 only/);
  });
});
