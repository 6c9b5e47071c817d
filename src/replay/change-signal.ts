/**
 * @module replay/change-signal
 * How the replay driver waits (docs/design.md §8): for a recorded entry to settle, or for any
 * progress, each wait with a deadline; one sweep timer for all of them.
 */
/** How many slices a wait's deadline is cut into: a wait ends between 1 and 1 + 1/8 deadlines. */
const DEADLINE_SLICES = 8;

interface Waiter {
  resolve: (moved: boolean) => void;
  seq: number | undefined;
  /** The sweep after which the deadline has passed. */
  expiresAt: number;
  done: boolean;
}

/**
 * Wakes waiters: per awaited recorded seq (woken when that entry settles), or on any change.
 * Deadlines cost no timer per wait: one sweep timer, running while anybody waits, ticks every
 * 1/{@link DEADLINE_SLICES} of the deadline and ends the waits whose deadline has passed (they
 * began in order and all last the same, so they end in order).
 */
export class ChangeSignal {
  readonly #bySeq = new Map<number, Waiter[]>();
  #any: Waiter[] = [];
  readonly #sliceMs: number;
  /** Waits in the order they began, so in deadline order; settled ones are dropped as the sweep passes. */
  #queue: Waiter[] = [];
  #head = 0;
  #sweeps = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number) {
    this.#sliceMs = Math.max(1, timeoutMs / DEADLINE_SLICES);
  }

  /** A recorded entry settled: wake who waits for it, and who waits for any progress. */
  settled(seq: number): void {
    const waiters = this.#bySeq.get(seq);
    if (waiters) {
      this.#bySeq.delete(seq);
      for (const w of waiters) this.#wake(w, true);
    }
    // Called several times per exchange; nobody waits for "any" until the last requests are out.
    if (this.#any.length === 0) return;
    const any = this.#any;
    this.#any = [];
    for (const w of any) this.#wake(w, true);
  }

  /** Wakes every waiter (the replay is ending). */
  wakeAll(): void {
    const all = [...this.#bySeq.values()].flat();
    this.#bySeq.clear();
    const any = this.#any;
    this.#any = [];
    for (const w of [...all, ...any]) this.#wake(w, true);
  }

  /**
   * True when `seq` settled (with no seq: when any recorded entry settled); false when the
   * deadline passed first. Live entries that settle nothing (extra events) wake nobody, so they
   * cannot hold a replay open.
   */
  wait(seq?: number): Promise<boolean> {
    return new Promise((resolve) => {
      // Begun between two sweeps: one more slice, so the wait lasts at least the whole deadline.
      const waiter: Waiter = { resolve, seq, expiresAt: this.#sweeps + DEADLINE_SLICES + 1, done: false };
      if (seq === undefined) this.#any.push(waiter);
      else {
        const list = this.#bySeq.get(seq);
        if (list) list.push(waiter);
        else this.#bySeq.set(seq, [waiter]);
      }
      this.#queue.push(waiter);
      this.#timer ??= setInterval(() => this.#sweep(), this.#sliceMs);
    });
  }

  /** Stops the sweep timer (the replay is over). */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #wake(waiter: Waiter, moved: boolean): void {
    if (waiter.done) return;
    waiter.done = true;
    waiter.resolve(moved);
  }

  #sweep(): void {
    this.#sweeps += 1;
    const expired: Waiter[] = [];
    while (this.#head < this.#queue.length) {
      const w = this.#queue[this.#head] as Waiter;
      if (!w.done && w.expiresAt > this.#sweeps) break;
      if (!w.done) expired.push(w);
      this.#head += 1;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    if (expired.length > 0) {
      const gone = new Set(expired);
      this.#any = this.#any.filter((w) => !gone.has(w));
      for (const seq of new Set(expired.map((w) => w.seq))) {
        if (seq === undefined) continue;
        const list = (this.#bySeq.get(seq) ?? []).filter((w) => !gone.has(w));
        if (list.length > 0) this.#bySeq.set(seq, list);
        else this.#bySeq.delete(seq);
      }
      for (const w of expired) this.#wake(w, false);
    }
    if (this.#head >= this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
      this.stop();
    }
  }
}
