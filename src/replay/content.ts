/**
 * @module replay/content
 * What the peer answered, compared field by field (docs/design.md §8): artifacts (ids, names, parts),
 * messages, status messages, error codes, messages and ErrorInfo reasons — every value of a unary
 * answer or a stream event, after the recorded↔live id map has been applied. Pure.
 *
 * Volatile fields are never compared: {@link DEFAULT_VOLATILE} (timestamps, which a live peer stamps
 * with its own clock), plus user noise rules ({@link NoiseRules}), each a JSON pointer into the
 * answer's body where a segment `*` matches any one key or index and `**` any number of them
 * (`/result/task/metadata/**`, `/**\/status/timestamp`). Rules apply to every method (`*`) or to one.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { standsForLive } from '../recording/redaction-mark.js';

/**
 * Never drift: fields a live peer fills on its own clock, and the agent card's URLs (the live peer
 * listens on another port). The pause times are the ones receipts treat as volatile too
 * (src/replay/diff.ts VOLATILE_FIELDS).
 */
export const DEFAULT_VOLATILE: readonly string[] = [
  '/**/timestamp',
  '/**/createdAt',
  '/**/updatedAt',
  '/**/pausedAt',
  '/**/pausedUntil',
  '/**/resumedAt',
  '/url',
  '/supportedInterfaces/*/url',
  '/additionalInterfaces/*/url',
];

/** Ignored paths per JSON-RPC method; `*` applies to every method. */
export type NoiseRules = Readonly<Record<string, readonly string[]>>;

/** One value that differs, at a JSON pointer into the answer body. */
export interface ContentDifference {
  path: string;
  change: 'added' | 'removed' | 'changed';
}

/** Most content differences reported per entry (the rest are counted). */
export const MAX_CONTENT_DIFFERENCES = 8;

function escapeSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The segments of a JSON pointer pattern; throws on one that does not start with `/`. */
export function parsePointerPattern(pattern: string): string[] {
  if (pattern === '') return [];
  if (!pattern.startsWith('/')) throw new Error(`"${pattern}" is not a JSON pointer (it must start with "/")`);
  return pattern
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function matches(pattern: readonly string[], path: readonly string[], pi = 0, si = 0): boolean {
  if (pi === pattern.length) return si === path.length;
  const seg = pattern[pi];
  if (seg === '**') {
    for (let k = si; k <= path.length; k++) if (matches(pattern, path, pi + 1, k)) return true;
    return false;
  }
  if (si === path.length) return false;
  return (seg === '*' || seg === path[si]) && matches(pattern, path, pi + 1, si + 1);
}

/**
 * Where a walk stands in an {@link IgnoreSet}'s patterns (an id the set gives out): for each
 * pattern still alive, the segments it has matched so far (a `**` may have matched none yet).
 * Each node of a body gets its state from its parent's and its key, so a walk never keeps or
 * re-matches whole paths; states and their steps are remembered, as bodies repeat their keys.
 */
export type IgnoreState = number;

/** Steps remembered per set; beyond it steps are computed each time (keys may be unbounded ids). */
const MAX_REMEMBERED_STEPS = 1 << 14;

/** A compiled set of ignored paths for one method. */
export class IgnoreSet {
  readonly #patterns: string[][];
  /** Positions are `pattern * stride + segment`. */
  readonly #stride: number;
  /** Each state's positions, whether it ignores, and its remembered steps by key. */
  readonly #positions: number[][] = [];
  readonly #ignored: boolean[] = [];
  readonly #steps: Map<string, IgnoreState>[] = [];
  readonly #ids = new Map<string, IgnoreState>();
  #remembered = 0;
  readonly start: IgnoreState;

  constructor(patterns: readonly string[]) {
    this.#patterns = patterns.map(parsePointerPattern);
    this.#stride = Math.max(1, ...this.#patterns.map((p) => p.length + 1));
    const start: number[] = [];
    this.#patterns.forEach((_p, i) => this.#add(start, i, 0));
    this.start = this.#intern(start);
  }

  /** The patterns for `method`: the defaults, the rules for every method, and its own. */
  static forMethod(method: string | null, rules: NoiseRules = {}, extra: readonly string[] = []): IgnoreSet {
    return new IgnoreSet([
      ...DEFAULT_VOLATILE,
      ...(rules['*'] ?? []),
      ...(method !== null ? (rules[method] ?? []) : []),
      ...extra,
    ]);
  }

  ignores(path: readonly string[]): boolean {
    return this.#patterns.some((p) => matches(p, path));
  }

  /** The state one key (or index) below `state`. */
  step(state: IgnoreState, key: string): IgnoreState {
    const steps = this.#steps[state]!;
    const known = steps.get(key);
    if (known !== undefined) return known;
    const next: number[] = [];
    for (const position of this.#positions[state]!) {
      const p = Math.floor(position / this.#stride);
      const i = position - p * this.#stride;
      const seg = this.#patterns[p]![i];
      if (seg === undefined) continue;
      if (seg === '**') this.#add(next, p, i);
      else if (seg === '*' || seg === key) this.#add(next, p, i + 1);
    }
    const id = this.#intern(next);
    if (this.#remembered < MAX_REMEMBERED_STEPS) {
      steps.set(key, id);
      this.#remembered++;
    }
    return id;
  }

  /** True when the path that led to `state` is ignored (as {@link ignores} says of it). */
  ignored(state: IgnoreState): boolean {
    return this.#ignored[state]!;
  }

  #intern(positions: number[]): IgnoreState {
    positions.sort((a, b) => a - b);
    const name = positions.join(',');
    let id = this.#ids.get(name);
    if (id === undefined) {
      id = this.#positions.length;
      this.#ids.set(name, id);
      this.#positions.push(positions);
      this.#ignored.push(
        positions.some((position) => {
          const p = Math.floor(position / this.#stride);
          return position - p * this.#stride === this.#patterns[p]!.length;
        }),
      );
      this.#steps.push(new Map());
    }
    return id;
  }

  /** Adds pattern `p` having matched `i` segments, and, past a `**`, as if it matched none more. */
  #add(into: number[], p: number, i: number): void {
    const pattern = this.#patterns[p]!;
    for (let at = i; ; at++) {
      const position = p * this.#stride + at;
      if (!into.includes(position)) into.push(position);
      if (pattern[at] !== '**') return;
    }
  }
}

