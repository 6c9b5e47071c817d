/**
 * Every transition of the paused-state RFC the peer allows, and every one it refuses, driven by
 * real requests against the deterministic peer.
 */
import { describe, expect, it } from 'vitest';
import type { PauseTaskResult, ResumeTaskResult, Task } from '../../src/protocol/types.js';
import { type PeerClient, peerPerTest, label, message } from './peer-client.js';

let c: PeerClient;
peerPerTest((client) => (c = client));

async function state(id: string): Promise<string> {
  return (await c.getTask(id)).status.state;
}

describe('allowed transitions', () => {
  it('runs SUBMITTED -> WORKING -> COMPLETED with one artifact per step', async () => {
    const s = await c.stream('SendStreamingMessage', { message: message('work:2') });
    await c.advance(5000);
    const events = await s.untilClosed();
    expect(events.map(label)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:artifact-1-1',
      'artifact:artifact-1-2',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  it('pauses a WORKING task on PauseTask with initiatedBy CLIENT', async () => {
    const task = await c.start('work:3');
    const r = await c.result<PauseTaskResult>('PauseTask', { taskId: task.id, reason: 'operator review' });
    expect(r).toMatchObject({ taskId: task.id, state: 'TASK_STATE_PAUSED' });
    expect(r.pause).toMatchObject({
      initiatedBy: 'PAUSE_INITIATOR_CLIENT',
      reason: 'operator review',
      pausedAt: '2026-01-01T00:00:00.000Z',
      resumable: true,
      resumeMode: 'RESUME_MODE_CLIENT_MESSAGE',
    });
    const got = await c.getTask(task.id);
    expect(got.status.state).toBe('TASK_STATE_PAUSED');
    expect(got.status.pause).toEqual(r.pause);
  });

  it('pauses a WORKING task on AwaitTaskResumption with initiatedBy AGENT and the conditions', async () => {
    const task = await c.start('work:3');
    const conditions = { onEvent: 'ci.build.completed', timeout: { durationMinutes: 30, onTimeout: 'fail' } };
    const r = await c.result<PauseTaskResult>('AwaitTaskResumption', {
      taskId: task.id,
      reason: 'ci',
      conditions,
      summary: 'waiting on CI',
    });
    expect(r.pause).toMatchObject({
      initiatedBy: 'PAUSE_INITIATOR_AGENT',
      conditions,
      pausedUntil: '2026-01-01T00:30:00.000Z',
      resumeMode: 'RESUME_MODE_EXTERNAL_EVENT',
    });
    expect((await c.getTask(task.id)).status.message?.parts[0]?.text).toBe('waiting on CI');
  });

  it('resumes PAUSED -> WORKING on ResumeTask with cause explicit_resume and runs to COMPLETED', async () => {
    const task = await c.start('work:1');
    const p = await c.result<PauseTaskResult>('PauseTask', { taskId: task.id });
    await c.advance(500);
    const r = await c.result<ResumeTaskResult>('ResumeTask', { taskId: task.id, resumeToken: p.pause.resumeToken });
    expect(r).toEqual({
      taskId: task.id,
      state: 'TASK_STATE_WORKING',
      previousState: 'TASK_STATE_PAUSED',
      cause: 'explicit_resume',
      resumedAt: '2026-01-01T00:00:00.500Z',
    });
    await c.advance(1000);
    expect(await state(task.id)).toBe('TASK_STATE_COMPLETED');
  });

  it('cancels a PAUSED task (PAUSED -> CANCELED)', async () => {
    const task = await c.start('work:1');
    await c.result('PauseTask', { taskId: task.id });
    const canceled = await c.result<Task>('CancelTask', { id: task.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect(canceled.status.pause).toBeUndefined();
  });

  it('fails a PAUSED task when its timeout elapses with onTimeout fail (PAUSED -> FAILED)', async () => {
    const task = await c.start('await:never:1:fail');
    expect(await state(task.id)).toBe('TASK_STATE_PAUSED');
    await c.advance(60_000);
    const got = await c.getTask(task.id);
    expect(got.status.state).toBe('TASK_STATE_FAILED');
    expect(got.status.message?.parts[0]?.text).toMatch(/pause timed out after 1 minutes/);
  });

  it('goes WORKING -> INPUT_REQUIRED -> WORKING on a follow-up message, then completes', async () => {
    const task = await c.start('input work:1');
    expect(await state(task.id)).toBe('TASK_STATE_INPUT_REQUIRED');
    const r = await c.result<{ task: Task }>('SendMessage', {
      message: message('here you go', { taskId: task.id }),
      configuration: { returnImmediately: true },
    });
    expect(r.task.status.state).toBe('TASK_STATE_WORKING');
    await c.advance(1000);
    expect(await state(task.id)).toBe('TASK_STATE_COMPLETED');
  });

  it('goes WORKING -> AUTH_REQUIRED -> WORKING on a follow-up message, then completes', async () => {
    const s = await c.stream('SendStreamingMessage', { message: message('auth work:1') });
    const waiting = await s.waitUntil(
      (ev) => 'statusUpdate' in ev && ev.statusUpdate.status.state === 'TASK_STATE_AUTH_REQUIRED',
    );
    if (!('statusUpdate' in waiting)) throw new Error('expected a status update');
    const taskId = waiting.statusUpdate.taskId;
    expect(waiting.statusUpdate.status.message?.parts[0]?.text).toMatch(/^credentials required/);
    expect(await state(taskId)).toBe('TASK_STATE_AUTH_REQUIRED');
    const r = await c.result<{ task: Task }>('SendMessage', {
      message: message('token attached', { taskId }),
      configuration: { returnImmediately: true },
    });
    expect(r.task.status.state).toBe('TASK_STATE_WORKING');
    await c.advance(1000);
    const events = await s.untilClosed();
    expect(events.map(label)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_AUTH_REQUIRED',
      'status:TASK_STATE_WORKING',
      'artifact:artifact-2-1',
      'status:TASK_STATE_COMPLETED',
    ]);
    const history = (await c.getTask(taskId)).history ?? [];
    expect(history.some((m) => m.role === 'ROLE_USER' && m.parts[0]?.text === 'token attached')).toBe(true);
  });

  it('returns a blocking SendMessage at AUTH_REQUIRED, and a blocking follow-up at the next interruption', async () => {
    const first = await c.result<{ task: Task }>('SendMessage', { message: message('auth input work:0') });
    expect(first.task.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    const second = await c.result<{ task: Task }>('SendMessage', {
      message: message('signed in', { taskId: first.task.id }),
    });
    expect(second.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const third = await c.result<{ task: Task }>('SendMessage', {
      message: message('the input', { taskId: first.task.id }),
    });
    expect(third.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('fails on the fail directive (WORKING -> FAILED)', async () => {
    const task = await c.start('work:0 fail');
    expect(await state(task.id)).toBe('TASK_STATE_FAILED');
  });

  it('cancels WORKING, INPUT_REQUIRED and AUTH_REQUIRED tasks', async () => {
    const a = await c.start('work:5');
    const b = await c.start('input');
    const d = await c.start('auth work:1');
    expect(d.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    expect((await c.result<Task>('CancelTask', { id: a.id })).status.state).toBe('TASK_STATE_CANCELED');
    expect((await c.result<Task>('CancelTask', { id: b.id })).status.state).toBe('TASK_STATE_CANCELED');
    expect((await c.result<Task>('CancelTask', { id: d.id })).status.state).toBe('TASK_STATE_CANCELED');
    expect((await c.call('SendMessage', { message: message('late credentials', { taskId: d.id }) })).error?.code).toBe(
      -32004,
    );
  });
});

describe('refused transitions', () => {
  it('returns the same pause for a second PauseTask (idempotent)', async () => {
    const task = await c.start('work:3');
    const first = await c.result<PauseTaskResult>('PauseTask', { taskId: task.id, reason: 'one' });
    await c.advance(1000);
    const second = await c.result<PauseTaskResult>('PauseTask', { taskId: task.id, reason: 'two' });
    expect(second).toEqual(first);
  });

  it.each([
    ['COMPLETED', 'work:0'],
    ['FAILED', 'fail'],
    ['INPUT_REQUIRED', 'input'],
    ['AUTH_REQUIRED', 'auth'],
  ])('rejects PauseTask on a %s task with -32010', async (name, script) => {
    const task = await c.start(script);
    const r = await c.call('PauseTask', { taskId: task.id });
    expect(r.error?.code).toBe(-32010);
    expect(r.error?.data?.[0]?.reason).toBe('INVALID_TASK_STATE');
    expect(await state(task.id)).toBe(`TASK_STATE_${name}`);
  });

  it.each([
    ['INPUT_REQUIRED', 'input'],
    ['AUTH_REQUIRED', 'auth'],
  ])('rejects AwaitTaskResumption on a %s task with -32010 and leaves it waiting', async (name, script) => {
    const task = await c.start(script);
    const r = await c.call('AwaitTaskResumption', { taskId: task.id, conditions: { onEvent: 'x' } });
    expect(r.error?.code).toBe(-32010);
    expect(r.error?.data?.[0]?.reason).toBe('INVALID_TASK_STATE');
    expect(await state(task.id)).toBe(`TASK_STATE_${name}`);
  });

  it('rejects PauseTask on a CANCELED task with -32010', async () => {
    const task = await c.start('work:3');
    await c.result('CancelTask', { id: task.id });
    expect((await c.call('PauseTask', { taskId: task.id })).error?.code).toBe(-32010);
    expect((await c.call('AwaitTaskResumption', { taskId: task.id, conditions: { onEvent: 'x' } })).error?.code).toBe(
      -32010,
    );
  });

  it.each([
    ['WORKING', 'work:3'],
    ['COMPLETED', 'work:0'],
    ['INPUT_REQUIRED', 'input'],
    ['AUTH_REQUIRED', 'auth'],
  ])('rejects ResumeTask on a %s task with -32010', async (_name, script) => {
    const task = await c.start(script);
    const r = await c.call('ResumeTask', { taskId: task.id, resumeToken: 'suspend-anything' });
    expect(r.error?.code).toBe(-32010);
    expect(r.error?.data?.[0]?.reason).toBe('INVALID_TASK_STATE');
  });

  it('rejects ResumeTask of an unknown task with -32001', async () => {
    const r = await c.call('ResumeTask', { taskId: 'task-nope', resumeToken: 't' });
    expect(r.error?.code).toBe(-32001);
    expect(r.error?.data?.[0]?.reason).toBe('TASK_NOT_FOUND');
  });

  it('rejects a wrong token with -32011 and leaves the task PAUSED', async () => {
    const task = await c.start('work:3');
    await c.result('PauseTask', { taskId: task.id });
    const r = await c.call('ResumeTask', { taskId: task.id, resumeToken: 'suspend-wrong' });
    expect(r.error?.code).toBe(-32011);
    expect(r.error?.data?.[0]?.reason).toBe('RESUME_TOKEN_MISMATCH');
    expect(await state(task.id)).toBe('TASK_STATE_PAUSED');
  });

  it('rejects a second resume with -32010 and a consumed token on a new pause with -32011', async () => {
    const task = await c.start('work:3');
    const p1 = await c.result<PauseTaskResult>('PauseTask', { taskId: task.id });
    await c.result('ResumeTask', { taskId: task.id, resumeToken: p1.pause.resumeToken });
    expect((await c.call('ResumeTask', { taskId: task.id, resumeToken: p1.pause.resumeToken })).error?.code).toBe(
      -32010,
    );
    const p2 = await c.result<PauseTaskResult>('PauseTask', { taskId: task.id });
    expect(p2.pause.resumeToken).not.toBe(p1.pause.resumeToken);
    expect((await c.call('ResumeTask', { taskId: task.id, resumeToken: p1.pause.resumeToken })).error?.code).toBe(
      -32011,
    );
    expect((await c.call('ResumeTask', { taskId: task.id, resumeToken: p2.pause.resumeToken })).result).toBeDefined();
  });

  it('rejects a message to a PAUSED task with -32010 (PAUSED -> INPUT_REQUIRED is not a move)', async () => {
    const task = await c.start('work:3');
    await c.result('PauseTask', { taskId: task.id });
    const r = await c.call('SendMessage', { message: message('more', { taskId: task.id }) });
    expect(r.error?.code).toBe(-32010);
    expect(await state(task.id)).toBe('TASK_STATE_PAUSED');
  });

  it('rejects CancelTask on a terminal task with -32002', async () => {
    const task = await c.start('work:0');
    expect((await c.call('CancelTask', { id: task.id })).error?.code).toBe(-32002);
  });

  it('rejects SubscribeToTask and SendMessage on a terminal task with -32004', async () => {
    const task = await c.start('work:0');
    expect((await c.call('SubscribeToTask', { id: task.id })).error?.code).toBe(-32004);
    expect((await c.call('SendMessage', { message: message('x', { taskId: task.id }) })).error?.code).toBe(-32004);
  });

  it('rejects GetTask and CancelTask of unknown tasks with -32001', async () => {
    expect((await c.call('GetTask', { id: 'task-nope' })).error?.code).toBe(-32001);
    expect((await c.call('CancelTask', { id: 'task-nope' })).error?.code).toBe(-32001);
    expect((await c.call('PauseTask', { taskId: 'task-nope' })).error?.code).toBe(-32001);
  });
});
