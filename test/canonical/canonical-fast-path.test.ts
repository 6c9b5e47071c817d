/**
 * canonicalJson's fast path (direct recursion over plain JSON) gives the same bytes as the full
 * stack-based walk, which `maxDepth` forces, for any JSON value, lone surrogates included in
 * escape mode, and refuses what the walk refuses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/internal.js';

const walk = (value: unknown, escape = false): string =>
  canonicalJson(value, { maxDepth: 1e9, ...(escape ? { loneSurrogates: 'escape' as const } : {}) });

describe('canonicalJson fast path', () => {
  it('writes the same bytes as the full walk for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expect(canonicalJson(value)).toBe(walk(value));
      }),
      { numRuns: 500, seed: 8785 },
    );
  });

  it('writes the same bytes in escape mode for strings with lone surrogates', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })), (value) => {
        expect(canonicalJson(value, { loneSurrogates: 'escape' })).toBe(walk(value, true));
      }),
      { numRuns: 300, seed: 8786 },
    );
  });

  it('leaves deep nesting, cycles, lone surrogates and non-JSON to the walk, which names the path', () => {
    const deep = JSON.parse(`${'['.repeat(5000)}1${']'.repeat(5000)}`) as unknown;
    expect(canonicalJson(deep)).toBe(walk(deep));
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/\$\.self: cycle/);
    expect(() => canonicalJson({ x: ['\ud800'] })).toThrow(/\$\.x\[0\]: string has a lone surrogate/);
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(/\$\.n: NaN is not a JSON number/);
    expect(canonicalJson({ z: -0, a: [true, null] })).toBe('{"a":[true,null],"z":0}');
  });
});
