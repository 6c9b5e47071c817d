/**
 * canonicalMembers (what the receipt chain serializes a line with, its key order remembered per
 * shape) joins to exactly canonicalJson's bytes for any JSON object, reusing one KeyOrder across
 * objects of the same and of different shapes, and refuses what canonicalJson refuses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyOrder, canonicalJson, canonicalMembers } from '../../src/canonical/canonical-json.js';
import { fuzzRuns } from '../helpers/fuzz.js';

const joined = (value: object, order: KeyOrder): string => `{${canonicalMembers(value, order).members.join(',')}}`;

describe('canonicalMembers', () => {
  it('joins to the bytes of canonicalJson for any JSON object, one KeyOrder reused throughout', () => {
    const order = new KeyOrder();
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: 'grapheme' }), fc.jsonValue({ maxDepth: 4 })), (value) => {
        expect(joined(value, order)).toBe(canonicalJson(value));
        // The same shape again, other values: the remembered order is used.
        const again = Object.fromEntries(Object.keys(value).map((k, i) => [k, i]));
        expect(joined(again, order)).toBe(canonicalJson(again));
      }),
      { numRuns: fuzzRuns(400), seed: 6 },
    );
  });

  it('gives the keys in RFC 8785 order with the members', () => {
    const { keys, members } = canonicalMembers({ b: 1, a: [2], '\u00e9': 's', A: null, 10: true, 9: false });
    expect(keys).toEqual(['10', '9', 'A', 'a', 'b', '\u00e9']);
    expect(members).toEqual(['"10":true', '"9":false', '"A":null', '"a":[2]', '"b":1', '"\u00e9":"s"']);
  });

  it('refuses what canonicalJson refuses, naming the same path', () => {
    const order = new KeyOrder();
    for (const bad of [
      { a: { b: ['\ud800'] } },
      { ['x\udc00']: 1 },
      { n: Number.POSITIVE_INFINITY },
      { d: new Date(0) },
      { u: undefined },
    ]) {
      let expected = '';
      try {
        canonicalJson(bad);
      } catch (error) {
        expected = (error as Error).message;
      }
      expect(expected).not.toBe('');
      expect(() => canonicalMembers(bad, order)).toThrow(expected);
    }
  });

  it('serializes members nested past the fast depth like canonicalJson', () => {
    const deep = JSON.parse(`{"z":${'['.repeat(200)}1${']'.repeat(200)},"a":"x"}`) as object;
    expect(joined(deep, new KeyOrder())).toBe(canonicalJson(deep));
  });
});
