/**
 * The three pause modes on the virtual clock (docs/design.md §3): a step or tool call in flight
 * between clock moves, and what each mode does with it. Steps are 1000 virtual ms.
 */
import { describe, expect, it } from 'vitest';
import type { PauseTaskResult, StreamResponse } from '../../src/protocol/types.js';
import { type PeerClient, type SseStream, peerPerTest, label, message } from './peer-client.js';

let c: PeerClient;
peerPerTest((client) => (c = client));

async function streamed(script: string): Promise<{ taskId: string; s: SseStream }> {
  const s = await c.stream('SendStreamingMessage', { message: message(script) });
  const first = await s.next();
  if (!('task' in first)) throw new Error(`expected the Task first, got ${label(first)}`);
  return { taskId: first.task.id, s };
}

function pendingText(ev: StreamResponse): string | undefined {
  return 'statusUpdate' in ev && ev.statusUpdate.status.state === 'TASK_STATE_WORKING'
    ? ev.statusUpdate.status.message?.parts[0]?.text
    : undefined;
}

const labels = (s: SseStream): string[] => s.frames.map((f) => label(f.result!));

describe('at a step boundary', () => {
  it.each(['finish_step', 'interrupt_immediate', 'wait_for_completion'])(
    'pauses at once in %s mode and runs the step in full after the resume',
    async (mode) => {
      const task = await c.start('work:2');
      await c.advance(1000);
      const p = await c.result<PauseTaskResult>('PauseTask', { taskId: task.id, mode });
      expect(p.pause.pausedAt).toBe('2026-01-01T00:00:01.000Z');
      expect((await c.getTask(task.id)).artifacts?.map((a) => a.artifactId)).toEqual(['artifact-1-1']);
      await c.advance(5000);
      await c.result('ResumeTask', { taskId: task.id, resumeToken: p.pause.resumeToken });
      await c.advance(999);
      expect((await c.getTask(task.id)).status.state).toBe('TASK_STATE_WORKING');
      await c.advance(1);
      const done = await c.getTask(task.id);
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
      expect(done.artifacts?.map((a) => a.artifactId)).toEqual(['artifact-1-1', 'artifact-1-2']);
    },
  );
});

describe('a work step in flight', () => {
  it('finish_step lets it end with its artifact, then pauses, answering PauseTask before AdvanceClock', async () => {
    const { taskId, s } = await streamed('work:2');
    await c.advance(400);
    const order: string[] = [];
    const pausing = c.call<PauseTaskResult>('PauseTask', { taskId, mode: 'finish_step' }).then((r) => {
      order.push('PauseTask');
      return r;
    });
    await s.waitUntil((ev) => pendingText(ev) !== undefined);
    await c.advance(5000).then(() => order.push('AdvanceClock'));
    const p = (await pausing).result!;
    expect(order).toEqual(['PauseTask', 'AdvanceClock']);
    expect(p.pause.pausedAt).toBe('2026-01-01T00:00:01.000Z');
    expect(labels(s)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_WORKING',
      'artifact:artifact-1-1',
      'status:TASK_STATE_PAUSED',
    ]);
    expect(pendingText(s.frames[2]!.result!)).toBe('pause requested: pausing when the step in flight ends');
  });

  it('interrupt_immediate aborts it at once and redoes it in full after the resume', async () => {
    const { taskId, s } = await streamed('work:1');
    await c.advance(400);
    const p = await c.result<PauseTaskResult>('PauseTask', { taskId, mode: 'interrupt_immediate' });
    expect(p.pause.pausedAt).toBe('2026-01-01T00:00:00.400Z');
    await c.result('ResumeTask', { taskId, resumeToken: p.pause.resumeToken });
    await c.advance(999);
    expect((await c.getTask(taskId)).artifacts).toBeUndefined();
    await c.advance(1);
    const events = await s.untilClosed();
    expect(events.map(label)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_PAUSED',
      'status:TASK_STATE_WORKING',
      'artifact:artifact-1-1',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect((await c.getTask(taskId)).status.timestamp).toBe('2026-01-01T00:00:01.400Z');
  });

  it('wait_for_completion without a tool call waits for the step like finish_step', async () => {
    const { taskId, s } = await streamed('work:2');
    await c.advance(400);
    const pausing = c.result<PauseTaskResult>('PauseTask', { taskId, mode: 'wait_for_completion' });
    await s.waitUntil((ev) => pendingText(ev) !== undefined);
    await c.advance(600);
    expect((await pausing).pause.pausedAt).toBe('2026-01-01T00:00:01.000Z');
    expect(labels(s).slice(-2)).toEqual(['artifact:artifact-1-1', 'status:TASK_STATE_PAUSED']);
  });
});

