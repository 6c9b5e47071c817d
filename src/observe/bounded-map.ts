/**
 * @module observe/bounded-map
 * A map that holds at most `capacity` entries and forgets the least recently used one first: the
 * PauseObserver's memory of what it no longer follows but may still be asked about (recently
 * closed pauses, finished tasks, finished exchanges, control calls by name), so that memory stays
 * flat however long a recording runs (docs/design.md §14.6).
 */

export class BoundedMap<K, V> {
  readonly #capacity: number;
  readonly #map = new Map<K, V>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer`);
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#map.size;
  }

  /** The value under `key`, which becomes the most recently used. */
  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Sets `key` as the most recently used entry, forgetting the least recently used beyond capacity. */
  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.#capacity) {
      const oldest = this.#map.keys().next();
      if (!oldest.done) this.#map.delete(oldest.value);
    }
  }

  delete(key: K): boolean {
    return this.#map.delete(key);
  }
}
