/**
 * @module canonical/canonical-json
 * RFC 8785 JSON Canonicalization Scheme (JCS): one canonical form used by hashing, signing,
 * verifying and diffing. Values JCS cannot represent are rejected with the JSON path of the
 * offending value — never dropped, because a silently dropped field is a forged hash.
 *
 * The serializer walks the value with an explicit stack, never the call stack, so a value of any
 * nesting depth serializes (or is refused by `maxDepth`) instead of overflowing (docs/design.md §5).
 */
import { sha256Hex } from '../digest.js';
import { RECURSION_DEPTH } from './depth.js';
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

export interface CanonicalOptions {
  /**
   * `reject` (the default, RFC 8785): a lone surrogate is an error. `escape`: it is written as a
   * `\uXXXX` escape, which keeps the text valid JSON that parses back to the same string; used
   * for recording lines, which must keep what a client sent (docs/design.md §5), never for hashes.
   */
  loneSurrogates?: 'reject' | 'escape';
  /** Containers nested deeper than this are refused (default: no limit). */
  maxDepth?: number;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** Index of the first lone surrogate in `s`, or -1. */
export function loneSurrogateAt(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    return i;
  }
  return -1;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return `the BigInt ${value}n`;
  if (typeof value === 'symbol') return 'a symbol';
  const name = (value as object).constructor?.name;
  return name ? `an instance of ${name}` : 'a non-plain object';
}

export function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** One container being serialized: its members so far, and where it sits for error paths. */
interface Frame {
  value: object;
  /** Array: undefined. Object: its keys in RFC 8785 §3.2.3 order. */
  keys: string[] | undefined;
  length: number;
  next: number;
  parts: string[];
  /** The member of the parent this container is (index or key); undefined for the root. */
  at: string | number | undefined;
  /** `"key":` when the parent is an object, else ''. */
  prefix: string;
}

function pathOf(stack: readonly Frame[], last?: string | number): string {
  let path = '$';
  for (let i = 1; i < stack.length; i++) path = childPath(path, stack[i]!.at as string | number);
  return last === undefined ? path : childPath(path, last);
}

/** A string `JSON.stringify` writes as itself in quotes: no `"`, `\`, control character or surrogate. */
// eslint-disable-next-line no-control-regex -- control characters are what JSON.stringify escapes
const VERBATIM = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * `JSON.stringify(s)` for a string: a string with nothing to escape (ids, states, keys, most
 * text) is put in quotes as it is. The regex scans about twice as fast as `JSON.stringify` copies
 * at every length measured (64 characters to 60,000, bench/README.md), and the quotes cost no copy;
 * a string with something to escape usually fails it within its first characters.
 */
export function quoted(s: string): string {
  return VERBATIM.test(s) ? `"${s}"` : JSON.stringify(s);
}

/** Member names longer than this are not remembered by {@link memberPrefix}. */
const MEMBER_NAME_MAX = 64;

/**
 * `JSON.stringify(key) + ':'` of property names, remembered: the bodies of one peer reuse a few
 * dozen names. Bounded in count and in name length, so odd input cannot grow it.
 */
const memberPrefixes = new Map<string, string>();
const MEMBER_PREFIXES_MAX = 4096;

function memberPrefix(key: string): string {
  let text = memberPrefixes.get(key);
  if (text !== undefined) return text;
  text = `${quoted(key)}:`;
  if (key.length <= MEMBER_NAME_MAX && memberPrefixes.size < MEMBER_PREFIXES_MAX) memberPrefixes.set(key, text);
  return text;
}

/** Up to this many keys are put in order by insertion, past it by the built-in sort. */
const INSERTION_SORT_MAX = 16;

/**
 * `keys` in RFC 8785 §3.2.3 order (UTF-16 code units, what the default sort and `<` compare), in
 * place. The few keys of most objects are ordered by insertion (keys already in order, as a
 * peer that writes sorted JSON sends them, cost one comparison each), more by the built-in sort.
 */
function sortKeys(keys: string[]): string[] {
  const length = keys.length;
  if (length > INSERTION_SORT_MAX) return keys.sort();
  for (let i = 1; i < length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    if ((keys[j] as string) <= key) continue;
    do {
      keys[j + 1] = keys[j] as string;
      j--;
    } while (j >= 0 && (keys[j] as string) > key);
    keys[j + 1] = key;
  }
  return keys;
}

