/**
 * Interruptions across a series (docs/design.md §6 "Series", §14.9): the reference peer's `ask:`
 * step (in the test's process) behind the recorder of `record --key --principal-from jwt-sub`. A
 * task left INPUT_REQUIRED when the recorder (`startRecorder`, in the test's process) rotates, or
 * when a real `record` process is stopped with SIGTERM and a recorder `--continue-from` its
 * recording starts, is carried: the next log's header lists its InterruptionReceipt, the answer
 * after the boundary makes a ContinuationReceipt naming that receipt's hash, the series verifies,
 * `lost` over the series reports only the interruption nobody answered, and `audit --kind
 * interruption` over it lists both, the one answered after the boundary continued. What `verify`,
 * `lost` and `audit` conclude, and the table `audit` prints, are read with the library calls those
 * commands make (test/helpers/verdicts.ts, cli/audit-tables.ts).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { type Recorder, type RecorderOptions, startRecorder } from '../../src/public/record.js';
import { auditNotes } from '../../src/public/receipts.js';
import { interruptionTableLines } from '../../cli/audit-tables.js';
import { auditVerdict, lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { bearer } from '../helpers/jwt.js';
import { type CliProcess, startRecordProcess, stopProcess } from '../helpers/cli-process.js';

let dir = '';
let key = '';
const procs: CliProcess[] = [];
/** What a test started in this process, closed after it whatever happens. */
const closers: { close: () => Promise<unknown> }[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'series-interruptions-'));
  key = join(dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'ask' }).keyFile()), { mode: 0o600 });
});
afterEach(async () => {
  for (const p of procs.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const c of closers.splice(0).reverse()) await c.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;

let messages = 0;
/** A blocking SendMessage of `text` by `sub` (on `taskId` when given): the task it answers with. */
async function send(url: string, text: string, sub: string, taskId?: string): Promise<{ id: string; state: string }> {
  messages += 1;
  const message = { messageId: `m-${messages}`, role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId } : {}) };
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: bearer(sub) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
  });
  const reply = (await res.json()) as { result?: { task: { id: string; status: { state: string } } } };
  if (!reply.result) throw new Error(`SendMessage failed: ${JSON.stringify(reply)}`);
  return { id: reply.result.task.id, state: reply.result.task.status.state };
}

async function peerHere(): Promise<RunningPeer> {
  const peer = await startPeer({ deterministic: true });
  closers.push(peer);
  return peer;
}

/** The recorder of `record --key KEY --principal-from jwt-sub`, in this process. */
async function recordHere(peer: RunningPeer, out: string, options: Partial<RecorderOptions> = {}): Promise<Recorder> {
  const recorder = await startRecorder({
    upstream: peer.url,
    out,
    key,
    principalFrom: 'jwt-sub',
    warn: () => undefined,
    ...options,
  });
  // Closed once: by the test, or after it when it failed first.
  let closed: ReturnType<Recorder['close']> | undefined;
  const close = (): ReturnType<Recorder['close']> => (closed ??= recorder.close());
  closers.push({ close });
  return { url: recorder.url, close };
}

/** `record --key KEY --principal-from jwt-sub ARGS` as a process. */
async function record(peer: RunningPeer, out: string, args: string[] = []): Promise<CliProcess> {
  const recorder = await startRecordProcess([
    '--upstream',
    peer.url,
    '--out',
    out,
    '--key',
    key,
    '--principal-from',
    'jwt-sub',
    ...args,
  ]);
  procs.push(recorder);
  return recorder;
}

interface Line {
  text: string;
  value: Json;
}

async function linesOf(file: string): Promise<Line[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((text) => ({ text, value: JSON.parse(text) as Json }));
}

/** The logs of the series `s` in `at`, in series order (as many as there are). */
async function seriesLogs(at: string): Promise<Line[][]> {
  const logs: Line[][] = [];
  for (let n = 1; ; n++) {
    const file = join(at, n === 1 ? 's.receipts.jsonl' : `s.${n}.receipts.jsonl`);
    const lines = await linesOf(file).catch(() => null);
    if (lines === null) return logs;
    logs.push(lines);
  }
}

/**
 * Where the receipts of task `taskId` are in `logs`: the log index of its InterruptionReceipt and
 * of its ContinuationReceipt, and both lines.
 */
function receiptsOf(logs: Line[][], taskId: string) {
  const find = (type: string) => {
    for (const [at, lines] of logs.entries()) {
      const line = lines.find((l) => l.value.type === type && l.value.taskId === taskId);
      if (line) return { at, line };
    }
    return undefined;
  };
  return { interruption: find('InterruptionReceipt'), continuation: find('ContinuationReceipt') };
}

/** The InterruptionReceipts the header of log `n` (0-based) carries in. */
function carriedBy(logs: Line[][], n: number): unknown[] {
  const series = logs[n]![0]!.value.series as { previous: { interruptions?: unknown[] } } | null;
  return series?.previous.interruptions ?? [];
}

/** What `lost --json` over the series in `at` says: its exit code and the interruptions it reports. */
async function lostOver(at: string): Promise<{ code: number | null; interruptions: Json[] }> {
  const lost = await lostVerdict([at], { keys: key });
  return { code: lost.code, interruptions: (lost.json as { interruptions: Json[] }).interruptions };
}

