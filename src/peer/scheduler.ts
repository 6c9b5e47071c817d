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
  canceled: boolean;
}

/** What {@link VirtualScheduler.advance} did. */
export type AdvanceResult =
  | { kind: 'advanced'; now: number; fired: number }
  /** The move would take the clock past `limit`: nothing fired, the clock did not move. */
  | { kind: 'past-limit'; now: number; limit: number };

/** Due timers fired between two yields to the event loop during one advance. */
export const ADVANCE_BATCH = 100;

/** Timers ordered by (at, seq): a binary min-heap, so each firing costs O(log n). */
class TimerHeap {
  readonly #items: VirtualTimer[] = [];

  get size(): number {
    return this.#items.length;
  }

  push(timer: VirtualTimer): void {
    const items = this.#items;
    items.push(timer);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  peek(): VirtualTimer | undefined {
    return this.#items[0];
  }

  pop(): VirtualTimer | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < items.length && before(items[l]!, items[least]!)) least = l;
      if (r < items.length && before(items[r]!, items[least]!)) least = r;
      if (least === i) break;
      [items[i], items[least]] = [items[least]!, items[i]!];
      i = least;
    }
    return top;
  }

  clear(): void {
    this.#items.length = 0;
  }

  /** Drops canceled timers (they are otherwise dropped only when their instant is reached). */
  compact(): void {
    const live = this.#items.filter((t) => !t.canceled);
    this.#items.length = 0;
    for (const t of live) this.push(t);
  }
}

function before(a: VirtualTimer, b: VirtualTimer): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Deterministic timers. Nothing fires until {@link advance}; then every due timer fires in time
 * order (ties in scheduling order), each with the clock set to its own instant, and timers that
 * a firing schedules within the window fire too. Advances run one after another, never
 * interleaved; within one, the scheduler yields to the event loop after every
 * {@link ADVANCE_BATCH} firings, so a move that fires thousands of timers does not stall
 * unrelated requests (they see the clock at the instant it has reached).
 */
export class VirtualScheduler implements Scheduler {
  readonly virtual = true;
  readonly clock: ManualClock;
  #seq = 0;
  #live = 0;
  readonly #timers = new TimerHeap();
  #queue: Promise<unknown> = Promise.resolve();
  readonly #limit: number;
  readonly #onError: (error: unknown) => void;

  /** `limit`: the latest instant the clock may reach (default: no limit). */
  constructor(clock: ManualClock, onError: (error: unknown) => void = () => undefined, limit = Infinity) {
    this.clock = clock;
    this.#onError = onError;
    this.#limit = limit;
  }

  schedule(at: number, fire: () => void): TimerHandle {
    const timer: VirtualTimer = { at: Math.max(at, this.clock.now()), seq: this.#seq++, fire, canceled: false };
    this.#timers.push(timer);
    this.#live++;
    return timer;
  }

  cancel(handle: TimerHandle | undefined): void {
    const timer = handle as VirtualTimer | undefined;
    if (!timer || timer.canceled) return;
    timer.canceled = true;
    this.#live--;
    // Canceled timers far in the future would pile up (a pause with a timeout, resumed at once,
    // again and again): rebuild once they outnumber the live ones.
    if (this.#timers.size > 2 * this.#live + 1024) this.#timers.compact();
  }

  dispose(): void {
    this.#timers.clear();
    this.#live = 0;
  }

  /**
   * Moves the clock forward by `ms` (measured from where the clock stands when this move starts,
   * after any move before it), firing due timers at their own instants. A move past the limit
   * does nothing and says so.
   */
  advance(ms: number): Promise<AdvanceResult> {
    const run = this.#queue.then(() => this.#advance(ms));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #advance(ms: number): Promise<AdvanceResult> {
    const target = this.clock.now() + ms;
    if (target > this.#limit) return { kind: 'past-limit', now: this.clock.now(), limit: this.#limit };
    let fired = 0;
    for (;;) {
      const next = this.#timers.peek();
      if (!next || next.at > target) break;
      this.#timers.pop();
      if (next.canceled) continue;
      next.canceled = true;
      this.#live--;
      if (next.at > this.clock.now()) this.clock.advance(next.at - this.clock.now());
      runSafely(next.fire, this.#onError);
      fired++;
      if (fired % ADVANCE_BATCH === 0) await yieldToEventLoop();
    }
    if (target > this.clock.now()) this.clock.advance(target - this.clock.now());
    return { kind: 'advanced', now: this.clock.now(), fired };
  }

  /** The instant of the earliest pending timer, if any (canceled ones at the top are dropped). */
  nextAt(): number | undefined {
    for (;;) {
      const next = this.#timers.peek();
      if (!next || !next.canceled) return next?.at;
      this.#timers.pop();
    }
  }

  /** How many timers are pending (for diagnostics and tests). */
  get pending(): number {
    return this.#live;
  }

  /** How many timers are stored, canceled ones not yet dropped included (diagnostics and tests). */
  get stored(): number {
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
