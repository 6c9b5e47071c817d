/**
 * Racing resumes and many concurrent pause/resume cycles against the deterministic peer.
 */
import { expect, it } from 'vitest';
import type { PauseTaskResult, ResumeTaskResult, Task } from '../../src/protocol/types.js';
import { type PeerClient, peerPerTest, label } from './peer-client.js';

let c: PeerClient;
// 1,000 requests at once, plus the client's idle keep-alive sockets: above the default connection cap.
peerPerTest((client) => (c = client), { deterministic: true, maxConnections: 4096 });

it('lets exactly one of 50 concurrent ResumeTask calls with the right token win, and streams one resume', async () => {
  const task = await c.start('work:2');
  const s = await c.stream('SubscribeToTask', { id: task.id });
  const p = await c.result<PauseTaskResult>('PauseTask', { taskId: task.id });
  const replies = await Promise.all(
    Array.from({ length: 50 }, () =>
      c.call<ResumeTaskResult>('ResumeTask', { taskId: task.id, resumeToken: p.pause.resumeToken }),
    ),
  );
  const wins = replies.filter((r) => r.result !== undefined);
  expect(wins).toHaveLength(1);
  expect(wins[0]?.result?.cause).toBe('explicit_resume');
  const losers = replies.filter((r) => r.error !== undefined).map((r) => r.error?.code);
  expect(losers).toHaveLength(49);
  expect(losers.every((code) => code === -32010 || code === -32011)).toBe(true);
  await c.advance(2000);
  const events = await s.untilClosed();
  expect(events.map(label)).toEqual([
    'task:TASK_STATE_WORKING',
    'status:TASK_STATE_PAUSED',
    'status:TASK_STATE_WORKING',
    'artifact:artifact-1-1',
    'artifact:artifact-1-2',
    'status:TASK_STATE_COMPLETED',
  ]);
});

it('pauses and resumes 1,000 tasks concurrently without a wrong state', async () => {
  const n = 1000;
  const tasks: Task[] = [];
  // Create in batches to stay within the machine's socket budget.
  for (let i = 0; i < n; i += 100)
    tasks.push(...(await Promise.all(Array.from({ length: 100 }, () => c.start('work:2')))));
  const pauses = await Promise.all(tasks.map((t) => c.result<PauseTaskResult>('PauseTask', { taskId: t.id })));
  expect(new Set(pauses.map((p) => p.pause.resumeToken)).size).toBe(n);
  const paused = await c.result<{ totalSize: number }>('ListTasks', { status: 'TASK_STATE_PAUSED', pageSize: 1 });
  expect(paused.totalSize).toBe(n);
  const resumes = await Promise.all(
    pauses.map((p) => c.result<ResumeTaskResult>('ResumeTask', { taskId: p.taskId, resumeToken: p.pause.resumeToken })),
  );
  expect(resumes.every((r, i) => r.taskId === tasks[i]?.id && r.state === 'TASK_STATE_WORKING')).toBe(true);
  await c.advance(2000);
  const done = await c.result<{ totalSize: number }>('ListTasks', { status: 'TASK_STATE_COMPLETED', pageSize: 1 });
  expect(done.totalSize).toBe(n);
  const sample = await c.getTask(tasks[n - 1]!.id);
  expect(sample.artifacts?.map((a) => a.artifactId)).toEqual(['artifact-1-1', 'artifact-1-2']);
});
