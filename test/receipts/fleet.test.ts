/**
 * The fleet ledger (docs/design.md §17): resumptions of pauses outside their log pair with the
 * suspensions of the other logs by pause identity and the peer's times, never by file order.
 */
import { describe, expect, it } from 'vitest';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { FleetLedger, ambiguityText, fleetFails } from '../../src/receipts/fleet.js';
import { Keyring } from '../../src/receipts/keys.js';
import type { OutsideSuspension, ReceiptLogLine } from '../../src/receipts/types.js';
import { fixedKey, resumptionDraftFor, suspensionDraftFor } from './fixtures.js';

const keyring = new Keyring([fixedKey('key-fleet')]);
const chain = (): ReceiptChain =>
  new ReceiptChain({ keyring, recording: 'rec', createdAt: '2026-01-01T00:00:00.000Z', tool: 't', version: 5 });

function pause(c: ReceiptChain, taskId: string, pausedAt: string, tokenHash: string): ReceiptLogLine {
  return c.sealSuspension({ ...suspensionDraftFor(0), taskId, pausedAt, resumeTokenHash: tokenHash }).receipt.line;
}

function outside(c: ReceiptChain, taskId: string, resumedAt: string | null, ref: OutsideSuspension): ReceiptLogLine {
  return c.sealResumption({ ...resumptionDraftFor(1, 'resumed', taskId), resumedAt }, ref).receipt.line;
}

const h = (n: number): string => `sha256:${String(n).repeat(64)}`;