/**
 * The canonical form of plain JSON (what `JSON.parse` makes: plain objects, arrays, strings,
 * finite numbers, booleans, null) by direct recursion, or `undefined` for anything else —
 * another type, a lone surrogate when they are refused, nesting past {@link RECURSION_DEPTH} — which
 * the full walk then serializes or refuses with its path. Same bytes as the full walk. `depth` is
 * how deep `value` already sits (the recording-line writer starts inside an entry).
 */
export function plainCanonical(value: unknown, escape: boolean, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return escape || value.isWellFormed() ? quoted(value) : undefined;
    case 'number':
      // Number::toString is the RFC 8785 §3.2.2.3 form, and it writes -0 as 0.
      return Number.isFinite(value) ? String(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (depth >= RECURSION_DEPTH) return undefined;
      if (Array.isArray(value)) {
        const length = value.length;
        if (length === 0) return '[]';
        let out = plainCanonical(value[0], escape, depth + 1);
        if (out === undefined) return undefined;
        for (let i = 1; i < length; i++) {
          const item = plainCanonical(value[i], escape, depth + 1);
          if (item === undefined) return undefined;
          out += `,${item}`;
        }
        return `[${out}]`;
      }
      if (!isPlainObject(value) || Object.getOwnPropertySymbols(value).length > 0) return undefined;
      const record = value as Record<string, unknown>;
      const keys = sortKeys(Object.keys(record));
      let out = '{';
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        if (!escape && !key.isWellFormed()) return undefined;
        const member = plainCanonical(record[key], escape, depth + 1);
        if (member === undefined) return undefined;
        out += i === 0 ? memberPrefix(key) + member : `,${memberPrefix(key)}${member}`;
      }
      return `${out}}`;
    }
    default:
      return undefined;
  }
}

/** RFC 8785 canonical form of `value`. Throws {@link CanonicalizationError} naming the path. */
export function canonicalJson(value: unknown, options: CanonicalOptions = {}): string {
  const escape = options.loneSurrogates === 'escape';
  const maxDepth = options.maxDepth ?? Infinity;
  if (maxDepth === Infinity) {
    const fast = plainCanonical(value, escape, 0);
    if (fast !== undefined) return fast;
  }
  const stack: Frame[] = [];
  const open = new Set<object>();

  const string = (s: string, at: string | number | undefined, what: string): string => {
    if (!escape) {
      const bad = loneSurrogateAt(s);
      if (bad >= 0) {
        const unit = s.charCodeAt(bad).toString(16);
        throw new CanonicalizationError(pathOf(stack, at), `${what} has a lone surrogate \\u${unit} at index ${bad}`);
      }
    }
    // JSON.stringify escapes exactly as RFC 8785 §3.2.2.2 requires for well-formed strings
    // (\" \\ \b \f \n \r \t, other controls as lower-case \u00xx), and lone surrogates as \udxxx.
    return JSON.stringify(s);
  };

  /** A scalar's text, or undefined after pushing a frame for a container. */
  const enter = (v: unknown, at: string | number | undefined, prefix: string): string | undefined => {
    switch (typeof v) {
      case 'string':
        return string(v, at, 'string');
      case 'number':
        if (!Number.isFinite(v))
          throw new CanonicalizationError(pathOf(stack, at), `${String(v)} is not a JSON number`);
        // ECMAScript Number::toString is the RFC 8785 §3.2.2.3 number form; -0 serializes as 0.
        return Object.is(v, -0) ? '0' : String(v);
      case 'boolean':
        return v ? 'true' : 'false';
      case 'object': {
        if (v === null) return 'null';
        if (open.has(v)) throw new CanonicalizationError(pathOf(stack, at), 'cycle: the value contains itself');
        if (stack.length >= maxDepth) {
          throw new CanonicalizationError(pathOf(stack, at), `nests deeper than ${maxDepth} levels`);
        }
        let keys: string[] | undefined;
        let length: number;
        if (Array.isArray(v)) {
          length = v.length;
        } else {
          if (!isPlainObject(v)) throw new CanonicalizationError(pathOf(stack, at), `${describe(v)} is not JSON`);
          if (Object.getOwnPropertySymbols(v).length > 0) {
            throw new CanonicalizationError(pathOf(stack, at), 'symbol-keyed properties are not JSON');
          }
          // Default sort compares UTF-16 code units, which is the RFC 8785 §3.2.3 property order.
          keys = Object.keys(v).sort();
          length = keys.length;
        }
        open.add(v);
        stack.push({ value: v, keys, length, next: 0, parts: [], at, prefix });
        return undefined;
      }
      default:
        throw new CanonicalizationError(pathOf(stack, at), `${describe(v)} is not JSON`);
    }
  };

  const root = enter(value, undefined, '');
  if (root !== undefined) return root;
  for (;;) {
    const frame = stack[stack.length - 1]!;
    if (frame.next < frame.length) {
      const i = frame.next++;
      if (frame.keys === undefined) {
        const array = frame.value as unknown[];
        if (!(i in array)) throw new CanonicalizationError(pathOf(stack, i), 'sparse array hole');
        const text = enter(array[i], i, '');
        if (text !== undefined) frame.parts.push(text);
      } else {
        const key = frame.keys[i]!;
        const prefix = `${string(key, key, 'property name')}:`;
        const text = enter((frame.value as Record<string, unknown>)[key], key, prefix);
        if (text !== undefined) frame.parts.push(prefix + text);
      }
      continue;
    }
    stack.pop();
    open.delete(frame.value);
    const text = frame.keys === undefined ? `[${frame.parts.join(',')}]` : `{${frame.parts.join(',')}}`;
    const parent = stack[stack.length - 1];
    if (parent === undefined) return text;
    parent.parts.push(frame.prefix + text);
  }
}

