/**
 * The virtual scheduler behind deterministic mode.
 */
import { expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ADVANCE_BATCH, VirtualScheduler } from '../../src/peer/scheduler.js';

it('fires due timers in time order, each at its own instant, including timers scheduled while firing', async () => {
  const clock = new ManualClock(0);
  const s = new VirtualScheduler(clock);
  const seen: string[] = [];
  s.schedule(300, () => seen.push(`c@${clock.now()}`));
  s.schedule(100, () => {
    seen.push(`a@${clock.now()}`);
    s.schedule(150, () => seen.push(`b@${clock.now()}`));
  });
  s.schedule(100, () => seen.push(`a2@${clock.now()}`));
  s.schedule(900, () => seen.push('late'));
  expect(await s.advance(500)).toEqual({ kind: 'advanced', now: 500, fired: 4 });
  expect(seen).toEqual(['a@100', 'a2@100', 'b@150', 'c@300']);
  expect(s.pending).toBe(1);
});

it('never fires a canceled timer and keeps going when a timer throws', async () => {
  const clock = new ManualClock(0);
  const errors: unknown[] = [];
  const s = new VirtualScheduler(clock, (e) => errors.push(e));
  const seen: number[] = [];
  const h = s.schedule(10, () => seen.push(1));
  s.schedule(20, () => {
    throw new Error('boom');
  });
  s.schedule(30, () => seen.push(3));
  s.cancel(h);
  await s.advance(100);
  expect(seen).toEqual([3]);
  expect(errors).toHaveLength(1);
  expect(s.pending).toBe(0);
});

it('yields to the event loop between batches of due timers, still firing each at its instant, in order', async () => {
  const clock = new ManualClock(0);
  const s = new VirtualScheduler(clock);
  const n = ADVANCE_BATCH * 20;
  const fired: number[] = [];
  // Scheduled in reverse so the order comes from the instants, not from insertion.
  for (let i = n; i >= 1; i--) s.schedule(i, () => fired.push(clock.now()));
  const moving = s.advance(n);
  // Queued after the move began: runs at the first yield, long before the move completes.
  const probe = new Promise<number>((resolve) => setImmediate(() => resolve(fired.length)));
  const seenByProbe = await probe;
  expect(seenByProbe).toBeGreaterThan(0);
  expect(seenByProbe).toBeLessThan(n);
  expect(await moving).toEqual({ kind: 'advanced', now: n, fired: n });
  expect(fired).toEqual(Array.from({ length: n }, (_, i) => i + 1));
});

it('runs moves one after another, each measured from where the previous one left the clock', async () => {
  const clock = new ManualClock(0);
  const s = new VirtualScheduler(clock);
  const order: string[] = [];
  for (let i = 1; i <= ADVANCE_BATCH * 3; i++) s.schedule(i, () => order.push(`t${clock.now()}`));
  const first = s.advance(ADVANCE_BATCH * 2);
  const second = s.advance(ADVANCE_BATCH * 2);
  expect((await first).now).toBe(ADVANCE_BATCH * 2);
  expect((await second).now).toBe(ADVANCE_BATCH * 4);
  expect(order).toHaveLength(ADVANCE_BATCH * 3);
  expect(order.at(-1)).toBe(`t${ADVANCE_BATCH * 3}`);
});

it('refuses a move past its limit without firing anything or moving the clock', async () => {
  const clock = new ManualClock(0);
  const s = new VirtualScheduler(clock, () => undefined, 1000);
  let fired = 0;
  s.schedule(10, () => fired++);
  expect(await s.advance(1001)).toEqual({ kind: 'past-limit', now: 0, limit: 1000 });
  expect(fired).toBe(0);
  expect(clock.now()).toBe(0);
  expect(await s.advance(1000)).toEqual({ kind: 'advanced', now: 1000, fired: 1 });
});

it('drops canceled timers that pile up far in the future', () => {
  const clock = new ManualClock(0);
  const s = new VirtualScheduler(clock);
  for (let i = 0; i < 10_000; i++) s.cancel(s.schedule(1e12 + i, () => undefined));
  expect(s.pending).toBe(0);
  expect(s.stored).toBeLessThanOrEqual(1024 + 1);
});