describe('FleetLedger', () => {
  it('pairs by token first, then a task-only reference with the latest pause at or before its resume', () => {
    const ledger = new FleetLedger();
    const a = chain();
    ledger.startLog('a');
    ledger.add(pause(a, 't', '2026-01-01T09:00:00.000Z', h(1)), 2);
    ledger.add(pause(a, 't', '2026-01-01T10:00:00.000Z', h(2)), 3);
    ledger.add(pause(a, 'u', '2026-01-01T09:00:00.000Z', h(3)), 4);
    // Given before the token reference, the task-only one still takes the pause its time names.
    const b = chain();
    ledger.startLog('b');
    ledger.add(outside(b, 't', '2026-01-01T10:30:00.000Z', { pausedAt: null, resumeTokenHash: null }), 2);
    const c = chain();
    ledger.startLog('c');
    ledger.add(outside(c, 't', '2026-01-01T10:20:00.000Z', { pausedAt: null, resumeTokenHash: h(2) }), 2);
    ledger.add(outside(c, 'v', '2026-01-01T09:30:00.000Z', { pausedAt: null, resumeTokenHash: h(4) }), 3);
    const verdict = ledger.finish();
    expect(verdict.paired.map((p) => [p.pause.begun.line, p.end.ended.file, p.end.ended.line])).toEqual([
      [3, 'c', 2],
      [2, 'b', 2],
    ]);
    expect(verdict.lost.map((p) => [p.taskId, p.begun.line])).toEqual([['u', 4]]);
    expect(verdict.orphans.map((o) => [o.taskId, o.ended.file])).toEqual([['v', 'c']]);
  });

  it('leaves a task-only reference resumed before every pause of its task an orphan', () => {
    const ledger = new FleetLedger();
    const a = chain();
    ledger.startLog('a');
    ledger.add(pause(a, 't', '2026-01-01T10:00:00.000Z', h(1)), 2);
    const b = chain();
    ledger.startLog('b');
    ledger.add(outside(b, 't', '2026-01-01T09:00:00.000Z', { pausedAt: null, resumeTokenHash: null }), 2);
    const verdict = ledger.finish();
    expect(verdict.paired).toEqual([]);
    expect(verdict.lost).toHaveLength(1);
    expect(verdict.orphans).toHaveLength(1);
  });

  it('reports a task-only reference with no time of the peer’s as ambiguous, pairing it with nothing', () => {
    // A FireEvent answer through B lists the task: it may have ended A's pause, or one before it.
    const ledger = new FleetLedger();
    ledger.startLog('a');
    ledger.add(pause(chain(), 't', '2026-01-01T10:00:00.000Z', h(1)), 2);
    ledger.startLog('b');
    ledger.add(outside(chain(), 't', null, { pausedAt: null, resumeTokenHash: null }), 2);
    const verdict = ledger.finish();
    expect(verdict.paired).toEqual([]);
    expect(verdict.lost).toEqual([]);
    expect(verdict.orphans).toEqual([]);
    expect(verdict.ambiguous.map((a) => [a.end.ended.file, a.candidates.map((p) => p.begun.line)])).toEqual([
      ['b', [2]],
    ]);
    expect(fleetFails(verdict)).toBe(true);
    expect(ambiguityText(verdict.ambiguous[0]!)).toBe(
      'task t: resumed (explicit_resume) in b:2 (seq 1), naming its task alone, with no time of the peer’s, ' +
        'may have ended any of 1 pauses: a:2',
    );
  });

  it('reports pauses sharing the latest pausedAt before a resume as ambiguous, never taking the first', () => {
    // A peer whose clock did not move between two pauses of one task, each through another replica.
    const ledger = new FleetLedger();
    ledger.startLog('a');
    ledger.add(pause(chain(), 't', '2026-01-01T00:00:00.000Z', h(1)), 2);
    ledger.startLog('b');
    ledger.add(pause(chain(), 't', '2026-01-01T00:00:00.000Z', h(2)), 2);
    ledger.startLog('c');
    ledger.add(outside(chain(), 't', '2026-01-01T00:00:00.000Z', { pausedAt: null, resumeTokenHash: null }), 2);
    ledger.add(outside(chain(), 'u', null, { pausedAt: null, resumeTokenHash: null }), 3);
    const verdict = ledger.finish();
    expect(verdict.paired).toEqual([]);
    expect(verdict.lost).toEqual([]);
    expect(verdict.orphans.map((o) => o.taskId)).toEqual(['u']);
    expect(verdict.ambiguous.map((a) => a.candidates.map((p) => p.begun.file))).toEqual([['a', 'b']]);
  });

  it('closes a suspension by a resumption in a later log of its series, and pairs across series', () => {
    const ledger = new FleetLedger();
    const a = chain();
    const begun = a.sealSuspension({ ...suspensionDraftFor(0), taskId: 't', resumeTokenHash: h(1) }).receipt;
    const other = pause(a, 'u', '2026-01-01T09:00:00.000Z', h(2));
    ledger.startLog('a.receipts.jsonl', 'series-a');
    ledger.add(begun.line, 2, begun.hash);
    ledger.add(other, 3);
    // The next log of the series: its resumption names the suspension of the log before by hash.
    const closing = outside(chain(), 't', '2026-01-01T10:00:00.000Z', { pausedAt: null, resumeTokenHash: null });
    ledger.startLog('a.2.receipts.jsonl', 'series-a');
    ledger.add({ ...closing, suspension: begun.hash, outside: null } as ReceiptLogLine, 2);
    // Another recorder's series resumes the other pause, outside its log.
    ledger.startLog('b.2.receipts.jsonl', 'series-b');
    ledger.add(outside(chain(), 'u', '2026-01-01T10:00:00.000Z', { pausedAt: null, resumeTokenHash: h(2) }), 2);
    const verdict = ledger.finish();
    expect(verdict.lost).toEqual([]);
    expect(verdict.orphans).toEqual([]);
    expect(verdict.paired.map((p) => [p.pause.begun.file, p.end.ended.file])).toEqual([
      ['a.receipts.jsonl', 'b.2.receipts.jsonl'],
    ]);
  });

  it('pairs each reference of a task paused many times with the pause its token or pausedAt names', () => {
    const ledger = new FleetLedger();
    const a = chain();
    ledger.startLog('a');
    const at = (n: number): string => new Date(Date.UTC(2026, 0, 1, 9, 0, n)).toISOString();
    for (let n = 1; n <= 6; n++) ledger.add(pause(a, 't', at(n), h(n)), n + 1);
    const b = chain();
    ledger.startLog('b');
    // By token (in reverse), by pausedAt alone, by both, by both where they disagree, by the task alone.
    ledger.add(outside(b, 't', at(30), { pausedAt: null, resumeTokenHash: h(4) }), 2);
    ledger.add(outside(b, 't', at(30), { pausedAt: null, resumeTokenHash: h(2) }), 3);
    ledger.add(outside(b, 't', at(30), { pausedAt: at(3), resumeTokenHash: null }), 4);
    ledger.add(outside(b, 't', at(30), { pausedAt: at(1), resumeTokenHash: h(1) }), 5);
    ledger.add(outside(b, 't', at(30), { pausedAt: at(6), resumeTokenHash: h(5) }), 6);
    ledger.add(outside(b, 't', at(30), { pausedAt: null, resumeTokenHash: null }), 7);
    ledger.add(outside(b, 't', at(30), { pausedAt: null, resumeTokenHash: h(4) }), 8);
    const verdict = ledger.finish();
    expect(verdict.paired.map((p) => [p.end.ended.line, p.pause.begun.line])).toEqual([
      [2, 5],
      [3, 3],
      [4, 4],
      [5, 2],
      [7, 7],
    ]);
    // Token 5 with the pausedAt of pause 6 names no pause; token 4 twice: the second finds it taken.
    expect(verdict.orphans.map((o) => o.ended.line)).toEqual([6, 8]);
    expect(verdict.lost.map((p) => p.begun.line)).toEqual([6]);
  });

  it('pairs a pausedAt written canonically with the same instant written as the peer wrote it', () => {
    // A log of format 4 keeps the peer's text; one of format 5 writes the canonical text.
    const ledger = new FleetLedger();
    const a = chain();
    ledger.startLog('a');
    ledger.add(pause(a, 't', '2026-01-01T09:00:03Z', h(1)), 2);
    ledger.add(pause(a, 'u', '2026-01-01T10:00:04.5+01:00', h(2)), 3);
    const b = chain();
    ledger.startLog('b');
    ledger.add(
      outside(b, 't', '2026-01-01T09:30:00.000Z', { pausedAt: '2026-01-01T09:00:03.000Z', resumeTokenHash: null }),
      2,
    );
    ledger.add(
      outside(b, 'u', '2026-01-01T09:30:00.000Z', { pausedAt: '2026-01-01T09:00:04.500Z', resumeTokenHash: h(2) }),
      3,
    );
    const verdict = ledger.finish();
    expect(verdict.orphans).toEqual([]);
    expect(verdict.lost).toEqual([]);
    expect(verdict.paired.map((p) => [p.end.ended.line, p.pause.begun.line])).toEqual([
      [2, 2],
      [3, 3],
    ]);
  });
});
