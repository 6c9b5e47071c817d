/**
 * @module protocol/time-text
 * The one text of a peer's time (docs/design.md §6, "Peer times"): an RFC 3339 date-time read
 * from its characters, with integer arithmetic only (no floating point, no Date), and written back
 * as the same instant in UTC with `Z` and 3, 6 or 9 fractional digits. A peer's JSON and ProtoJSON
 * texts of one instant (`…00Z`, `…00.000Z`, `…00+00:00`, `…00.000000Z`) give one text.
 */

/** RFC 3339 date-time with a time zone, upper-case `T` and `Z`, at most 9 fractional digits (ProtoJSON's form). */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

const MINUTES_PER_DAY = 1440n;

/** Floor division (BigInt `/` truncates toward zero). */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in `month` (1 to 12) of a four-digit `year`. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a proleptic Gregorian date. */
function daysFromCivil(year: bigint, month: bigint, day: bigint): bigint {
  const y = month <= 2n ? year - 1n : year;
  const era = floorDiv(y, 400n);
  const yoe = y - era * 400n;
  const doy = (153n * (month > 2n ? month - 3n : month + 9n) + 2n) / 5n + day - 1n;
  const doe = yoe * 365n + yoe / 4n - yoe / 100n + doy;
  return era * 146097n + doe - 719468n;
}

/** The proleptic Gregorian date `days` after 1970-01-01. */
function civilFromDays(days: bigint): { year: bigint; month: bigint; day: bigint } {
  const z = days + 719468n;
  const era = floorDiv(z, 146097n);
  const doe = z - era * 146097n;
  const yoe = (doe - doe / 1460n + doe / 36524n - doe / 146096n) / 365n;
  const doy = doe - (365n * yoe + yoe / 4n - yoe / 100n);
  const mp = (5n * doy + 2n) / 153n;
  const day = doy - (153n * mp + 2n) / 5n + 1n;
  const month = mp < 10n ? mp + 3n : mp - 9n;
  return { year: yoe + era * 400n + (month <= 2n ? 1n : 0n), month, day };
}

const pad = (n: bigint, width: number): string => n.toString().padStart(width, '0');

/**
 * The canonical text of the instant `text` states (docs/design.md §6, "Peer times"): UTC, `Z`,
 * 3 fractional digits unless the instant needs 6 or 9. Undefined when `text` is not an RFC 3339
 * date-time that names a real instant of years 0000 to 9999 in UTC (a 30 February, hour 24, a
 * leap second, an offset beyond ±23:59).
 */
export function canonicalTimeText(text: string): string | undefined {
  return isCanonicalTimeText(text) ? text : readTimeText(text);
}

/** The canonical text's shape: UTC with `Z`, 3, 6 or 9 fractional digits. */
const CANONICAL_SHAPE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.(?:\d{3}|\d{6}|\d{9})Z$/;

const digitsAt = (text: string, at: number, width: number): number => Number(text.slice(at, at + width));

/**
 * Whether `text` is the canonical text of an instant already (what a peer writing
 * `Date#toISOString` sends): its own canonical text, read without arithmetic. Every year 0000 to
 * 9999 is in range in UTC; only the calendar and clock fields and a fraction that could be shorter
 * are left to check.
 */
function isCanonicalTimeText(text: string): boolean {
  if (!CANONICAL_SHAPE.test(text)) return false;
  if (text.length > 24 && text.endsWith('000Z')) return false;
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(digitsAt(text, 0, 4), month)) return false;
  return digitsAt(text, 11, 2) <= 23 && digitsAt(text, 14, 2) <= 59 && digitsAt(text, 17, 2) <= 59;
}

/** {@link canonicalTimeText} of any RFC 3339 text, by integer arithmetic. */
function readTimeText(text: string): string | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const part = (i: number): bigint => BigInt(m[i] ?? '0');
  const [year, month, day, hour, minute, second] = [part(1), part(2), part(3), part(4), part(5), part(6)];
  if (month < 1n || month > 12n || day < 1n || day > BigInt(daysInMonth(Number(year), Number(month)))) return undefined;
  if (hour > 23n || minute > 59n || second > 59n) return undefined;
  let minutes = daysFromCivil(year, month, day) * MINUTES_PER_DAY + hour * 60n + minute;
  if (m[8] === undefined) {
    const [offsetHours, offsetMinutes] = [part(10), part(11)];
    if (offsetHours > 23n || offsetMinutes > 59n) return undefined;
    const offset = offsetHours * 60n + offsetMinutes;
    minutes -= m[9] === '-' ? -offset : offset;
  }
  const days = floorDiv(minutes, MINUTES_PER_DAY);
  const ofDay = minutes - days * MINUTES_PER_DAY;
  const date = civilFromDays(days);
  if (date.year < 0n || date.year > 9999n) return undefined;
  const nanos = (m[7] ?? '').padEnd(9, '0');
  const digits = nanos.endsWith('000000') ? nanos.slice(0, 3) : nanos.endsWith('000') ? nanos.slice(0, 6) : nanos;
  return (
    `${pad(date.year, 4)}-${pad(date.month, 2)}-${pad(date.day, 2)}` +
    `T${pad(ofDay / 60n, 2)}:${pad(ofDay % 60n, 2)}:${pad(second, 2)}.${digits}Z`
  );
}
