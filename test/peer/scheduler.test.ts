/**
 * The virtual scheduler behind deterministic mode.
 */
import { expect, it } from 'vitest';
import { ManualClock } from '../../src/index.js';
import { VirtualScheduler } from '../../src/peer/scheduler.js';

it('fires due timers in time order, each at its own instant, including timers scheduled while firing', () => {
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
  expect(s.advance(500)).toBe(500);
  expect(seen).toEqual(['a@100', 'a2@100', 'b@150', 'c@300']);
  expect(s.pending).toBe(1);
});

it('never fires a canceled timer and keeps going when a timer throws', () => {
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
  s.advance(100);
  expect(seen).toEqual([3]);
  expect(errors).toHaveLength(1);
});
