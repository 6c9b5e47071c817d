/**
 * @module protocol/read
 * Small readers that turn `unknown` into typed values at the boundary, naming the field and
 * what was expected when they cannot. Parsers throw {@link FieldError} internally and convert
 * it into a {@link ParseResult} at their public edge.
 */
import type { JsonObject, JsonValue } from '../canonical/canonical-json.js';
import { canonicalTimeText } from './time-text.js';

/** What was wrong and where: `field` is a dotted path such as `params.conditions.onEvent`. */
export interface FieldIssue {
  field: string;
  expected: string;
  got: string;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; issue: FieldIssue };

export class FieldError extends Error {
  readonly issue: FieldIssue;

  constructor(issue: FieldIssue) {
    super(formatIssue(issue));
    this.issue = issue;
  }
}

/** One line for humans: `params.mode: expected one of "a", "b"; got "x"`. */
export function formatIssue(issue: FieldIssue): string {
  return `${issue.field}: expected ${issue.expected}; got ${issue.got}`;
}

/** A short description of a value for error messages (never its full contents). */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
    case 'number':
    case 'boolean':
      return String(value);
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

export function fail(field: string, expected: string, value: unknown): never {
  throw new FieldError({ field, expected, got: describeValue(value) });
}

/** Runs a throwing parser and returns its result or the first issue. */
export function parseWith<T>(parse: () => T): ParseResult<T> {
  try {
    return { ok: true, value: parse() };
  } catch (error) {
    if (error instanceof FieldError) return { ok: false, issue: error.issue };
    throw error;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function object(value: unknown, field: string): Record<string, unknown> {
  if (!isRecord(value)) fail(field, 'an object', value);
  return value;
}

export function string(value: unknown, field: string): string {
  if (typeof value !== 'string') fail(field, 'a string', value);
  return value;
}

export function nonEmptyString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) fail(field, 'a non-empty string', value);
  return value;
}

export function boolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') fail(field, 'true or false', value);
  return value;
}

export function integer(
  value: unknown,
  field: string,
  min = Number.MIN_SAFE_INTEGER,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range =
      min === 1 && max === Number.MAX_SAFE_INTEGER ? 'a positive integer' : `an integer from ${min} to ${max}`;
    fail(field, range, value);
  }
  return value;
}

export function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    fail(field, `one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`, value);
  }
  return value as T;
}

/**
 * An RFC 3339 date-time with a time zone, as ProtoJSON renders google.protobuf.Timestamp, that names
 * a real instant (protocol/time-text); returned as the peer wrote it.
 */
export function timestamp(value: unknown, field: string): string {
  if (typeof value !== 'string' || canonicalTimeText(value) === undefined) {
    fail(field, 'an RFC 3339 timestamp such as "2026-01-01T09:00:00Z"', value);
  }
  return value;
}

export function jsonObject(value: unknown, field: string): JsonObject {
  return object(value, field) as JsonObject;
}

export function stringArray(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) fail(field, 'an array of strings', value);
  value.forEach((item, i) => string(item, `${field}[${i}]`));
  return value as string[];
}

export function jsonValue(value: unknown): JsonValue {
  return value as JsonValue;
}

/** Rejects keys outside `allowed` (used where docs/design.md §3 demands unknown keys be refused). */
export function onlyKeys(record: Record<string, unknown>, field: string, allowed: readonly string[]): void {
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) {
      throw new FieldError({
        field: `${field}.${key}`,
        expected: `no such key (allowed: ${allowed.join(', ')})`,
        got: describeValue(record[key]),
      });
    }
  }
}

/** Copies optional members that are present, so `exactOptionalPropertyTypes` holds. */
export function optional<T>(record: Record<string, unknown>, key: string, read: (v: unknown) => T): T | undefined {
  const v = record[key];
  return v === undefined ? undefined : read(v);
}
