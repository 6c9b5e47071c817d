/**
 * The canonical serializer against an independent RFC 8785 implementation (the `canonicalize`
 * package) on any JSON value: objects with few keys (put in order by insertion) and many (by the
 * built-in sort), keys and strings of any UTF-16 code units that are well formed, any finite
 * number, integers and -0 included. Recording lines take the same path in escape mode.
 */
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { fuzzRuns } from '../helpers/fuzz.js';

/** Well-formed strings of any code units (lone surrogates are refused, not canonicalized). */
const text = fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => s.isWellFormed());
const number = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.constantFrom(-0, 0, 1e21, 1e-7, 123456789012345680000, Number.MAX_VALUE, Number.MIN_VALUE),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    number,
    text,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(
      fc.oneof(text, fc.constantFrom('a', 'b', 'B', 'aa', 'é', '\ud83d\ude00', '\uffff', '')),
      tie('value'),
      {
        maxKeys: 24,
      },
    ),
  ),
}));

describe('canonicalJson against the canonicalize package', () => {
  it('writes the bytes canonicalize writes for any JSON value', () => {
    fc.assert(
      fc.property(value, (v) => {
        const expected = canonicalize(v);
        expect(canonicalJson(v)).toBe(expected);
        expect(canonicalJson(v, { loneSurrogates: 'escape' })).toBe(expected);
      }),
      { numRuns: fuzzRuns(1000), seed: 8788 },
    );
  });

  it('orders objects of many keys, in any order they come, as canonicalize does', () => {
    const keys = fc.uniqueArray(text, { minLength: 15, maxLength: 40 });
    fc.assert(
      fc.property(keys, (names) => {
        const record: Record<string, number> = {};
        names.forEach((name, i) => {
          record[name] = i;
        });
        expect(canonicalJson(record)).toBe(canonicalize(record));
        expect(canonicalJson([record, { nested: record }])).toBe(canonicalize([record, { nested: record }]));
      }),
      { numRuns: fuzzRuns(300), seed: 8789 },
    );
  });
});
