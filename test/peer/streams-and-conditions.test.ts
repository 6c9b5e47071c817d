/**
 * Streams across a pause, resume conditions and their causes, on the deterministic peer.
 */
import { describe, expect, it } from 'vitest';
import { parseResumeMetadata } from '../../src/protocol/parse-objects.js';
import type { PauseTaskResult, StreamResponse, Task, TaskStatusUpdateEvent } from '../../src/protocol/types.js';
import { type PeerClient, peerPerTest, label, message } from './peer-client.js';

let c: PeerClient;
peerPerTest((client) => (c = client));

function statusOf(ev: StreamResponse): TaskStatusUpdateEvent {
  if (!('statusUpdate' in ev)) throw new Error(`expected a statusUpdate, got ${label(ev)}`);
  return ev.statusUpdate;
}

function resumeCauseOf(events: StreamResponse[]): string[] {
  return events
    .filter((e) => 'statusUpdate' in e && e.statusUpdate.metadata?.previousState !== undefined)
    .map((e) => statusOf(e).metadata?.cause as string);
}

describe('SubscribeToTask across a pause', () => {
  it('shows WORKING -> PAUSED -> WORKING -> COMPLETED, in order, to two subscribers at once', async () => {
    const task = await c.start('work:2');
    const a = await c.stream('SubscribeToTask', { id: task.id });
    const b = await c.stream('SubscribeToTask', { id: task.id });
    await a.waitFor(1);
    await b.waitFor(1);
    await c.advance(1000);
    const p = await c.result<PauseTaskResult>('PauseTask', { taskId: task.id, reason: 'review' });
    await c.advance(60_000);
    await c.result('ResumeTask', { taskId: task.id, resumeToken: p.pause.resumeToken });
    await c.advance(1000);
    const [ea, eb] = await Promise.all([a.untilClosed(), b.untilClosed()]);
    expect(ea).toEqual(eb);
    expect(ea.map(label)).toEqual([
      'task:TASK_STATE_WORKING',
      'artifact:artifact-1-1',
      'status:TASK_STATE_PAUSED',
      'status:TASK_STATE_WORKING',
      'artifact:artifact-1-2',
      'status:TASK_STATE_COMPLETED',
    ]);
    const paused = statusOf(ea[2]!);
    expect(paused.status.pause).toEqual(p.pause);
    expect(paused.status.timestamp).toBe('2026-01-01T00:00:01.000Z');
    const resumed = statusOf(ea[3]!);
    const meta = parseResumeMetadata(resumed.metadata);
    expect(meta).toEqual({
      ok: true,
      value: {
        previousState: 'TASK_STATE_PAUSED',
        cause: 'explicit_resume',
        hadResumeInput: false,
        continueTranscript: true,
        resumedAt: '2026-01-01T00:01:01.000Z',
      },
    });
  });

  it('keeps the stream open at PAUSED and sends the paused Task first to a late subscriber', async () => {
    const task = await c.start('work:2');
    await c.result('PauseTask', { taskId: task.id });
    const s = await c.stream('SubscribeToTask', { id: task.id });
    const first = await s.next();
    expect('task' in first && first.task.status.state).toBe('TASK_STATE_PAUSED');
    expect('task' in first && first.task.status.pause?.initiatedBy).toBe('PAUSE_INITIATOR_CLIENT');
    await c.advance(10_000);
    expect(s.closed).toBe(false);
  });
});

