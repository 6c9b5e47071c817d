/**
 * @module bounded-map
 * A map that holds at most `capacity` entries and forgets the least recently used one first: the
 * PauseObserver's memory of what it no longer follows but may still be asked about (recently
 * closed pauses, finished tasks, finished exchanges, control calls by name) and the verifier's
 * recently closed suspensions, so that memory stays flat however long a recording or log runs
 * (docs/design.md §14.6).
 *
 * A `Map` iterates in insertion order, so with every use moving its key to the end its first key
 * is the least recently used. That key is found by one iterator kept for the map's life, not by
 * a fresh `keys().next()` each time: a fresh iterator steps over every entry deleted since the
 * table was last rebuilt, which made each eviction cost time in proportion to the capacity
 * (about 5 µs at 16,384 entries, 19 µs at 65,536); the kept one passes each deleted slot once.
 */

export class BoundedMap<K, V> {
  readonly #capacity: number;
  readonly #map: Map<K, V>;
  /** Where the oldest entries are: every entry it has passed was evicted. */
  #oldest: MapIterator<K> | undefined;

  constructor(capacity: number, entries?: Iterable<readonly [K, V]>) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer`);
    this.#capacity = capacity;
    this.#map = new Map(entries);
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

  /** The value under `key`, leaving the order of use as it is. */
  peek(key: K): V | undefined {
    return this.#map.get(key);
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Sets `key` as the most recently used entry, forgetting the least recently used beyond capacity. */
  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    while (this.#map.size > this.#capacity) {
      this.#oldest ??= this.#map.keys();
      const oldest = this.#oldest.next();
      // Never done while entries are left (they all lie ahead of it); a fresh one if it were.
      if (oldest.done) this.#oldest = undefined;
      else this.#map.delete(oldest.value);
    }
  }

  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  /** An independent copy with the same entries in the same order of use. */
  clone(): BoundedMap<K, V> {
    return new BoundedMap(this.#capacity, this.#map);
  }
}
