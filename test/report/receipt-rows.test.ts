/**
 * A long receipt log's report lists the first pauses and every open or lost one, and counts the
 * rest by how they ended (docs/design.md §12), so its memory does not grow with the log.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { receiptLogSection } from '../../src/report/build-report.js';
import { renderHtmlReport } from '../../src/report/html-report.js';
import { REPORT_LISTED_PAUSES } from '../../src/report/receipt-rows.js';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { Keyring } from '../../src/receipts/keys.js';
import { CREATED_AT, fixedKey, resumptionDraftFor, suspensionDraftFor, taskFor } from '../receipts/fixtures.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'receipt-rows-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const keyring = new Keyring([fixedKey('rows-key')]);

/**
 * A closed log of `pauses` pauses: every tenth canceled, the rest resumed, but the last `open`,
 * which no resumption closes (lost as the log ends).
 */
async function pauseLog(pauses: number, open: number): Promise<string> {
  const chain = new ReceiptChain({
    keyring,
    checkpointEvery: 64,
    recording: 'rows',
    createdAt: CREATED_AT,
    tool: 'a2a-replay@test',
  });
  const lines = [chain.header.text];
  for (let n = 0; n < pauses; n++) {
    const suspension = chain.sealSuspension(suspensionDraftFor(2 * n));
    lines.push(suspension.receipt.text);
    if (suspension.checkpoint) lines.push(suspension.checkpoint.text);
    if (n >= pauses - open) continue;
    const outcome = n % 10 === 0 ? 'canceled' : 'resumed';
    const end = chain.sealResumption(resumptionDraftFor(2 * n + 1, outcome, taskFor(2 * n)), suspension.receipt.hash);
    lines.push(end.receipt.text);
    if (end.checkpoint) lines.push(end.checkpoint.text);
  }
  const last = chain.close();
  if (last) lines.push(last.text);
  const file = join(dir, 'rows.receipts.jsonl');
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

describe('the report of a long receipt log', () => {
  it('lists the first pauses and every lost one, and counts the rest by how they ended', async () => {
    const total = REPORT_LISTED_PAUSES + 10;
    const section = await receiptLogSection(await pauseLog(total, 5), keyring);
    // 1,000 listed, then 5 ended (counted) and 5 open (lost, listed).
    expect(section.rows).toHaveLength(REPORT_LISTED_PAUSES + 5);
    expect(section.rows.filter((r) => r.outcome === 'lost')).toHaveLength(5);
    expect(section.rows.slice(REPORT_LISTED_PAUSES).every((r) => r.outcome === 'lost')).toBe(true);
    expect(section.unlisted).toEqual({ count: 5, outcomes: { canceled: 1, resumed: 4 } });
    expect(section.verdict).toMatch(new RegExp(`^${total} pauses, 5 lost, verified`));
    expect(section.notes[0]).toBe(
      `5 more pauses counted and not listed (1 canceled, 4 resumed): the first ${REPORT_LISTED_PAUSES} ` +
        'and every one open or lost are listed',
    );
    const lanePauses = section.lanes.reduce((n, lane) => n + lane.pauses.length, 0);
    expect(lanePauses).toBe(REPORT_LISTED_PAUSES + 5);
    const html = renderHtmlReport({ title: 't', createdAt: CREATED_AT, sections: [section] });
    expect(html).toContain(`${total} pauses ·`);
    expect(html.match(/<li class="lost-item"/g)).toHaveLength(5);
  });

  it('lists every pause of a log no longer than the listed ones, with no note', async () => {
    const section = await receiptLogSection(await pauseLog(REPORT_LISTED_PAUSES, 2), keyring);
    expect(section.rows).toHaveLength(REPORT_LISTED_PAUSES);
    expect(section.unlisted).toBeUndefined();
    expect(section.verdict).toMatch(new RegExp(`^${REPORT_LISTED_PAUSES} pauses, 2 lost, verified`));
    expect(section.notes.some((n) => n.includes('not listed'))).toBe(false);
  });
});
