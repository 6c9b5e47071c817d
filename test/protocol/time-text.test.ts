/**
 * canonicalTimeText gives every RFC 3339 text of one instant one text (UTC, `Z`, 3, 6 or 9
 * fractional digits), agrees with Date#toISOString on every millisecond, and refuses what names no
 * instant.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timestamp } from '../../src/protocol/read.js';
import { canonicalTimeText } from '../../src/protocol/time-text.js';
import { fuzzRuns } from '../helpers/fuzz.js';

describe('canonicalTimeText', () => {
  it.each([
    ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T00:00:00-00:00', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T00:00:00.000000000Z', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T00:00:00.5Z', '2026-01-01T00:00:00.500Z'],
    ['2026-01-01T00:00:00.123456Z', '2026-01-01T00:00:00.123456Z'],
    ['2026-01-01T00:00:00.1234Z', '2026-01-01T00:00:00.123400Z'],
    ['2026-01-01T00:00:00.000000001Z', '2026-01-01T00:00:00.000000001Z'],
    ['2026-01-01T00:00:00.12345678Z', '2026-01-01T00:00:00.123456780Z'],
    ['2026-01-01T05:30:00+05:30', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T00:10:00+01:00', '2025-12-31T23:10:00.000Z'],
    ['2025-12-31T23:59:59.999999999-00:01', '2026-01-01T00:00:59.999999999Z'],
    ['2024-02-28T23:00:00-01:00', '2024-02-29T00:00:00.000Z'],
    ['2100-02-28T23:00:00-01:00', '2100-03-01T00:00:00.000Z'],
    ['2000-02-29T12:00:00Z', '2000-02-29T12:00:00.000Z'],
    ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999999999Z', '9999-12-31T23:59:59.999999999Z'],
  ])('reads %s as %s', (text, canonical) => {
    expect(canonicalTimeText(text)).toBe(canonical);
  });

  it.each([
    '2026-01-01',
    '2026-01-01T00:00:00',
    '2026-01-01 00:00:00Z',
    '2026-01-01t00:00:00z',
    '2026-01-01T00:00:00.Z',
    '2026-01-01T00:00:00.1234567890Z',
    '2026-1-01T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2100-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-01-00T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z',
    '2026-12-31T23:59:60Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00+01:60',
    '2026-01-01T00:00:00+0100',
    '0000-01-01T00:00:00+00:01',
    '9999-12-31T23:59:00-00:01',
    ' 2026-01-01T00:00:00Z',
  ])('refuses %j', (text) => {
    expect(canonicalTimeText(text)).toBeUndefined();
  });

  it('agrees with Date#toISOString on every millisecond of years 0000 to 9999, in any offset', () => {
    const instant = fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 });
    const offset = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 });
    fc.assert(
      fc.property(instant, offset, (ms, minutes) => {
        const iso = new Date(ms).toISOString();
        expect(canonicalTimeText(iso)).toBe(iso);
        const local = new Date(ms + minutes * 60_000).toISOString();
        if (!/^\d{4}-/.test(local)) return;
        const sign = minutes < 0 ? '-' : '+';
        const abs = Math.abs(minutes);
        const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
        expect(canonicalTimeText(local.replace('Z', zone))).toBe(iso);
      }),
      { numRuns: fuzzRuns(500), seed: 11 },
    );
  });

  it('reads a text of the canonical shape as the same instant written with +00:00 reads', () => {
    // Any digits in every field, so texts naming no instant (month 13, 29 February of 2100, hour
    // 24) and fractions that could be shorter are among them; the offset form is read field by field.
    const digits = (n: number): fc.Arbitrary<string> =>
      fc.array(fc.constantFrom(...'0123456789'), { minLength: n, maxLength: n }).map((d) => d.join(''));
    const field = (n: number, max: number): fc.Arbitrary<string> =>
      fc.oneof(
        digits(n),
        fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0')),
      );
    const text = fc
      .tuple(
        fc.oneof(digits(4), fc.constantFrom('2000', '2100', '2024', '2026', '0000', '9999')),
        field(2, 13),
        field(2, 32),
        field(2, 24),
        field(2, 60),
        field(2, 60),
        fc.oneof(digits(3), digits(6), digits(9), fc.constantFrom('000', '120000', '123456000', '000000000')),
      )
      .map(([y, mo, d, h, mi, s, f]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${f}Z`);
    fc.assert(
      fc.property(text, (t) => {
        expect(canonicalTimeText(t)).toBe(canonicalTimeText(t.replace(/Z$/, '+00:00')));
      }),
      { numRuns: fuzzRuns(2000), seed: 12 },
    );
  });

  it('is what the protocol reader accepts, naming the field it refuses', () => {
    expect(timestamp('2026-01-01T00:00:00+00:00', 'params.at')).toBe('2026-01-01T00:00:00+00:00');
    expect(() => timestamp('2026-02-30T00:00:00Z', 'params.at')).toThrow(/params\.at.*RFC 3339/);
  });
});
