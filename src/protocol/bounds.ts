/**
 * @module protocol/bounds
 * The one table of ranges the reference peer accepts for durations, instants and counts in
 * params, conditions, control calls and script directives (docs/design.md §3, §4), and the
 * checks that apply it. A value out of range is a -32602 naming the field and the range, never a
 * wedged task: every instant the peer derives from accepted values (a `pausedUntil`, a timer)
 * stays a valid timestamp.
 *
 * The shared parsers (src/protocol/params.ts) check shapes; {@link checkCallRanges} is the
 * peer's stricter second pass, so the observer can still read a recording of a peer that
 * accepted other values.
 */
import type { MethodCall } from './params.js';
import { type FieldIssue, describeValue } from './read.js';

/** An inclusive integer range and what it counts, for messages and docs. */
export interface IntegerBound {
  readonly min: number;
  readonly max: number;
  readonly unit: string;
}

const MINUTES_PER_YEAR = 365 * 24 * 60;
const MS_PER_YEAR = MINUTES_PER_YEAR * 60_000;

/** The smallest and largest instants an RFC 3339 timestamp (four-digit year) can name. */
export const MIN_INSTANT = '0000-01-01T00:00:00.000Z';
export const MAX_INSTANT = '9999-12-31T23:59:59.999Z';
export const MIN_INSTANT_MS = Date.parse(MIN_INSTANT);
export const MAX_INSTANT_MS = Date.parse(MAX_INSTANT);

/**
 * The ranges, by what they bound. `historyLength` and `pageSize` are A2A v1.0's (int32; 1–100);
 * the rest are this peer's.
 */
export const BOUNDS = {
  /** `conditions.timeout.durationMinutes`, and MINUTES in `await:EVENT:MINUTES`: up to a year. */
  durationMinutes: { min: 1, max: MINUTES_PER_YEAR, unit: 'minutes (at most a year)' },
  /** `AdvanceClock.ms`: at most a year per call. */
  advanceClockMs: { min: 0, max: MS_PER_YEAR, unit: 'ms (at most a year)' },
  /** N in `work:N` (`work:0` does nothing: the next directive runs at once). */
  workSteps: { min: 0, max: 10_000, unit: 'steps' },
  /** N in `tool:N`. */
  toolSteps: { min: 1, max: 10_000, unit: 'steps' },
  /** Directives in one script. */
  scriptDirectives: { min: 1, max: 1_000, unit: 'directives' },
  /** `historyLength` of SendMessage, GetTask and ListTasks (A2A: int32). */
  historyLength: { min: 0, max: 2_147_483_647, unit: 'messages' },
  /** ListTasks `pageSize` (A2A: 1–100). */
  pageSize: { min: 1, max: 100, unit: 'tasks' },
} as const satisfies Record<string, IntegerBound>;

/**
 * The latest instant the virtual clock may reach: one year before {@link MAX_INSTANT}, so that a
 * pause entered at any reachable instant has a `pausedUntil` (at most a year later) that is a
 * valid timestamp too.
 */
export const MAX_CLOCK_MS = MAX_INSTANT_MS - MS_PER_YEAR;

/** `expected` text of a bound: `an integer from 1 to 525600 (minutes (at most a year))`. */
export function describeBound(bound: IntegerBound): string {
  return `an integer from ${bound.min} to ${bound.max} (${bound.unit})`;
}

/** Whether `value` is an integer within `bound`. */
export function withinBound(value: number, bound: IntegerBound): boolean {
  return Number.isInteger(value) && value >= bound.min && value <= bound.max;
}

