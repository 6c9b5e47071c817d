/**
 * `record --rotate-bytes` (docs/design.md §6, "Rotation"): one session through a rotating
 * recorder, with a pause begun in the first file and resumed past the third, and an SSE stream
 * open across rotations, gives a series that verifies as a directory, whose `lost` and `audit`
 * equal those of one unrotated log of the same session, and whose recordings hold every entry of
 * the session once, in order. The recorder is `record`'s (`startRecorder` with `rotateBytes`,
 * `rotateAfter`), in front of the reference peer, both in the test's process; what `verify`,
 * `lost` and `audit` conclude is read with the library calls those commands make
 * (test/helpers/verdicts.ts). A duration it cannot read is refused as `record` refuses it
 * (cli/record-flags.ts `usageFailure`; a `record` process shows that mapping in
 * test/e2e/record-secrets.test.ts).
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient, resumedEvent, stateOf, taskIdOf, userMessage } from '../../scripts/golden/a2a-client.js';
import { type JsonValue, canonicalJson, sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { startPeer } from '../../src/public/peer.js';
import { type RecorderOptions, startRecorder } from '../../src/public/record.js';
import { summaryLine, usageFailure } from '../../cli/record-flags.js';
import { auditVerdict, lostVerdict, verifyVerdict } from '../helpers/verdicts.js';

let dir = '';
let keyFile = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-rotate-'));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'rotate' }).keyFile()), { mode: 0o600 });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Calls that make the recording grow (each an exchange of two entries). */
async function filler(client: A2aTestClient, taskId: string, calls: number): Promise<void> {
  for (let i = 0; i < calls; i += 1) await client.ok('GetTask', { id: taskId });
}

/**
 * The session: task A paused first; a stream opened and its task paused through it; traffic;
 * A resumed, then the streamed task, its stream seeing the resume; traffic; A paused again and
 * left paused; the stream closed.
 */
async function session(url: string): Promise<void> {
  const client = new A2aTestClient(url);
  const { task } = await client.ok<{ task: { id: string } }>('SendMessage', {
    ...userMessage('work:3', 'm-a'),
    configuration: { returnImmediately: true },
  });
  const pausedA = await client.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId: task.id, reason: 'a' });
  const stream = client.stream('SendStreamingMessage', userMessage('work:3', 'm-s'));
  const streamed = taskIdOf(await stream.next((e) => taskIdOf(e) !== undefined))!;
  const seenPaused = stream.next((e) => stateOf(e) === 'TASK_STATE_PAUSED');
  const pausedS = await client.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId: streamed, reason: 's' });
  await seenPaused;
  await filler(client, task.id, 6);
  await client.ok('ResumeTask', { taskId: task.id, resumeToken: pausedA.pause.resumeToken });
  const seenResumed = stream.next(resumedEvent);
  await client.ok('ResumeTask', { taskId: streamed, resumeToken: pausedS.pause.resumeToken });
  await seenResumed;
  await filler(client, task.id, 2);
  // Left paused: lost at the end of the session, rotated or not.
  await client.ok('PauseTask', { taskId: task.id, reason: 'c' });
  stream.abort();
}

/**
 * Runs the session on a fresh deterministic peer through the recorder with `options`; gives the
 * summary line `record` prints at the stop.
 */
async function recordSession(out: string, options: Partial<RecorderOptions>): Promise<string> {
  const peer = await startPeer({ deterministic: true, storeDir: `${out}.peer-store` });
  try {
    const recorder = await startRecorder({
      upstream: peer.url,
      out,
      key: keyFile,
      fsync: 'always',
      // The streamed task's stream, left by its client, never ends (the clock stands still): no grace.
      graceMs: 0,
      warn: () => undefined,
      ...options,
    });
    let summary;
    try {
      await session(recorder.url);
    } finally {
      summary = await recorder.close();
    }
    // `record` exits 0.
    expect(summary.complete).toBe(true);
    return summaryLine(summary);
  } finally {
    await peer.close();
  }
}

interface Line {
  text: string;
  value: Record<string, unknown> & { type?: string; reason?: string; suspension?: string; series?: unknown };
}

async function linesOf(file: string): Promise<Line[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .slice(0, -1)
    .map((line) => ({ text: line, value: JSON.parse(line) as Line['value'] }));
}

/**
 * Rows without the columns naming where a receipt is (file, line), and without what derives from
 * each recording's own random id: span ids, and so the hash of the receipt holding them (two
 * recordings of one session differ in those).
 */
