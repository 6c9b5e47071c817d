/**
 * The one table of a receipt log line's members (src/receipts/line-fields.ts) is what the writer
 * writes and what the drafts build: every written line of each kind has exactly the table's
 * members, in canonical order; every draft has the receipt's members but those the chain adds; and
 * a member the table marks `bounded` is cut in a draft while one it does not mark is kept whole.
 */
import { describe, expect, it } from 'vitest';
import { RECEIPT_TEXT_MAX, buildResumptionDraft, buildSuspensionDraft } from '../../src/receipts/drafts.js';
import { Keyring } from '../../src/receipts/keys.js';
import { type LineKind, canonicalOrderOf, fieldsOf } from '../../src/receipts/line-fields.js';
import { buildLogLines, fixedKey } from './fixtures.js';

const span = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
const long = 'x'.repeat(RECEIPT_TEXT_MAX + 1);
/** The text members a client or peer sends, which a draft cuts (docs/design.md §6, "Bounded size"). */
const CUT = {
  suspension: ['contextId', 'pausedAt', 'pausedUntil', 'principal', 'reason', 'taskId'],
  resumption: ['principal', 'resumedAt', 'taskId'],
  'resumption-v5': ['principal', 'resumedAt', 'taskId'],
};

function kindOf(line: Record<string, unknown>): LineKind {
  switch (line.type) {
    case 'ReceiptLog':
      return 'series' in line ? 'header-v5' : 'header';
    case 'SuspensionReceipt':
      return 'suspension';
    case 'ResumptionReceipt':
      return 'outside' in line ? 'resumption-v5' : 'resumption';
    default:
      return 'note' in line ? 'checkpoint-v4' : 'final' in line ? 'checkpoint' : 'checkpoint-v2';
  }
}

describe('the members of a receipt log line', () => {
  it('are the members of every written line of each kind, in canonical order', () => {
    const lines = [
      ...buildLogLines({ count: 6, keyring: new Keyring([fixedKey('key-lf')]), checkpointEvery: 2 }),
      ...buildLogLines({ count: 4, keyring: new Keyring([fixedKey('key-lf-2')]), checkpointEvery: 2, version: 2 }),
      ...buildLogLines({ count: 4, keyring: new Keyring([fixedKey('key-lf-3')]), checkpointEvery: 2, version: 3 }),
      ...buildLogLines({ count: 4, keyring: new Keyring([fixedKey('key-lf-4')]), checkpointEvery: 2, version: 4 }),
    ];
    const seen = new Set<LineKind>();
    for (const text of lines) {
      const line = JSON.parse(text) as Record<string, unknown>;
      const kind = kindOf(line);
      seen.add(kind);
      expect(Object.keys(line), text).toEqual([...fieldsOf(kind).map((f) => f.name)].sort());
      if (kind !== 'header' && kind !== 'header-v5') expect(Object.keys(line), text).toEqual(canonicalOrderOf(kind));
    }
    expect([...seen].sort()).toEqual([
      'checkpoint',
      'checkpoint-v2',
      'checkpoint-v4',
      'header',
      'header-v5',
      'resumption',
      'resumption-v5',
      'suspension',
    ]);
  });

  it('are the members of the drafts, but those the chain adds, and bound the texts the table marks', () => {
    const suspension = buildSuspensionDraft({
      taskId: long,
      contextId: long,
      initiatedBy: 'PAUSE_INITIATOR_CLIENT',
      principal: long,
      via: 'PauseTask',
      reason: long,
      pausedAt: long,
      pausedUntil: long,
      observedAt: long,
      entries: [1],
      span,
    });
    const resumption = buildResumptionDraft({
      taskId: long,
      cause: 'explicit_resume',
      outcome: 'resumed',
      principal: long,
      resumedAt: long,
      observedAt: long,
      entries: [2],
      span,
      links: { suspension: span },
    });
    const chained = ['seq', 'prev', 'sig', 'suspension', 'outside'];
    for (const [kind, draft] of [
      ['suspension', suspension],
      ['resumption', resumption],
      ['resumption-v5', resumption],
    ] as const) {
      const fields = fieldsOf(kind).filter((f) => !chained.includes(f.name));
      expect(Object.keys(draft)).toEqual(fields.map((f) => f.name));
      const members = draft as unknown as Record<string, unknown>;
      const bounded = fields.filter((f) => f.bounded).map((f) => f.name);
      expect([...bounded].sort()).toEqual(CUT[kind]);
      for (const name of CUT[kind]) expect(String(members[name]).length, name).toBeLessThan(RECEIPT_TEXT_MAX);
      expect(draft.repaired).toEqual(CUT[kind]);
      // observedAt is the recording's own time, not something a client or peer sent: kept whole.
      expect(draft.observedAt).toBe(long);
    }
  });
});
