/**
 * BoundedMap against a model of least-recently-used memory (an array of keys, oldest first): for
 * any sequence of sets, gets, peeks, deletes and clones, over small capacities and a small key
 * space so that evictions, refreshes and re-insertions of evicted keys all happen often, the map
 * holds exactly the model's entries.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../src/bounded-map.js';
import { fuzzRuns } from './helpers/fuzz.js';

type Op =
  { op: 'set'; key: number; value: number } | { op: 'get' | 'peek' | 'delete' | 'has'; key: number } | { op: 'clone' };

const key = fc.integer({ min: 0, max: 9 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('set' as const), key, value: fc.integer() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('get' as const, 'peek' as const, 'has' as const), key }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), key }) },
  { weight: 1, arbitrary: fc.constant({ op: 'clone' as const }) },
);

/** The model: entries oldest first. */
class Model {
  entries: [number, number][] = [];
  constructor(readonly capacity: number) {}
  #take(k: number): [number, number] | undefined {
    const at = this.entries.findIndex(([key]) => key === k);
    return at < 0 ? undefined : this.entries.splice(at, 1)[0];
  }
  set(k: number, v: number): void {
    this.#take(k);
    this.entries.push([k, v]);
    while (this.entries.length > this.capacity) this.entries.shift();
  }
  get(k: number): number | undefined {
    const found = this.#take(k);
    if (found) this.entries.push(found);
    return found?.[1];
  }
  peek(k: number): number | undefined {
    return this.entries.find(([key]) => key === k)?.[1];
  }
  delete(k: number): boolean {
    return this.#take(k) !== undefined;
  }
}

describe('BoundedMap', () => {
  it('holds what a least-recently-used model holds, for any sequence of uses', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 200 }), (capacity, ops) => {
        let map = new BoundedMap<number, number>(capacity);
        const model = new Model(capacity);
        for (const o of ops) {
          switch (o.op) {
            case 'set':
              map.set(o.key, o.value);
              model.set(o.key, o.value);
              break;
            case 'get':
              expect(map.get(o.key)).toBe(model.get(o.key));
              break;
            case 'peek':
              expect(map.peek(o.key)).toBe(model.peek(o.key));
              break;
            case 'has':
              expect(map.has(o.key)).toBe(model.peek(o.key) !== undefined);
              break;
            case 'delete':
              expect(map.delete(o.key)).toBe(model.delete(o.key));
              break;
            case 'clone': {
              // The copy goes on in the original's place; what happens to the original after
              // (here: an entry that evicts its oldest) is not seen by the copy.
              const original = map;
              map = original.clone();
              original.set(100, 0);
              break;
            }
          }
          expect(map.size).toBe(model.entries.length);
          for (let k = 0; k <= 9; k++) expect(map.peek(k)).toBe(model.peek(k));
        }
      }),
      { numRuns: fuzzRuns(500), seed: 41 },
    );
  });

  it('refuses a capacity that is not a positive integer', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN]) expect(() => new BoundedMap(capacity)).toThrow(RangeError);
  });
});
