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
  it('pairs by token, and never takes a pause for a task-only reference by time alone', () => {
    const ledger = new FleetLedger();
    const a = chain();
    ledger.startLog('a');
    ledger.add(pause(a, 't', '2026-01-01T09:00:00.000Z', h(1)), 2);
    ledger.add(pause(a, 't', '2026-01-01T10:00:00.000Z', h(2)), 3);
    ledger.add(pause(a, 'u', '2026-01-01T09:00:00.000Z', h(3)), 4);
    // The resume of task t at 10:30 may have ended the pause of 09:00 (whose end no log saw) or a
    // pause no recorder saw begin after it: ambiguous, not paired with the latest one before it.
    const b = chain();
    ledger.startLog('b');
    ledger.add(outside(b, 't', '2026-01-01T10:30:00.000Z', { pausedAt: null, resumeTokenHash: null }), 2);
    const c = chain();
    ledger.startLog('c');
    ledger.add(outside(c, 't', '2026-01-01T10:20:00.000Z', { pausedAt: null, resumeTokenHash: h(2) }), 2);
    ledger.add(outside(c, 'v', '2026-01-01T09:30:00.000Z', { pausedAt: null, resumeTokenHash: h(4) }), 3);
    const verdict = ledger.finish();
    expect(verdict.paired.map((p) => [p.pause.begun.line, p.end.ended.file, p.end.ended.line])).toEqual([[3, 'c', 2]]);
    expect(verdict.ambiguous.map((x) => [x.end.ended.file, x.candidates.map((p) => p.begun.line)])).toEqual([
      ['b', [2]],
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
    ledger.add(outside(b, 't', at(32), { pausedAt: null, resumeTokenHash: null }), 7);
    ledger.add(outside(b, 't', at(31), { pausedAt: null, resumeTokenHash: h(4) }), 8);
    const verdict = ledger.finish();
    expect(verdict.paired.map((p) => [p.end.ended.line, p.pause.begun.line])).toEqual([
      [2, 5],
      [3, 3],
      [4, 4],
      [5, 2],
    ]);
    // Token 5 with the pausedAt of pause 6 names no pause; token 4 again, ended at another time:
    // a pause ends once.
    expect(verdict.orphans.map((o) => o.ended.line)).toEqual([6, 8]);
    // The task alone may have ended either pause whose end no log saw, or one no log saw begin.
    expect(verdict.ambiguous.map((x) => [x.end.ended.line, x.candidates.map((p) => p.begun.line)])).toEqual([
      [7, [6, 7]],
    ]);
    expect(verdict.lost).toEqual([]);
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

  it('takes a pause two logs saw begin as one pause, ended when either saw it end', () => {
    // A paused the task; B's stream showed it PAUSED and then its resume, which a ResumeTask
    // through A carried out with the token.
    const ledger = new FleetLedger();
    const a = chain();
    ledger.startLog('a');
    ledger.add(pause(a, 't', '2026-01-01T09:00:00.000Z', h(1)), 2);
    ledger.add(pause(a, 'u', '2026-01-01T09:00:00.000Z', h(2)), 3);
    const b = chain();
    ledger.startLog('b');
    const at = '2026-01-01T09:00:00.000Z';
    const seen = b.sealSuspension({ ...suspensionDraftFor(0), taskId: 't', pausedAt: at, resumeTokenHash: h(1) });
    ledger.add(seen.receipt.line, 2, seen.receipt.hash);
    ledger.add(pause(b, 'u', at, h(2)), 3);
    ledger.add(b.sealResumption(resumptionDraftFor(1, 'resumed', 't'), seen.receipt.hash).receipt.line, 4);
    // C resumed u with its token: B's suspension of u is open, so is A's; both take C's end.
    ledger.startLog('c');
    ledger.add(outside(chain(), 'u', '2026-01-01T10:00:00.000Z', { pausedAt: null, resumeTokenHash: h(2) }), 2);
    const verdict = ledger.finish();
    expect(verdict.lost).toEqual([]);
    expect(verdict.orphans).toEqual([]);
    expect(verdict.paired.map((p) => `${p.pause.begun.file}:${p.pause.begun.line} ${p.end.ended.file}`)).toEqual([
      'a:3 c',
      'b:3 c',
      'a:2 b',
    ]);
  });

  it('pairs a resume by token with a pause another log saw end, never calling it an orphan', () => {
    // B's stream saw the pause begin and end; the ResumeTask that ended it went through A.
    const ledger = new FleetLedger();
    const b = chain();
    ledger.startLog('b');
    const seen = b.sealSuspension({ ...suspensionDraftFor(0), taskId: 't', resumeTokenHash: h(1) }).receipt;
    ledger.add(seen.line, 2, seen.hash);
    const resumedAt = '2026-01-01T10:00:01.000Z';
    ledger.add(b.sealResumption({ ...resumptionDraftFor(1, 'resumed', 't'), resumedAt }, seen.hash).receipt.line, 3);
    ledger.startLog('a');
    ledger.add(outside(chain(), 't', resumedAt, { pausedAt: null, resumeTokenHash: h(1) }), 2);
    // The same token ended at another time: a pause ends once.
    ledger.add(outside(chain(), 't', '2026-01-01T11:00:00.000Z', { pausedAt: null, resumeTokenHash: h(1) }), 3);
    const verdict = ledger.finish();
    expect(verdict.paired.map((p) => [p.pause.begun.file, p.end.ended.file, p.end.ended.line])).toEqual([
      ['b', 'a', 2],
    ]);
    expect(verdict.orphans.map((o) => o.ended.line)).toEqual([3]);
    expect(verdict.lost).toEqual([]);
  });

  it('pairs a timeout shown only as a resume through another log by the deadline the pause stated', () => {
    const ledger = new FleetLedger();
    const a = chain();
    ledger.startLog('a');
    const timed = (taskId: string, pausedAt: string, pausedUntil: string, n: number): ReceiptLogLine =>
      a.sealSuspension({
        ...suspensionDraftFor(0),
        taskId,
        pausedAt,
        pausedUntil,
        conditions: { timeout: { durationMinutes: 30, onTimeout: 'resume' } },
        resumeTokenHash: h(n),
      }).receipt.line;
    ledger.add(timed('t', '2026-01-01T09:00:00.000Z', '2026-01-01T09:30:00.000Z', 1), 2);
    // Two pauses of u with the same deadline: the timeout cannot say which.
    ledger.add(timed('u', '2026-01-01T09:00:00.000Z', '2026-01-01T09:30:00.000Z', 2), 3);
    ledger.add(timed('u', '2026-01-01T09:10:00.000Z', '2026-01-01T09:30:00.000Z', 3), 4);
    ledger.startLog('b');
    const b = chain();
    const timeout = (taskId: string, at: string): ReceiptLogLine =>
      b.sealResumption(
        { ...resumptionDraftFor(1, 'resumed', taskId), cause: 'timeout', resumedAt: at },
        { pausedAt: null, resumeTokenHash: null },
      ).receipt.line;
    ledger.add(timeout('t', '2026-01-01T09:30:00.000Z'), 2);
    ledger.add(timeout('u', '2026-01-01T09:30:00.000Z'), 3);
    // A timeout at another instant than any deadline stated is not tied to a pause by it.
    ledger.add(timeout('t', '2026-01-01T09:45:00.000Z'), 4);
    const verdict = ledger.finish();
    expect(verdict.paired.map((p) => [p.pause.begun.line, p.end.ended.line])).toEqual([[2, 2]]);
    expect(verdict.ambiguous.map((x) => [x.end.ended.line, x.candidates.map((p) => p.begun.line)])).toEqual([
      [3, [3, 4]],
    ]);
    // Pause t ended at its deadline, as B saw; the later timeout names a pause no log holds.
    expect(verdict.orphans.map((o) => o.ended.line)).toEqual([4]);
    expect(verdict.lost).toEqual([]);
  });

  it('never gives a FireEvent answer a pause its own log saw end another way', () => {
    const ledger = new FleetLedger();
    const a = chain();
    ledger.startLog('a');
    const begun = a.sealSuspension({ ...suspensionDraftFor(0), taskId: 't', resumeTokenHash: h(1) }).receipt;
    ledger.add(begun.line, 2, begun.hash);
    ledger.add(a.sealResumption(resumptionDraftFor(1, 'resumed', 't'), begun.hash).receipt.line, 3);
    ledger.startLog('b');
    const fired = chain().sealResumption(
      { ...resumptionDraftFor(2, 'resumed', 't'), cause: 'external_event', resumedAt: null },
      { pausedAt: null, resumeTokenHash: null },
    ).receipt.line;
    ledger.add(fired, 2);
    const verdict = ledger.finish();
    expect(verdict.paired).toEqual([]);
    expect(verdict.ambiguous).toEqual([]);
    expect(verdict.orphans.map((o) => [o.ended.file, o.cause])).toEqual([['b', 'external_event']]);
  });
});
