/**
 * @module canonical/depth
 * How deep JSON nests, for the code that must not meet an unbounded depth on the call stack:
 * the fast paths that recurse (the canonical serializer's, the verified line's form check and
 * scan) hand anything deeper than {@link RECURSION_DEPTH} to walks with explicit stacks, and
 * {@link nestsDeeperThan} measures a value without recursing at all.
 */

/** How deep a fast path recurses before it hands a value to a walk with an explicit stack. */
export const RECURSION_DEPTH = 64;

/** Whether `value` nests deeper than `limit` levels (iterative: safe on any input). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}
