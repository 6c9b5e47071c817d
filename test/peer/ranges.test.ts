/**
 * Validated ranges (src/protocol/bounds.ts): durations, instants and counts out of range get a
 * -32602 naming the field (scripts: the directive and its position), never a -32603 and never a
 * wedged task.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock, isoAt } from '../../src/clock.js';
import { DETERMINISTIC_EPOCH } from '../../src/peer/epoch.js';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import { MAX_CLOCK_MS, instantOf } from '../../src/protocol/bounds.js';
import type { PauseTaskResult } from '../../src/protocol/types.js';
import { PeerClient, peerPerTest, message } from './peer-client.js';

let c: PeerClient;
peerPerTest((client) => (c = client));

describe('conditions and params', () => {
  it.each([
    [{ timeout: { durationMinutes: 1e15, onTimeout: 'fail' } }, 'params.conditions.timeout.durationMinutes'],
    [{ timeout: { durationMinutes: 525_601, onTimeout: 'resume' } }, 'params.conditions.timeout.durationMinutes'],
    [{ trigger: { at: '2026-02-31T00:00:00Z' } }, 'params.conditions.trigger.at'],
    [{ trigger: { at: '2026-01-01T24:00:00Z' } }, 'params.conditions.trigger.at'],
    [{ trigger: { at: '2026-06-30T23:59:60Z' } }, 'params.conditions.trigger.at'],
    [{ trigger: { at: '9999-06-01T00:00:00Z' } }, 'params.conditions.trigger.at'],
  ])(
    'refuses AwaitTaskResumption conditions %j with -32602 naming %s and leaves the task working',
    async (conditions, field) => {
      const task = await c.start('work:2');
      const r = await c.call('AwaitTaskResumption', { taskId: task.id, conditions });
      expect(r.error?.code).toBe(-32602);
      expect(r.error?.message.startsWith(`${field}: expected `)).toBe(true);
      expect(r.error?.data?.[0]?.metadata?.field).toBe(field);
      // Nothing was touched: the step in flight still ends, and the task can still pause and finish.
      await c.advance(1000);
      expect((await c.getTask(task.id)).artifacts).toHaveLength(1);
      const p = await c.result<PauseTaskResult>('PauseTask', { taskId: task.id });
      await c.result('ResumeTask', { taskId: task.id, resumeToken: p.pause.resumeToken });
      await c.advance(1000);
      expect((await c.getTask(task.id)).status.state).toBe('TASK_STATE_COMPLETED');
    },
  );

  it('accepts the largest timeout, a year, and fails the task a year later', async () => {
    const task = await c.start('work:1');
    const p = await c.result<PauseTaskResult>('AwaitTaskResumption', {
      taskId: task.id,
      conditions: { timeout: { durationMinutes: 525_600, onTimeout: 'fail' } },
    });
    expect(p.pause.pausedUntil).toBe('2027-01-01T00:00:00.000Z');
    await c.advance(365 * 24 * 3600 * 1000);
    expect((await c.getTask(task.id)).status.state).toBe('TASK_STATE_FAILED');
  });

  it.each([
    ['GetTask', { id: 'x', historyLength: 2 ** 31 }, 'params.historyLength'],
    [
      'SendMessage',
      { message: message('work:1'), configuration: { historyLength: 2 ** 40 } },
      'params.configuration.historyLength',
    ],
    ['ListTasks', { historyLength: 2 ** 31 }, 'params.historyLength'],
    ['ListTasks', { statusTimestampAfter: '2026-04-31T00:00:00Z' }, 'params.statusTimestampAfter'],
    ['ListTasks', { pageSize: 101 }, 'params.pageSize'],
  ])('refuses %s %j with -32602 naming %s', async (method, params, field) => {
    const r = await c.call(method, params);
    expect(r.error?.code).toBe(-32602);
    expect(r.error?.message.startsWith(`${field}: expected `)).toBe(true);
  });

  it('refuses AdvanceClock past a year with -32602 and leaves the clock where it was', async () => {
    const r = await c.call('AdvanceClock', { ms: 365 * 24 * 3600 * 1000 + 1 }, '/control');
    expect(r.error?.code).toBe(-32602);
    expect(r.error?.message).toMatch(/^params\.ms: expected an integer from 0 to 31536000000/);
    expect(await c.control<{ now: string }>('GetClock', {})).toEqual({ now: DETERMINISTIC_EPOCH });
  });
});

describe('scripts', () => {
  it.each([
    [
      'work:1 await:ev:9999999999999',
      'directive 2 of 2, "await:ev:9999999999999"',
      /MINUTES an integer from 1 to 525600/,
    ],
    ['await:ev:525601:resume', 'directive 1 of 1', /MINUTES an integer from 1 to 525600/],
    ['work:10001', 'directive 1 of 1', /work:N with N an integer from 0 to 10000/],
    ['tool:0 work:1', 'directive 1 of 2', /tool:N with N an integer from 1 to 10000/],
    ['work:1 work:1 sleep-until:2026-02-30T00:00:00Z', 'directive 3 of 3', /a calendar date that does not exist/],
    ['sleep-until:9999-12-31T00:00:00Z', 'directive 1 of 1', /the latest the virtual clock can reach/],
  ])('refuses %j at SendMessage with -32602 naming the part and %s', async (script, position, why) => {
    const before = await c.result<{ totalSize: number }>('ListTasks', {});
    const r = await c.call('SendMessage', { message: message(script) });
    expect(r.error?.code).toBe(-32602);
    expect(r.error?.message).toMatch(/^params\.message\.parts\[0\]\.text: expected /);
    expect(r.error?.message).toContain(`got ${position}`);
    expect(r.error?.message).toMatch(why);
    expect((await c.result<{ totalSize: number }>('ListTasks', {})).totalSize).toBe(before.totalSize);
  });

  it('refuses a script of more than 1,000 directives', async () => {
    const r = await c.call('SendMessage', { message: message(Array(1001).fill('work:1').join(' ')) });
    expect(r.error?.code).toBe(-32602);
    expect(r.error?.message).toMatch(/at most 1000 directives; got 1001 directives/);
  });

  it('accepts the latest wake-up the clock can reach', async () => {
    const at = isoAt(MAX_CLOCK_MS);
    expect(instantOf(at)).toEqual({ ok: true, ms: MAX_CLOCK_MS });
    const task = await c.start(`sleep-until:${at}`);
    expect(task.status.state).toBe('TASK_STATE_PAUSED');
    expect(task.status.pause?.conditions).toEqual({ trigger: { at } });
  });
});

describe('the end of the virtual clock', () => {
  it('refuses an AdvanceClock past the latest instant with -32602 naming params.ms', async () => {
    let peer: RunningPeer | undefined;
    try {
      peer = await startPeer({ deterministic: true, clock: new ManualClock(MAX_CLOCK_MS - 1000) });
      const near = new PeerClient(peer.url);
      const r = await near.call('AdvanceClock', { ms: 1001 }, '/control');
      expect(r.error?.code).toBe(-32602);
      expect(r.error?.message).toBe(
        `params.ms: expected at most 1000 (the virtual clock stands at ${isoAt(MAX_CLOCK_MS - 1000)} and never ` +
          `passes ${isoAt(MAX_CLOCK_MS)}); got 1001`,
      );
      // A pause with the longest timeout still has a valid pausedUntil at the end of the clock.
      expect(await near.advance(1000)).toBe(isoAt(MAX_CLOCK_MS));
      const task = await near.start('work:1');
      const p = await near.result<PauseTaskResult>('AwaitTaskResumption', {
        taskId: task.id,
        conditions: { timeout: { durationMinutes: 525_600, onTimeout: 'resume' } },
      });
      expect(p.pause.pausedUntil).toBe('9999-12-31T23:59:59.999Z');
    } finally {
      await peer?.close();
    }
  });
});
