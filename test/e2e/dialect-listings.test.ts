/**
 * The A2A version in the listings (docs/design.md §14.10), end to end: one session through a keyed
 * recorder with `principalFrom: 'jwt-sub'` (`startRecorder`, in front of `startPeer`) mixes
 * v0.3 and v1.0 JSON-RPC — a task paused with v0.3's `tasks/pause` and resumed with v1.0's
 * `ResumeTask`, a prompt asked in v1.0 and answered in v0.3, and in v0.3 alone a pause never
 * resumed and a prompt never answered. A pause seen in one dialect and resumed in the other is one
 * pause (one Suspension, one Resumption); `lost`, `audit` (text and `--json`) and the report name
 * each row's versions from the recorded entries' `a2aVersion`. The verdicts are the library calls
 * the commands make (the report's `reportSections` and `writeHtmlReport`, as `report` writes it);
 * the built CLI prints `lost`'s and `audit`'s tables.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { startPeer } from '../../src/public/peer.js';
import { type ReceiptKey, generateReceiptKey } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { reportSections, writeHtmlReport } from '../../src/public/report.js';
import { runCli } from '../helpers/cli.js';
import { bearer } from '../helpers/jwt.js';
import { auditVerdict, lostVerdict } from '../helpers/verdicts.js';

type Json = Record<string, unknown>;

let dir = '';
let out = '';
let log = '';
let key = '';
let receiptKey: ReceiptKey;
const tasks: Record<'resumed' | 'lost' | 'unanswered' | 'answered', string> = {
  resumed: '',
  lost: '',
  unanswered: '',
  answered: '',
};

/** One JSON-RPC call: v0.3 names with no A2A-Version, v1.0 names with `A2A-Version: 1.0`. */
async function call(base: string, method: string, params: Json, sub = 'bob'): Promise<Json> {
  const v10 = /^[A-Z]/.test(method);
  const res = await fetch(base, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: bearer(sub),
      ...(v10 ? { 'a2a-version': '1.0' } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: Json; error?: unknown };
  if (body.result === undefined) throw new Error(`${method}: ${JSON.stringify(body)}`);
  return body.result;
}

const v03Message = (text: string, taskId?: string): Json => ({
  message: {
    kind: 'message',
    messageId: `m-${text}-${taskId ?? 'new'}`,
    role: 'user',
    parts: [{ kind: 'text', text }],
    ...(taskId ? { taskId } : {}),
  },
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dialect-listings-'));
  key = join(dir, 'key.json');
  receiptKey = generateReceiptKey({ kid: 'mixed' });
  await writeFile(key, canonicalJson(receiptKey.keyFile()), { mode: 0o600 });
  out = join(dir, 'mixed.jsonl');
  log = join(dir, 'mixed.receipts.jsonl');
  const peer = await startPeer({ deterministic: true });
  try {
    const recorder = await startRecorder({
      ...{ upstream: peer.url, out, key, principalFrom: 'jwt-sub', warn: () => undefined },
    });
    try {
      const base = recorder.url;
      // Paused in v0.3, resumed in v1.0.
      const running = await call(base, 'message/send', { ...v03Message('work:5'), configuration: { blocking: false } });
      tasks.resumed = running.id as string;
      const paused = await call(base, 'tasks/pause', { taskId: tasks.resumed, mode: 'interrupt_immediate' });
      expect(paused).toMatchObject({ state: 'paused' });
      const token = (paused.pause as { resumeToken: string }).resumeToken;
      const resumed = await call(base, 'ResumeTask', { taskId: tasks.resumed, resumeToken: token }, 'alice');
      expect(resumed).toMatchObject({ state: 'TASK_STATE_WORKING', previousState: 'TASK_STATE_PAUSED' });
      // Paused in v0.3, never resumed.
      const other = await call(base, 'message/send', { ...v03Message('work:5'), configuration: { blocking: false } });
      tasks.lost = other.id as string;
      await call(base, 'tasks/pause', { taskId: tasks.lost, mode: 'interrupt_immediate' });
      // Asked in v0.3, never answered.
      const unanswered = await call(base, 'message/send', v03Message('input'));
      expect(unanswered).toMatchObject({ kind: 'task', status: { state: 'input-required' } });
      tasks.unanswered = unanswered.id as string;
      // Asked in v1.0, answered in v0.3.
      const asked = await call(base, 'SendMessage', {
        message: { messageId: 'n1', role: 'ROLE_USER', parts: [{ text: 'input' }] },
      });
      tasks.answered = (asked.task as { id: string }).id;
      const answered = await call(base, 'message/send', v03Message('yes', tasks.answered), 'alice');
      expect(answered).toMatchObject({ status: { state: 'completed' } });
    } finally {
      expect((await recorder.close()).complete).toBe(true);
    }
  } finally {
    await peer.close();
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a session mixing A2A 0.3 and 1.0', () => {
  it('receipts a pause asked in 0.3 and resumed in 1.0 as one pause', async () => {
    const receipts = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json)
      .filter((l) => String(l.type).endsWith('Receipt'));
    const of = (taskId: string): unknown[] => receipts.filter((r) => r.taskId === taskId).map((r) => r.type);
    expect(of(tasks.resumed)).toEqual(['SuspensionReceipt', 'ResumptionReceipt']);
    expect(receipts.find((r) => r.type === 'ResumptionReceipt')).toMatchObject({
      outcome: 'resumed',
      principal: 'jwt:sub=alice',
    });
    expect(of(tasks.answered)).toEqual(['InterruptionReceipt', 'ContinuationReceipt']);
  });

  it('lost names the versions of each lost pause and interruption, in text and --json', async () => {
    const json = await lostVerdict([out]);
    expect(json.code).toBe(1);
    const listed = json.json as unknown as { lost: Json[]; lostInterruptions: Json[] };
    expect(listed.lost).toEqual([expect.objectContaining({ taskId: tasks.lost, a2aVersions: ['0.3'] })]);
    expect(listed.lostInterruptions).toEqual([
      expect.objectContaining({ taskId: tasks.unanswered, a2aVersions: ['0.3'], reason: 'never_continued' }),
    ]);
    const text = await runCli(['lost', out]);
    expect(text.code).toBe(1);
    const lines = text.stdout.split('\n');
    expect(lines.filter((l) => l.startsWith('TASK'))).toEqual([
      expect.stringMatching(/^TASK\s+A2A\s+INITIATOR/),
      expect.stringMatching(/^TASK\s+A2A\s+STATE/),
    ]);
    expect(lines.find((l) => l.startsWith(tasks.lost))).toMatch(new RegExp(`^${tasks.lost}\\s+0\\.3\\s+`));
    expect(lines.find((l) => l.startsWith(tasks.unanswered))).toMatch(/^\S+\s+0\.3\s+INPUT_REQUIRED/);
  });

  it('audit --recording names each row its versions, 0.3+1.0 for one pause across both', async () => {
    const json = await auditVerdict([log], receiptKey, { recording: out });
    expect(json.code, json.why ?? '').toBe(0);
    const rows = json.rows;
    const row = (kind: string, taskId: string): Json | undefined =>
      rows.find((r) => r.kind === kind && r.taskId === taskId);
    expect(row('pause', tasks.resumed)).toMatchObject({ outcome: 'resumed', a2aVersions: ['0.3', '1.0'] });
    expect(row('pause', tasks.lost)).toMatchObject({ outcome: 'open', a2aVersions: ['0.3'] });
    expect(row('interruption', tasks.unanswered)).toMatchObject({ outcome: 'open', a2aVersions: ['0.3'] });
    expect(row('interruption', tasks.answered)).toMatchObject({ outcome: 'continued', a2aVersions: ['0.3', '1.0'] });
    expect(rows.filter((r) => r.kind === 'pause')).toHaveLength(2);

    const text = await runCli(['audit', log, '--key', key, '--recording', out, '--kind', 'pause']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^TASK\s+A2A\s+INITIATED BY/);
    expect(text.stdout).toMatch(new RegExp(`^${tasks.resumed}\\s+0\\.3\\+1\\.0\\s+client`, 'm'));
    // A log alone does not say which version its exchanges spoke: no column, no guess.
    const alone = await auditVerdict([log], receiptKey);
    expect(JSON.stringify(alone.rows)).not.toContain('a2aVersions');
  });

  it('the report names each row its versions', async () => {
    const html = join(dir, 'report.html');
    await writeHtmlReport(html, await reportSections([out]), 'a2a-replay report');
    const text = await readFile(html, 'utf8');
    const row = (taskId: string, kind: 'rows' | 'interruptions'): string =>
      new RegExp(`<table class="${kind}">[\\s\\S]*?(<tr[^>]*data-task="${taskId}"[\\s\\S]*?</tr>)`).exec(text)?.[1] ??
      '';
    expect(text).toContain('<th>A2A</th>');
    expect(row(tasks.resumed, 'rows')).toMatch(/<td class="c\d+">0\.3\+1\.0<\/td><\/tr>$/);
    expect(row(tasks.lost, 'rows')).toMatch(/<td class="c\d+">0\.3<\/td><\/tr>$/);
    expect(row(tasks.answered, 'interruptions')).toMatch(/<td class="c9">0\.3\+1\.0<\/td><\/tr>$/);
  });
});
