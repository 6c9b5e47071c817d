/**
 * The report's section for a receipt log says what `verify` would of its end: a log cut after its
 * last checkpoint, or torn, is shown as such and never plainly "verified".
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  Keyring,
  ReceiptChain,
  buildResumptionDraft,
  buildSuspensionDraft,
  generateReceiptKey,
  receiptLogSection,
} from '../../src/internal.js';

const at = (s: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const span = (n: number) => ({ traceId: String(n).padStart(32, 'a'), spanId: String(n).padStart(16, 'b') });

it('shows an open or torn log as such, with what it may be missing', async () => {
  const key = generateReceiptKey({ kid: 'r' });
  const keyring = new Keyring([key]);
  const chain = new ReceiptChain({ keyring, recording: 'rec', createdAt: at(0), tool: 't', checkpointEvery: 0 });
  const suspension = (taskId: string, s: number) =>
    chain.sealSuspension(
      buildSuspensionDraft({
        taskId,
        initiatedBy: 'PAUSE_INITIATOR_CLIENT',
        via: 'PauseTask',
        pausedAt: at(s),
        observedAt: at(s),
        entries: [s],
        span: span(s),
      }),
    ).receipt;
  const a = suspension('task-a', 1);
  const b = suspension('task-b', 2);
  const resumeA = chain.sealResumption(
    buildResumptionDraft({
      taskId: 'task-a',
      cause: 'explicit_resume',
      outcome: 'resumed',
      resumedAt: at(3),
      observedAt: at(3),
      entries: [3],
      span: span(3),
      links: { suspension: span(1) },
    }),
    a.hash,
  ).receipt;
  const lines = [chain.header.text, a.text, b.text, resumeA.text, chain.close()?.text ?? ''];
  const dir = await mkdtemp(join(tmpdir(), 'report-section-'));
  const write = (name: string, text: string): string => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const whole = await receiptLogSection(write('whole.jsonl', `${lines.join('\n')}\n`), keyring);
  expect(whole.verdict).toMatch(/, verified$/);
  expect(whole.notes).toEqual([]);
  // Cut before A's resumption: A shows open, and the section says why that may be.
  const cut = await receiptLogSection(write('cut.jsonl', `${lines.slice(0, 3).join('\n')}\n`), keyring);
  expect(cut.verdict).toMatch(/, verified, OPEN$/);
  expect(cut.notes).toEqual([
    'not closed by a checkpoint: 0 of 2 receipts vouched for; lines after the last checkpoint may be missing, ' +
      'so a pause shown open or lost may have been resumed in them',
  ]);
  const torn = await receiptLogSection(write('torn.jsonl', `${lines.slice(0, 4).join('\n')}\n{"type":"Chec`), keyring);
  expect(torn.verdict).toMatch(/, verified, OPEN$/);
  expect(torn.notes).toContain('torn last line 5 skipped');
});