describe('an interruption open across a series', () => {
  it('is carried across a rotation: the next header lists it and the answer after it names its receipt', async () => {
    const at = join(dir, 'rotated');
    await mkdir(at);
    const peer = await peerHere();
    const recorder = await recordHere(peer, join(at, 's.jsonl'), { rotateBytes: 1 });
    const asked = await send(recorder.url, 'ask:approve_the_deploy?', 'bob');
    const unanswered = await send(recorder.url, 'ask:and_the_rollback?', 'bob');
    expect([asked.state, unanswered.state]).toEqual(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_INPUT_REQUIRED']);
    expect((await send(recorder.url, 'yes', 'alice', asked.id)).state).toBe('TASK_STATE_COMPLETED');
    expect((await recorder.close()).complete).toBe(true);

    const logs = await seriesLogs(at);
    const { interruption, continuation } = receiptsOf(logs, asked.id);
    expect(continuation!.at).toBeGreaterThan(interruption!.at);
    expect(continuation!.line.value).toMatchObject({
      interruption: sha256Prefixed(interruption!.line.text),
      cause: 'message',
      principal: 'jwt:sub=alice',
    });
    // Every header between the two lists it, exactly as sealed.
    for (let n = interruption!.at + 1; n <= continuation!.at; n++)
      expect(carriedBy(logs, n)).toContainEqual(interruption!.line.value);
    expect(carriedBy(logs, logs.length - 1)).not.toContainEqual(interruption!.line.value);

    const verified = await verifyVerdict([at], key);
    expect(verified.lines.join('\n')).toContain(`ok: ${logs.length} logs, each linked to the one before it`);
    expect(verified.code).toBe(0);
    const lost = await lostOver(at);
    expect(lost.interruptions.map((i) => [i.taskId, i.reason])).toEqual([[unanswered.id, 'never_continued']]);
    expect(lost.code).toBe(1);

    // `audit --kind interruption` over the series lists both, the answer in a later log closing its row.
    // What `audit --kind interruption` prints: the table (cli/audit-tables.ts) and its notes on stderr.
    const interruptionsOnly = { kind: 'interruption' } as const;
    const table = await auditVerdict([at], key, interruptionsOnly);
    expect(table.code).toBe(0);
    const rows = [...interruptionTableLines(table.audit!.interruptions)].join('\n').trimEnd().split('\n');
    expect(rows[0]).toMatch(/^TASK +STATE +PROMPT +INTERRUPTED AT +CONTINUED +FLAG +TRACE$/);
    expect(rows.slice(1).map((r) => r.split(/ {2,}/).slice(0, 2))).toEqual([
      [asked.id, 'INPUT_REQUIRED'],
      [unanswered.id, 'INPUT_REQUIRED'],
    ]);
    expect(rows[1]).toContain('continued (message) at ');
    expect(rows[1]).toContain('by jwt:sub=alice with sha256:');
    expect(rows[2]).toContain('still open');
    const stderr = `${auditNotes(table.audit!, interruptionsOnly).join('; ')}\n`;
    expect(stderr).toMatch(new RegExp(`^2 interruptions; series .+ of ${logs.length} logs verified\\n$`));
    const json = await auditVerdict([at], key);
    expect(json.code).toBe(0);
    const listed = json.rows;
    expect(listed.map((r) => [r.kind, r.taskId, r.outcome])).toEqual([
      ['interruption', asked.id, 'continued'],
      ['interruption', unanswered.id, 'open'],
    ]);
    // Its line is the continuation's line in the later log that holds it.
    const continuedAtLine = logs[continuation!.at]!.indexOf(continuation!.line) + 1;
    expect(listed[0]).toMatchObject({ continuedBy: 'jwt:sub=alice', continuedAtLine });
  }, 60_000);

  it('is carried across SIGTERM and --continue-from: the answer to the new recorder names its receipt', async () => {
    const at = join(dir, 'continued');
    await mkdir(at);
    const peer = await peerHere();
    const first = await record(peer, join(at, 's.jsonl'));
    const asked = await send(first.url, 'ask:approve_the_deploy?', 'bob');
    expect(asked.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(await stopProcess(first, 'SIGTERM')).toBe(0);

    const second = await recordHere(peer, join(at, 's.2.jsonl'), { continueFrom: join(at, 's.jsonl') });
    expect((await send(second.url, 'yes', 'alice', asked.id)).state).toBe('TASK_STATE_COMPLETED');
    expect((await second.close()).complete).toBe(true);

    const logs = await seriesLogs(at);
    expect(logs).toHaveLength(2);
    const { interruption, continuation } = receiptsOf(logs, asked.id);
    expect([interruption!.at, continuation!.at]).toEqual([0, 1]);
    expect(carriedBy(logs, 1)).toEqual([interruption!.line.value]);
    expect(continuation!.line.value).toMatchObject({
      interruption: sha256Prefixed(interruption!.line.text),
      cause: 'message',
      principal: 'jwt:sub=alice',
    });

    const verified = await verifyVerdict([at], key);
    expect(verified.lines.join('\n')).toContain('ok: 2 logs, each linked to the one before it');
    expect(await lostOver(at)).toEqual({ code: 0, interruptions: [] });
  }, 60_000);
});