function integerIssue(value: number | undefined, field: string, bound: IntegerBound): FieldIssue | undefined {
  if (value === undefined || withinBound(value, bound)) return undefined;
  return { field, expected: describeBound(bound), got: describeValue(value) };
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|([+-])(\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The latest instant a wake-up (`trigger.at`, `sleep-until`) may name: {@link MAX_CLOCK_MS}. */
export const MAX_WAKE_UP = new Date(MAX_CLOCK_MS).toISOString();

/**
 * The instant an RFC 3339 timestamp names, in ms since the epoch, or a reason it names none: a
 * calendar date that does not exist (`2026-02-31`), an hour past 23, a leap second (a JS Date
 * cannot hold one), an offset past ±23:59, or an instant outside {@link MIN_INSTANT} .. `max`
 * (default {@link MAX_INSTANT}).
 */
export function instantOf(
  text: string,
  max: number = MAX_INSTANT_MS,
): { ok: true; ms: number } | { ok: false; why: string } {
  const m = RFC3339.exec(text);
  if (!m) return { ok: false, why: 'not an RFC 3339 timestamp' };
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, why: 'a calendar date that does not exist' };
  }
  if (hour > 23 || minute > 59) return { ok: false, why: 'a time of day that does not exist' };
  if (second > 59) return { ok: false, why: 'a leap second, which a JS Date cannot hold' };
  if (m[9] !== undefined && (Number(m[10]) > 23 || Number(m[11]) > 59)) {
    return { ok: false, why: 'a zone offset past ±23:59' };
  }
  const ms = Date.parse(text);
  if (Number.isNaN(ms) || ms < MIN_INSTANT_MS || ms > max) {
    return { ok: false, why: `an instant outside ${MIN_INSTANT} .. ${new Date(max).toISOString()}` };
  }
  return { ok: true, ms };
}

/** `expected` text for instants. */
export const INSTANT_EXPECTED = `an RFC 3339 timestamp of a real instant from ${MIN_INSTANT} to ${MAX_INSTANT}`;

/** `expected` text for wake-up instants, which the virtual clock must be able to reach. */
export const WAKE_UP_EXPECTED =
  `an RFC 3339 timestamp of a real instant from ${MIN_INSTANT} to ${MAX_WAKE_UP} ` +
  `(the latest the virtual clock can reach)`;

function instantIssue(value: string | undefined, field: string, wakeUp = false): FieldIssue | undefined {
  if (value === undefined) return undefined;
  const instant = instantOf(value, wakeUp ? MAX_CLOCK_MS : MAX_INSTANT_MS);
  if (instant.ok) return undefined;
  return {
    field,
    expected: wakeUp ? WAKE_UP_EXPECTED : INSTANT_EXPECTED,
    got: `${describeValue(value)}, ${instant.why}`,
  };
}

/**
 * The first value of a parsed call that is out of the ranges of {@link BOUNDS}, or undefined.
 * Scripts are checked where they are parsed (src/peer/script.ts), with the same table.
 */
export function checkCallRanges(call: MethodCall): FieldIssue | undefined {
  switch (call.method) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return integerIssue(
        call.params.configuration?.historyLength,
        'params.configuration.historyLength',
        BOUNDS.historyLength,
      );
    case 'GetTask':
      return integerIssue(call.params.historyLength, 'params.historyLength', BOUNDS.historyLength);
    case 'ListTasks':
      return (
        integerIssue(call.params.pageSize, 'params.pageSize', BOUNDS.pageSize) ??
        integerIssue(call.params.historyLength, 'params.historyLength', BOUNDS.historyLength) ??
        instantIssue(call.params.statusTimestampAfter, 'params.statusTimestampAfter')
      );
    case 'AwaitTaskResumption': {
      const c = call.params.conditions;
      return (
        instantIssue(c.trigger?.at, 'params.conditions.trigger.at', true) ??
        integerIssue(c.timeout?.durationMinutes, 'params.conditions.timeout.durationMinutes', BOUNDS.durationMinutes)
      );
    }
    case 'AdvanceClock':
      return integerIssue(call.params.ms, 'params.ms', BOUNDS.advanceClockMs);
    case 'CancelTask':
    case 'SubscribeToTask':
    case 'PauseTask':
    case 'ResumeTask':
    case 'FireEvent':
    case 'GetClock':
      return undefined;
    default: {
      const never: never = call;
      return never;
    }
  }
}
