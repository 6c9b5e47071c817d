/**
 * @module replay/pace
 * How a replay spaces its requests against a live peer (docs/design.md §8, "Time against a live
 * peer"): as recorded, as fast as the answers allow, or the recorded spacing scaled.
 */
import { A2aReplayError } from '../errors.js';

/**
 * The pace of a replay against a live peer:
 * - `recorded`: each request goes no sooner after the one before it in its task (or after the
 *   poll loop before it showed its outcome) than it did when recorded;
 * - `none`: each request goes as soon as what it waits for came;
 * - `scaled`: the recorded spacing divided by `factor` (`x2` twice as fast, `x0.5` half as fast).
 */
export type ReplayPace = { kind: 'recorded' } | { kind: 'none' } | { kind: 'scaled'; factor: number };

/** The default against a live peer. */
export const RECORDED_PACE: ReplayPace = { kind: 'recorded' };

/** The largest `xN`: beyond it the spacing rounds to nothing (use `none`). */
const MAX_FACTOR = 1000;

/**
 * Reads `recorded`, `none` or `xN` (N a positive decimal, at most 1000); anything else is an
 * INVALID_ARGUMENT error saying what is accepted.
 */
export function parsePace(text: string): ReplayPace {
  if (text === 'recorded') return { kind: 'recorded' };
  if (text === 'none') return { kind: 'none' };
  const m = /^x(\d+(?:\.\d+)?|\.\d+)$/.exec(text);
  const factor = m ? Number(m[1]) : Number.NaN;
  if (!(factor > 0 && factor <= MAX_FACTOR)) {
    throw new A2aReplayError(
      'INVALID_ARGUMENT',
      `pace "${text}": expected recorded, none, or xN with N a number above 0 and at most ${MAX_FACTOR} ` +
        '(x2: twice as fast as recorded, x0.5: half as fast)',
    );
  }
  return factor === 1 ? { kind: 'recorded' } : { kind: 'scaled', factor };
}

/** The pace as `parsePace` reads it. */
export function formatPace(pace: ReplayPace): string {
  return pace.kind === 'scaled' ? `x${pace.factor}` : pace.kind;
}

/** How many wall ms a recorded spacing of `ms` becomes at `pace` (0: no wait). */
export function pacedMs(pace: ReplayPace, ms: number): number {
  switch (pace.kind) {
    case 'recorded':
      return ms;
    case 'none':
      return 0;
    case 'scaled':
      return ms / pace.factor;
    default: {
      const never: never = pace;
      return never;
    }
  }
}
