/**
 * The peer on real timers (pause modes with a step in flight) and in `--legacy-pause` mode.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isoAt, systemClock } from '../../src/clock.js';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import { parseLegacyEnvelope } from '../../src/protocol/legacy.js';
import type { PauseTaskResult, StreamResponse, Task } from '../../src/protocol/types.js';
import { PeerClient, label, message } from './peer-client.js';

let peer: RunningPeer | undefined;
let c: PeerClient;

afterEach(async () => {
  c.closeStreams();
  await peer?.close();
  peer = undefined;
});

async function open(options: Parameters<typeof startPeer>[0]): Promise<void> {
  peer = await startPeer(options);
  c = new PeerClient(peer.url);
}

function legacyOf(ev: StreamResponse): unknown {
  if (!('statusUpdate' in ev)) throw new Error(`expected a statusUpdate, got ${label(ev)}`);
  const parsed = parseLegacyEnvelope(ev.statusUpdate.metadata);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issue));
  return parsed.value;
}

describe('real-time pause modes', () => {
  it('lets the step in flight finish and emit its artifact before pausing in finish_step mode', async () => {
    await open({ stepMs: 200 });
    const s = await c.stream('SendStreamingMessage', { message: message('work:5') });
    const first = await s.next();
    await s.next(); // WORKING: the first step is now in flight
    const taskId = 'task' in first ? first.task.id : '';
    const p = await c.result<PauseTaskResult>('PauseTask', { taskId, mode: 'finish_step' });
    expect(p.state).toBe('TASK_STATE_PAUSED');
    await s.waitUntil((ev) => label(ev) === 'status:TASK_STATE_PAUSED');
    const labels = s.frames.map((f) => label(f.result!));
    // The pending pause is announced (WORKING, "pause requested: ..."), then the step ends.
    expect(labels[2]).toBe('status:TASK_STATE_WORKING');
    expect(labels[3]).toMatch(/^artifact:/);
    expect(labels[labels.length - 1]).toBe('status:TASK_STATE_PAUSED');
    const artifactsAtPause = labels.filter((l) => l.startsWith('artifact:')).length;
    expect((await c.getTask(taskId)).artifacts).toHaveLength(artifactsAtPause);
  });

  it('aborts the step in flight in interrupt_immediate mode and redoes it after resume', async () => {
    await open({ stepMs: 60_000 });
    const s = await c.stream('SendStreamingMessage', { message: message('work:1') });
    const first = await s.next();
    await s.next();
    const taskId = 'task' in first ? first.task.id : '';
    const p = await c.result<PauseTaskResult>('PauseTask', { taskId, mode: 'interrupt_immediate' });
    await c.result('ResumeTask', { taskId, resumeToken: p.pause.resumeToken });
    await s.waitFor(4);
    expect(s.frames.map((f) => label(f.result!))).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_PAUSED',
      'status:TASK_STATE_WORKING',
    ]);
    expect((await c.getTask(taskId)).artifacts).toBeUndefined();
  });

  it('answers a pending PauseTask with -32010 when the task is canceled first', async () => {
    await open({ stepMs: 60_000 });
    const task = await c.start('work:1');
    const pending = c.call('PauseTask', { taskId: task.id, mode: 'wait_for_completion' });
    const second = c.call<PauseTaskResult>('PauseTask', { taskId: task.id });
    const canceled = await c.result<Task>('CancelTask', { id: task.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect((await pending).error?.code).toBe(-32010);
    expect((await second).error?.code).toBe(-32010);
  });

  it('wakes a sleep-until task on the real clock with cause condition_fired', async () => {
    await open({ stepMs: 10 });
    const at = isoAt(systemClock.now() + 1500);
    const s = await c.stream('SendStreamingMessage', { message: message(`sleep-until:${at}`) });
    const events = await s.untilClosed();
    expect(events.map(label)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_PAUSED',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_COMPLETED',
    ]);
    const resumed = events[3];
    expect(resumed && 'statusUpdate' in resumed && resumed.statusUpdate.metadata?.cause).toBe('condition_fired');
  });
});

describe('--legacy-pause', () => {
  it('reports a pause as WORKING plus metadata.harn.pause on results, streams and tasks', async () => {
    await open({ deterministic: true, legacyPause: true });
    const task = await c.start('work:2');
    const s = await c.stream('SubscribeToTask', { id: task.id });
    const r = await c.result<{ taskId: string; state: string; metadata: unknown }>('PauseTask', {
      taskId: task.id,
      reason: 'budget',
      mode: 'finish_step',
    });
    expect(r.state).toBe('TASK_STATE_WORKING');
    const env = parseLegacyEnvelope(r.metadata);
    expect(env).toEqual({
      ok: true,
      value: {
        state: 'paused',
        initiator: 'client',
        handle: 'suspend-f1cfb131-0001',
        reason: 'budget',
        pausedAt: '2026-01-01T00:00:00.000Z',
        resumable: true,
        mode: 'finish_step',
      },
    });
    const got = await c.getTask(task.id);
    expect(got.status.state).toBe('TASK_STATE_WORKING');
    expect(got.status.pause).toBeUndefined();
    expect(parseLegacyEnvelope(got.metadata)).toEqual(env);

    const resumed = await c.result<{ state: string; metadata: unknown }>('ResumeTask', {
      taskId: task.id,
      resumeToken: 'suspend-f1cfb131-0001',
    });
    expect(resumed.state).toBe('TASK_STATE_WORKING');
    expect(parseLegacyEnvelope(resumed.metadata)).toEqual({
      ok: true,
      value: {
        state: 'resumed',
        cause: 'explicit_resume',
        resumedAt: '2026-01-01T00:00:00.000Z',
        hadResumeInput: false,
        continueTranscript: true,
      },
    });
    await c.advance(2000);
    const events = await s.untilClosed();
    expect(events.map(label)).toEqual([
      'task:TASK_STATE_WORKING',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_WORKING',
      'artifact:artifact-1-1',
      'artifact:artifact-1-2',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect(legacyOf(events[1]!)).toMatchObject({ state: 'paused', handle: 'suspend-f1cfb131-0001' });
    expect(legacyOf(events[2]!)).toMatchObject({ state: 'resumed', cause: 'explicit_resume' });
    expect(JSON.stringify(events)).not.toContain('TASK_STATE_PAUSED');
  });

  it('advertises pausing the Harn way on its agent card', async () => {
    await open({ deterministic: true, legacyPause: true });
    const card = (await (await fetch(`${peer!.url}/.well-known/agent-card.json`)).json()) as {
      capabilities: Record<string, unknown>;
    };
    expect(card.capabilities.supportsPause).toBeUndefined();
    expect(card.capabilities._meta).toEqual({ harn: { pause: true } });
  });
});
