/**
 * @module observe/deadline-heap
 * A min-heap of peer-clock deadlines (`trigger.at`, a timeout's end, `pausedUntil`) of open
 * pauses, so the PauseObserver finds the deadlines a clock report has reached in O(log n) each,
 * without walking every open pause (docs/design.md §14.6). Entries of pauses that ended are
 * dropped lazily: {@link DeadlineHeap.retire} counts them and the heap is rebuilt without them once
 * they are the majority, so its size stays proportional to the open pauses.
 */

export interface Deadline<T> {
  /** Epoch milliseconds on the peer's clock. */
  ms: number;
  /** Insertion order, so equal deadlines come out in the order they were added. */
  order: number;
  item: T;
}

export class DeadlineHeap<T> {
  #heap: Deadline<T>[] = [];
  #order = 0;
  #stale = 0;
  readonly #isLive: (item: T) => boolean;

  /** `isLive` tells whether an entry still matters; dead entries are skipped and compacted away. */
  constructor(isLive: (item: T) => boolean) {
    this.#isLive = isLive;
  }

  get size(): number {
    return this.#heap.length;
  }

  push(ms: number, item: T): void {
    this.#heap.push({ ms, order: this.#order++, item });
    this.#up(this.#heap.length - 1);
  }

  /** One entry became dead (its pause ended); compacts when dead entries are the majority. */
  retire(count = 1): void {
    this.#stale += count;
    if (this.#stale > 32 && this.#stale * 2 > this.#heap.length) {
      const live = this.#heap.filter((d) => this.#isLive(d.item));
      live.sort(compare);
      this.#heap = live;
      this.#stale = 0;
    }
  }

  /** Removes and returns every live entry with `ms <= now`, earliest first. */
  popDue(now: number): Array<Deadline<T>> {
    const due: Array<Deadline<T>> = [];
    for (;;) {
      const top = this.#heap[0];
      if (top === undefined || top.ms > now) return due;
      this.#pop();
      if (this.#isLive(top.item)) due.push(top);
      else if (this.#stale > 0) this.#stale -= 1;
    }
  }

  #pop(): void {
    const last = this.#heap.pop();
    if (last === undefined || this.#heap.length === 0) return;
    this.#heap[0] = last;
    this.#down(0);
  }

  #up(i: number): void {
    const heap = this.#heap;
    let at = i;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (compare(heap[at] as Deadline<T>, heap[parent] as Deadline<T>) >= 0) return;
      [heap[at], heap[parent]] = [heap[parent] as Deadline<T>, heap[at] as Deadline<T>];
      at = parent;
    }
  }

  #down(i: number): void {
    const heap = this.#heap;
    let at = i;
    for (;;) {
      const left = at * 2 + 1;
      const right = left + 1;
      let least = at;
      if (left < heap.length && compare(heap[left] as Deadline<T>, heap[least] as Deadline<T>) < 0) least = left;
      if (right < heap.length && compare(heap[right] as Deadline<T>, heap[least] as Deadline<T>) < 0) least = right;
      if (least === at) return;
      [heap[at], heap[least]] = [heap[least] as Deadline<T>, heap[at] as Deadline<T>];
      at = least;
    }
  }
}

function compare<T>(a: Deadline<T>, b: Deadline<T>): number {
  return a.ms !== b.ms ? a.ms - b.ms : a.order - b.order;
}
