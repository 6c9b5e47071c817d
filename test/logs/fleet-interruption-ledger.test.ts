/**
 * The pairing of a fleet's interruptions (src/logs/fleet-interruption-ledger.ts, docs/design.md
 * §17) over receipts the chain seals: a continuation closes the interruption whose hash it names
 * in its own log or series only, as `auditFleet` pairs them; a second continuation of one
 * interruption is no orphan; one naming the hash of another replica's receipt is an orphan, and
 * that receipt stays open.
 */
import { describe, expect, it } from 'vitest';
import { FleetInterruptionLedger } from '../../src/logs/fleet-interruption-ledger.js';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { buildContinuationDraft, buildInterruptionDraft } from '../../src/receipts/interruption-drafts.js';
import { Keyring } from '../../src/receipts/keys.js';
import type { ContinuationReceipt, InterruptionReceipt } from '../../src/receipts/types.js';
import { CREATED_AT, fixedKey } from '../receipts/fixtures.js';

const keyring = new Keyring([fixedKey('ledger')]);
const SPAN = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };

function chain(): ReceiptChain {
  return new ReceiptChain({ keyring, checkpointEvery: 0, recording: 'rec', createdAt: CREATED_AT, tool: 't' });
}

function asked(c: ReceiptChain, taskId: string): { line: InterruptionReceipt; hash: string } {
  const draft = buildInterruptionDraft({
    taskId,
    contextId: 'ctx',
    state: 'TASK_STATE_AUTH_REQUIRED',
    prompt: null,
    interruptedAt: '2026-01-01T09:00:01.000Z',
    observedAt: '2026-01-01T09:00:01.005Z',
    entries: [2],
    span: SPAN,
    binding: 'JSONRPC',
  });
  const { receipt } = c.sealInterruption(draft);
  return { line: receipt.line, hash: receipt.hash };
}

function answered(c: ReceiptChain, taskId: string, interruption: string): ContinuationReceipt {
  const draft = buildContinuationDraft({
    taskId,
    cause: 'out_of_band',
    principal: null,
    input: null,
    observedAt: '2026-01-01T09:00:09.005Z',
    entries: [4],
    span: { traceId: 'c'.repeat(32), spanId: 'd'.repeat(16) },
    interruptionSpan: SPAN,
    binding: 'JSONRPC',
  });
  return c.sealContinuation(draft, interruption).receipt.line;
}

describe('FleetInterruptionLedger', () => {
  it('closes an interruption continued in its log, twice without an orphan, and lists the one left open', () => {
    const a = chain();
    const closed = asked(a, 't-closed');
    const open = asked(a, 't-open');
    const ledger = new FleetInterruptionLedger();
    ledger.startLog('a.receipts.jsonl');
    ledger.add(closed.line, 2, closed.hash);
    ledger.add(open.line, 3);
    ledger.add(answered(a, 't-closed', closed.hash), 4);
    ledger.add(answered(a, 't-closed', closed.hash), 5);
    expect(ledger.finish()).toEqual({
      lost: [
        {
          taskId: 't-open',
          state: 'TASK_STATE_AUTH_REQUIRED',
          reason: 'never_continued',
          since: '2026-01-01T09:00:01.000Z',
          detectedAt: null,
          span: SPAN,
          rule: null,
          interruptedIn: { file: 'a.receipts.jsonl', line: 3 },
        },
      ],
      orphans: [],
    });
  });

  it("pairs within a log or a series only: another replica's continuation of the hash is an orphan", () => {
    const a = chain();
    const ask = asked(a, 't-1');
    const ledger = new FleetInterruptionLedger();
    ledger.startLog('a.receipts.jsonl', 'series-a');
    ledger.add(ask.line, 2, ask.hash);
    const b = chain();
    ledger.startLog('b.receipts.jsonl', 'series-b');
    ledger.add(answered(b, 't-1', ask.hash), 2);
    const found = ledger.finish();
    expect(found.lost.map((l) => l.interruptedIn)).toEqual([{ file: 'a.receipts.jsonl', line: 2 }]);
    expect(found.orphans).toEqual([
      {
        taskId: 't-1',
        interruption: ask.hash,
        principal: null,
        continuedIn: { file: 'b.receipts.jsonl', line: 2, seq: 1 },
      },
    ]);
    // The next log of A's series closes it.
    ledger.startLog('a.2.receipts.jsonl', 'series-a');
    ledger.add(answered(a, 't-1', ask.hash), 3);
    expect(ledger.finish().lost).toEqual([]);
  });
});
