/**
 * canonicalJson's fast path (direct recursion over plain JSON) gives the same bytes as the full
 * stack-based walk, which `maxDepth` forces, for any JSON value, lone surrogates included in
 * escape mode, and refuses what the walk refuses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, quoted } from '../../src/canonical/canonical-json.js';
import { fuzzRuns } from '../helpers/fuzz.js';

const walk = (value: unknown, escape = false): string =>
  canonicalJson(value, { maxDepth: 1e9, ...(escape ? { loneSurrogates: 'escape' as const } : {}) });

describe('canonicalJson fast path', () => {
  it('writes the same bytes as the full walk for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expect(canonicalJson(value)).toBe(walk(value));
      }),
      { numRuns: fuzzRuns(500), seed: 8785 },
    );
  });

  it('writes the same bytes in escape mode for strings with lone surrogates', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })), (value) => {
        expect(canonicalJson(value, { loneSurrogates: 'escape' })).toBe(walk(value, true));
      }),
      { numRuns: fuzzRuns(300), seed: 8786 },
    );
  });

  it('quotes any string exactly as JSON.stringify does', () => {
    // Any UTF-16 code units: quotes, backslashes, controls, lone and paired surrogates, U+2028.
    const units = fc.array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0x22, 0x5c, 0x1f, 0x7f)), {
      maxLength: 80,
    });
    fc.assert(
      fc.property(units, (codes) => {
        const s = String.fromCharCode(...codes);
        expect(quoted(s)).toBe(JSON.stringify(s));
      }),
      { numRuns: fuzzRuns(2000), seed: 8787 },
    );
    for (const s of ['', 'a'.repeat(64), 'a'.repeat(65), 'x"y', 'x\\y', '\u2028', '\ud83d\ude00', '\udc00'])
      expect(quoted(s)).toBe(JSON.stringify(s));
  });

  it('quotes long strings exactly as JSON.stringify does, whatever they hold and wherever', () => {
    // Long text (the body of a large answer) with an odd unit somewhere in it, or none.
    const odd = fc.constantFrom(0x22, 0x5c, 0x0a, 0x1f, 0x7f, 0xe9, 0x4e2d, 0xd83d, 0xdc00, 0x2028);
    const text = fc.tuple(fc.integer({ min: 65, max: 70_000 }), fc.option(odd), fc.double({ min: 0, max: 1 }));
    fc.assert(
      fc.property(text, ([length, unit, where]) => {
        const codes = new Array<number>(length).fill(0x61);
        if (unit !== null) codes[Math.floor(where * (length - 1))] = unit;
        const s = String.fromCharCode(...codes.slice(0, 60_000)) + String.fromCharCode(...codes.slice(60_000));
        expect(quoted(s)).toBe(JSON.stringify(s));
      }),
      { numRuns: fuzzRuns(200), seed: 8788 },
    );
    const long = 'lorem ipsum '.repeat(10_000);
    for (const s of [long, `${long}\n`, `\n${long}`, `${long}\ud800`, `${long}\u4e2d`, '\u4e2d'.repeat(50_000)])
      expect(quoted(s)).toBe(JSON.stringify(s));
  });

  it('names keys right however many distinct ones it has seen', () => {
    // More names than the remembered-name bound, long and odd ones too, each seen twice.
    const record: Record<string, number> = {};
    for (let i = 0; i < 5000; i++) record[`k${i}${i % 7 === 0 ? '"\\' : ''}${i % 11 === 0 ? 'x'.repeat(70) : ''}`] = i;
    expect(canonicalJson(record)).toBe(walk(record));
    expect(canonicalJson(record)).toBe(walk(record));
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
