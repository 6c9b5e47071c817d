/**
 * Mutating parsed log lines, for the tests that hold the line readers to each other: every path in
 * a line, setting or removing what is at one, and values of every type (valid somewhere, and not)
 * to put there.
 */

import { readReceiptLogLine } from '../../src/receipts/read-line.js';
import type { ReceiptLogLine } from '../../src/receipts/types.js';

/** A text parsed and read as a receipt log line (its parse beside it), or null when it is none. */
export function readLine(text: string): { value: unknown; line: ReceiptLogLine } | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = readReceiptLogLine(value);
  return parsed.ok ? { value, line: parsed.value } : null;
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Paths to every member and array item of `value`. */
export function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const here = at.length > 0 ? [at] : [];
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => paths(v, [...at, i]))];
  if (isRecord(value)) return [...here, ...Object.keys(value).flatMap((k) => paths(value[k], [...at, k]))];
  return here;
}

/** What {@link setAt} puts to remove the member or item at a path. */
export const REMOVE = Symbol('remove');

/** Sets (or, with {@link REMOVE}, removes) what is at `path` in `value`. */
export function setAt(value: unknown, path: (string | number)[], to: unknown): void {
  let node = value as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (to !== REMOVE) node[last] = to;
  else if (Array.isArray(node)) node.splice(last as number, 1);
  else delete node[last];
}

export const HASH = `sha256:${'ab'.repeat(32)}`;

/** Replacements: valid values of each member of some line, and invalid ones. */
export const REPLACEMENTS: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -0,
  1,
  2,
  -1,
  1.5,
  -32011,
  2 ** 53,
  2 ** 53 - 1,
  -(2 ** 53),
  '',
  'x',
  HASH,
  HASH.toUpperCase(),
  `${HASH}0`,
  'a'.repeat(32),
  'b'.repeat(16),
  'A'.repeat(16),
  'hmac-sha256',
  'ed25519',
  'PauseTask',
  'statusUpdate',
  'finish_step',
  'PAUSE_INITIATOR_AGENT',
  'HTTP+JSON',
  'explicit_resume',
  'rejected',
  'SuspensionReceipt',
  'ResumptionReceipt',
  'Checkpoint',
  'ReceiptLog',
  [],
  [1, 2, 3],
  [2, 1],
  [1, 1],
  [3, 3],
  [0],
  [1.5],
  [2 ** 53],
  ['1'],
  ['a', 'b'],
  ['b', 'a'],
  [''],
  ['a', 'a'],
  [null],
  {},
  { spanId: 'b'.repeat(16), traceId: 'a'.repeat(32) },
  { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) },
  { spanId: 'b'.repeat(16), traceId: 'a'.repeat(32), x: 1 },
  { alg: 'hmac-sha256', kid: 'k', value: 'v' },
  { alg: 'ed25519', kid: 'k', value: 'v' },
  { alg: 'hmac-sha256', kid: 1, value: 'v' },
];
