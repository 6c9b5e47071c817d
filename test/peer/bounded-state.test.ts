/**
 * Bounded state under load: at most `maxTasks` terminal tasks are kept (oldest finished first
 * out, never a task that is not terminal), and a clock move that fires thousands of timers does
 * not stall other requests.
 */
import { describe, expect, it } from 'vitest';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import type { PauseTaskResult, Task } from '../../src/protocol/types.js';
import { PeerClient, message } from './peer-client.js';

async function withPeer(
  options: Parameters<typeof startPeer>[0],
  use: (c: PeerClient) => Promise<void>,
): Promise<void> {
  const peer: RunningPeer = await startPeer(options);
  const c = new PeerClient(peer.url);
  try {
    await use(c);
  } finally {
    c.closeStreams();
    await peer.close();
  }
}

describe('--max-tasks', () => {
  it('evicts the task that finished first, answers -32001 for it everywhere, and never evicts a live one', () =>
    withPeer({ deterministic: true, maxTasks: 2 }, async (c) => {
      const parked = await c.start('await:go');
      const slow = await c.start('work:5');
      const done: Task[] = [];
      for (let i = 0; i < 3; i++) done.push(await c.start('work:0'));
      // Finished in order done[0], done[1], done[2]: done[0] is out; the parked and working tasks stay.
      expect((await c.call('GetTask', { id: done[0]!.id })).error?.code).toBe(-32001);
      const listed = await c.result<{ tasks: Task[]; totalSize: number }>('ListTasks', {});
      expect(listed.tasks.map((t) => t.id)).toEqual([done[2]!.id, done[1]!.id, slow.id, parked.id]);
      // `slow` finishes last, so it outlives the tasks that finished before it.
      await c.advance(5000);
      expect((await c.getTask(slow.id)).status.state).toBe('TASK_STATE_COMPLETED');
      expect((await c.call('GetTask', { id: done[1]!.id })).error?.code).toBe(-32001);
      expect((await c.getTask(done[2]!.id)).status.state).toBe('TASK_STATE_COMPLETED');
      expect((await c.getTask(parked.id)).status.state).toBe('TASK_STATE_PAUSED');

      const gone = done[0]!.id;
      const calls: [string, unknown][] = [
        ['GetTask', { id: gone }],
        ['CancelTask', { id: gone }],
        ['SubscribeToTask', { id: gone }],
        ['PauseTask', { taskId: gone }],
        ['ResumeTask', { taskId: gone, resumeToken: 'suspend-x' }],
        ['AwaitTaskResumption', { taskId: gone, conditions: { onEvent: 'x' } }],
        ['SendMessage', { message: message('more', { taskId: gone }) }],
      ];
      for (const [method, params] of calls) {
        const r = await c.call(method, params);
        expect(r.error?.code, method).toBe(-32001);
        expect(r.error?.data?.[0]?.reason, method).toBe('TASK_NOT_FOUND');
      }
      expect(await c.control('FireEvent', { name: 'nothing', payload: { taskId: gone } })).toEqual({ resumed: [] });
    }));

  it('keeps the number of stored tasks at maxTasks plus the live ones over many tasks', () =>
    withPeer({ deterministic: true, maxTasks: 50 }, async (c) => {
      for (let i = 0; i < 20; i++) await Promise.all(Array.from({ length: 25 }, () => c.start('work:0')));
      const live = await c.start('work:1');
      const listed = await c.result<{ totalSize: number }>('ListTasks', { pageSize: 1 });
      expect(listed.totalSize).toBe(51);
      expect((await c.getTask(live.id)).status.state).toBe('TASK_STATE_WORKING');
    }));
});

describe('a clock move that fires thousands of timers', () => {
  it('answers unrelated requests while it runs, then answers after the events it caused', () =>
    withPeer({ deterministic: true, stepMs: 1 }, async (c) => {
      const other = await c.start('await:go');
      const s = await c.stream('SendStreamingMessage', { message: message('work:10000') });
      const first = await s.next();
      const taskId = 'task' in first ? first.task.id : '';
      const answered: string[] = [];
      const moving = c.advance(10_000).then(() => answered.push('AdvanceClock'));
      // Wait until the move is under way (its first step's artifact reached the stream).
      await s.waitUntil((ev) => 'artifactUpdate' in ev);
      const unrelated = await c.getTask(other.id);
      answered.push('GetTask');
      const midway = await c.getTask(taskId);
      await moving;
      expect(unrelated.status.state).toBe('TASK_STATE_PAUSED');
      expect(answered).toEqual(['GetTask', 'AdvanceClock']);
      expect(midway.artifacts?.length).toBeGreaterThan(0);
      expect(midway.artifacts?.length).toBeLessThan(10_000);
      // Every step fired at its own instant, in order, and every event was sent before the answer.
      const events = await s.untilClosed();
      const artifacts = events.filter((e) => 'artifactUpdate' in e);
      expect(artifacts).toHaveLength(10_000);
      expect(artifacts.map((e) => ('artifactUpdate' in e ? e.artifactUpdate.artifact.artifactId : ''))).toEqual(
        Array.from({ length: 10_000 }, (_, i) => `artifact-1-${i + 1}`),
      );
      expect((await c.getTask(taskId)).status.timestamp).toBe('2026-01-01T00:00:10.000Z');
      const p = await c.result<PauseTaskResult>('PauseTask', { taskId: other.id });
      expect(p.pause.pausedAt).toBe('2026-01-01T00:00:00.000Z');
    }));
});
