/**
 * The fast recording-line writer gives exactly the bytes of the generic RFC 8785 serializer for
 * any entry of plain JSON (lone surrogates, odd keys and numbers included), and leaves whatever
 * is not plain JSON to it, so recordings are the same bytes either way.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { entryLine } from '../../src/recording/entry-line.js';
import { ENTRY_KINDS, type RecordingEntry } from '../../src/recording/format.js';
import { serializeLine } from '../../src/recording/recording-writer.js';
import { fuzzRuns } from '../helpers/fuzz.js';

const generic = (entry: unknown): string => canonicalJson(entry, { loneSurrogates: 'escape' });
const anyText = fc.string({ unit: 'binary', maxLength: 12 });

const entryArb: fc.Arbitrary<RecordingEntry> = fc
  .record(
    {
      seq: fc.integer({ min: 1, max: 2 ** 40 }),
      at: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      xid: anyText,
      kind: fc.constantFrom(...ENTRY_KINDS),
      http: fc.record(
        {
          method: fc.constantFrom('GET', 'POST', 'DELETE'),
          path: anyText,
          status: fc.integer({ min: 100, max: 599 }),
          headers: fc.dictionary(anyText, anyText, { maxKeys: 5 }),
        },
        { requiredKeys: ['method', 'path'] },
      ),
      body: fc.jsonValue({ maxDepth: 5 }),
      bodyText: anyText,
      bodyRepaired: anyText,
      cut: fc.record({
        bytes: fc.integer({ min: 0, max: 2 ** 40 }),
        sha256: fc.stringMatching(/^sha256:[0-9a-f]{64}$/),
      }),
      incomplete: anyText,
      sse: fc.record({ event: anyText, id: anyText }, { requiredKeys: [] }),
      principal: anyText,
      a2aVersion: anyText,
      error: anyText,
    },
    { requiredKeys: ['seq', 'at', 'xid', 'kind', 'http'] },
  )
  .map((e) => e as RecordingEntry);

describe('entryLine', () => {
  it('writes the same bytes as the generic serializer for any plain entry', () => {
    fc.assert(
      fc.property(entryArb, (entry) => {
        const line = entryLine(entry);
        expect(line).toBe(generic(entry));
        expect(JSON.parse(line ?? '')).toEqual(JSON.parse(JSON.stringify(entry)));
      }),
      { numRuns: fuzzRuns(300), seed: 5005 },
    );
  });

  it('writes the same bytes for bodies with lone surrogates in keys and values', () => {
    fc.assert(
      fc.property(fc.dictionary(anyText, fc.oneof(anyText, fc.array(anyText))), (body) => {
        const entry: RecordingEntry = {
          seq: 1,
          at: 'a',
          xid: 'x',
          kind: 'request',
          http: { method: 'POST', path: '/' },
          body,
        };
        expect(entryLine(entry)).toBe(generic(entry));
      }),
      { numRuns: fuzzRuns(100), seed: 5006 },
    );
  });

  it('leaves what is not plain JSON to the generic serializer, which writes or refuses it as before', () => {
    const base: RecordingEntry = { seq: 1, at: 'a', xid: 'x', kind: 'request', http: { method: 'POST', path: '/' } };
    const odd: unknown[] = [
      { ...base, body: { n: Number.NaN } },
      { ...base, body: new Map() },
      { ...base, principal: undefined },
      { ...base, extra: 1 },
      { ...base, http: { ...base.http, note: 'x' } },
      { ...base, body: { [Symbol('s')]: 1, a: 1 } },
      { ...base, body: JSON.parse(`${'['.repeat(200)}1${']'.repeat(200)}`) as unknown },
    ];
    for (const entry of odd) expect(entryLine(entry as RecordingEntry)).toBeUndefined();
    // The deep body is plain JSON after all: the generic serializer writes the same line for it.
    const deep = odd.at(-1) as RecordingEntry;
    expect(serializeLine(deep)).toBe(`${generic(deep)}\n`);
    // A number that is not finite (what JSON.parse makes of 1e400) is written as null, the body
    // kept a body; a value that is not JSON at all is kept as text.
    expect(JSON.parse(serializeLine(odd[0] as RecordingEntry))).toMatchObject({ body: { n: null } });
    expect(JSON.parse(serializeLine(odd[1] as RecordingEntry))).toMatchObject({ bodyText: '{}' });
  });
});
