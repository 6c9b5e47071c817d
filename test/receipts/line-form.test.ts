/**
 * The fast canonical-form check of a verified line (JSON.stringify of its parse, keys in order,
 * `sig` cut out of the text) and the full one (canonicalize and compare) agree on every line:
 * written ones, and the same lines re-serialized with keys out of order, spaces, escapes, other
 * number forms, lone surrogates or a member a forger moved; and where both say canonical, the
 * signed body they give is the same text. The fast check told by the fast reader that the line's
 * fixed-shape objects are in order (so that it walks only `conditions`) answers the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineForm, lineFormFull } from '../../src/receipts/line-form.js';
import { readReceiptLineFast } from '../../src/receipts/read-line-fast.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { Keyring } from '../../src/receipts/keys.js';
import { buildLogLines, fixedKey } from './fixtures.js';
import { readLine } from './line-mutations.js';
import { fuzzRuns } from '../helpers/fuzz.js';

const keyring = new Keyring([fixedKey('key-lf')]);
const written = buildLogLines({ count: 40, keyring, checkpointEvery: 8 });

/** Both answers for a text, or null when it is no receipt log line at all. */
function both(
  text: string,
): { fast: { canonical: boolean; body: string }; full: { canonical: boolean; body: string } } | null {
  const read = readLine(text);
  if (!read) return null;
  const fast = lineForm(text, read.value, read.line);
  const full = lineFormFull(text, read.line);
  // With the fast reader's word that the fixed-shape members are in order, the same answer.
  if (readReceiptLineFast(read.value) !== null) expect(lineForm(text, read.value, read.line, true)).toEqual(fast);
  return {
    fast: { canonical: fast.canonical, body: fast.body.join('') },
    full: { canonical: full.canonical, body: full.body.join('') },
  };
}

/** A JSON text of `value` with each object's keys in an order `pick` chooses. */
function reordered(value: unknown, pick: (n: number) => number): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => reordered(v, pick)).join(',')}]`;
  const keys = Object.keys(value);
  const order: string[] = [];
  while (keys.length > 0) order.push(keys.splice(pick(keys.length), 1)[0]!);
  const record = value as Record<string, unknown>;
  return `{${order.map((k) => `${JSON.stringify(k)}:${reordered(record[k], pick)}`).join(',')}}`;
}

describe('line form: fast and full checks', () => {
  it('agree that every written line is canonical and give the same signed body', () => {
    for (const text of written) {
      const answer = both(text)!;
      expect(answer.fast).toEqual(answer.full);
      expect(answer.fast.canonical).toBe(true);
      const { sig: _sig, ...body } = JSON.parse(text) as Record<string, unknown>;
      if (_sig !== undefined) expect(answer.fast.body).toBe(canonicalJson(body));
    }
  });

  it('agree on lines re-serialized with keys in any order', () => {
    fc.assert(
      fc.property(fc.nat(written.length - 1), fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), (i, picks) => {
        let k = 0;
        const text = reordered(JSON.parse(written[i]!), (n) => (picks[k++ % picks.length] ?? 0) % n);
        const answer = both(text)!;
        expect(answer.fast).toEqual(answer.full);
        expect(answer.fast.canonical).toBe(text === written[i]);
      }),
      { numRuns: fuzzRuns(300), seed: 17 },
    );
  });

  it('agree on lines with a string member replaced by any string', () => {
    const members = ['taskId', 'reason', 'principal', 'contextId', 'observedAt'];
    fc.assert(
      fc.property(
        fc.nat(written.length - 1),
        fc.constantFrom(...members),
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.constantFrom('\ud800', 'a\udc00b', '\ud83d\ude00', '\u0000', '\u007f', '"\\', '\u2028'),
        ),
        fc.constantFrom('json', 'escaped', 'spaced'),
        (i, member, replacement, style) => {
          const source = written[i]!;
          const value = JSON.parse(source) as Record<string, unknown>;
          if (!(member in value)) return;
          let piece = JSON.stringify(replacement);
          if (style === 'escaped')
            piece = piece.replace(/[^\x20-\x7e]|a/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
          const text = source.replace(
            `"${member}":${JSON.stringify(value[member])}`,
            `"${member}":${style === 'spaced' ? ' ' : ''}${piece}`,
          );
          const answer = both(text);
          if (answer) expect(answer.fast).toEqual(answer.full);
        },
      ),
      { numRuns: fuzzRuns(400), seed: 18 },
    );
  });

  it('agree on lines whose sig kid or value is any string, braces and quotes included', () => {
    fc.assert(
      fc.property(
        fc.nat(written.length - 1),
        fc.constantFrom('kid', 'value'),
        fc.oneof(
          fc.string({ unit: fc.constantFrom('}', '{', '"', '\\', ',', 'a', ':', '\u00e9'), maxLength: 12 }),
          fc.constantFrom('}', 'a}b', '"}', '\\}', ',"sig":{"alg":"hmac-sha256"}', '{}', '}}'),
          fc.string({ unit: 'binary', maxLength: 20 }),
        ),
        (i, member, replacement) => {
          const value = JSON.parse(written[i]!) as Record<string, unknown>;
          if (!value.sig) return;
          const sig = { ...(value.sig as Record<string, unknown>), [member]: replacement };
          const text = written[i]!.replace(JSON.stringify(value.sig), JSON.stringify(sig));
          const answer = both(text);
          if (answer) expect(answer.fast).toEqual(answer.full);
        },
      ),
      { numRuns: fuzzRuns(600), seed: 21 },
    );
  });

  it('agree on conditions of any JSON, numbers in other forms and a nested sig member', () => {
    const suspension = written.find((t) => t.includes('"conditions":{'))!;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.boolean(), (conditions, withSig) => {
        const value = JSON.parse(suspension) as Record<string, unknown>;
        const nested = withSig && typeof conditions === 'object' && conditions !== null && !Array.isArray(conditions);
        const c = nested ? { ...(conditions as object), sig: value.sig } : conditions;
        const text = suspension.replace(/"conditions":\{.*?\}\},/, `"conditions":${JSON.stringify(c)},`);
        const answer = both(text);
        if (answer) expect(answer.fast).toEqual(answer.full);
      }),
      { numRuns: fuzzRuns(300), seed: 19 },
    );
    for (const [from, to] of [
      ['"seq":3', '"seq":3.0'],
      ['"seq":3', '"seq":3e0'],
      ['"seq":3', '"seq":-0'],
      ['"type":"SuspensionReceipt"', '"type":"Suspensio\\u006eReceipt"'],
      ['"type":', '"type" :'],
    ] as const) {
      const source = written.find((t) => t.includes(from))!;
      const answer = both(source.replace(from, to));
      if (answer) {
        expect(answer.fast).toEqual(answer.full);
        expect(answer.fast.canonical).toBe(false);
      }
    }
  });
});
