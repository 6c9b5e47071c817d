import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CanonicalizationError,
  canonicalJson,
  hashCanonical,
  repairLoneSurrogates,
  repairUnrepresentable,
  replaceNonFinite,
  sha256Prefixed,
} from '../../src/canonical/canonical-json.js';
import { fuzzRuns } from '../helpers/fuzz.js';

function fromIeeeHex(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('canonicalJson (RFC 8785)', () => {
  it('serializes the RFC 8785 §3.2.2 sample exactly', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    ) as unknown;
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('orders properties by UTF-16 code units, astral characters by their surrogates (§3.2.3)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    const keys = Object.keys(JSON.parse(canonicalJson(input)) as object);
    // Object.keys puts the integer-like "1" first; read the order from the text instead.
    const text = canonicalJson(input);
    const order = ['\\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'].map((k) =>
      text.indexOf(`"${k}"`),
    );
    expect(order.every((pos, i) => pos >= 0 && (i === 0 || pos > (order[i - 1] as number)))).toBe(true);
    expect(keys).toHaveLength(7);
  });

  it('puts U+FB33 after an astral key although its code point is lower', () => {
    expect(canonicalJson({ '\ufb33': 1, '\ud83d\ude00': 2 })).toBe('{"\ud83d\ude00":2,"\ufb33":1}');
  });

  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('formats the IEEE 754 value %s as %s (Appendix B)', (hex, expected) => {
    expect(canonicalJson(fromIeeeHex(hex))).toBe(expected);
  });

  it('escapes control characters and keeps everything else verbatim', () => {
    expect(canonicalJson('\b\t\n\f\r\u0000\u001f"\\/\u007f\u2028é😀')).toBe(
      '"\\b\\t\\n\\f\\r\\u0000\\u001f\\"\\\\/\u007f\u2028é😀"',
    );
  });

  it('agrees with an independent JCS implementation on nested documents', () => {
    const docs: unknown[] = [
      { z: [1, 2, { b: null, a: [true, false] }], y: 'x', '': -0.5, é: { '\u0000': 1e-7 } },
      [[], {}, [[[]]], 123456789012345680000, 0.1 + 0.2],
      {
        task: {
          id: 't-1',
          status: { state: 'TASK_STATE_PAUSED', pause: { resumable: true, pausedAt: '2026-01-01T00:00:00.000Z' } },
        },
      },
    ];
    for (const doc of docs) expect(canonicalJson(doc)).toBe(canonicalize(doc));
  });

  it.each<[string, () => unknown, string]>([
    ['NaN', () => ({ a: [1, Number.NaN] }), '$.a[1]'],
    ['Infinity', () => ({ a: { b: Number.POSITIVE_INFINITY } }), '$.a.b'],
    ['-Infinity', () => [Number.NEGATIVE_INFINITY], '$[0]'],
    ['a BigInt', () => ({ n: 10n }), '$.n'],
    ['a lone high surrogate', () => ({ s: 'a\ud800b' }), '$.s'],
    ['a lone low surrogate in a key', () => ({ ['k\udc00']: 1 }), '$["k\\udc00"]'],
    ['undefined', () => ({ a: undefined }), '$.a'],
    ['a function', () => ({ f: () => 1 }), '$.f'],
    ['a Map', () => ({ m: new Map() }), '$.m'],
    ['a Set', () => [new Set([1])], '$[0]'],
    ['a Date', () => ({ d: new Date(0) }), '$.d'],
    ['a class instance', () => ({ x: new (class Point {})() }), '$.x'],
    ['a symbol', () => ({ s: Symbol('s') }), '$.s'],
    // eslint-disable-next-line no-sparse-arrays -- the hole is the point of the case
    ['a sparse array', () => ({ a: [1, , 3] }), '$.a[1]'],
    ['a key that needs quoting', () => ({ 'a b': { c: Number.NaN } }), '$["a b"].c'],
  ])('rejects %s naming the path', (_what, make, path) => {
    let error: unknown;
    try {
      canonicalJson(make());
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CanonicalizationError);
    expect((error as CanonicalizationError).path).toBe(path);
    expect((error as CanonicalizationError).code).toBe('CANONICAL_UNREPRESENTABLE');
  });

  it('rejects a cycle naming where it closes', () => {
    const a: Record<string, unknown> = { b: {} };
    (a.b as Record<string, unknown>).back = a;
    expect(() => canonicalJson(a)).toThrow(/\$\.b\.back: cycle/);
  });

  it('accepts the same object twice when it is not a cycle', () => {
    const shared = { v: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"v":1},"b":{"v":1}}');
  });

  it('accepts objects without a prototype', () => {
    const bare = Object.create(null) as Record<string, number>;
    bare.b = 2;
    bare.a = 1;
    expect(canonicalJson(bare)).toBe('{"a":1,"b":2}');
  });
});

