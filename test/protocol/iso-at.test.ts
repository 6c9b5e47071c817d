/**
 * isoAt, which keeps its last answer, renders every millisecond as Date#toISOString does,
 * repeated, alternating or far apart, and refuses a time that is no time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoAt } from '../../src/clock.js';
import { fuzzRuns } from '../helpers/fuzz.js';

describe('isoAt', () => {
  it('renders any sequence of instants as toISOString does', () => {
    const instant = fc.integer({ min: -8.64e15, max: 8.64e15 });
    fc.assert(
      fc.property(fc.array(fc.oneof(instant, fc.constant(0), fc.constant(1)), { maxLength: 20 }), (times) => {
        for (const ms of [...times, ...times]) expect(isoAt(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: fuzzRuns(200), seed: 5 },
    );
  });

  it('throws for NaN after any earlier answer', () => {
    expect(isoAt(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(() => isoAt(Number.NaN)).toThrow(RangeError);
    expect(() => isoAt(Number.NaN)).toThrow(RangeError);
  });
});