describe('resume conditions and causes', () => {
  it('fails a 30-minute onTimeout fail pause after AdvanceClock, with no real waiting', async () => {
    const task = await c.start('work:1');
    const s = await c.stream('SubscribeToTask', { id: task.id });
    const r = await c.result<PauseTaskResult>('AwaitTaskResumption', {
      taskId: task.id,
      conditions: { onEvent: 'ci.done', timeout: { durationMinutes: 30, onTimeout: 'fail' } },
    });
    expect(r.pause.pausedUntil).toBe('2026-01-01T00:30:00.000Z');
    expect(await c.advance(29 * 60_000)).toBe('2026-01-01T00:29:00.000Z');
    expect((await c.getTask(task.id)).status.state).toBe('TASK_STATE_PAUSED');
    await c.advance(60_000);
    const events = await s.untilClosed();
    expect(events.map(label)).toEqual([
      'task:TASK_STATE_WORKING',
      'status:TASK_STATE_PAUSED',
      'status:TASK_STATE_FAILED',
    ]);
    expect(statusOf(events[2]!).status.timestamp).toBe('2026-01-01T00:30:00.000Z');
    expect((await c.call('ResumeTask', { taskId: task.id, resumeToken: r.pause.resumeToken })).error?.code).toBe(
      -32010,
    );
  });

  it('resumes an onTimeout resume pause with cause timeout', async () => {
    const task = await c.start('await:never:30:resume work:1');
    const s = await c.stream('SubscribeToTask', { id: task.id });
    const pause = (await c.getTask(task.id)).status.pause!;
    expect(pause).toMatchObject({ initiatedBy: 'PAUSE_INITIATOR_AGENT', resumeMode: 'RESUME_MODE_EXTERNAL_EVENT' });
    await c.advance(30 * 60_000 + 1000);
    const events = await s.untilClosed();
    expect(resumeCauseOf(events)).toEqual(['timeout']);
    expect(events.map(label).slice(-2)).toEqual(['artifact:artifact-2-1', 'status:TASK_STATE_COMPLETED']);
  });

  it('sets resumeMode TIMEOUT for a pause with only a timeout', async () => {
    const task = await c.start('work:3');
    const r = await c.result<PauseTaskResult>('AwaitTaskResumption', {
      taskId: task.id,
      conditions: { timeout: { durationMinutes: 5, onTimeout: 'resume' } },
    });
    expect(r.pause.resumeMode).toBe('RESUME_MODE_TIMEOUT');
  });

  it('resumes the tasks awaiting an event with cause condition_fired and lists them', async () => {
    const t1 = await c.start('await:deploy work:1');
    const t2 = await c.start('await:deploy');
    const t3 = await c.start('await:other');
    const s = await c.stream('SubscribeToTask', { id: t1.id });
    const fired = await c.control<{ resumed: string[] }>('FireEvent', { name: 'deploy' });
    expect(fired.resumed).toEqual([t1.id, t2.id]);
    expect((await c.getTask(t2.id)).status.state).toBe('TASK_STATE_COMPLETED');
    expect((await c.getTask(t3.id)).status.state).toBe('TASK_STATE_PAUSED');
    await c.advance(1000);
    expect(resumeCauseOf(await s.untilClosed())).toEqual(['condition_fired']);
  });

  it('wakes a paused task named by payload.taskId with cause external_event', async () => {
    const task = await c.start('work:3');
    const s = await c.stream('SubscribeToTask', { id: task.id });
    await c.result('PauseTask', { taskId: task.id });
    const fired = await c.control<{ resumed: string[] }>('FireEvent', { name: 'wake', payload: { taskId: task.id } });
    expect(fired.resumed).toEqual([task.id]);
    await c.advance(3000);
    expect(resumeCauseOf(await s.untilClosed())).toEqual(['external_event']);
  });

  it('resumes a sleep-until task when trigger.at is reached, with cause condition_fired', async () => {
    const task = await c.start('sleep-until:2026-01-01T09:00:00Z work:1');
    const pause = (await c.getTask(task.id)).status.pause!;
    expect(pause.conditions).toEqual({ trigger: { at: '2026-01-01T09:00:00Z' } });
    expect(pause.pausedUntil).toBeUndefined();
    const s = await c.stream('SubscribeToTask', { id: task.id });
    await c.advance(9 * 3600_000 - 1);
    expect((await c.getTask(task.id)).status.state).toBe('TASK_STATE_PAUSED');
    await c.advance(1001);
    const events = await s.untilClosed();
    expect(resumeCauseOf(events)).toEqual(['condition_fired']);
    const resumed = events.find((e) => 'statusUpdate' in e && e.statusUpdate.metadata?.cause !== undefined);
    expect(resumed && statusOf(resumed).metadata?.resumedAt).toBe('2026-01-01T09:00:00.000Z');
  });

  it('fires due timers in time order, each at its own instant', async () => {
    const late = await c.start('sleep-until:2026-01-01T02:00:00Z');
    const early = await c.start('sleep-until:2026-01-01T01:00:00Z');
    await c.advance(3 * 3600_000);
    const [a, b] = await Promise.all([c.getTask(early.id), c.getTask(late.id)]);
    expect(a.status.timestamp).toBe('2026-01-01T01:00:00.000Z');
    expect(b.status.timestamp).toBe('2026-01-01T02:00:00.000Z');
    expect(await c.control<{ now: string }>('GetClock')).toEqual({ now: '2026-01-01T03:00:00.000Z' });
  });

  it('records resume input in the history and adds a digest when continueTranscript is false', async () => {
    const task = await c.start('work:2');
    const p = await c.result<PauseTaskResult>('PauseTask', { taskId: task.id });
    const s = await c.stream('SubscribeToTask', { id: task.id });
    await c.result('ResumeTask', {
      taskId: task.id,
      resumeToken: p.pause.resumeToken,
      input: { approved: true },
      continueTranscript: false,
    });
    const history = (await c.getTask(task.id)).history ?? [];
    expect(history.map((m) => m.role)).toEqual(['ROLE_USER', 'ROLE_AGENT', 'ROLE_USER']);
    expect(history[1]?.metadata).toEqual({ transcriptDigest: true });
    expect(history[1]?.parts[0]?.text).toMatch(/^digest of the transcript before the pause/);
    expect(history[2]?.parts).toEqual([{ data: { approved: true } }]);
    expect(history[2]?.metadata).toEqual({ resumeInput: true });
    await s.waitFor(2);
    const meta = statusOf(s.frames[1]!.result!).metadata;
    expect(meta).toMatchObject({ hadResumeInput: true, continueTranscript: false });
  });
});

describe('blocking SendMessage', () => {
  it('returns a blocking SendMessage at PAUSED', async () => {
    const r = await c.result<{ task: Task }>('SendMessage', { message: message('work:0 await:go') });
    expect(r.task.status.state).toBe('TASK_STATE_PAUSED');
  });
});
