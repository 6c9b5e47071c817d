/**
 * The peer's own ground truth: `transitionsFile` (CLI `--transitions`) writes one line per state
 * change, refused pause/resume and eviction, with cause, initiator, principal and method, and
 * `readPeerTransitions` reads it back, naming any bad line.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashCanonical } from '../../src/canonical/canonical-json.js';
import { readPeerTransitions } from '../../src/peer/read-transitions.js';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import type { PeerTransitionLine } from '../../src/peer/transition-log.js';
import type { PauseTaskResult } from '../../src/protocol/types.js';
import { PeerClient, message } from './peer-client.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'peer-transitions-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An unsigned JWT naming `sub`. */
function jwtFor(sub: string): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub })}.`;
}

const OPAQUE = 'opaque-bearer-secret-42';

async function call(url: string, method: string, params: unknown, bearer?: string): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };
  if (bearer !== undefined) headers.Authorization = `Bearer ${bearer}`;
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as Record<string, unknown>;
}

/** A compact view of a line: what moved, why, and at whose request. */
function row(line: PeerTransitionLine): string {
  switch (line.event) {
    case 'transition':
      return `${line.from ?? '-'}>${line.to} ${line.cause} ${line.method ?? '-'} ${line.principal ?? '-'}`;
    case 'rejected':
      return `rejected ${line.method} ${line.errorCode} ${line.reason} ${line.principal ?? '-'}`;
    case 'evicted':
      return `evicted ${line.state}`;
  }
}

describe('the transitions log', () => {
  let file = '';
  let tokens: string[] = [];
  let taskIds: string[] = [];

  beforeAll(async () => {
    file = join(dir, 'peer.transitions.jsonl');
    const peer: RunningPeer = await startPeer({ deterministic: true, maxTasks: 1, transitionsFile: file });
    const c = new PeerClient(peer.url);
    try {
      const alice = jwtFor('alice');
      const sent = (await call(
        peer.url,
        'SendMessage',
        {
          message: message('work:2'),
          configuration: { returnImmediately: true },
        },
        alice,
      )) as { result: { task: { id: string } } };
      const a = sent.result.task.id;
      const paused = (await call(peer.url, 'PauseTask', { taskId: a, reason: 'review' }, alice)) as {
        result: PauseTaskResult;
      };
      const token = paused.result.pause.resumeToken;
      await call(peer.url, 'ResumeTask', { taskId: a, resumeToken: 'not-the-token' }, OPAQUE);
      await call(peer.url, 'ResumeTask', { taskId: a, resumeToken: token }, OPAQUE);
      await c.advance(2000);
      const b = (await c.start('await:ci:30:fail')).id;
      const p2 = await c.result<PauseTaskResult>('PauseTask', { taskId: b });
      await c.advance(30 * 60 * 1000);
      await call(peer.url, 'PauseTask', { taskId: 'task-nope' }, alice);
      const d = (await c.start('await:go work:1')).id;
      await c.control('FireEvent', { name: 'go' });
      await c.advance(1000);
      tokens = [token, p2.pause.resumeToken];
      taskIds = [a, b, d];
    } finally {
      await peer.close();
    }
  });

  it('holds one line per state change, refusal and eviction, in order, with cause, method and principal', async () => {
    const log = await readPeerTransitions(file);
    const bob = `bearer:sha256:${createHash('sha256').update(OPAQUE).digest('hex').slice(0, 8)}`;
    expect(log.header).toEqual({
      type: 'peer-transitions',
      version: 1,
      startedAt: '2026-01-01T00:00:00.000Z',
      tool: expect.stringMatching(/^a2a-replay@/) as unknown,
      peer: { deterministic: true, seed: 0, stepMs: 1000, legacyPause: false, maxTasks: 1 },
    });
    expect(log.lines.map((l) => l.seq)).toEqual(log.lines.map((_, i) => i + 1));
    expect(log.lines.map(row)).toEqual([
      '->TASK_STATE_SUBMITTED message SendMessage jwt:sub=alice',
      'TASK_STATE_SUBMITTED>TASK_STATE_WORKING message SendMessage jwt:sub=alice',
      'TASK_STATE_WORKING>TASK_STATE_PAUSED pause_request PauseTask jwt:sub=alice',
      `rejected ResumeTask -32011 RESUME_TOKEN_MISMATCH ${bob}`,
      `TASK_STATE_PAUSED>TASK_STATE_WORKING explicit_resume ResumeTask ${bob}`,
      'TASK_STATE_WORKING>TASK_STATE_COMPLETED completed - -',
      '->TASK_STATE_SUBMITTED message SendMessage -',
      'TASK_STATE_SUBMITTED>TASK_STATE_WORKING message SendMessage -',
      'TASK_STATE_WORKING>TASK_STATE_PAUSED script - -',
      'TASK_STATE_PAUSED>TASK_STATE_FAILED timeout - -',
      'evicted TASK_STATE_COMPLETED',
      'rejected PauseTask -32001 TASK_NOT_FOUND jwt:sub=alice',
      '->TASK_STATE_SUBMITTED message SendMessage -',
      'TASK_STATE_SUBMITTED>TASK_STATE_WORKING message SendMessage -',
      'TASK_STATE_WORKING>TASK_STATE_PAUSED script - -',
      'TASK_STATE_PAUSED>TASK_STATE_WORKING condition_fired FireEvent -',
      'TASK_STATE_WORKING>TASK_STATE_COMPLETED completed - -',
      'evicted TASK_STATE_FAILED',
    ]);
    const [a, b] = taskIds;
    expect(log.lines[2]).toEqual({
      event: 'transition',
      seq: 3,
      at: '2026-01-01T00:00:00.000Z',
      taskId: a,
      contextId: expect.stringMatching(/^ctx-/) as unknown,
      from: 'TASK_STATE_WORKING',
      to: 'TASK_STATE_PAUSED',
      cause: 'pause_request',
      initiator: 'PAUSE_INITIATOR_CLIENT',
      principal: 'jwt:sub=alice',
      method: 'PauseTask',
      resumeTokenHash: hashCanonical(tokens[0]),
      pause: { reason: 'review', mode: 'finish_step', conditions: null, pausedUntil: null },
    });
    expect(log.lines[3]).toMatchObject({
      taskId: a,
      state: 'TASK_STATE_PAUSED',
      resumeTokenHash: hashCanonical('not-the-token'),
    });
    expect(log.lines[4]).toMatchObject({ resumeTokenHash: hashCanonical(tokens[0]), initiator: null, pause: null });
    expect(log.lines[8]).toMatchObject({
      taskId: b,
      initiator: 'PAUSE_INITIATOR_AGENT',
      resumeTokenHash: hashCanonical(tokens[1]),
      pause: {
        reason: 'awaiting event ci',
        mode: null,
        conditions: { onEvent: 'ci', timeout: { durationMinutes: 30, onTimeout: 'fail' } },
        pausedUntil: '2026-01-01T00:30:02.000Z',
      },
    });
    expect(log.lines[9]).toMatchObject({ at: '2026-01-01T00:30:02.000Z', resumeTokenHash: hashCanonical(tokens[1]) });
    expect(log.lines[10]).toMatchObject({ event: 'evicted', taskId: a });
    expect(log.lines[11]).toMatchObject({ taskId: 'task-nope', contextId: null, state: null, resumeTokenHash: null });
  });

  it('is written with mode 0600 and holds no token and no credential', async () => {
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    for (const secret of [...tokens, OPAQUE, jwtFor('alice')]) expect(text).not.toContain(secret);
  });

  it('writes the same bytes for the same requests', async () => {
    const again = join(dir, 'again.jsonl');
    const run = async (path: string): Promise<string> => {
      const peer = await startPeer({ deterministic: true, transitionsFile: path });
      const c = new PeerClient(peer.url);
      const t = await c.start('work:1 tool:2 work:1');
      const s = await c.stream('SubscribeToTask', { id: t.id });
      await s.waitFor(1);
      await c.advance(1500);
      const pausing = c.result<PauseTaskResult>('PauseTask', { taskId: t.id, mode: 'wait_for_completion' });
      // The pause waits for the tool call: its announcement says the request arrived.
      await s.waitFor(3);
      await c.advance(2000);
      const p = await pausing;
      await c.result('ResumeTask', { taskId: t.id, resumeToken: p.pause.resumeToken });
      await c.result('CancelTask', { id: t.id });
      c.closeStreams();
      await peer.close();
      return readFile(path, 'utf8');
    };
    expect(await run(again)).toBe(await run(join(dir, 'again-2.jsonl')));
  });
});

describe('readPeerTransitions', () => {
  it('names the line and the field of a malformed line', async () => {
    const header = {
      type: 'peer-transitions',
      version: 1,
      startedAt: '2026-01-01T00:00:00.000Z',
      tool: 'a2a-replay@0',
      peer: { deterministic: true, seed: 0, stepMs: 1000, legacyPause: false, maxTasks: 10 },
    };
    const good = {
      event: 'evicted',
      seq: 1,
      at: '2026-01-01T00:00:00.000Z',
      taskId: 't',
      contextId: 'c',
      state: 'TASK_STATE_COMPLETED',
    };
    const bad = { ...good, seq: 2, state: 'TASK_STATE_NAPPING' };
    const path = join(dir, 'bad.jsonl');
    await writeFile(path, [header, good, bad].map((l) => JSON.stringify(l)).join('\n') + '\n');
    await expect(readPeerTransitions(path)).rejects.toThrow(
      new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: the evicted line: state: expected one of`),
    );
    await writeFile(path, [header, { ...good, seq: 2 }].map((l) => JSON.stringify(l)).join('\n') + '\n');
    await expect(readPeerTransitions(path)).rejects.toThrow(/:2: the evicted line: seq: expected 1/);
    await writeFile(path, JSON.stringify({ ...header, version: 2 }) + '\n');
    await expect(readPeerTransitions(path)).rejects.toThrow(/:1: the header: version: expected 1; got 2/);
  });

  it('refuses an unusable path at start with an error naming it', async () => {
    await expect(startPeer({ transitionsFile: join(dir, 'missing', 'x.jsonl') })).rejects.toThrow(
      /cannot write the transitions log .*missing/,
    );
  });
});
