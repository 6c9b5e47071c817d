/**
 * @module peer/scheduler
 * Timers for the reference peer's task engine, written once against an injected {@link Clock}:
 * a {@link VirtualScheduler} that fires only when the virtual clock is moved (deterministic mode,
 * docs/design.md §4) and a {@link RealScheduler} driven by real timers.
 */
import type { Clock, ManualClock } from '../clock.js';

/** A scheduled callback; pass it back to {@link Scheduler.cancel}. */
export interface TimerHandle {
  readonly at: number;
}

/** Runs a timer callback; a failure is reported, never thrown into the event loop. */
function runSafely(fire: () => void, onError: (error: unknown) => void): void {
  try {
    fire();
  } catch (error) {
    onError(error);
  }
}

export interface Scheduler {
  readonly clock: Clock;
  /** True when time moves only through {@link VirtualScheduler.advance}. */
  readonly virtual: boolean;
  /** Runs `fire` at clock time `at` (ms since the epoch); at once-ish if `at` has passed. */
  schedule(at: number, fire: () => void): TimerHandle;
  cancel(handle: TimerHandle | undefined): void;
  /** Cancels every pending timer. */
  dispose(): void;
}

interface VirtualTimer extends TimerHandle {
  readonly seq: number;
  readonly fire: () => void;
}

/**
 * Deterministic timers. Nothing fires until {@link advance}; then every due timer fires in time
 * order (ties in scheduling order), each with the clock set to its own instant, and timers that
 * a firing schedules within the window fire too.
 */
export class VirtualScheduler implements Scheduler {
  readonly virtual = true;
  readonly clock: ManualClock;
  #seq = 0;
  readonly #timers = new Set<VirtualTimer>();

  readonly #onError: (error: unknown) => void;

  constructor(clock: ManualClock, onError: (error: unknown) => void = () => undefined) {
    this.clock = clock;
    this.#onError = onError;
  }

  schedule(at: number, fire: () => void): TimerHandle {
    const timer: VirtualTimer = { at: Math.max(at, this.clock.now()), seq: this.#seq++, fire };
    this.#timers.add(timer);
    return timer;
  }

  cancel(handle: TimerHandle | undefined): void {
    if (handle) this.#timers.delete(handle as VirtualTimer);
  }

  dispose(): void {
    this.#timers.clear();
  }

  /** Moves the clock forward by `ms`, firing due timers at their own instants. Returns the new time. */
  advance(ms: number): number {
    const target = this.clock.now() + ms;
    for (;;) {
      let next: VirtualTimer | undefined;
      for (const t of this.#timers) {
        if (t.at > target) continue;
        if (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq)) next = t;
      }
      if (!next) break;
      this.#timers.delete(next);
      if (next.at > this.clock.now()) this.clock.advance(next.at - this.clock.now());
      runSafely(next.fire, this.#onError);
    }
    if (target > this.clock.now()) this.clock.advance(target - this.clock.now());
    return this.clock.now();
  }

  /** How many timers are pending (for diagnostics and tests). */
  get pending(): number {
    return this.#timers.size;
  }
}

interface RealTimer extends TimerHandle {
  timeout: NodeJS.Timeout;
}

/** Real timers: `fire` runs when the injected clock reaches `at`. */
export class RealScheduler implements Scheduler {
  readonly virtual = false;
  readonly clock: Clock;
  readonly #timers = new Set<RealTimer>();

  readonly #onError: (error: unknown) => void;

  constructor(clock: Clock, onError: (error: unknown) => void = () => undefined) {
    this.clock = clock;
    this.#onError = onError;
  }

  schedule(at: number, fire: () => void): TimerHandle {
    // setTimeout caps at 2^31-1 ms; longer waits re-arm until due.
    const timer = { at } as RealTimer;
    const arm = (): void => {
      const delay = Math.min(Math.max(0, at - this.clock.now()), 2_147_483_647);
      timer.timeout = setTimeout(() => {
        if (this.clock.now() < at) return arm();
        this.#timers.delete(timer);
        runSafely(fire, this.#onError);
      }, delay);
    };
    arm();
    this.#timers.add(timer);
    return timer;
  }

  cancel(handle: TimerHandle | undefined): void {
    if (!handle) return;
    const timer = handle as RealTimer;
    clearTimeout(timer.timeout);
    this.#timers.delete(timer);
  }

  dispose(): void {
    for (const t of this.#timers) clearTimeout(t.timeout);
    this.#timers.clear();
  }
}
