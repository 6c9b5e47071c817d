/**
 * Series of receipt logs (docs/design.md §6, "Series"): a continuing log's header link, the
 * suspensions and interruptions it carries, and the check of a series' files against each other.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { Keyring } from '../../src/receipts/keys.js';
import { readLogToContinue, verifySeries } from '../../src/receipts/series.js';
import { buildContinuationDraft, buildInterruptionDraft } from '../../src/receipts/interruption-drafts.js';
import { interruptionHash, seriesLinkAfter, suspensionHash } from '../../src/receipts/series-link.js';
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

const SPAN = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };

/** A closed log of `recording` asking on `asked` (INPUT_REQUIRED), after continuing those `answer` names. */
function askingLog(recording: string, asked: string[], series: SeriesLink | null, answer: string[] = []): string {
  const chain = new ReceiptChain({ keyring, checkpointEvery: 0, recording, createdAt: CREATED_AT, tool: 't', series });
  const lines = [chain.header.text];
  answer.forEach((hash, i) => {
    const taskId = series!.previous.interruptions![i]!.taskId;
    const draft = buildContinuationDraft({
      taskId,
      cause: 'message',
      principal: 'jwt:sub=alice',
      input: [{ text: 'yes' }],
      observedAt: CREATED_AT,
      entries: [2],
      span: SPAN,
      interruptionSpan: SPAN,
      binding: 'JSONRPC',
    });
    lines.push(chain.sealContinuation(draft, hash).receipt.text);
  });
  for (const taskId of asked) {
    const draft = buildInterruptionDraft({
      taskId,
      contextId: null,
      state: 'TASK_STATE_INPUT_REQUIRED',
      prompt: [{ text: 'approve?' }],
      interruptedAt: null,
      observedAt: CREATED_AT,
      entries: [1],
      span: SPAN,
      binding: 'JSONRPC',
    });
    lines.push(chain.sealInterruption(draft).receipt.text);
  }
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

  it('carries the interruptions open at the end of a log, and verifies a continuation of one in the next', async () => {
    const first = await write('i.receipts.jsonl', askingLog('rec-i', ['task-x', 'task-y'], null));
    const { end } = await readLogToContinue(first, keyring);
    expect(end.interruptions.map((i) => i.taskId)).toEqual(['task-x', 'task-y']);
    const link = seriesLinkAfter(end);
    expect(link.previous.interruptions).toEqual(end.interruptions);
    const second = await write(
      'i.2.receipts.jsonl',
      askingLog('rec-j', [], link, [interruptionHash(end.interruptions[0]!)]),
    );
    expect(await verifySeries([first, second], { keyring })).toMatchObject({ ok: true });
    // The one not continued is carried on.
    const third = seriesLinkAfter((await readLogToContinue(second, keyring)).end);
    expect(third.previous.interruptions?.map((i) => i.taskId)).toEqual(['task-y']);
  });

  it('leaves the interruptions out of a link when none is open, and refuses an edited carried one', async () => {
    const none = await write('k.receipts.jsonl', logText('rec-k', [1], null));
    expect('interruptions' in seriesLinkAfter((await readLogToContinue(none, keyring)).end).previous).toBe(false);
    const first = await write('l.receipts.jsonl', askingLog('rec-l', ['task-x'], null));
    const link = seriesLinkAfter((await readLogToContinue(first, keyring)).end);
    link.previous.interruptions![0]!.state = 'TASK_STATE_AUTH_REQUIRED';
    const result = verifyReceiptLogBytes(askingLog('rec-m', [], link), { keyring });
    expect(result.firstError).toMatchObject({ line: 1, reason: 'bad_signature' });
    expect(result.firstError?.message).toContain('carried interruption 1');
    // A link holds the member only when some are open.
    link.previous.interruptions = [];
    expect(verifyReceiptLogBytes(askingLog('rec-m', [], link), { keyring }).firstError).toMatchObject({
      line: 1,
      reason: 'malformed_line',
    });
  });

  it('names a link that leaves out an interruption its predecessor ends with open', async () => {
    const first = await write('n.receipts.jsonl', askingLog('rec-n', ['task-x'], null));
    const link = seriesLinkAfter((await readLogToContinue(first, keyring)).end);
    delete link.previous.interruptions;
    const second = await write('n.2.receipts.jsonl', askingLog('rec-o', [], link));
    const series = await verifySeries([first, second], { keyring });
    expect(series.ok).toBe(false);
    expect(series.error?.message).toContain('carries 0 open interruptions from');
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
