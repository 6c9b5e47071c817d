/**
 * The report's section for a receipt log says what `verify` would of its end: a log cut after its
 * last checkpoint, or torn, is shown as such and never plainly "verified".
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { buildResumptionDraft, buildSuspensionDraft } from '../../src/receipts/drafts.js';
import { Keyring, generateReceiptKey, readKeyFile } from '../../src/receipts/keys.js';
import { receiptLogSection } from '../../src/report/build-report.js';
import { tempDir } from '../helpers/temp-dir.js';

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
  const dir = await tempDir('report-section-');
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

it('does not call a log verified when only a public key was given and no checkpoint vouches for it', async () => {
  const key = generateReceiptKey({ kid: 'r' });
  const publicOnly = new Keyring([readKeyFile(key.publicKeyFile(), 'pub')]);
  // A forger's own key under the same kid: receipts it signs pass no HMAC check, but a public
  // key checks none, and without a checkpoint (which needs the Ed25519 secret) nothing signed is left.
  const forger = new Keyring([generateReceiptKey({ kid: 'r' })]);
  const chain = new ReceiptChain({
    keyring: forger,
    recording: 'rec',
    createdAt: at(0),
    tool: 't',
    checkpointEvery: 0,
  });
  const forged = chain.sealSuspension(
    buildSuspensionDraft({
      taskId: 'task-f',
      initiatedBy: 'PAUSE_INITIATOR_CLIENT',
      via: 'PauseTask',
      pausedAt: at(1),
      observedAt: at(1),
      entries: [1],
      span: span(1),
    }),
  ).receipt;
  const file = join(await tempDir('report-forged-'), 'forged.receipts.jsonl');
  writeFileSync(file, `${chain.header.text}\n${forged.text}\n`);
  const section = await receiptLogSection(file, publicOnly);
  expect(section.verdict).not.toMatch(/verified(, OPEN)?$/);
  expect(section.verdict).toMatch(/NOT VERIFIED/);
  expect(section.rows.map((r) => r.verification.status)).toEqual(['not checked']);
  expect(section.notes.join('\n')).toContain('no signature was checked');
  // With the checkpoints it signed, the genuine log is verified with the public key alone.
  const genuine = new ReceiptChain({ keyring: new Keyring([key]), recording: 'rec', createdAt: at(0), tool: 't' });
  const receipt = genuine.sealSuspension(
    buildSuspensionDraft({
      taskId: 'task-g',
      initiatedBy: 'PAUSE_INITIATOR_CLIENT',
      via: 'PauseTask',
      pausedAt: at(1),
      observedAt: at(1),
      entries: [1],
      span: span(1),
    }),
  ).receipt;
  writeFileSync(file, `${genuine.header.text}\n${receipt.text}\n${genuine.close()?.text ?? ''}\n`);
  expect((await receiptLogSection(file, publicOnly)).verdict).toMatch(/, verified$/);
});
