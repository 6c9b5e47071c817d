/**
 * Property-test budgets come from one variable: the count a test names, times A2A_REPLAY_FUZZ_SCALE.
 */
import { describe, expect, it } from 'vitest';
import { fuzzRuns, fuzzScale } from './fuzz.js';

describe('fuzzRuns', () => {
  it('runs the count a test names when A2A_REPLAY_FUZZ_SCALE is unset, and scales it when set', () => {
    expect(fuzzScale(undefined)).toBe(1);
    expect(fuzzScale('')).toBe(1);
    expect(fuzzRuns(20, fuzzScale(undefined))).toBe(20);
    expect(fuzzRuns(20, fuzzScale('10'))).toBe(200);
    expect(fuzzRuns(3, fuzzScale('0.1'))).toBe(1);
  });

  it('refuses a scale that is not a positive number, naming the variable and the value', () => {
    for (const bad of ['0', '-2', 'ten', 'Infinity']) {
      expect(() => fuzzScale(bad)).toThrow(
        `A2A_REPLAY_FUZZ_SCALE must be a positive number (a multiplier of every property's runs), not "${bad}"`,
      );
    }
  });
});
