/**
 * The entry checks read an entry's `at` as `Date.parse` does: the shape the recorder writes is
 * recognised without parsing, and that shortcut accepts only texts `Date.parse` reads.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entryProblem, isPlainUtcInstant } from '../../src/observe/entry-reads.js';
import { fuzzRuns } from '../helpers/fuzz.js';

const entryAt = (at: string): unknown => ({
  seq: 1,
  at,
  xid: 'x-1',
  kind: 'request',
  http: { method: 'POST', path: '/' },
});

describe('isPlainUtcInstant', () => {
  it('recognises the text Date#toISOString writes for days 1 to 28', () => {
    expect(isPlainUtcInstant('2026-12-06T11:32:56.401Z')).toBe(true);
    expect(isPlainUtcInstant('0000-01-01T00:00:00.000Z')).toBe(true);
    expect(isPlainUtcInstant('9999-12-28T23:59:59.999Z')).toBe(true);
  });

  it.each([
    '2026-12-29T11:32:56.401Z',
    '2026-13-01T00:00:00.000Z',
    '2026-00-01T00:00:00.000Z',
    '2026-01-00T00:00:00.000Z',
    '2026-01-01T24:00:00.000Z',
    '2026-01-01T23:60:00.000Z',
    '2026-01-01T23:59:60.000Z',
    '2026-01-01T00:00:00Z',
    '2026-01-01T00:00:00.000+00:00',
    '2026-01-01 00:00:00.000Z',
    '+02026-01-01T00:00:00.000Z',
    '2026-01-01T00:00:00.00aZ',
    '2026-01-01T00:00:00.000z',
  ])('leaves %s to Date.parse', (text) => {
    expect(isPlainUtcInstant(text)).toBe(false);
  });

  it('accepts only texts Date.parse reads, and every text of its shape within its ranges', () => {
    const chars = '0123456789-T:.Z +';
    const base = '2026-05-17T08:09:10.011Z';
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(23), fc.constantFrom(...chars)), { maxLength: 4 }), (edits) => {
        const text = [...base];
        for (const [at, c] of edits) text[at] = c;
        const s = text.join('');
        if (isPlainUtcInstant(s)) expect(Number.isNaN(Date.parse(s))).toBe(false);
      }),
      { numRuns: fuzzRuns(2000), seed: 14 },
    );
    for (let month = 0; month <= 13; month++)
      for (let day = 0; day <= 32; day++) {
        const s = `2024-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T23:59:59.999Z`;
        if (isPlainUtcInstant(s)) expect(Number.isNaN(Date.parse(s))).toBe(false);
        expect(isPlainUtcInstant(s)).toBe(month >= 1 && month <= 12 && day >= 1 && day <= 28);
      }
  });
});

describe('entryProblem', () => {
  it('reads `at` as Date.parse does, inside and outside the shortcut', () => {
    for (const at of [
      '2026-12-06T11:32:56.401Z',
      '2026-02-31T00:00:00.000Z',
      '2026-01-01T24:00:00.000Z',
      '2026-01-01T00:00:00Z',
      '2026-13-01T00:00:00.000Z',
      '2026-01-01T23:60:00.000Z',
      'yesterday',
    ])
      expect(entryProblem(entryAt(at))).toBe(
        Number.isNaN(Date.parse(at)) ? 'at: expected an ISO 8601 time' : undefined,
      );
  });
});
