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

/** A compiled set of ignored paths for one method. */
export class IgnoreSet {
  readonly #patterns: string[][];

  constructor(patterns: readonly string[]) {
    this.#patterns = patterns.map(parsePointerPattern);
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
}

function isRecord(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Every value of `recorded` and `live` that differs, outside the ignored paths. */
export function contentDifferences(
  recorded: JsonValue | undefined,
  live: JsonValue | undefined,
  ignore: IgnoreSet,
): ContentDifference[] {
  // Depth first, children in order (array indexes, then sorted keys), without recursion: a
  // recorded body may nest arbitrarily deep.
  const out: ContentDifference[] = [];
  type Pair = { r: JsonValue | undefined; l: JsonValue | undefined; path: string[] };
  const stack: Pair[] = [{ r: recorded, l: live, path: [] }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { r, l, path } = next;
    if (ignore.ignores(path) || (r === undefined && l === undefined)) continue;
    const pointer = (): string => path.map((s) => `/${escapeSegment(s)}`).join('');
    if (r === undefined) out.push({ path: pointer(), change: 'added' });
    else if (l === undefined) out.push({ path: pointer(), change: 'removed' });
    else if (Array.isArray(r) && Array.isArray(l)) {
      for (let i = Math.max(r.length, l.length) - 1; i >= 0; i--)
        stack.push({ r: r[i], l: l[i], path: [...path, String(i)] });
    } else if (isRecord(r) && isRecord(l)) {
      const keys = [...new Set([...Object.keys(r), ...Object.keys(l)])].sort().reverse();
      for (const k of keys) stack.push({ r: r[k], l: l[k], path: [...path, k] });
    } else if (r !== l) out.push({ path: pointer(), change: 'changed' });
  }
  return out;
}

function brief(value: JsonValue | undefined): string {
  if (value === undefined) return 'none';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
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
        return `content ${d.path}: ${brief(at(recorded, d.path))} → ${brief(at(live, d.path))}`;
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