describe('a tool call in flight (tool:4, paused in its second step)', () => {
  async function midTool(): Promise<{ taskId: string; s: SseStream }> {
    const run = await streamed('work:1 tool:4 work:1');
    await c.advance(2500);
    return run;
  }

  it('interrupt_immediate aborts the tool call (no artifact) and redoes all its steps after the resume', async () => {
    const { taskId, s } = await midTool();
    const p = await c.result<PauseTaskResult>('PauseTask', { taskId, mode: 'interrupt_immediate' });
    expect(p.pause.pausedAt).toBe('2026-01-01T00:00:02.500Z');
    await c.result('ResumeTask', { taskId, resumeToken: p.pause.resumeToken });
    await c.advance(3999);
    expect((await c.getTask(taskId)).artifacts?.map((a) => a.artifactId)).toEqual(['artifact-1-1']);
    await c.advance(1001);
    const events = await s.untilClosed();
    expect(events.map(label)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:artifact-1-1',
      'status:TASK_STATE_PAUSED',
      'status:TASK_STATE_WORKING',
      'artifact:artifact-2-tool',
      'artifact:artifact-3-1',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect((await c.getTask(taskId)).status.timestamp).toBe('2026-01-01T00:00:07.500Z');
  });

  it('finish_step stops at the end of the step in flight and resumes the tool call where it stopped', async () => {
    const { taskId, s } = await midTool();
    const pausing = c.result<PauseTaskResult>('PauseTask', { taskId, mode: 'finish_step' });
    await s.waitUntil((ev) => pendingText(ev) !== undefined);
    await c.advance(3000);
    const p = await pausing;
    expect(p.pause.pausedAt).toBe('2026-01-01T00:00:03.000Z');
    expect((await c.getTask(taskId)).artifacts?.map((a) => a.artifactId)).toEqual(['artifact-1-1']);
    await c.result('ResumeTask', { taskId, resumeToken: p.pause.resumeToken });
    await c.advance(2000);
    expect((await c.getTask(taskId)).artifacts?.map((a) => a.artifactId)).toEqual(['artifact-1-1', 'artifact-2-tool']);
    await c.advance(1000);
    const events = await s.untilClosed();
    expect(events.map(label)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:artifact-1-1',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_PAUSED',
      'status:TASK_STATE_WORKING',
      'artifact:artifact-2-tool',
      'artifact:artifact-3-1',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect((await c.getTask(taskId)).status.timestamp).toBe('2026-01-01T00:00:08.500Z');
  });

  it('wait_for_completion lets the tool call complete (its artifact before PAUSED), then pauses', async () => {
    const { taskId, s } = await midTool();
    const pausing = c.result<PauseTaskResult>('PauseTask', { taskId, mode: 'wait_for_completion' });
    const announced = await s.waitUntil((ev) => pendingText(ev) !== undefined);
    expect(pendingText(announced)).toBe('pause requested: pausing when the tool call in flight completes');
    await c.advance(1500);
    expect((await c.getTask(taskId)).status.state).toBe('TASK_STATE_WORKING');
    await c.advance(1000);
    const p = await pausing;
    expect(p.pause.pausedAt).toBe('2026-01-01T00:00:05.000Z');
    await c.result('ResumeTask', { taskId, resumeToken: p.pause.resumeToken });
    await c.advance(1000);
    const events = await s.untilClosed();
    expect(events.map(label)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:artifact-1-1',
      'status:TASK_STATE_WORKING',
      'artifact:artifact-2-tool',
      'status:TASK_STATE_PAUSED',
      'status:TASK_STATE_WORKING',
      'artifact:artifact-3-1',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  it('wait_for_completion waits for the tool call even between two of its steps', async () => {
    const run = await streamed('tool:3');
    await c.advance(1000);
    const pausing = c.result<PauseTaskResult>('PauseTask', { taskId: run.taskId, mode: 'wait_for_completion' });
    await run.s.waitUntil((ev) => pendingText(ev) !== undefined);
    await c.advance(2000);
    expect((await pausing).pause.pausedAt).toBe('2026-01-01T00:00:03.000Z');
    expect(labels(run.s).slice(-2)).toEqual(['artifact:artifact-1-tool', 'status:TASK_STATE_PAUSED']);
  });
});

describe('joined pause requests', () => {
  it('a finish_step request narrows a pending wait for the tool call to the step in flight', async () => {
    const { taskId, s } = await streamed('tool:4');
    await c.advance(500);
    const waiting = c.result<PauseTaskResult>('PauseTask', { taskId, mode: 'wait_for_completion' });
    await s.waitUntil((ev) => pendingText(ev) !== undefined);
    const narrowing = c.result<PauseTaskResult>('PauseTask', { taskId, mode: 'finish_step' });
    await s.waitUntil((ev) => pendingText(ev) === 'pause requested: pausing when the step in flight ends');
    await c.advance(4000);
    const [a, b] = await Promise.all([waiting, narrowing]);
    expect(a).toEqual(b);
    expect(a.pause.pausedAt).toBe('2026-01-01T00:00:01.000Z');
  });

  it('an interrupt_immediate request makes a pending pause happen at once, for every waiter', async () => {
    const { taskId, s } = await streamed('work:1');
    await c.advance(500);
    const waiting = c.result<PauseTaskResult>('PauseTask', { taskId, mode: 'finish_step' });
    await s.waitUntil((ev) => pendingText(ev) !== undefined);
    const now = await c.result<PauseTaskResult>('PauseTask', { taskId, mode: 'interrupt_immediate' });
    expect(await waiting).toEqual(now);
    expect(now.pause.pausedAt).toBe('2026-01-01T00:00:00.500Z');
    expect((await c.getTask(taskId)).artifacts).toBeUndefined();
  });

  it('an AwaitTaskResumption in flight of a step waits for the step too (default mode finish_step)', async () => {
    const { taskId, s } = await streamed('work:1 work:1');
    await c.advance(300);
    const parking = c.result<PauseTaskResult>('AwaitTaskResumption', { taskId, conditions: { onEvent: 'go' } });
    await s.waitUntil((ev) => pendingText(ev) !== undefined);
    await c.advance(700);
    const p = await parking;
    expect(p.pause).toMatchObject({ initiatedBy: 'PAUSE_INITIATOR_AGENT', pausedAt: '2026-01-01T00:00:01.000Z' });
    expect(labels(s).slice(-2)).toEqual(['artifact:artifact-1-1', 'status:TASK_STATE_PAUSED']);
  });
});
