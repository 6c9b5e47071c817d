/**
 * Series of receipt logs (docs/design.md §6, "Series"): a continuing log's header link, the
 * suspensions it carries, and the check of a series' files against each other.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { Keyring } from '../../src/receipts/keys.js';
import { readLogToContinue, verifySeries } from '../../src/receipts/series.js';
import { seriesLinkAfter, suspensionHash } from '../../src/receipts/series-link.js';
import type { SeriesLink } from '../../src/receipts/types.js';
import { verifyReceiptLogBytes } from '../../src/receipts/verify.js';
import { CREATED_AT, fixedKey, resumptionDraftFor, suspensionDraftFor, taskFor } from './fixtures.js';

const keyring = new Keyring([fixedKey('key-series')]);
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'series-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A closed log of `recording`: resumptions of the first carried suspensions (by hash), then suspensions `pauses`. */
function logText(recording: string, pauses: number[], series: SeriesLink | null, resume: string[] = []): string {
  const chain = new ReceiptChain({
    keyring,
    checkpointEvery: 0,
    recording,
    createdAt: CREATED_AT,
    tool: 'a2a-replay@test',
    series,
  });
  const lines = [chain.header.text];
  resume.forEach((hash, i) => {
    const taskId = series!.previous.open[i]!.taskId;
    lines.push(chain.sealResumption(resumptionDraftFor(0, 'resumed', taskId), hash).receipt.text);
  });
  for (const n of pauses) lines.push(chain.sealSuspension(suspensionDraftFor(n)).receipt.text);
  lines.push(chain.close()!.text);
  return lines.map((l) => `${l}\n`).join('');
}

async function write(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe('a series of receipt logs', () => {
  it('carries the suspensions open at the end of a log, and verifies a resumption of one in the next', async () => {
    const first = await write('a.receipts.jsonl', logText('rec-a', [1], null));
    const { end } = await readLogToContinue(first, keyring);
    expect(end.open.map((s) => s.taskId)).toEqual([taskFor(1)]);
    const link = seriesLinkAfter(end);
    expect(link).toMatchObject({ id: 'rec-a', position: 2, previous: { recording: 'rec-a', closed: true } });
    const carriedHash = suspensionHash(end.open[0]!);
    const second = await write('a.2.receipts.jsonl', logText('rec-b', [], link, [carriedHash]));
    const series = await verifySeries([second, first], { keyring });
    expect(series).toMatchObject({ ok: true, id: 'rec-a', open: 0 });
    expect(series.members.map((m) => m.position)).toEqual([1, 2]);
  });

  it('refuses a carried suspension whose content was edited, at the header', async () => {
    const first = await write('b.receipts.jsonl', logText('rec-c', [1], null));
    const link = seriesLinkAfter((await readLogToContinue(first, keyring)).end);
    link.previous.open[0]!.reason = 'edited';
    const result = verifyReceiptLogBytes(logText('rec-d', [], link), { keyring });
    expect(result.firstError).toMatchObject({ line: 1, reason: 'bad_signature' });
    expect(result.firstError?.message).toContain('carried suspension 1');
  });

  it('names a predecessor that grew after its successor began', async () => {
    const before = logText('rec-e', [1], null);
    const first = await write('c.receipts.jsonl', before);
    const link = seriesLinkAfter((await readLogToContinue(first, keyring)).end);
    const second = await write('c.2.receipts.jsonl', logText('rec-f', [], link));
    // The first log, written again with one more suspension: same header, a later end.
    await write('c.receipts.jsonl', logText('rec-e', [1, 2], null));
    const series = await verifySeries([first, second], { keyring });
    expect(series.ok).toBe(false);
    expect(series.error?.message).toContain('lines were appended to it or cut from it after its successor began');
  });

  it('names a predecessor replaced by another continuation of the same series', async () => {
    const root = await write('d.receipts.jsonl', logText('rec-g', [1], null));
    const link = seriesLinkAfter((await readLogToContinue(root, keyring)).end);
    const second = await write('d.2.receipts.jsonl', logText('rec-h', [], link));
    const other = await write('other.receipts.jsonl', logText('rec-i', [], link));
    const third = await write(
      'd.3.receipts.jsonl',
      logText('rec-j', [], seriesLinkAfter((await readLogToContinue(other, keyring)).end)),
    );
    const series = await verifySeries([root, second, third], { keyring });
    const message = series.error?.message ?? '';
    expect(message).toMatch(/^log .*d\.3\.receipts\.jsonl links to sha256:\w+ \(recording rec-i\), but the given /);
    expect(message).toMatch(/predecessor .*d\.2\.receipts\.jsonl is sha256:\w+ \(recording rec-h\)$/);
  });
});
