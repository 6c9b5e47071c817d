/**
 * The lost interruptions of a fleet (src/logs/fleet-lost.ts, src/logs/fleet-interruption-ledger.ts,
 * docs/design.md §14.9, §17): the reference peer and library recorders run in this process.
 * Replica A writes a series (a1, then a2 continuing it after a restart), replica B one log. The peer
 * asks for input (`ask:`) through A four times: one ask is never answered, one answered through A,
 * one answered through B, and one left open when A restarts and answered through A's next log. A
 * continuation names its interruption by that receipt's hash in its own log or series, and B writes
 * none of an ask it never saw: `lost` over the fleet lists the unanswered ask and the one answered
 * through B, each with its file and line, says once why the latter is listed, and fails.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { startPeer } from '../../src/public/peer.js';
import {
  Keyring,
  type LostPauses,
  fleetInterruptionNote,
  fleetLostLines,
  generateReceiptKey,
  lostOutcome,
  lostPauses,
  lostPausesJson,
  lostVerdicts,
  openLogSet,
} from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { buildContinuationDraft } from '../../src/receipts/interruption-drafts.js';
import { runCli } from '../helpers/cli.js';
import { answer, ask, writeReplicaKeys } from '../helpers/interruption-asks.js';
import { type OtlpTraceRequest, attributesOf, spansOf } from '../tracing/otlp-proto.js';

const keyA = generateReceiptKey({ kid: 'replica-a' });
const keyB = generateReceiptKey({ kid: 'replica-b' });
let dir = '';
const tasks = { neverAnswered: '', answeredInA: '', answeredInB: '', answeredAfterRestart: '' };
const log = (name: string): string => join(dir, `${name}.receipts.jsonl`);
const fleet = (): string[] => [log('a1'), log('a2'), log('b')];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-lost-interruptions-'));
  await writeReplicaKeys(dir, { a: keyA, b: keyB });
  const peer = await startPeer({ deterministic: true });
  try {
    const a1 = await startRecorder({ upstream: peer.url, out: join(dir, 'a1.jsonl'), key: keyA, warn: () => {} });
    const b = await startRecorder({ upstream: peer.url, out: join(dir, 'b.jsonl'), key: keyB, warn: () => {} });
    const viaA = new A2aTestClient(a1.url, 'bob');
    const viaB = new A2aTestClient(b.url, 'alice');
    tasks.neverAnswered = await ask(viaA, 'ask:approve_the_budget?');
    tasks.answeredInA = await ask(viaA, 'ask:approve_the_deploy?');
    await answer(viaA.as('carol'), tasks.answeredInA);
    tasks.answeredInB = await ask(viaA, 'ask:approve_the_rollback?');
    await answer(viaB, tasks.answeredInB);
    tasks.answeredAfterRestart = await ask(viaA, 'ask:approve_the_migration?');
    expect((await a1.close()).complete).toBe(true);
    // A restarts: its next log's header carries the asks still open, and the answer closes one there.
    const a2 = await startRecorder({
      upstream: peer.url,
      out: join(dir, 'a2.jsonl'),
      key: keyA,
      continueFrom: join(dir, 'a1.jsonl'),
      warn: () => {},
    });
    await answer(new A2aTestClient(a2.url, 'dave'), tasks.answeredAfterRestart);
    for (const r of [a2, b]) expect((await r.close()).complete).toBe(true);
  } finally {
    await peer.close();
  }
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function lostIn(files: readonly string[], keyed = true): Promise<LostPauses> {
  const set = await openLogSet([...files], keyed ? { keys: new Keyring([keyA, keyB]) } : {});
  try {
    expect(set.kind).toBe('fleet');
    return await lostPauses(set);
  } finally {
    await set.close();
  }
}

/** The line of `file` holding the InterruptionReceipt of `taskId`. */
async function interruptionLine(file: string, taskId: string): Promise<number> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  const at = lines.findIndex((l) => l.includes('"InterruptionReceipt"') && l.includes(`"taskId":"${taskId}"`));
  expect(at).toBeGreaterThan(0);
  return at + 1;
}