function withoutPlace(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).filter(([k]) => !['file', 'line', 'closedAtLine', 'log', 'span', 'suspension'].includes(k)),
    ),
  );
}

describe('record --rotate-bytes', () => {
  const rotated = (): string => join(dir, 'rotated');
  let single = '';
  let stderr = '';
  let logs: string[] = [];
  let recordings: string[] = [];

  beforeAll(async () => {
    await mkdir(rotated());
    stderr = await recordSession(join(rotated(), 's.jsonl'), { rotateBytes: 4200 });
    single = join(dir, 'single.jsonl');
    await recordSession(single, {});
    const names = await readdir(rotated());
    const at = (n: number, suffix: string): string => join(rotated(), n === 1 ? `s${suffix}` : `s.${n}${suffix}`);
    const count = names.filter((n) => /^s(\.\d+)?\.receipts\.jsonl$/.test(n)).length;
    logs = Array.from({ length: count }, (_, i) => at(i + 1, '.receipts.jsonl'));
    recordings = Array.from({ length: count }, (_, i) => at(i + 1, '.jsonl'));
  }, 60_000);

  it('writes at least three pairs named by position, each log linked to the one before it', async () => {
    expect(logs.length).toBeGreaterThanOrEqual(3);
    const headers = await Promise.all(logs.map(async (log) => (await linesOf(log))[0]!));
    headers.forEach((header, i) => {
      if (i === 0) expect(header.value.series).toBeNull();
      else
        expect(header.value.series).toMatchObject({
          position: i + 1,
          previous: { header: sha256Prefixed(headers[i - 1]!.text), closed: true },
        });
    });
    // The summary names every file written.
    for (const file of [...recordings, ...logs]) expect(stderr).toContain(file);
  });

  it('holds the pause in the first log and its resume in the third or later, naming it by hash', async () => {
    const all = await Promise.all(logs.map(linesOf));
    const where = (test: (l: Line) => boolean): number => all.findIndex((lines) => lines.some(test));
    const suspensionA = all[0]!.find((l) => l.value.type === 'SuspensionReceipt' && l.value.reason === 'a');
    expect(suspensionA).toBeDefined();
    const resumed = where((l) => l.value.suspension === sha256Prefixed(suspensionA!.text));
    expect(resumed).toBeGreaterThanOrEqual(2);
  });

  it('cites entries by their number in the whole session, counting the files before', async () => {
    const session = (await Promise.all(recordings.map(linesOf))).flatMap((lines) =>
      lines.filter((l) => l.value.type === undefined),
    );
    const all = (await Promise.all(logs.map(linesOf))).flat();
    const methodsCited = (reason: string): unknown[] => {
      const suspension = all.find((l) => l.value.type === 'SuspensionReceipt' && l.value.reason === reason)!;
      const resumption = all.find((l) => l.value.suspension === sha256Prefixed(suspension.text))!;
      return (resumption.value.entries as number[]).map(
        (n) => (session[n - 1]?.value.body as { method?: string } | undefined)?.method,
      );
    };
    expect(methodsCited('a')).toContain('ResumeTask');
    expect(methodsCited('s')).toContain('ResumeTask');
  });

  it('verifies the series given as its directory', async () => {
    const result = await verifyVerdict([rotated()], keyFile);
    expect(result.lines.join('\n')).toContain(`ok: ${logs.length} logs, each linked to the one before it`);
    expect(result.code).toBe(0);
  });

  it('gives the lost and audit rows of one unrotated log of the same session', async () => {
    const singleLog = single.replace(/\.jsonl$/, '.receipts.jsonl');
    const lostSeries = await lostVerdict([rotated()], { keys: keyFile });
    const lostSingle = await lostVerdict([singleLog], { keys: keyFile });
    expect(lostSeries.code).toBe(lostSingle.code);
    const lost = (json: unknown): Record<string, unknown>[] =>
      withoutPlace((json as { lost: Record<string, unknown>[] }).lost);
    expect(lost(lostSeries.json)).toHaveLength(1);
    expect(lost(lostSeries.json)).toEqual(lost(lostSingle.json));
    const auditSeries = await auditVerdict([rotated()], keyFile);
    const auditSingle = await auditVerdict([singleLog], keyFile);
    expect(auditSeries.code).toBe(auditSingle.code);
    const rows = auditSeries.rows;
    expect(rows.map((r) => [r.reason, r.outcome])).toEqual([
      ['a', 'resumed'],
      ['s', 'resumed'],
      ['c', 'open'],
    ]);
    expect(withoutPlace(rows)).toEqual(withoutPlace(auditSingle.rows));
  });

  it('records every entry of the session once, in order, over the files (the stream across them too)', async () => {
    const shape = (lines: Line[]): string[] =>
      lines
        .filter((l) => l.value.type === undefined)
        .map((l) => canonicalJson([l.value.kind, l.value.http as JsonValue]));
    const files = await Promise.all(recordings.map(linesOf));
    for (const lines of files)
      expect(lines.filter((l) => l.value.type === undefined).map((l) => l.value.seq)).toEqual(
        lines.filter((l) => l.value.type === undefined).map((_, i) => i + 1),
      );
    // A stream's events and the answers around them interleave as they arrive: compared as sets.
    expect(files.flatMap(shape).sort()).toEqual(shape(await linesOf(single)).sort());
  });
});

