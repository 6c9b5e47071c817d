/**
 * Interruptions in the audit of a fleet (src/logs/fleet-audit.ts, docs/design.md §17, §14.9): the
 * reference peer and two library recorders (replicas A and B) run in this process. The peer asks
 * for input (`ask:`) through A twice: one ask is answered through A, the other through B; a task
 * is paused through A and resumed through B. A continuation names its interruption by the hash
 * of that receipt in its own log, and B writes none for an ask it never saw: the fleet lists the
 * ask answered through A as continued in A, the one answered through B open, and pairs the pause.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { startPeer } from '../../src/public/peer.js';
import {
  type FleetAudit,
  Keyring,
  auditFleet,
  auditLogSet,
  generateReceiptKey,
  openLogSet,
} from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { runCli } from '../helpers/cli.js';
import { answer, ask, writeReplicaKeys } from '../helpers/interruption-asks.js';

const keyA = generateReceiptKey({ kid: 'replica-a' });
const keyB = generateReceiptKey({ kid: 'replica-b' });
let dir = '';
const tasks = { answeredInA: '', answeredInB: '', paused: '' };
const log = (name: string): string => join(dir, `${name}.receipts.jsonl`);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-interruptions-'));
  await writeReplicaKeys(dir, { a: keyA, b: keyB });
  const peer = await startPeer({ deterministic: true });
  try {
    const a = await startRecorder({ upstream: peer.url, out: join(dir, 'a.jsonl'), key: keyA, warn: () => {} });
    const b = await startRecorder({ upstream: peer.url, out: join(dir, 'b.jsonl'), key: keyB, warn: () => {} });
    const viaA = new A2aTestClient(a.url, 'bob');
    const viaB = new A2aTestClient(b.url, 'alice');
    tasks.answeredInA = await ask(viaA, 'ask:approve_the_deploy?');
    await answer(viaA.as('carol'), tasks.answeredInA);
    tasks.answeredInB = await ask(viaA, 'ask:approve_the_rollback?');
    await answer(viaB, tasks.answeredInB);
    const { task } = await viaA.ok<{ task: { id: string } }>('SendMessage', {
      message: { messageId: 'm-work', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    tasks.paused = task.id;
    const paused = await viaA.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId: task.id, reason: 'x' });
    await viaB.ok('ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
    for (const r of [a, b]) expect((await r.close()).complete).toBe(true);
  } finally {
    await peer.close();
  }
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function audit(options: Omit<Parameters<typeof auditFleet>[1], 'keyring'> = {}): Promise<FleetAudit> {
  const set = await openLogSet([log('a'), log('b')], { keys: new Keyring([keyA, keyB]) });
  try {
    if (set.kind !== 'fleet') throw new Error(`a ${set.kind}, not a fleet`);
    return await auditFleet(set, { keyring: set.keyring!, ...options });
  } finally {
    await set.close();
  }
}

describe('auditFleet with interruptions', () => {
  it('lists each interruption with the files holding its interruption and continuation', async () => {
    const fleet = await audit();
    if (!fleet.audited) throw new Error(fleet.why);
    expect(fleet.ok).toBe(true);
    expect(fleet.entries.map((e) => `${e.kind} ${e.row.taskId}`)).toEqual([
      `interruption ${tasks.answeredInA}`,
      `interruption ${tasks.answeredInB}`,
      `pause ${tasks.paused}`,
    ]);
    const [inA, inB] = fleet.interruptions;
    expect(inA).toMatchObject({
      outcome: 'continued',
      continuedBy: 'jwt:sub=carol',
      interruptedIn: { file: log('a'), line: inA!.line },
      continuedIn: { file: log('a'), line: inA!.continuedAtLine },
    });
    // B saw an answer to a task it never saw interrupted: no receipt of B's names A's interruption.
    expect(inB).toMatchObject({ outcome: 'open', interruptedIn: { file: log('a') }, continuedIn: null });
    expect(fleet.orphanContinuations).toBe(0);
    expect(fleet.rows).toHaveLength(1);
    expect(fleet.rows[0]).toMatchObject({
      outcome: 'resumed',
      pausedIn: { file: log('a') },
      endedIn: { file: log('b') },
    });
    expect(fleet.notes.slice(0, 2)).toEqual(['1 suspension in a fleet of 2 logs', '2 interruptions']);
  });

  it('each log alone: A holds both asks, the one answered through B open; B holds no continuation', async () => {
    const alone = async (name: string) => {
      const set = await openLogSet([log(name)], { keys: new Keyring([keyA, keyB]) });
      try {
        return await auditLogSet(set, { kind: 'interruption' });
      } finally {
        await set.close();
      }
    };
    const a = await alone('a');
    expect(a.interruptions.map((r) => `${r.taskId} ${r.outcome}`)).toEqual([
      `${tasks.answeredInA} continued`,
      `${tasks.answeredInB} open`,
    ]);
    const b = await alone('b');
    expect(b.ok).toBe(true);
    expect(b.interruptions).toEqual([]);
    expect(b.orphans.continuations).toBe(0);
  });

  it('lists one kind with `kind`, and no interruption with an initiator filter', async () => {
    const only = await audit({ kind: 'interruption' });
    if (!only.audited) throw new Error(only.why);
    expect(only.rows).toEqual([]);
    expect(only.entries.map((e) => e.kind)).toEqual(['interruption', 'interruption']);
    const pauses = await audit({ kind: 'pause' });
    if (!pauses.audited) throw new Error(pauses.why);
    expect(pauses.interruptions).toEqual([]);
    expect(pauses.notes).not.toContain('2 interruptions');
    const byInitiator = await audit({ filter: { initiatedBy: 'PAUSE_INITIATOR_CLIENT' } });
    if (!byInitiator.audited) throw new Error(byInitiator.why);
    expect(byInitiator.interruptions).toEqual([]);
    expect(byInitiator.rows).toHaveLength(1);
  });

  it('audit A B --kind interruption prints them with the files that hold each end', async () => {
    const keys = ['--key', join(dir, 'a.key.json'), '--key', join(dir, 'b.key.json')];
    const table = await runCli(['audit', log('a'), log('b'), ...keys, '--kind', 'interruption']);
    expect(table.stderr).toContain('2 interruptions');
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^TASK\s+STATE\s+PROMPT\s+INTERRUPTED AT\s+CONTINUED\s+FLAG\s+TRACE\s+INTERRUPTED IN\s+CONTINUED IN$/,
    );
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(tasks.answeredInA);
    expect(lines[1]).toMatch(
      /continued \(message\).* by jwt:sub=carol .*a\.receipts\.jsonl:\d+ +\S*a\.receipts\.jsonl:\d+$/,
    );
    expect(lines[2]).toMatch(/still open .*a\.receipts\.jsonl:\d+ +-$/);
    const both = await runCli(['audit', log('a'), log('b'), ...keys]);
    expect(both.code).toBe(0);
    expect(both.stdout.split('\n')[0]).toMatch(/^KIND\s+TASK\s.*\sTRACE\s+PAUSED IN\s+ENDED IN$/);
    const json = await runCli(['audit', log('a'), log('b'), ...keys, '--json']);
    const rows = JSON.parse(json.stdout) as Array<{ kind: string; taskId: string; continuedIn?: unknown }>;
    expect(rows.map((r) => `${r.kind} ${r.taskId}`)).toEqual([
      `interruption ${tasks.answeredInA}`,
      `interruption ${tasks.answeredInB}`,
      `pause ${tasks.paused}`,
    ]);
  });
});
