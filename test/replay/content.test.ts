/**
 * Content comparison walks bodies of any depth without recursion, in document order.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { JsonValue } from '../../src/canonical/canonical-json.js';
import { IgnoreSet, contentDifferences, describeContent, differsInContent } from '../../src/replay/content.js';
import { fuzzRuns } from '../helpers/fuzz.js';

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

it('says a key that only one side has is added or removed, whatever its name', () => {
  expect(contentDifferences({}, { constructor: 'x', toString: 1 }, new IgnoreSet([]))).toEqual([
    { path: '/constructor', change: 'added' },
    { path: '/toString', change: 'added' },
  ]);
  expect(contentDifferences(JSON.parse('{"__proto__":1}') as JsonValue, {}, new IgnoreSet([]))).toEqual([
    { path: '/__proto__', change: 'removed' },
  ]);
});

const segment = fc.constantFrom('a', 'b', '0', '1', 'x/y', 'm~n');
const patternSegment = fc.oneof(segment, fc.constant('*'), fc.constant('**'));
const escape = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

it('walks to the same verdict as matching each whole path against the patterns', () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(patternSegment, { maxLength: 5 }), { maxLength: 4 }),
      fc.array(segment, { maxLength: 7 }),
      (patterns, path) => {
        const set = new IgnoreSet(
          patterns.map((p) => p.map((s) => `/${s === '*' || s === '**' ? s : escape(s)}`).join('')),
        );
        let state = set.start;
        expect(set.ignored(state)).toBe(set.ignores([]));
        path.forEach((key, i) => {
          state = set.step(state, key);
          expect(set.ignored(state)).toBe(set.ignores(path.slice(0, i + 1)));
        });
      },
    ),
    { numRuns: fuzzRuns(500) },
  );
});

/** Every leaf and member with its path, for the reference comparison below. */
function reference(
  recorded: JsonValue | undefined,
  live: JsonValue | undefined,
  set: IgnoreSet,
  path: string[] = [],
): string[] {
  if (set.ignores(path) || (recorded === undefined && live === undefined)) return [];
  const at = path.map((s) => `/${escape(s)}`).join('');
  if (recorded === undefined) return [`${at} added`];
  if (live === undefined) return [`${at} removed`];
  if (Array.isArray(recorded) && Array.isArray(live)) {
    const out: string[] = [];
    for (let i = 0; i < Math.max(recorded.length, live.length); i++)
      out.push(...reference(recorded[i], live[i], set, [...path, String(i)]));
    return out;
  }
  const isObject = (v: JsonValue): v is Record<string, JsonValue> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(recorded) && isObject(live)) {
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(live)])].sort();
    return keys.flatMap((k) => reference(recorded[k], live[k], set, [...path, k]));
  }
  return recorded === live ? [] : [`${at} changed`];
}

it('finds what a recursive walk over whole paths finds, in the same order', () => {
  const json = fc.letrec<{ value: JsonValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom<JsonValue>(0, 1, 'a', null, true),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(segment, tie('value'), { maxKeys: 3 }),
    ),
  })).value;
  fc.assert(
    fc.property(
      json,
      json,
      fc.array(fc.array(patternSegment, { maxLength: 4 }), { maxLength: 3 }),
      (r, l, patterns) => {
        const set = new IgnoreSet(
          patterns.map((p) => p.map((s) => `/${s === '*' || s === '**' ? s : escape(s)}`).join('')),
        );
        const found = contentDifferences(r, l, set).map((d) => `${d.path} ${d.change}`);
        const expected = reference(r, l, set);
        expect(found).toEqual(expected);
        // The unordered look that lets most bodies skip the ordered walk agrees with it.
        expect(differsInContent(r, l, set)).toBe(expected.length > 0);
      },
    ),
    { numRuns: fuzzRuns(300) },
  );
});

it('ignores by pattern under more distinct keys than it remembers steps for', () => {
  const recorded: Record<string, JsonValue> = {};
  const live: Record<string, JsonValue> = {};
  for (let i = 0; i < 40_000; i++) {
    recorded[`k${i}`] = { x: 1, y: 1 };
    live[`k${i}`] = { x: 2, y: i === 39_999 ? 2 : 1 };
  }
  expect(contentDifferences(recorded, live, new IgnoreSet(['/*/x']))).toEqual([
    { path: '/k39999/y', change: 'changed' },
  ]);
});

it('shows two long strings around where they first differ, both sides', () => {
  const recorded = {
    error: { message: `${'The task could not be canceled because '.repeat(2)}it is COMPLETED (seq 19)` },
  };
  const live = { error: { message: `${'The task could not be canceled because '.repeat(2)}it is FAILED (seq 19)` } };
  const ignore = new IgnoreSet([]);
  expect(describeContent(recorded, live, contentDifferences(recorded, live, ignore))).toEqual([
    'content /error/message: "…celed because it is COMPLETED (seq 19)" → "…celed because it is FAILED (seq 19)" ' +
      '(first difference at character 85)',
  ]);
  expect(
    describeContent({ a: 'short' }, { a: 'shorter' }, contentDifferences({ a: 'short' }, { a: 'shorter' }, ignore)),
  ).toEqual(['content /a: "short" → "shorter"']);
});
