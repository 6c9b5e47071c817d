/**
 * Polling clients through a real keyed recorder with `traces` (`startRecorder`, what
 * `a2a-replay record --key --traces` runs) in front of the real deterministic reference peer
 * (`startPeer`), both in this process: a self-park resumed by FireEvent, a timeout that fails
 * the task, a sleep-until that wakes up, and an external event naming the task, each seen only by
 * GetTask polls. Every pause is closed by an inferred ResumptionReceipt with the right cause:
 * `lost` exits 0, `audit` shows each suspension closed, and the trace holds no LostPause span. The
 * verdicts are the library calls the commands make; the built CLI prints `lost`'s line and
 * `audit`'s table.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { startPeer } from '../../src/public/peer.js';
import { type ReceiptKey, generateReceiptKey } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { runCli } from '../helpers/cli.js';
import { auditVerdict, lostVerdict } from '../helpers/verdicts.js';

const STEP = 1000;
let dir = '';
let recording = '';
let keyFile = '';
let key: ReceiptKey;
const tasks: Record<string, string> = {};

interface TaskResult {
  task: { id: string; status: { state: string } };
}

/** Starts a task without waiting (`returnImmediately`), as a polling client does. */
async function start(client: A2aTestClient, script: string, messageId: string): Promise<string> {
  const { task } = await client.ok<TaskResult>('SendMessage', {
    message: { messageId, role: 'ROLE_USER', parts: [{ text: script }] },
    configuration: { returnImmediately: true },
  });
  return task.id;
}

async function stateOf(client: A2aTestClient, id: string): Promise<string> {
  const task = await client.ok<{ status: { state: string } }>('GetTask', { id });
  return task.status.state;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracing-polling-'));
  recording = join(dir, 'polling.jsonl');
  keyFile = join(dir, 'key.json');
  let n = 0;
  key = generateReceiptKey({ kid: 'poll-key', random: (size) => new Uint8Array(size).map(() => n++ & 0xff) });
  await writeFile(keyFile, JSON.stringify(key.keyFile()));
  const peer = await startPeer({ deterministic: true });
  const recorder = await startRecorder({
    upstream: peer.url,
    out: recording,
    key: keyFile,
    traces: join(dir, 'traces'),
    warn: () => undefined,
  });
  try {
    const client = new A2aTestClient(recorder.url, 'operator');
    // 1. A self-park on an event, resumed by FireEvent of that event.
    tasks.fired = await start(client, 'work:1 await:approval:30 work:1', 'poll-fired');
    await client.control('AdvanceClock', { ms: STEP });
    expect(await stateOf(client, tasks.fired)).toBe('TASK_STATE_PAUSED');
    await client.control('FireEvent', { name: 'approval' });
    await client.control('AdvanceClock', { ms: STEP });
    expect(await stateOf(client, tasks.fired)).toBe('TASK_STATE_COMPLETED');
    // 2. A self-park whose timeout fails the task.
    tasks.timeout = await start(client, 'work:1 await:approval:30:fail work:1', 'poll-timeout');
    await client.control('AdvanceClock', { ms: STEP });
    expect(await stateOf(client, tasks.timeout)).toBe('TASK_STATE_PAUSED');
    await client.control('AdvanceClock', { ms: 30 * 60_000 });
    expect(await stateOf(client, tasks.timeout)).toBe('TASK_STATE_FAILED');
    // 3. A sleep until a time the clock then reaches.
    tasks.sleep = await start(client, 'work:1 sleep-until:2026-01-01T01:00:00Z work:1', 'poll-sleep');
    await client.control('AdvanceClock', { ms: STEP });
    expect(await stateOf(client, tasks.sleep)).toBe('TASK_STATE_PAUSED');
    await client.control('AdvanceClock', { ms: 40 * 60_000 });
    await client.control('AdvanceClock', { ms: STEP });
    expect(await stateOf(client, tasks.sleep)).toBe('TASK_STATE_COMPLETED');
    // 4. An external event that names the task (not its onEvent).
    tasks.external = await start(client, 'work:1 await:review work:1', 'poll-external');
    await client.control('AdvanceClock', { ms: STEP });
    expect(await stateOf(client, tasks.external)).toBe('TASK_STATE_PAUSED');
    await client.control('FireEvent', { name: 'operator.override', payload: { taskId: tasks.external } });
    await client.control('AdvanceClock', { ms: STEP });
    expect(await stateOf(client, tasks.external)).toBe('TASK_STATE_COMPLETED');
  } finally {
    await recorder.close();
    await peer.close();
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('polling clients through record --key', () => {
  it('leaves no lost pause: lost exits 0', async () => {
    const r = await runCli(['lost', recording]);
    expect(r.stdout).toBe(`no lost pauses in ${recording} (recording)\n`);
    expect(r.code).toBe(0);
    const log = await lostVerdict([recording.replace(/\.jsonl$/, '.receipts.jsonl')], { keys: key });
    expect(log.code).toBe(0);
  });

  it('shows every suspension closed in audit, with the right cause', async () => {
    const r = await auditVerdict([recording.replace(/\.jsonl$/, '.receipts.jsonl')], key);
    expect(r.code, r.why ?? '').toBe(0);
    const rows = r.rows as unknown as { taskId: string; outcome: string; cause: string | null }[];
    const byTask = Object.fromEntries(rows.map((row) => [row.taskId, [row.outcome, row.cause]]));
    expect(byTask).toEqual({
      [tasks.fired as string]: ['resumed', 'condition_fired'],
      [tasks.timeout as string]: ['failed', 'timeout'],
      [tasks.sleep as string]: ['resumed', 'condition_fired'],
      [tasks.external as string]: ['resumed', 'external_event'],
    });
    const table = await runCli(['audit', recording.replace(/\.jsonl$/, '.receipts.jsonl'), '--key', keyFile]);
    expect(table.stdout).not.toContain('still open');
  });

  it('marks each resumption inferred and cites the control call that proves it', async () => {
    const lines = (await readFile(recording.replace(/\.jsonl$/, '.receipts.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; taskId?: string; inferred?: boolean; entries?: number[] });
    const entries = (await readFile(recording, 'utf8'))
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as { seq: number; http: { path: string } });
    const controls = new Set(entries.filter((e) => e.http.path === '/control').map((e) => e.seq));
    const resumptions = lines.filter((l) => l.type === 'ResumptionReceipt');
    expect(resumptions).toHaveLength(4);
    for (const r of resumptions) {
      expect(r.inferred, r.taskId).toBe(true);
      expect(
        r.entries?.some((seq) => controls.has(seq)),
        r.taskId,
      ).toBe(true);
    }
  });

  it('writes a trace with a Resume span per pause and no LostPause span', async () => {
    const files = await readdir(join(dir, 'traces'));
    expect(files).toEqual(['polling.otlp.json']);
    const trace = JSON.parse(await readFile(join(dir, 'traces', 'polling.otlp.json'), 'utf8')) as {
      resourceSpans: { scopeSpans: { spans: { name: string; status?: { code?: number } }[] }[] }[];
    };
    const names = trace.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((span) => span.name)));
    expect(names.filter((n) => n === 'LostPause')).toEqual([]);
    expect(names.filter((n) => n === 'Suspension')).toHaveLength(4);
    expect(names.filter((n) => n === 'Resume')).toHaveLength(4);
  });
});
