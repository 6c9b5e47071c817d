/**
 * @module peer/task-store
 * The reference peer's tasks, bounded (docs/design.md §4): every task that is not terminal is
 * kept, and at most `maxTerminal` terminal ones. When one more task finishes, the task that
 * finished earliest is evicted; from then on the peer answers for it as for an id it never knew
 * (-32001), and ListTasks no longer lists it. Lookups are O(1), eviction O(1) per finished task.
 */

/** Default of `peer --max-tasks`. */
export const DEFAULT_MAX_TASKS = 10_000;

export class TaskStore<T> {
  readonly #maxTerminal: number;
  /** Every kept task, in creation order (ListTasks walks it newest first). */
  readonly #tasks = new Map<string, T>();
  /** Kept terminal tasks, in the order they finished. */
  readonly #terminal = new Set<string>();

  constructor(maxTerminal: number) {
    if (!Number.isSafeInteger(maxTerminal) || maxTerminal < 1) {
      throw new RangeError(`maxTasks must be a whole number of at least 1; got ${maxTerminal}`);
    }
    this.#maxTerminal = maxTerminal;
  }

  get(id: string): T | undefined {
    return this.#tasks.get(id);
  }

  add(id: string, task: T): void {
    this.#tasks.set(id, task);
  }

  /** Kept tasks in creation order. */
  values(): IterableIterator<T> {
    return this.#tasks.values();
  }

  get size(): number {
    return this.#tasks.size;
  }

  /**
   * Notes that task `id` reached a terminal state; returns the tasks this evicts (oldest finished
   * first), already removed.
   */
  finished(id: string): T[] {
    if (!this.#tasks.has(id) || this.#terminal.has(id)) return [];
    this.#terminal.add(id);
    const evicted: T[] = [];
    for (const oldest of this.#terminal) {
      if (this.#terminal.size <= this.#maxTerminal) break;
      this.#terminal.delete(oldest);
      const task = this.#tasks.get(oldest);
      this.#tasks.delete(oldest);
      if (task !== undefined) evicted.push(task);
    }
    return evicted;
  }
}
