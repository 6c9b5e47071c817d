/**
 * Version 5: a ResumptionReceipt may name a suspension outside its log (docs/design.md §6, §17).
 * Such a log verifies on its own; its outside references are counted and listed, never holes; the
 * member is refused where its version does not have it.
 */
import { describe, expect, it } from 'vitest';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { Keyring } from '../../src/receipts/keys.js';
import { signReceipt } from '../../src/receipts/signing.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import type { ReceiptLogVersion, ResumptionReceipt } from '../../src/receipts/types.js';
import { verifyReceiptLogBytes } from '../../src/receipts/verify.js';
import { fixedKey, resumptionDraftFor, suspensionDraftFor, taskFor } from './fixtures.js';

const key = fixedKey('key-out');
const keyring = new Keyring([key]);
const TOKEN_HASH = `sha256:${'ab'.repeat(32)}`;

function chainOf(version: ReceiptLogVersion): ReceiptChain {
  return new ReceiptChain({
    keyring,
    recording: 'rec-out',
    createdAt: '2026-01-01T00:00:00.000Z',
    tool: 'a2a-replay@test',
    version,
  });
}

/** A version-5 log: one suspension closed in the log, two resumptions of pauses outside it. */
function outsideLog(): string[] {
  const chain = chainOf(5);
  const lines = [chain.header.text];
  const s = chain.sealSuspension(suspensionDraftFor(0));
  lines.push(s.receipt.text);
  lines.push(chain.sealResumption(resumptionDraftFor(1, 'resumed', taskFor(0)), s.receipt.hash).receipt.text);
  const outside = { pausedAt: null, resumeTokenHash: TOKEN_HASH };
  lines.push(chain.sealResumption(resumptionDraftFor(2, 'resumed', 'task-b'), outside).receipt.text);
  const unknown = { pausedAt: '2026-01-01T09:00:00.000Z', resumeTokenHash: null };
  lines.push(chain.sealResumption(resumptionDraftFor(3, 'resumed', 'task-c'), unknown).receipt.text);
  lines.push(chain.close()!.text);
  return lines;
}

const bytes = (lines: string[]): string => lines.map((l) => `${l}\n`).join('');

/** `line` re-signed after `edit` (a writer with the key could write it: only the format refuses it). */
function resigned(line: string, edit: (r: Record<string, unknown>) => void): string {
  const r = JSON.parse(line) as Record<string, unknown>;
  delete r.sig;
  edit(r);
  const sig = signReceipt(r as unknown as Parameters<typeof signReceipt>[0], key);
  return canonicalJson({ ...r, sig });
}

describe('resumptions of suspensions outside the log', () => {
  it('verify a version-5 log alone, counting and listing each outside reference', () => {
    const result = verifyReceiptLogBytes(bytes(outsideLog()), { keyring });
    expect(result.firstError).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(result.version).toBe(5);
    expect(result.outsideCount).toBe(2);
    expect(result.outside).toEqual([
      { line: 4, seq: 3, taskId: 'task-b', outcome: 'resumed', pausedAt: null, resumeTokenHash: TOKEN_HASH },
      {
        line: 5,
        seq: 4,
        taskId: 'task-c',
        outcome: 'resumed',
        pausedAt: '2026-01-01T09:00:00.000Z',
        resumeTokenHash: null,
      },
    ]);
  });

  it('write `outside: null` on a version-5 resumption of a suspension in the log', () => {
    const line = JSON.parse(outsideLog()[2]!) as ResumptionReceipt;
    expect(line.outside).toBeNull();
    expect(line.suspension).toMatch(/^sha256:/);
  });

  it('cannot be written in a version-4 log', () => {
    const chain = chainOf(4);
    expect(() =>
      chain.sealResumption(resumptionDraftFor(1, 'resumed', 'task-b'), { pausedAt: null, resumeTokenHash: null }),
    ).toThrow(/version-4 log cannot name a suspension outside it/);
  });

  it('fail a version-4 log whose resumption carries an outside member', () => {
    const chain = chainOf(4);
    const s = chain.sealSuspension(suspensionDraftFor(0));
    const r = chain.sealResumption(resumptionDraftFor(1, 'resumed', taskFor(0)), s.receipt.hash);
    const forged = resigned(r.receipt.text, (x) => (x.outside = null));
    const result = verifyReceiptLogBytes(bytes([chain.header.text, s.receipt.text, forged]), {
      keyring,
      allowOpen: true,
    });
    expect(result.firstError).toMatchObject({ line: 3, reason: 'malformed_line' });
    expect(result.firstError?.message).toContain('with an outside member in a version-4 log');
  });

  it('fail a version-5 resumption naming neither or both a suspension and a pause outside', () => {
    const lines = outsideLog();
    const neither = resigned(lines[3]!, (x) => (x.outside = null));
    const inLog = JSON.parse(lines[2]!) as ResumptionReceipt;
    const both = resigned(lines[3]!, (x) => (x.suspension = inLog.suspension));
    for (const [edited, what] of [
      [neither, 'neither a suspension nor'],
      [both, 'both a suspension and'],
    ] as const) {
      const result = verifyReceiptLogBytes(bytes([...lines.slice(0, 3), edited]), { keyring, allowOpen: true });
      expect(result.firstError?.reason).toBe('malformed_line');
      expect(result.firstError?.message).toContain(what);
    }
  });

  it('fail a version-5 resumption without its outside member', () => {
    const lines = outsideLog();
    const dropped = resigned(lines[2]!, (x) => delete x.outside);
    const result = verifyReceiptLogBytes(bytes([...lines.slice(0, 2), dropped]), { keyring, allowOpen: true });
    expect(result.firstError?.message).toContain('without an outside member in a version-5 log');
  });
});
