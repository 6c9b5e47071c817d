/**
 * Content comparison walks bodies of any depth without recursion, in document order.
 */
import { expect, it } from 'vitest';
import { IgnoreSet, type JsonValue, contentDifferences } from '../../src/internal.js';

function nested(depth: number, leaf: JsonValue): JsonValue {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

it('compares bodies nested 20,000 deep and names the one leaf that differs', () => {
  const differences = contentDifferences(nested(20_000, 1), nested(20_000, 2), new IgnoreSet([]));
  expect(differences).toHaveLength(1);
  expect(differences[0]?.change).toBe('changed');
  expect(differences[0]?.path).toBe('/0'.repeat(20_000));
});

it('reports differences in document order: indexes ascending, keys sorted', () => {
  const recorded = { b: [1, 2, 3], a: { y: 1, x: 1 } };
  const live = { b: [9, 2], a: { x: 2, y: 1, z: 0 } };
  expect(contentDifferences(recorded, live, new IgnoreSet([]))).toEqual([
    { path: '/a/x', change: 'changed' },
    { path: '/a/z', change: 'added' },
    { path: '/b/0', change: 'changed' },
    { path: '/b/2', change: 'removed' },
  ]);
});