describe('lostPauses over a fleet lists its interruptions', () => {
  it('lists an ask never answered with the file and line of its receipt, and fails the fleet', async () => {
    const found = await lostIn(fleet());
    const never = found.interruptions.find((i) => i.taskId === tasks.neverAnswered);
    expect(never).toMatchObject({
      state: 'TASK_STATE_INPUT_REQUIRED',
      reason: 'never_continued',
      interruptedIn: { file: log('a1'), line: await interruptionLine(log('a1'), tasks.neverAnswered) },
    });
    expect(lostOutcome(found)).toBe('lost');
    // The verdict spans name where each lost interruption was seen, as a fleet's lost pauses do.
    const drawn = lostVerdicts(found).interruptions.find((i) => i.taskId === tasks.neverAnswered);
    expect(drawn?.begun).toEqual([`${log('a1')}:${never!.interruptedIn!.line}`]);
  });

  it('does not list an ask answered through the replica that saw it', async () => {
    const found = await lostIn(fleet());
    expect(found.interruptions.map((i) => i.taskId)).toEqual([tasks.neverAnswered, tasks.answeredInB]);
    expect(found.interruptions.map((i) => i.taskId)).not.toContain(tasks.answeredInA);
  });

  it('lists an ask answered through another replica, and says once why', async () => {
    const found = await lostIn(fleet());
    const crossed = found.interruptions.find((i) => i.taskId === tasks.answeredInB);
    expect(crossed).toMatchObject({
      reason: 'never_continued',
      interruptedIn: { file: log('a1'), line: await interruptionLine(log('a1'), tasks.answeredInB) },
    });
    const note = fleetInterruptionNote(found);
    expect(note).toMatch(/answered through another replica than the one that saw the ask is listed as lost/);
    expect(fleetLostLines(found).filter((l) => l === note)).toHaveLength(1);
    const json = lostPausesJson(found);
    expect(json).toMatchObject({ note, orphanContinuations: [] });
    expect((json.lostInterruptions as Array<{ taskId: string }>).map((i) => i.taskId)).toEqual([
      tasks.neverAnswered,
      tasks.answeredInB,
    ]);
  });

  it("closes an ask with the continuation in a later log of its replica's series", async () => {
    // The ask is in a1 (and carried in a2's header); a2's continuation names a1's receipt.
    expect(await interruptionLine(log('a1'), tasks.answeredAfterRestart)).toBeGreaterThan(1);
    for (const keyed of [true, false]) {
      const found = await lostIn(fleet(), keyed);
      expect(found.verification).toBe(keyed ? 'receipt logs, verified' : 'receipt logs, unverified');
      expect(found.interruptions.map((i) => `${i.taskId} ${i.interruptedIn?.file}`)).toEqual([
        `${tasks.neverAnswered} ${log('a1')}`,
        `${tasks.answeredInB} ${log('a1')}`,
      ]);
      expect(found.orphanContinuations).toEqual([]);
    }
  });

  it('fails a fleet whose log holds a continuation naming no interruption given, naming where', async () => {
    const chain = new ReceiptChain({
      keyring: new Keyring([keyB]),
      checkpointEvery: 0,
      recording: 'rec-orphan',
      createdAt: '2026-01-01T09:00:00.000Z',
      tool: 'a2a-replay@test',
    });
    const span = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
    const draft = buildContinuationDraft({
      taskId: 'task-elsewhere',
      cause: 'message',
      principal: 'jwt:sub=mallory',
      input: [{ text: 'yes' }],
      observedAt: '2026-01-01T09:00:09.005Z',
      entries: [3],
      span: { traceId: 'c'.repeat(32), spanId: 'd'.repeat(16) },
      interruptionSpan: span,
      binding: 'JSONRPC',
    });
    const named = `sha256:${'0'.repeat(64)}`;
    const lines = [chain.header.text, chain.sealContinuation(draft, named).receipt.text];
    await writeFile(log('orphan'), `${lines.join('\n')}\n`);
    const found = await lostIn([log('b'), log('orphan')], false);
    expect(found.interruptions).toEqual([]);
    expect(found.orphanContinuations).toEqual([
      {
        taskId: 'task-elsewhere',
        interruption: named,
        principal: 'jwt:sub=mallory',
        continuedIn: { file: log('orphan'), line: 2, seq: 1 },
      },
    ]);
    expect(lostOutcome(found)).toBe('lost');
    expect(fleetLostLines(found)).toEqual([
      `orphan: task task-elsewhere: continued in ${log('orphan')}:2 (seq 1), ` +
        `naming an interruption (${named}) no given log holds`,
    ]);
    expect(fleetInterruptionNote(found)).toBeNull();
  });
});

describe('lost A B over a fleet', () => {
  it('prints the lost interruptions with their files, the note once, draws their spans and exits 1', async () => {
    const traces = join(dir, 'traces');
    const keys = ['--key', join(dir, 'a.key.json'), '--key', join(dir, 'b.key.json')];
    const result = await runCli(['lost', ...fleet(), ...keys, '--traces', traces]);
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`no lost pauses in a fleet of 3 logs (${fleet().join(', ')})`);
    expect(lines[1]).toBe('2 lost interruptions in a fleet of 3 logs');
    expect(lines[2]).toMatch(/^TASK\s+STATE\s+REASON\s+RULE\s+SINCE\s+TRACE\s+INTERRUPTED IN$/);
    const line = await interruptionLine(log('a1'), tasks.answeredInB);
    expect(lines[4]).toMatch(
      new RegExp(`^${tasks.answeredInB}\\s+INPUT_REQUIRED\\s+never_continued\\s.*\\s${log('a1')}:${line}$`),
    );
    expect(lines.filter((l) => l.startsWith('note: '))).toEqual([fleetInterruptionNote(await lostIn(fleet()))]);
    const files = await readdir(traces);
    expect(files).toHaveLength(1);
    const spans = spansOf(JSON.parse(await readFile(join(traces, files[0]!), 'utf8')) as OtlpTraceRequest);
    const drawn = spans.filter((s) => s.name === 'LostInterruption').map((s) => attributesOf(s.attributes));
    expect(drawn.map((a) => a['a2a_replay.lost.begun']).sort()).toEqual(
      [`${log('a1')}:${await interruptionLine(log('a1'), tasks.neverAnswered)}`, `${log('a1')}:${line}`].sort(),
    );
  });
});
