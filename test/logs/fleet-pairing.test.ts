/**
 * A fleet pairs across logs only by identity the peer gave (docs/design.md §17). Two real keyed
 * recorders (`startRecorder`, what `record --key` runs) as replicas in front of the reference peer
 * (`startPeer`, deterministic with a transitions log, the ground truth), real sockets, all in this
 * process: a FireEvent through replica B resumes a pause made directly on the
 * peer; then the task is paused through replica A. B's receipt names the task alone with no time of
 * the peer's, so it cannot say which pause it ended: the fleet reports it as ambiguous with A's
 * pause as the candidate — never pairs it with A's pause, which the peer never ended — and
 * `verify`, `lost` and `audit` all conclude failure (exit 1): the library calls the commands make.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { startPeer } from '../../src/public/peer.js';
import { Keyring, generateReceiptKey } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { tokenHashOf } from '../../src/recording/resume-token.js';
import { auditVerdict, lostVerdict, verifyVerdict } from '../helpers/verdicts.js';

let dir = '';
const closers: (() => Promise<unknown>)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-pairing-'));
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await rm(dir, { recursive: true, force: true });
});

type Line = Record<string, unknown>;

async function linesOf(file: string): Promise<Line[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

async function replica(upstream: string, name: string) {
  const keyFile = join(dir, `${name}.key.json`);
  const key = generateReceiptKey({ kid: `replica-${name}` });
  await writeFile(keyFile, canonicalJson(key.keyFile()), { mode: 0o600 });
  const recording = join(dir, `${name}.jsonl`);
  const recorder = await startRecorder({ upstream, out: recording, key: keyFile, warn: () => undefined });
  let closed = false;
  closers.push(async () => closed || (await recorder.close()));
  const close = async () => {
    closed = true;
    return recorder.close();
  };
  return { recorder, close, key, receipts: recording.replace(/\.jsonl$/, '.receipts.jsonl') };
}

describe('a resume through one replica that names its task alone', () => {
  it('is ambiguous, naming the pause it may have ended, never paired with one the peer did not end', async () => {
    const transitions = join(dir, 'peer.transitions.jsonl');
    const peer = await startPeer({ deterministic: true, transitionsFile: transitions });
    let peerClosed = false;
    closers.push(async () => peerClosed || (await peer.close()));
    const a = await replica(peer.url, 'a');
    const b = await replica(peer.url, 'b');
    const viaA = new A2aTestClient(a.recorder.url, 'alice');
    const viaB = new A2aTestClient(b.recorder.url, 'bob');
    const direct = new A2aTestClient(peer.url, 'carol');

    const { task } = await viaA.ok<{ task: { id: string } }>('SendMessage', {
      message: { role: 'ROLE_USER', messageId: 'm1', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    const before = await direct.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId: task.id, reason: 'p0' });
    expect(await viaB.control('FireEvent', { name: 'go', payload: { taskId: task.id } })).toEqual({
      resumed: [task.id],
    });
    const after = await viaA.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId: task.id, reason: 'p1' });
    for (const client of [viaA, viaB, direct]) client.close();
    expect((await a.close()).complete).toBe(true);
    expect((await b.close()).complete).toBe(true);
    peerClosed = true;
    await peer.close();

    // Ground truth: the FireEvent ended the pause made directly; the pause made through A never ended.
    const ends = (await linesOf(transitions)).filter((l) => l.event === 'transition' && l.from === 'TASK_STATE_PAUSED');
    expect(ends).toEqual([
      expect.objectContaining({ resumeTokenHash: tokenHashOf(before.pause.resumeToken), cause: 'external_event' }),
    ]);
    expect((await linesOf(a.receipts)).filter((l) => l.type === 'SuspensionReceipt')).toEqual([
      expect.objectContaining({ taskId: task.id, resumeTokenHash: tokenHashOf(after.pause.resumeToken) }),
    ]);
    expect((await linesOf(b.receipts)).filter((l) => l.type === 'ResumptionReceipt')).toEqual([
      expect.objectContaining({
        taskId: task.id,
        cause: 'external_event',
        resumedAt: null,
        outside: { pausedAt: null, resumeTokenHash: null },
      }),
    ]);

    const keys = new Keyring([a.key, b.key]);
    const ambiguity =
      `task ${task.id}: resumed (external_event) in ${b.receipts}:2 (seq 1), naming its task alone, ` +
      `with no time of the peer’s, may have ended any of 1 pauses: ${a.receipts}:2`;
    const verified = await verifyVerdict([a.receipts, b.receipts], keys);
    expect(verified.stdout).toContain('0 paused in one log and resumed in another, 0 open when every log ended');
    expect(verified.stdout).toContain(`AMBIGUOUS: ${ambiguity}`);
    expect(verified.code).toBe(1);
    const fleet = (verified.json as unknown as { fleet: { paired: unknown[]; ambiguous: unknown[] } }).fleet;
    expect(fleet.paired).toEqual([]);
    expect(fleet.ambiguous).toHaveLength(1);

    const lost = await lostVerdict([a.receipts, b.receipts], { keys });
    expect(lost.code).toBe(1);
    const listing = lost.json as unknown as { lost: unknown[]; ambiguous: Array<Record<string, unknown>> };
    expect(listing.lost).toEqual([]);
    expect(listing.ambiguous).toEqual([
      expect.objectContaining({
        taskId: task.id,
        reason: 'ambiguous',
        candidates: [expect.objectContaining({ begun: { file: a.receipts, line: 2, seq: 1 } })],
      }),
    ]);

    const audit = await auditVerdict([a.receipts, b.receipts], keys);
    expect(audit.notes.join('\n')).toContain(`ambiguous: ${ambiguity}`);
    expect(audit.code).toBe(1);
    expect(audit.rows).toEqual([
      expect.objectContaining({ taskId: task.id, outcome: 'open', closedBy: null, endedIn: null }),
    ]);
  });
});
