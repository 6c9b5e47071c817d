/**
 * The audit of a log set through the public entry (src/logs/log-set-audit.ts): the reference peer
 * and the library recorder run in this process, a client pauses tasks and the peer asks for input
 * and credentials (`ask:`, `auth:`). One log's audit lists pauses and interruptions in log order;
 * a rotated series' audit pairs a continuation in a later log with its interruption in an earlier
 * one; a log of the series read alone counts what names receipts it does not hold; `kind` and the
 * filter choose rows, and the recording given adds each pause's rules.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { A2aReplayError } from '../../src/public/core.js';
import { startPeer } from '../../src/public/peer.js';
import {
  type LogSetAudit,
  auditLogSet,
  auditNotes,
  auditRefusal,
  generateReceiptKey,
  openLogSet,
} from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { expectExamplesRunIn } from '../docs/doc-examples.js';

const key = generateReceiptKey({ kid: 'audit-set' });
let dir = '';
/** The task ids, in the order the client made them. */
const tasks = { paused: '', asked: '', signIn: '', later: '' };

/**
 * What the client does: pauses and resumes a task; is asked for input (answered by alice) and for
 * credentials (never answered); pauses and resumes another task.
 */
async function session(url: string): Promise<void> {
  const bob = new A2aTestClient(url, 'bob');
  const pauseAndResume = async (name: string): Promise<string> => {
    const { task } = await bob.ok<{ task: { id: string } }>('SendMessage', {
      message: { messageId: `m-${name}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    const paused = await bob.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId: task.id, reason: name });
    await bob.ok('ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
    return task.id;
  };
  const interrupted = async (text: string): Promise<string> => {
    const { task } = await bob.ok<{ task: { id: string; status: { state: string } } }>('SendMessage', {
      message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] },
    });
    expect(task.status.state).toMatch(/^TASK_STATE_(INPUT|AUTH)_REQUIRED$/);
    return task.id;
  };
  tasks.paused = await pauseAndResume('first');
  tasks.asked = await interrupted('ask:approve_the_deploy?');
  tasks.signIn = await interrupted('auth:sign_in_please');
  const { task } = await bob.as('alice').ok<{ task: { status: { state: string } } }>('SendMessage', {
    message: { messageId: 'm-yes', role: 'ROLE_USER', parts: [{ text: 'yes' }], taskId: tasks.asked },
  });
  expect(task.status.state).toBe('TASK_STATE_COMPLETED');
  tasks.later = await pauseAndResume('second');
}

const one = (): string => join(dir, 'one', 'session.jsonl');
const seriesDir = (): string => join(dir, 'series');
/** The series' head, kept outside its logs. */
const head = (): string => join(dir, 'head.json');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'log-set-audit-'));
  await mkdir(join(dir, 'one'));
  await mkdir(seriesDir());
  for (const [out, rotated] of [
    [one(), {}],
    [join(seriesDir(), 'session.jsonl'), { rotateBytes: 1, witness: head() }],
  ] as const) {
    const peer = await startPeer({ deterministic: true });
    try {
      const recorder = await startRecorder({ upstream: peer.url, out, key, ...rotated, warn: () => undefined });
      await session(recorder.url);
      const summary = await recorder.close();
      expect(summary.complete).toBe(true);
    } finally {
      await peer.close();
    }
  }
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The audit of `paths` with `options`, the set closed after. */
async function audit(paths: string[], options: Parameters<typeof auditLogSet>[1] = {}): Promise<LogSetAudit> {
  const set = await openLogSet(paths, { keys: key });
  try {
    return await auditLogSet(set, options);
  } finally {
    await set.close();
  }
}

/** Each entry as `kind taskId`. */
const order = (a: LogSetAudit): string[] => a.entries.map((e) => `${e.kind} ${e.row.taskId}`);

describe('auditLogSet of one log', () => {
  it('lists pauses and interruptions in log order, each interruption with who continued it', async () => {
    const audited = await audit([join(dir, 'one', 'session.receipts.jsonl')]);
    expect(audited.ok).toBe(true);
    expect(order(audited)).toEqual([
      `pause ${tasks.paused}`,
      `interruption ${tasks.asked}`,
      `interruption ${tasks.signIn}`,
      `pause ${tasks.later}`,
    ]);
    expect(audited.rows.map((r) => [r.taskId, r.outcome, r.reason])).toEqual([
      [tasks.paused, 'resumed', 'first'],
      [tasks.later, 'resumed', 'second'],
    ]);
    expect(audited.interruptions).toMatchObject([
      {
        kind: 'interruption',
        taskId: tasks.asked,
        state: 'TASK_STATE_INPUT_REQUIRED',
        outcome: 'continued',
        cause: 'message',
        continuedBy: 'jwt:sub=alice',
      },
      { taskId: tasks.signIn, state: 'TASK_STATE_AUTH_REQUIRED', outcome: 'open', continuedBy: null },
    ]);
    const lines = audited.entries.map((e) => e.row.line);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
    expect(audited.interruptions[0]!.continuedAtLine).toBeGreaterThan(audited.interruptions[1]!.line);
    expect(audited.orphans).toEqual({ resumptions: 0, continuations: 0 });
    expect(audited.verification).toMatchObject({ kind: 'log', ok: true });
    expect(auditRefusal(audited)).toBeNull();
    const notes = auditNotes(audited);
    expect(notes.slice(0, 2)).toEqual(['2 suspensions', '2 interruptions']);
    expect(notes[2]).toMatch(/session\.receipts\.jsonl: ok: 7 receipts/);
  });

  it('lists one kind, or one task, as asked; an initiator filter leaves interruptions out', async () => {
    const log = [join(dir, 'one', 'session.receipts.jsonl')];
    const pauses = await audit(log, { kind: 'pause' });
    expect([pauses.rows.length, pauses.interruptions.length, pauses.entries.length]).toEqual([2, 0, 2]);
    expect(auditNotes(pauses, { kind: 'pause' })[0]).toBe('2 suspensions');
    expect(auditNotes(pauses, { kind: 'pause' })[1]).not.toMatch(/interruption/);
    const asked = await audit(log, { kind: 'interruption' });
    expect(order(asked)).toEqual([`interruption ${tasks.asked}`, `interruption ${tasks.signIn}`]);
    expect(asked.rows).toEqual([]);
    expect(auditNotes(asked, { kind: 'interruption' })[0]).toBe('2 interruptions');
    const byClient = await audit(log, { filter: { initiatedBy: 'PAUSE_INITIATOR_CLIENT' } });
    expect(order(byClient)).toEqual([`pause ${tasks.paused}`, `pause ${tasks.later}`]);
    const oneTask = await audit(log, { filter: { taskId: tasks.signIn } });
    expect(order(oneTask)).toEqual([`interruption ${tasks.signIn}`]);
  });

  it("gives each pause the rules that decided it from the log's recording; an unreadable one is an error", async () => {
    const log = [join(dir, 'one', 'session.receipts.jsonl')];
    const plain = await audit(log);
    expect(plain.rows.map((r) => r.rules)).toEqual([null, null]);
    const withRecording = await audit(log, { recording: one() });
    expect(withRecording.ok).toBe(true);
    const rules = withRecording.rows.map((r) => [typeof r.rules?.pause, typeof r.rules?.end]);
    expect(rules).toEqual([
      ['string', 'string'],
      ['string', 'string'],
    ]);
    expect(withRecording.verification.kind === 'log' && withRecording.verification.result.recordingCheck).toBe('bound');
    const missing = audit(log, { recording: join(dir, 'none.jsonl') });
    await expect(missing).rejects.toThrow(A2aReplayError);
    await expect(missing).rejects.toThrow(/none\.jsonl: cannot read the recording/);
  });
});

describe('auditLogSet of a series', () => {
  /** The series' logs in series order (by the position each header states), each with its lines' types. */
  async function logs(): Promise<{ file: string; types: string[] }[]> {
    const set = await openLogSet([seriesDir()], { keys: key });
    await set.close();
    const read = await Promise.all(
      set.files.map(async (file) => {
        const lines = (await readFile(file, 'utf8'))
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as { type: string; series?: { position: number } | null });
        return { file, position: lines[0]?.series?.position ?? 1, types: lines.map((l) => l.type) };
      }),
    );
    return read.sort((a, b) => a.position - b.position).map(({ file, types }) => ({ file, types }));
  }

  it('pairs a continuation in a later log with its interruption in an earlier one', async () => {
    const files = await logs();
    expect(files.length).toBeGreaterThan(3);
    const audited = await audit([seriesDir()]);
    expect(audited.ok).toBe(true);
    expect(audited.verification.kind).toBe('series');
    expect(order(audited)).toEqual([
      `pause ${tasks.paused}`,
      `interruption ${tasks.asked}`,
      `interruption ${tasks.signIn}`,
      `pause ${tasks.later}`,
    ]);
    const asked = audited.entries[1]!;
    expect(asked.row).toMatchObject({ outcome: 'continued', cause: 'message', continuedBy: 'jwt:sub=alice' });
    // The interruption's log is not the one holding its continuation: the row pairs across them.
    const continuedIn = files.find((f) => f.types.includes('ContinuationReceipt'))!.file;
    expect(files.findIndex((f) => f.file === asked.file)).toBeLessThan(files.findIndex((f) => f.file === continuedIn));
    expect(audited.entries.every((e) => files.some((f) => f.file === e.file))).toBe(true);
    expect(audited.orphans).toEqual({ resumptions: 0, continuations: 0 });
    expect(auditNotes(audited, { kind: undefined })).toEqual([
      '2 suspensions',
      '2 interruptions',
      expect.stringMatching(new RegExp(`^series .+ of ${files.length} logs verified$`)),
    ]);
  });

  it('lists only interruptions with kind "interruption", as a series read as one log', async () => {
    const asked = await audit([seriesDir()], { kind: 'interruption' });
    expect(asked.rows).toEqual([]);
    expect(asked.interruptions.map((r) => [r.taskId, r.outcome])).toEqual([
      [tasks.asked, 'continued'],
      [tasks.signIn, 'open'],
    ]);
  });

  it('counts, in a log of the series read alone, what names a receipt of an earlier log', async () => {
    const files = await logs();
    const continuedIn = files.find((f) => f.types.includes('ContinuationReceipt'))!;
    const resumedIn = files.find(
      (f) => f.types.includes('ResumptionReceipt') && !f.types.includes('SuspensionReceipt'),
    )!;
    const alone = await audit([continuedIn.file]);
    expect(alone.ok).toBe(true);
    expect(alone.interruptions.some((r) => r.taskId === tasks.asked)).toBe(false);
    expect(alone.orphans.continuations).toBe(1);
    expect(auditNotes(alone)).toContain('1 continuation(s) name an interruption not in this log');
    const resumed = await audit([resumedIn.file]);
    expect(resumed.orphans.resumptions).toBe(1);
    expect(auditNotes(resumed)).toContain('1 resumption(s) name a suspension not in this log');
  });

  it('refuses a recording for a series, and a head that names a later log than those given', async () => {
    const set = await openLogSet([seriesDir()], { keys: key });
    await expect(auditLogSet(set, { recording: one() })).rejects.toThrow(/one log, not to a series/);
    await set.close();
    const files = (await logs()).map((f) => f.file);
    const dropped = await openLogSet(files.slice(0, -1), { keys: key, head: head() });
    const audited = await auditLogSet(dropped, {});
    await dropped.close();
    expect(audited).toMatchObject({ ok: false, rows: [], interruptions: [], entries: [] });
    expect(audited.verification).toMatchObject({ kind: 'series', ok: false, head: { kind: 'missing' } });
    expect(auditRefusal(audited)).toMatch(/^head MISSING LOG: .*a later log is missing: position \d+/);
  });
});

const EXAMPLE = '## Audit a log or a series: pauses and interruptions in log order';

describe(`docs/api.md ${EXAMPLE}`, () => {
  it('runs as written: both kinds of row of a series, in log order, and the notes audit prints', async () => {
    const series = seriesDir();
    const set = await openLogSet([series], { keys: key }); // one log, or the logs of one series read as one
    const asked = { agentPrincipals: ['jwt:sub=agent'] }; // and kind, filter, recording (one log's)
    const audited = await auditLogSet(set, asked); // verified as it is read: rows only when it verifies
    await set.close();
    if (!audited.ok) throw new Error(auditRefusal(audited) ?? 'not audited'); // why nothing was audited
    const listed = audited.entries.map((e) => `${e.kind} ${e.row.taskId}`); // both kinds, in log order
    // audited.rows: one per suspension; audited.interruptions: who continued each, when and with what
    // audited.orphans: { resumptions, continuations } naming a receipt the set does not hold
    const notes = auditNotes(audited, asked).join('; '); // the counts and verification `audit` prints

    expect(listed).toEqual(order(audited));
    expect(listed.filter((l) => l.startsWith('interruption '))).toHaveLength(2);
    expect(notes).toMatch(/^2 suspensions; 2 interruptions; series .+ logs verified$/);
    await expectExamplesRunIn(new URL(import.meta.url), [EXAMPLE]);
  });
});
