/**
 * The report of a fleet (docs/design.md §12, §17): a pause begun in one replica's log and resumed
 * in another's is one row, shown ended (not lost), saying which log and line saw each; a resumption
 * no given log pairs is noted as an orphan.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { buildResumptionDraft, buildSuspensionDraft, resumeTokenHashOf } from '../../src/receipts/drafts.js';
import { Keyring, generateReceiptKey } from '../../src/receipts/keys.js';
import { fleetSection } from '../../src/report/fleet-report.js';
import { tempDir } from '../helpers/temp-dir.js';

const at = (s: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const span = (n: number) => ({ traceId: String(n).padStart(32, 'a'), spanId: String(n).padStart(16, 'b') });

it('shows a pause resumed through another replica as ended there, and a pairless resumption as an orphan', async () => {
  const keyring = new Keyring([generateReceiptKey({ kid: 'a' }), generateReceiptKey({ kid: 'b' })]);
  const chainOf = (kid: 'a' | 'b') =>
    new ReceiptChain({
      keyring: new Keyring([keyring.get(kid)!]),
      recording: `rec-${kid}`,
      createdAt: at(0),
      tool: 't',
      checkpointEvery: 0,
      version: 5,
    });
  const a = chainOf('a');
  const paused = a.sealSuspension(
    buildSuspensionDraft({
      taskId: 'task-1',
      initiatedBy: 'PAUSE_INITIATOR_CLIENT',
      via: 'PauseTask',
      principal: 'jwt:sub=alice',
      resumeToken: 'tok-1',
      pausedAt: at(1),
      observedAt: at(1),
      entries: [1],
      span: span(1),
    }),
  ).receipt;
  const b = chainOf('b');
  const resume = (taskId: string, token: string) =>
    b.sealResumption(
      buildResumptionDraft({
        taskId,
        cause: 'explicit_resume',
        outcome: 'resumed',
        principal: 'jwt:sub=bob',
        resumedAt: at(5),
        observedAt: at(5),
        entries: [2],
        span: span(2),
        links: { suspension: span(1) },
      }),
      { pausedAt: null, resumeTokenHash: resumeTokenHashOf(token) },
    ).receipt;
  const resumed = resume('task-1', 'tok-1');
  const orphan = resume('task-9', 'tok-9');
  const dir = await tempDir('fleet-report-');
  const fileA = join(dir, 'a.receipts.jsonl');
  const fileB = join(dir, 'b.receipts.jsonl');
  writeFileSync(fileA, `${a.header.text}\n${paused.text}\n${a.close()?.text ?? ''}\n`);
  writeFileSync(fileB, `${b.header.text}\n${resumed.text}\n${orphan.text}\n${b.close()?.text ?? ''}\n`);

  const section = await fleetSection(
    [
      { id: 'a', files: [fileA] },
      { id: 'b', files: [fileB] },
    ],
    keyring,
  );
  expect(section.kind).toBe('fleet');
  expect(section.rows).toEqual([
    expect.objectContaining({
      taskId: 'task-1',
      outcome: 'resumed',
      ended: `resumed (explicit_resume) at ${at(5)}`,
      pausedIn: `${fileA}:2`,
      endedIn: `${fileB}:2`,
      verification: { status: 'verified', why: 'signature and chain' },
    }),
  ]);
  expect(section.verdict).toBe('1 pause, 0 lost, 1 orphan resumption, verified');
  expect(section.notes).toContain(
    `orphan: task task-9 resumed in ${fileB}:3 (seq 2), naming a pause outside its log that no given log holds`,
  );
  expect(section.lanes[0]?.pauses[0]).toMatchObject({ lost: null, to: Date.parse(at(5)) });

  // A's log alone: the pause is lost as its log ends.
  const alone = await fleetSection([{ id: 'a', files: [fileA] }], keyring);
  expect(alone.rows).toEqual([expect.objectContaining({ outcome: 'lost', pausedIn: `${fileA}:2`, endedIn: null })]);
});
