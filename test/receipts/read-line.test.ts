/**
 * The fast reader of written lines (read-line-fast.ts) and the field readers (read-line.ts) agree:
 * on written lines and on the same lines with a member replaced (by values of every type, valid
 * and not), removed, added, or their members reordered, the fast reader either declines or gives
 * the very value the field readers give (same members in the same order, the same arrays); it
 * declines a line the field readers accept only when some fixed-shape object in it lists its
 * members out of canonical order; and `readReceiptLogLine` answers as the field readers do.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readReceiptLineFast } from '../../src/receipts/read-line-fast.js';
import { readReceiptLogLine, readReceiptLogLineByFields } from '../../src/receipts/read-line.js';
import { Keyring } from '../../src/receipts/keys.js';
import { buildLogLines, fixedKey } from './fixtures.js';
import { REMOVE, REPLACEMENTS, isRecord, paths, setAt } from './line-mutations.js';
import { fuzzRuns } from '../helpers/fuzz.js';

const written = [
  ...buildLogLines({ count: 40, keyring: new Keyring([fixedKey('key-rl')]), checkpointEvery: 8 }),
  // A closing checkpoint binding its recording, and a version-2 log's checkpoints.
  ...buildLogLines({
    count: 4,
    keyring: new Keyring([fixedKey('key-rl-b')]),
    checkpointEvery: 2,
    binding: { id: 'rec-test', lines: 9, lastLineHash: `sha256:${'cd'.repeat(32)}` },
  }),
  ...buildLogLines({ count: 4, keyring: new Keyring([fixedKey('key-rl-2')]), checkpointEvery: 2, version: 2 }),
];
const hmacWritten = buildLogLines({ count: 4, keyring: new Keyring([fixedKey('key-rl-h', 'h', false)]) });
const all = [...written, ...hmacWritten];

/** Whether every object of fixed shape (the line, span, sig, links and its spans) has sorted keys. */
function fixedShapesInOrder(value: unknown): boolean {
  if (!isRecord(value)) return true;
  const links = value.links;
  const objects = [value, value.span, value.sig, links, ...(isRecord(links) ? [links.suspension, links.pipeline] : [])];
  return objects.every((o) => {
    if (!isRecord(o)) return true;
    const keys = Object.keys(o);
    return keys.every((k, i) => i === 0 || keys[i - 1]! < k);
  });
}

/** Both readers on `value`, held to each other. */
function expectAgreement(value: unknown): void {
  const full = readReceiptLogLineByFields(value);
  const fast = readReceiptLineFast(value);
  if (fast !== null) {
    expect(full.ok).toBe(true);
    if (!full.ok) return;
    expect(fast).toEqual(full.value);
    // Same members in the same order, at every depth, and the same arrays and conditions.
    expect(JSON.stringify(fast)).toBe(JSON.stringify(full.value));
    const { entries, repaired } = full.value as { entries?: unknown; repaired?: unknown };
    expect((fast as { entries?: unknown }).entries).toBe(entries);
    expect((fast as { repaired?: unknown }).repaired).toBe(repaired);
    if (fast.type === 'SuspensionReceipt') expect(fast.conditions).toBe((full.value as typeof fast).conditions);
  } else if (full.ok && full.value.type !== 'ReceiptLog') {
    expect(fixedShapesInOrder(value)).toBe(false);
  }
  expect(readReceiptLogLine(value)).toEqual(full);
}

/** A copy of `value` with each object's keys in an order `pick` chooses. */
function reordered(value: unknown, pick: (n: number) => number): unknown {
  if (Array.isArray(value)) return value.map((v) => reordered(v, pick));
  if (!isRecord(value)) return value;
  const keys = Object.keys(value);
  const out: Record<string, unknown> = {};
  while (keys.length > 0) {
    const key = keys.splice(pick(keys.length), 1)[0]!;
    out[key] = reordered(value[key], pick);
  }
  return out;
}

const replacement = fc.oneof(fc.constantFrom<unknown>(...REPLACEMENTS), fc.jsonValue({ maxDepth: 2 }));