/**
 * A recorded string holding redaction marks stands for a live one that differs only where the marks
 * stand (docs/design.md §5, "Redaction marks"): the recording never held the secret to compare.
 */
function redactedAlike(r: JsonValue, l: JsonValue): boolean {
  return typeof r === 'string' && typeof l === 'string' && standsForLive(r, l);
}

function isRecord(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A node of a walk: the two values, its ignore state, and its path as a chain up to the root. */
interface Pair {
  r: JsonValue | undefined;
  l: JsonValue | undefined;
  state: IgnoreState;
  parent: Pair | null;
  segment: string;
}

/** The JSON pointer of a node, built only for a difference. */
function pointerOf(node: Pair): string {
  const segments: string[] = [];
  for (let n: Pair | null = node; n.parent !== null; n = n.parent) segments.push(`/${escapeSegment(n.segment)}`);
  return segments.reverse().join('');
}

/** Every value of `recorded` and `live` that differs, outside the ignored paths. */
export function contentDifferences(
  recorded: JsonValue | undefined,
  live: JsonValue | undefined,
  ignore: IgnoreSet,
): ContentDifference[] {
  // Most live answers differ only where ignored: an unordered look first, and the ordered walk
  // (sorted keys, paths) only for bodies that do differ.
  if (!differsInContent(recorded, live, ignore)) return [];
  // Depth first, children in order (array indexes, then sorted keys), without recursion: a
  // recorded body may nest arbitrarily deep. Each node is one object, its own path link.
  const out: ContentDifference[] = [];
  const stack: Pair[] = [{ r: recorded, l: live, state: ignore.start, parent: null, segment: '' }];
  const child = (r: JsonValue | undefined, l: JsonValue | undefined, parent: Pair, segment: string): Pair => ({
    r,
    l,
    state: ignore.step(parent.state, segment),
    parent,
    segment,
  });
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { r, l } = next;
    if ((r === undefined && l === undefined) || ignore.ignored(next.state)) continue;
    if (r === undefined) out.push({ path: pointerOf(next), change: 'added' });
    else if (l === undefined) out.push({ path: pointerOf(next), change: 'removed' });
    else if (Array.isArray(r) && Array.isArray(l)) {
      for (let i = Math.max(r.length, l.length) - 1; i >= 0; i--) stack.push(child(r[i], l[i], next, String(i)));
    } else if (isRecord(r) && isRecord(l)) {
      const keys = Object.keys(r);
      for (const k of Object.keys(l)) if (!Object.hasOwn(r, k)) keys.push(k);
      keys.sort();
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        // Own members only: a key such as `constructor` on one side is added or removed.
        stack.push(child(Object.hasOwn(r, k) ? r[k] : undefined, Object.hasOwn(l, k) ? l[k] : undefined, next, k));
      }
    } else if (r !== l && !redactedAlike(r, l)) out.push({ path: pointerOf(next), change: 'changed' });
  }
  return out;
}

