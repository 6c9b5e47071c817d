/**
 * @module canonical/canonical-json
 * RFC 8785 JSON Canonicalization Scheme (JCS): one canonical form used by hashing, signing,
 * verifying and diffing. Values JCS cannot represent are rejected with the JSON path of the
 * offending value — never dropped, because a silently dropped field is a forged hash.
 */
import { createHash } from 'node:crypto';
import { A2aReplayError } from '../errors.js';

/** A JSON value as JCS sees it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Thrown for a value JCS cannot represent; `path` is a JSONPath such as `$.a[2]["b c"]`. */
export class CanonicalizationError extends A2aReplayError {
  readonly path: string;

  constructor(path: string, problem: string) {
    super('CANONICAL_UNREPRESENTABLE', `cannot canonicalize ${path}: ${problem}`);
    this.name = 'CanonicalizationError';
    this.path = path;
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** Index of the first lone surrogate in `s`, or -1. */
function loneSurrogateAt(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return i;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

function serializeString(s: string, path: string, what: string): string {
  const at = loneSurrogateAt(s);
  if (at >= 0) {
    const unit = s.charCodeAt(at).toString(16);
    throw new CanonicalizationError(path, `${what} has a lone surrogate \\u${unit} at index ${at}`);
  }
  // JSON.stringify escapes exactly as RFC 8785 §3.2.2.2 requires for well-formed strings:
  // \" \\ \b \f \n \r \t, other controls as lower-case \u00xx, everything else verbatim.
  return JSON.stringify(s);
}

function serializeNumber(n: number, path: string): string {
  if (!Number.isFinite(n)) throw new CanonicalizationError(path, `${String(n)} is not a JSON number`);
  // ECMAScript Number::toString is the RFC 8785 §3.2.2.3 number form; -0 serializes as 0.
  return Object.is(n, -0) ? '0' : String(n);
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return `the BigInt ${value}n`;
  if (typeof value === 'symbol') return 'a symbol';
  const name = (value as object).constructor?.name;
  return name ? `an instance of ${name}` : 'a non-plain object';
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function serialize(value: unknown, path: string, ancestors: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return serializeString(value, path, 'string');
    case 'number':
      return serializeNumber(value, path);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (ancestors.has(value)) throw new CanonicalizationError(path, 'cycle: the value contains itself');
      if (Array.isArray(value)) {
        ancestors.add(value);
        const parts: string[] = [];
        for (let i = 0; i < value.length; i++) {
          if (!(i in value)) throw new CanonicalizationError(childPath(path, i), 'sparse array hole');
          parts.push(serialize(value[i], childPath(path, i), ancestors));
        }
        ancestors.delete(value);
        return `[${parts.join(',')}]`;
      }
      if (!isPlainObject(value)) throw new CanonicalizationError(path, `${describe(value)} is not JSON`);
      if (Object.getOwnPropertySymbols(value).length > 0) {
        throw new CanonicalizationError(path, 'symbol-keyed properties are not JSON');
      }
      ancestors.add(value);
      const record = value as Record<string, unknown>;
      // Default sort compares UTF-16 code units, which is the RFC 8785 §3.2.3 property order.
      const keys = Object.keys(record).sort();
      const parts: string[] = [];
      for (const key of keys) {
        const child = childPath(path, key);
        parts.push(`${serializeString(key, child, 'property name')}:${serialize(record[key], child, ancestors)}`);
      }
      ancestors.delete(value);
      return `{${parts.join(',')}}`;
    }
    default:
      throw new CanonicalizationError(path, `${describe(value)} is not JSON`);
  }
}

/** RFC 8785 canonical form of `value`. Throws {@link CanonicalizationError} naming the path. */
export function canonicalJson(value: unknown): string {
  return serialize(value, '$', new Set());
}

/** `"sha256:" + hex(SHA-256(UTF-8(JCS(value))))`, the one hash form of the project. */
export function hashCanonical(value: unknown): string {
  return sha256Prefixed(canonicalJson(value));
}

/** `"sha256:" + hex(SHA-256(UTF-8(text)))` for text that is already canonical. */
export function sha256Prefixed(text: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}