describe('record --rotate-after', () => {
  it('goes on in the next pair once the files have been open that long, the resume naming the pause', async () => {
    const at = join(dir, 'after');
    await mkdir(at);
    const peer = await startPeer({ deterministic: true, storeDir: join(at, 'peer-store') });
    const out = join(at, 's.jsonl');
    try {
      const recorder = await startRecorder({
        upstream: peer.url,
        out,
        key: keyFile,
        rotateAfter: '1s',
        warn: () => undefined,
      });
      let complete = false;
      try {
        const client = new A2aTestClient(recorder.url);
        const { task } = await client.ok<{ task: { id: string } }>('SendMessage', {
          ...userMessage('work:3', 'm-a'),
          configuration: { returnImmediately: true },
        });
        const paused = await client.ok<{ pause: { resumeToken: string } }>('PauseTask', {
          taskId: task.id,
          reason: 'a',
        });
        // More than the second the files may be open has passed on any clock once this settles.
        await new Promise((resolve) => setTimeout(resolve, 1100));
        await client.ok('ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
      } finally {
        complete = (await recorder.close()).complete;
      }
      expect(complete).toBe(true);
    } finally {
      await peer.close();
    }
    // The series in order: s, s.2, s.3, ... A loaded machine may rotate before the pause too (the
    // first second can pass while the recorder starts), but never lets pause and resume share a
    // pair: the resume comes more than a second after the pause.
    const names = (await readdir(at)).filter((n) => /^s(\.\d+)?\.receipts\.jsonl$/.test(n));
    const order = (n: string): number => Number(/^s\.(\d+)\./.exec(n)?.[1] ?? 1);
    const logs = await Promise.all(names.sort((a, b) => order(a) - order(b)).map((n) => linesOf(join(at, n))));
    expect(logs.length).toBeGreaterThanOrEqual(2);
    const pausedIn = logs.findIndex((lines) => lines.some((l) => l.value.type === 'SuspensionReceipt'));
    const resumedIn = logs.findIndex((lines) => lines.some((l) => l.value.type === 'ResumptionReceipt'));
    expect(pausedIn).toBeGreaterThanOrEqual(0);
    expect(resumedIn).toBeGreaterThan(pausedIn);
    const suspension = logs[pausedIn]!.find((l) => l.value.type === 'SuspensionReceipt')!;
    expect(logs[resumedIn]!.find((l) => l.value.type === 'ResumptionReceipt')?.value.suspension).toBe(
      sha256Prefixed(suspension.text),
    );
    const result = await verifyVerdict([at], keyFile);
    expect(result.lines.join('\n')).toContain(`ok: ${logs.length} logs, each linked to the one before it`);
  });

  it('refuses a duration it cannot read, naming the flag', async () => {
    // `record --rotate-after '15 minutes'` hands the text to the recorder, and says its refusal.
    const refused = await startRecorder({
      upstream: 'http://127.0.0.1:9',
      out: join(dir, 'never.jsonl'),
      rotateAfter: '15 minutes',
    }).then(
      async (recorder) => {
        await recorder.close();
        throw new Error('a duration it cannot read was taken');
      },
      (error: unknown) => {
        try {
          usageFailure(error);
        } catch (usage) {
          return usage as { exitCode: number; message: string };
        }
        throw new Error('not a usage error');
      },
    );
    expect(refused.message).toContain(
      '--rotate-after: expected a whole number of seconds, minutes or hours (90s, 15m, 24h); got "15 minutes"',
    );
    expect(refused.exitCode).toBe(2);
  });
});