/**
 * True when {@link contentDifferences} finds anything: the same nodes and ignore states, visited
 * in any order, stopping at the first difference. Nothing is sorted and no node object is made
 * (the pending pairs sit in three parallel stacks), as this runs for every live answer.
 */
export function differsInContent(
  recorded: JsonValue | undefined,
  live: JsonValue | undefined,
  ignore: IgnoreSet,
): boolean {
  const rs: (JsonValue | undefined)[] = [recorded];
  const ls: (JsonValue | undefined)[] = [live];
  const states: IgnoreState[] = [ignore.start];
  while (rs.length > 0) {
    const r = rs.pop();
    const l = ls.pop();
    const state = states.pop()!;
    if ((r === undefined && l === undefined) || ignore.ignored(state)) continue;
    if (r === undefined || l === undefined) return true;
    if (Array.isArray(r) && Array.isArray(l)) {
      for (let i = Math.max(r.length, l.length) - 1; i >= 0; i--) {
        rs.push(r[i]);
        ls.push(l[i]);
        states.push(ignore.step(state, String(i)));
      }
    } else if (isRecord(r) && isRecord(l)) {
      for (const k in r) {
        if (!Object.hasOwn(r, k)) continue;
        rs.push(r[k]);
        ls.push(Object.hasOwn(l, k) ? l[k] : undefined);
        states.push(ignore.step(state, k));
      }
      for (const k in l) {
        if (!Object.hasOwn(l, k) || Object.hasOwn(r, k)) continue;
        rs.push(undefined);
        ls.push(l[k]);
        states.push(ignore.step(state, k));
      }
    } else if (r !== l && !redactedAlike(r, l)) return true;
  }
  return false;
}

function brief(value: JsonValue | undefined): string {
  if (value === undefined) return 'none';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Characters shown of each string either side of where two strings first differ. */
const WINDOW_BEFORE = 20;
const WINDOW_AFTER = 30;

/** `recorded → live` for a changed value; two long strings are shown around where they first differ. */
function briefChange(recorded: JsonValue | undefined, live: JsonValue | undefined): string {
  if (typeof recorded !== 'string' || typeof live !== 'string') return `${brief(recorded)} → ${brief(live)}`;
  if (JSON.stringify(recorded).length <= 60 && JSON.stringify(live).length <= 60)
    return `${brief(recorded)} → ${brief(live)}`;
  let first = 0;
  while (first < recorded.length && first < live.length && recorded[first] === live[first]) first++;
  const start = Math.max(0, first - WINDOW_BEFORE);
  const window = (s: string): string => {
    const end = Math.min(s.length, first + WINDOW_AFTER);
    const inner = JSON.stringify(s.slice(start, end)).slice(1, -1);
    return `"${start > 0 ? '…' : ''}${inner}${end < s.length ? '…' : ''}"`;
  };
  return `${window(recorded)} → ${window(live)} (first difference at character ${first + 1})`;
}

function at(body: JsonValue | undefined, pointer: string): JsonValue | undefined {
  let v = body;
  for (const seg of parsePointerPattern(pointer)) {
    if (Array.isArray(v)) v = v[Number(seg)];
    else if (isRecord(v)) v = v[seg];
    else return undefined;
  }
  return v;
}

/** Report lines (`content /result/task/artifacts/2: added {...}`), at most {@link MAX_CONTENT_DIFFERENCES}. */
export function describeContent(
  recorded: JsonValue | undefined,
  live: JsonValue | undefined,
  differences: readonly ContentDifference[],
): string[] {
  const lines = differences.slice(0, MAX_CONTENT_DIFFERENCES).map((d) => {
    switch (d.change) {
      case 'added':
        return `content ${d.path}: added ${brief(at(live, d.path))}`;
      case 'removed':
        return `content ${d.path}: removed (was ${brief(at(recorded, d.path))})`;
      case 'changed':
        return `content ${d.path}: ${briefChange(at(recorded, d.path), at(live, d.path))}`;
      default: {
        const never: never = d.change;
        return never;
      }
    }
  });
  if (differences.length > MAX_CONTENT_DIFFERENCES)
    lines.push(`content: ${differences.length - MAX_CONTENT_DIFFERENCES} more differences`);
  return lines;
}
