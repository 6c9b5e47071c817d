/**
 * How long property tests search: every `fc.assert` takes its run count from `fuzzRuns`, so one
 * variable scales them all. `npm test` runs each property the count its test names, small enough
 * that the suite answers in minutes; `A2A_REPLAY_FUZZ_SCALE=K` multiplies every count by K
 * (`scripts/nightly` sets 10). A property with a fixed seed makes the same first N runs whatever
 * its count, so the longer search starts with the default one and a failure reproduces.
 */

const VARIABLE = 'A2A_REPLAY_FUZZ_SCALE';

/** Reads the scale: unset or empty is 1; anything but a positive finite number is refused. */
export function fuzzScale(value: string | undefined = process.env[VARIABLE]): number {
  if (value === undefined || value.trim() === '') return 1;
  const scale = Number(value);
  if (!Number.isFinite(scale) || scale <= 0) {
    throw new Error(
      `${VARIABLE} must be a positive number (a multiplier of every property's runs), not ${JSON.stringify(value)}`,
    );
  }
  return scale;
}

/** The number of runs of a property whose default is `runs`: at least 1. */
export function fuzzRuns(runs: number, scale: number = fuzzScale()): number {
  return Math.max(1, Math.round(runs * scale));
}
