/**
 * @module clock
 * Injected time. The core never reads the wall clock; it takes a {@link Clock}. This module is
 * the one place that wraps `Date.now()`.
 */

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The real wall clock, for servers running in real time. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that runs at the pace of `base` but reads `originMs` at the moment it is made: a
 * real-time peer replaying a session starts where the recorded session started (docs/design.md §8).
 */
export class ShiftedClock implements Clock {
  readonly #base: Clock;
  readonly #offset: number;

  constructor(originMs: number, base: Clock = systemClock) {
    this.#base = base;
    this.#offset = originMs - base.now();
  }

  now(): number {
    return this.#base.now() + this.#offset;
  }
}

/** A clock that moves only when told: the deterministic peer's and the tests'. */
export class ManualClock implements Clock {
  #now: number;

  constructor(startMs: number) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`cannot move a clock by ${ms} ms`);
    this.#now += ms;
    return this.#now;
  }
}

let lastMs = Number.NaN;
let lastIso = '';

/**
 * ISO 8601 UTC with milliseconds, as ProtoJSON renders a Timestamp. The last answer is kept:
 * the entries of one burst share a millisecond, and a `Date` per entry showed in profiles.
 */
export function isoAt(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