describe('hashCanonical', () => {
  it('hashes the canonical form, so key order and number spelling do not matter', () => {
    expect(hashCanonical({ a: 1, b: [1.0, 2] })).toBe(hashCanonical(JSON.parse('{"b":[1,2.00],"a":1e0}')));
    expect(hashCanonical({})).toBe('sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });

  it('changes when any value changes', () => {
    expect(hashCanonical({ a: 1 })).not.toBe(hashCanonical({ a: 2 }));
  });
});

describe('sha256Prefixed', () => {
  it('gives the createHash digest of any text or bytes, lone surrogates included', () => {
    const byObject = (data: string | Uint8Array): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 300 }),
          fc.string({ unit: fc.constantFrom('\ud800', '\udfff', 'a', '\u00e9', '\ud83d\ude00'), maxLength: 20 }),
          fc.uint8Array({ maxLength: 300 }),
        ),
        (data) => {
          expect(sha256Prefixed(data)).toBe(byObject(data));
        },
      ),
      { numRuns: fuzzRuns(500), seed: 5 },
    );
    expect(sha256Prefixed('')).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('canonicalJson on hostile input', () => {
  it('serializes 100,000 levels of nesting without touching the call stack', () => {
    const depth = 100_000;
    const value = JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown;
    expect(canonicalJson(value)).toHaveLength(2 * depth);
  });

  it('refuses nesting past maxDepth, naming where', () => {
    expect(() => canonicalJson({ a: [[[1]]] }, { maxDepth: 3 })).toThrow(
      'cannot canonicalize $.a[0][0]: nests deeper than 3 levels',
    );
    expect(canonicalJson({ a: [[1]] }, { maxDepth: 3 })).toBe('{"a":[[1]]}');
  });

  it('writes a lone surrogate as an escape only when asked to, and the text parses back', () => {
    const value = { 'k\udc00': ['\ud800'] };
    expect(() => canonicalJson(value)).toThrow(CanonicalizationError);
    const text = canonicalJson(value, { loneSurrogates: 'escape' });
    expect(text).toBe('{"k\\udc00":["\\ud800"]}');
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('repairLoneSurrogates', () => {
  it('replaces every lone surrogate in strings and keys with U+FFFD and says so', () => {
    const value = { a: ['ok', 'x\ud800'], ['k\udc00']: { deep: '\udbff' }, pair: '\ud83d\ude00' };
    const fixed = repairLoneSurrogates(value);
    expect(fixed.repaired).toBe(true);
    expect(fixed.value).toEqual({ a: ['ok', 'x\ufffd'], ['k\ufffd']: { deep: '\ufffd' }, pair: '\ud83d\ude00' });
    expect(value.a[1]).toBe('x\ud800');
    expect(canonicalJson(fixed.value)).toContain('\ufffd');
  });

  it('returns the same value untouched when nothing needs repair', () => {
    const value = { a: [1, 'two', { three: null }] };
    const fixed = repairLoneSurrogates(value);
    expect(fixed.repaired).toBe(false);
    expect(fixed.value).toBe(value);
  });

  it('keeps an own __proto__ member a member when it copies', () => {
    const value = JSON.parse('{"__proto__":{"x":"\\ud800"},"n":1e400}') as Record<string, unknown>;
    for (const fixed of [repairLoneSurrogates(value), repairUnrepresentable(value)]) {
      expect(Object.getPrototypeOf(fixed.value)).toBe(Object.prototype);
      expect(Object.keys(fixed.value)).toEqual(['__proto__', 'n']);
      expect(canonicalJson(Object.getOwnPropertyDescriptor(fixed.value, '__proto__')?.value)).toBe('{"x":"\ufffd"}');
    }
  });
});

describe('replaceNonFinite', () => {
  it('writes a number JSON.parse made infinite as null, at any depth, and leaves the rest', () => {
    const value = JSON.parse('{"a":[1e400,-1e400,2],"b":{"c":1e400},"d":"1e400"}') as unknown;
    const fixed = replaceNonFinite(value);
    expect(fixed).toEqual({ value: { a: [null, null, 2], b: { c: null }, d: '1e400' }, repaired: true });
    expect(replaceNonFinite(Number.POSITIVE_INFINITY)).toEqual({ value: null, repaired: true });
    const plain = { a: [1, 'x'] };
    expect(replaceNonFinite(plain).value).toBe(plain);
  });
});