describe('reading a log line: fast reader and field readers', () => {
  it('read every written line alike, the fast reader declining only the header', () => {
    for (const text of all) {
      const value = JSON.parse(text) as unknown;
      expectAgreement(value);
      const fast = readReceiptLineFast(value);
      expect(fast === null).toBe((value as { type: string }).type === 'ReceiptLog');
    }
  });

  it('agree on lines with one member or item replaced, removed or added', () => {
    fc.assert(
      fc.property(
        fc.nat(all.length - 1),
        fc.nat(),
        fc.oneof(replacement, fc.constant<unknown>(REMOVE)),
        fc.boolean(),
        (i, p, to, add) => {
          const value = JSON.parse(all[i]!) as Record<string, unknown>;
          const where = paths(value);
          const path = where[p % where.length]!;
          // `add`: a new member beside the chosen one (a key that sorts anywhere), else replace.
          if (add && to !== REMOVE) setAt(value, [...path.slice(0, -1), `${String(path.at(-1))}x`], to);
          else setAt(value, path, to);
          expectAgreement(value);
        },
      ),
      { numRuns: fuzzRuns(1000), seed: 23 },
    );
  });

  it('agree on entries and repaired of any items: repeats, out of order, out of range, other types', () => {
    const receipts = all.filter((t) => t.includes('"entries":'));
    const entry = fc.oneof(
      fc.integer({ min: -1, max: 4 }),
      fc.constantFrom<unknown>(1.5, 2 ** 53, 2 ** 53 - 1, '1', null),
    );
    const name = fc.constantFrom<unknown>('', 'a', 'b', 'c', 'a\u0000', 1, null);
    fc.assert(
      fc.property(
        fc.nat(receipts.length - 1),
        fc.array(entry, { maxLength: 4 }),
        fc.array(name, { maxLength: 4 }),
        (i, entries, repaired) => {
          const value = JSON.parse(receipts[i]!) as Record<string, unknown>;
          expectAgreement({ ...value, entries });
          expectAgreement({ ...value, repaired });
        },
      ),
      { numRuns: fuzzRuns(300), seed: 25 },
    );
  });

  it('agree on hashes and span ids of lengths near the right ones, with a char near the hex digits', () => {
    const receipts = all.filter((t) => t.includes('"span":'));
    const digits = fc
      .constantFrom(0, 15, 16, 17, 31, 32, 33, 63, 64, 65)
      .chain((n) => fc.array(fc.constantFrom<string>('0', '9', 'a', 'f'), { minLength: n, maxLength: n }));
    const odd = fc.option(
      fc.tuple(fc.nat(), fc.constantFrom('g', 'A', 'F', 'G', '/', ':', '`', '@', '\u0130', '\u0661')),
    );
    const id = fc
      .tuple(fc.constantFrom('', 'sha256:', 'sha256', 'SHA256:'), digits, odd)
      .map(([prefix, chars, bad]) => {
        if (bad && chars.length > 0) chars[bad[0] % chars.length] = bad[1];
        return prefix + chars.join('');
      });
    fc.assert(
      fc.property(fc.nat(receipts.length - 1), id, id, (i, a, b) => {
        const value = JSON.parse(receipts[i]!) as Record<string, unknown>;
        expectAgreement({ ...value, prev: a });
        expectAgreement({ ...value, span: { spanId: a, traceId: b } });
        expectAgreement({ ...value, span: { spanId: b, traceId: a } });
      }),
      { numRuns: fuzzRuns(500), seed: 26 },
    );
  });

  it('agree on lines with their members in any order', () => {
    fc.assert(
      fc.property(fc.nat(all.length - 1), fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), (i, picks) => {
        let k = 0;
        expectAgreement(reordered(JSON.parse(all[i]!), (n) => (picks[k++ % picks.length] ?? 0) % n));
      }),
      { numRuns: fuzzRuns(200), seed: 24 },
    );
  });

  it('agree on values that are no line at all', () => {
    for (const value of [null, 1, 'x', [], {}, { type: 'Checkpoint' }, { type: 'Other' }, [{ type: 'Checkpoint' }]])
      expectAgreement(value);
  });
});