/**
 * The RFC 8785 §3.2.3 order of an object's keys with their `"key":` prefixes, remembered for the
 * last key set seen: objects of one shape (the receipts of a log) then skip the sort and the
 * key checks. Any other key set is sorted and remembered in its place.
 */
export class KeyOrder {
  #insertion: readonly string[] = [];
  #sorted: readonly string[] = [];
  #prefixes: readonly string[] = [];

  /** `keys` (as `Object.keys` gives them) sorted, and each one's `"key":`. */
  of(keys: readonly string[]): { sorted: readonly string[]; prefixes: readonly string[] } {
    if (!sameKeys(keys, this.#insertion)) {
      const sorted = [...keys].sort();
      for (const key of sorted) {
        const bad = loneSurrogateAt(key);
        if (bad >= 0) {
          const unit = key.charCodeAt(bad).toString(16);
          throw new CanonicalizationError(
            childPath('$', key),
            `property name has a lone surrogate \\u${unit} at index ${bad}`,
          );
        }
      }
      this.#insertion = [...keys];
      this.#sorted = sorted;
      this.#prefixes = sorted.map((key) => `${JSON.stringify(key)}:`);
    }
    return { sorted: this.#sorted, prefixes: this.#prefixes };
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The members of a plain object in canonical order, each as canonical `"key":value` text, so a
 * caller can join them with or without a member of its own (a signature) and serialize once:
 * `{${members.join(',')}}` is `canonicalJson(record)`. Throws as {@link canonicalJson} does.
 */
export function canonicalMembers(
  record: object,
  order: KeyOrder = new KeyOrder(),
): { keys: readonly string[]; members: string[] } {
  if (!isPlainObject(record) || Object.getOwnPropertySymbols(record).length > 0) canonicalJson(record);
  const { sorted, prefixes } = order.of(Object.keys(record));
  const values = record as Record<string, unknown>;
  const members: string[] = new Array<string>(sorted.length);
  for (let i = 0; i < sorted.length; i++) {
    const value = values[sorted[i]!];
    // Most receipt members are strings or null: written here, without the general walk.
    let text =
      typeof value === 'string' && value.isWellFormed()
        ? quoted(value)
        : value === null
          ? 'null'
          : plainCanonical(value, false, 1);
    if (text === undefined) {
      // Unrepresentable somewhere (the whole-record walk throws naming the path), or just deep.
      canonicalJson(record);
      text = canonicalJson(value);
    }
    members[i] = prefixes[i]! + text;
  }
  return { keys: sorted, members };
}

/** `"sha256:" + hex(SHA-256(UTF-8(JCS(value))))`, the one hash form of the project. */
export function hashCanonical(value: unknown): string {
  return sha256Prefixed(canonicalJson(value));
}

/** `"sha256:" + hex(SHA-256(UTF-8(text)))` for text that is already canonical. */
export function sha256Prefixed(text: string | Uint8Array): string {
  return `sha256:${sha256Hex(text)}`;
}

/**
 * `value` with every lone surrogate in its strings and property names replaced by U+FFFD, and
 * whether anything was replaced: what a receipt does with text RFC 8785 cannot encode
 * (docs/design.md §6). The value is copied only when something needs repair; the walk uses an
 * explicit stack, so any depth is fine.
 */
export function repairLoneSurrogates<T>(value: T): { value: T; repaired: boolean } {
  if (typeof value === 'string') {
    const fixed = value.toWellFormed();
    return { value: fixed as T, repaired: fixed !== value };
  }
  if (typeof value !== 'object' || value === null || !containsLoneSurrogate(value)) return { value, repaired: false };
  return {
    value: copyMapped(
      value,
      (child) => (typeof child === 'string' ? child.toWellFormed() : child),
      (key) => key.toWellFormed(),
    ) as T,
    repaired: true,
  };
}

/**
 * `value` with each number that is not finite replaced by null, and whether there was one:
 * `JSON.parse` reads a literal beyond the double range (`1e400`) as Infinity, which no canonical
 * form holds, and JSON.stringify writes it as null too. Copies only when something changes.
 */
export function replaceNonFinite<T>(value: T): { value: T; repaired: boolean } {
  if (typeof value === 'number')
    return Number.isFinite(value) ? { value, repaired: false } : { value: null as T, repaired: true };
  if (typeof value !== 'object' || value === null || !containsNonFinite(value)) return { value, repaired: false };
  const finite = (child: unknown): unknown => (typeof child === 'number' && !Number.isFinite(child) ? null : child);
  return { value: copyMapped(value, finite, (key) => key) as T, repaired: true };
}

/**
 * A deep copy of the JSON value `value` (objects and arrays), each leaf through `leaf` and each
 * property name through `key`. The walk uses an explicit stack, so any depth is fine; names are
 * defined, not assigned, so an own `__proto__` member stays a member.
 */
function copyMapped(value: object, leaf: (child: unknown) => unknown, key: (name: string) => string): unknown {
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
  const work: [source: object, target: Record<string, unknown> | unknown[]][] = [[value, copy]];
  while (work.length > 0) {
    const [source, target] = work.pop()!;
    for (const [name, child] of Object.entries(source)) {
      let out: unknown;
      if (typeof child === 'object' && child !== null) {
        const inner: Record<string, unknown> | unknown[] = Array.isArray(child) ? [] : {};
        work.push([child, inner]);
        out = inner;
      } else out = leaf(child);
      if (Array.isArray(target)) target[Number(name)] = out;
      else
        Object.defineProperty(target, key(name), { value: out, enumerable: true, writable: true, configurable: true });
    }
  }
  return copy;
}

/**
 * `value` made representable in RFC 8785, and whether anything changed: each lone surrogate in its
 * strings and property names becomes U+FFFD ({@link repairLoneSurrogates}) and each number that is
 * not finite becomes null ({@link replaceNonFinite}). What a receipt does with what a client or
 * peer sent before hashing or keeping it (docs/design.md §6).
 */
export function repairUnrepresentable<T>(value: T): { value: T; repaired: boolean } {
  const finite = replaceNonFinite(value);
  const whole = repairLoneSurrogates(finite.value);
  return { value: whole.value, repaired: finite.repaired || whole.repaired };
}

function containsNonFinite(value: object): boolean {
  const work: object[] = [value];
  while (work.length > 0) {
    const node = work.pop()!;
    for (const child of Object.values(node) as unknown[]) {
      if (typeof child === 'number') {
        if (!Number.isFinite(child)) return true;
      } else if (typeof child === 'object' && child !== null) work.push(child);
    }
  }
  return false;
}

function containsLoneSurrogate(value: object): boolean {
  const work: object[] = [value];
  while (work.length > 0) {
    const node = work.pop()!;
    for (const [key, child] of Object.entries(node) as [string, unknown][]) {
      if (!Array.isArray(node) && !key.isWellFormed()) return true;
      if (typeof child === 'string') {
        if (!child.isWellFormed()) return true;
      } else if (typeof child === 'object' && child !== null) work.push(child);
    }
  }
  return false;
}
