/**
 * A resume is paired by the token it carries, never by order (docs/design.md §14.3). A real
 * keyed recorder (`startRecorder`, what `record --key` runs) in front of the reference peer
 * (`startPeer`, deterministic with a transitions log), real sockets, all in this process:
 * pause P1 through the recorder, P1 ended out of band (a FireEvent sent to the peer directly), P2
 * made out of band, then a ResumeTask carrying P2's token through the recorder. The peer's
 * transitions log says P1 ended by that event and P2 by that resume; the receipt of the resume
 * names P2 as a pause outside the log, and P1's end stays unknown (open at stop), never credited
 * to the resume: what `verify`, `audit` and `lost` conclude (the library calls they make).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { startPeer } from '../../src/public/peer.js';
import { generateReceiptKey } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { tokenHashOf } from '../../src/recording/resume-token.js';
import { auditVerdict, lostVerdict, verifyVerdict } from '../helpers/verdicts.js';

let dir = '';
const closers: (() => Promise<unknown>)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'resume-by-token-'));
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await rm(dir, { recursive: true, force: true });
});

type Line = Record<string, unknown> & { type?: string; event?: string };

async function linesOf(file: string): Promise<Line[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

describe('a ResumeTask carrying the token of a pause made out of band', () => {
  it('is the resumption of a pause outside the log, never the end of the open pause it would close', async () => {
    const transitions = join(dir, 'peer.transitions.jsonl');
    const peer = await startPeer({ deterministic: true, transitionsFile: transitions });
    let peerOpen = true;
    closers.push(async () => peerOpen && (await peer.close()));
    const keyFile = join(dir, 'key.json');
    const key = generateReceiptKey({ kid: 'pairing' });
    await writeFile(keyFile, canonicalJson(key.keyFile()), { mode: 0o600 });
    const recording = join(dir, 'x.jsonl');
    const receipts = join(dir, 'x.receipts.jsonl');
    const recorder = await startRecorder({ upstream: peer.url, out: recording, key: keyFile, warn: () => undefined });
    let recorderOpen = true;
    closers.push(async () => recorderOpen && (await recorder.close()));
    const via = new A2aTestClient(recorder.url, 'alice');
    const direct = new A2aTestClient(peer.url, 'carol');

    const { task } = await via.ok<{ task: { id: string } }>('SendMessage', {
      message: { role: 'ROLE_USER', messageId: 'm1', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    const p1 = await via.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId: task.id, reason: 'p1' });
    // Out of band: P1 ended by an event, P2 made, neither through the recorder.
    expect(await direct.control('FireEvent', { name: 'nudge', payload: { taskId: task.id } })).toEqual({
      resumed: [task.id],
    });
    const p2 = await direct.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId: task.id, reason: 'p2' });
    await via.ok('ResumeTask', { taskId: task.id, resumeToken: p2.pause.resumeToken });
    via.close();
    direct.close();
    recorderOpen = false;
    expect((await recorder.close()).complete).toBe(true);
    peerOpen = false;
    await peer.close();

    const p1Hash = tokenHashOf(p1.pause.resumeToken);
    const p2Hash = tokenHashOf(p2.pause.resumeToken);
    // Ground truth: the peer ended P1 by the event and P2 by the resume.
    const truth = (await linesOf(transitions)).filter(
      (l) => l.event === 'transition' && l.from === 'TASK_STATE_PAUSED',
    );
    expect(truth).toEqual([
      expect.objectContaining({ resumeTokenHash: p1Hash, cause: 'external_event', method: 'FireEvent' }),
      expect.objectContaining({ resumeTokenHash: p2Hash, cause: 'explicit_resume', method: 'ResumeTask' }),
    ]);

    const lines = await linesOf(receipts);
    const suspension = lines.find((l) => l.type === 'SuspensionReceipt');
    expect(suspension).toMatchObject({ taskId: task.id, resumeTokenHash: p1Hash, reason: 'p1' });
    const resumptions = lines.filter((l) => l.type === 'ResumptionReceipt');
    expect(resumptions).toEqual([
      expect.objectContaining({
        taskId: task.id,
        suspension: null,
        outside: { pausedAt: null, resumeTokenHash: p2Hash },
        cause: 'explicit_resume',
        outcome: 'resumed',
        principal: 'jwt:sub=alice',
        inferred: false,
      }),
    ]);

    // verify: the chain holds; the resume names a pause outside the log; P1 is open at the end.
    const verified = await verifyVerdict([receipts], key);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain(`1 resumption of suspensions outside this log: task ${task.id}`);
    // audit: P1 has no end, the resume is not credited to it.
    const audit = await auditVerdict([receipts], key);
    expect(audit.code).toBe(0);
    expect(audit.rows).toEqual([
      expect.objectContaining({ taskId: task.id, outcome: 'open', cause: null, closedBy: null }),
    ]);
    // lost: the recording never shows how P1 ended: it is reported, not paired with P2's resume.
    for (const lost of [await lostVerdict([recording]), await lostVerdict([receipts], { keys: key })]) {
      expect(lost.code).toBe(1);
      const listing = lost.json as unknown as { lost: Array<Record<string, unknown>> };
      expect(listing.lost).toEqual([expect.objectContaining({ taskId: task.id, reason: 'recording_ended' })]);
    }
  });
});
