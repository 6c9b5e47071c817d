/**
 * What `verify` and `lost` say, as library calls (src/logs/verification-lines.ts,
 * src/logs/lost-report.ts, the checks of src/logs/log-checks.ts run by `verifyLogSet`): three
 * recorders in front of one reference peer, in this process. A pauses task 1; B resumes it (a
 * resumption of a pause outside B's log) and pauses and resumes task 2; C pauses task 3 and leaves
 * it open. A and B are a fleet that pairs and loses nothing; B and C have an orphan resumption and
 * a lost pause; a tampered copy of A does not verify; a rotating recorder's series without its last
 * log is named missing by its head.
 */
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { startPeer } from '../../src/public/peer.js';
import { A2aReplayError } from '../../src/public/core.js';
import {
  Keyring,
  generateReceiptKey,
  latestNote,
  lostOutcome,
  lostPauses,
  lostPausesJson,
  lostSource,
  lostTraceName,
  lostVerdicts,
  noteVerifierOf,
  openLogSet,
  scanLogTree,
  verificationJson,
  verificationLines,
  verifyLogSet,
  verifySummary,
} from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';

const key = generateReceiptKey({ kid: 'report' });
const keys = new Keyring([key]);
let dir = '';
const recording = (name: string): string => join(dir, `${name}.jsonl`);
const log = (name: string): string => join(dir, `${name}.receipts.jsonl`);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'verify-lost-report-'));
  const peer = await startPeer({ deterministic: true });
  try {
    const open = async (name: string, options: { rotateBytes?: number; witness?: string } = {}) => {
      const recorder = await startRecorder({
        upstream: peer.url,
        out: recording(name),
        key,
        warn: () => undefined,
        ...options,
      });
      return { recorder, client: new A2aTestClient(recorder.url) };
    };
    const pause = async (client: A2aTestClient, text: string) => {
      const { task } = await client.ok<{ task: { id: string } }>('SendMessage', {
        message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] },
        configuration: { returnImmediately: true },
      });
      const paused = await client.ok<{ pause: { resumeToken: string } }>('PauseTask', {
        taskId: task.id,
        reason: `waiting on ${text}`,
      });
      return { taskId: task.id, resumeToken: paused.pause.resumeToken };
    };
    const a = await open('a');
    const one = await pause(a.client, 'work:3');
    await a.recorder.close();
    const b = await open('b');
    await b.client.ok('ResumeTask', one);
    await b.client.ok('ResumeTask', await pause(b.client, 'work:4'));
    await b.recorder.close();
    const c = await open('c');
    await pause(c.client, 'work:5');
    await c.recorder.close();
    // A series: each log rotates after a pause; its head is the witness file.
    await mkdir(join(dir, 'series'));
    const s = await startRecorder({
      upstream: peer.url,
      out: join(dir, 'series', 'session.jsonl'),
      key,
      witness: join(dir, 'series.head'),
      rotateBytes: 2000,
      warn: () => undefined,
    });
    const client = new A2aTestClient(s.url);
    for (const text of ['work:6', 'work:7', 'work:8']) await pause(client, `${text} ${'x'.repeat(3000)}`);
    await s.close();
  } finally {
    await peer.close();
  }
  await copyFile(log('a'), join(dir, 'tampered.receipts.jsonl'));
  const lines = (await readFile(log('a'), 'utf8')).split('\n');
  lines[1] = lines[1]!.replace('"work:3"', '"work:9"').replace('waiting on', 'waiting for');
  await writeFile(join(dir, 'tampered.receipts.jsonl'), lines.join('\n'));
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('verifyLogSet with the checks of one log', () => {
  it('checks the recording, a note taken earlier and the witnesses, and says each in a line', async () => {
    const note = latestNote(await scanLogTree(log('a'))).note;
    const witness = noteVerifierOf(generateReceiptKey({ kid: 'witness' }));
    const set = await openLogSet([log('a')], { keys });
    const verified = await verifyLogSet(set, {
      recording: recording('a'),
      since: { note, name: 'a.note' },
      witnesses: { witnesses: [witness], quorum: 1 },
    });
    if (verified.kind !== 'log') throw new Error(`a log verified as a ${verified.kind}`);
    expect(verified.result.ok).toBe(true);
    expect(verified.recording).toEqual({
      ok: true,
      lines: [`${recording('a')}: complete: the recorder read every answer whole`],
    });
    expect(verified.since?.ok).toBe(true);
    expect(verified.witnesses?.ok).toBe(false);
    // The witness never cosigned: the log verifies, the set does not.
    expect(verified.ok).toBe(false);
    const lines = verificationLines(verified);
    expect(lines[0]).toBe(verifySummary(log('a'), verified.result));
    expect(lines.slice(1)).toEqual([
      verified.recording!.lines[0],
      expect.stringMatching(/: extends a\.note: .* \(consistency proof verified\)$/),
      expect.stringMatching(/: NOT WITNESSED: /),
    ]);
    const json = verificationJson(verified);
    expect(Object.keys(json).slice(-3)).toEqual(['recording', 'since', 'witnesses']);
    expect(json).toMatchObject({ file: log('a'), ok: true, witnesses: { ok: false } });
  });

  it('fails a log against the recording of another, and a note of another log', async () => {
    const note = latestNote(await scanLogTree(log('b'))).note;
    const set = await openLogSet([log('a')], { keys });
    const other = await verifyLogSet(set, { recording: recording('b') });
    if (other.kind !== 'log') throw new Error(`a log verified as a ${other.kind}`);
    expect(other.ok).toBe(false);
    expect(other.recording?.ok).toBe(false);
    expect(other.recording?.lines[0]).toMatch(/: not the recording of .*a\.receipts\.jsonl: its id is /);
    // The chain did not verify against that recording: no note or witness is checked then.
    expect(other.result.firstError?.reason).toBe('recording_mismatch');
    const forked = await verifyLogSet(set, { since: { note, name: 'b.note' } });
    if (forked.kind !== 'log') throw new Error(`a log verified as a ${forked.kind}`);
    expect(forked.ok).toBe(false);
    expect(forked.since?.ok).toBe(false);
    expect(forked.since?.line).toMatch(/: INVALID since b\.note: /);
  });

  it('refuses a recording it cannot read as bad input, and checks of one log asked of a fleet', async () => {
    const set = await openLogSet([log('a')], { keys });
    const refused = await verifyLogSet(set, { recording: join(dir, 'absent.jsonl') }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(A2aReplayError);
    expect((refused as A2aReplayError).code).toBe('INVALID_ARGUMENT');
    expect((refused as A2aReplayError).message).toContain('absent.jsonl: cannot read the recording (ENOENT)');
    const fleet = await openLogSet([log('a'), log('b')], { keys });
    await expect(verifyLogSet(fleet, { recording: recording('a') })).rejects.toBeInstanceOf(A2aReplayError);
  });
});

describe('verificationLines and verificationJson of a fleet and a series', () => {
  it('pairs a pause resumed at another recorder, each log said, then the fleet', async () => {
    const verified = await verifyLogSet(await openLogSet([log('a'), log('b')], { keys }));
    expect(verified.ok).toBe(true);
    const lines = verificationLines(verified);
    expect(lines.filter((l) => l.includes(': ok: '))).toHaveLength(2);
    expect(lines).toContainEqual(
      expect.stringMatching(/^fleet of 2 logs: 1 paused in one log and resumed in another, 0 open/),
    );
    expect(verificationJson(verified)).toMatchObject({ fleet: { paired: [{ begun: { file: log('a') } }], open: [] } });
  });

  it('names the log of a fleet that does not verify, and pairs nothing', async () => {
    const tampered = join(dir, 'tampered.receipts.jsonl');
    const verified = await verifyLogSet(await openLogSet([tampered, log('b')], { keys }));
    expect(verified.ok).toBe(false);
    const lines = verificationLines(verified);
    expect(lines[0]).toMatch(new RegExp(`^${tampered}: INVALID at line 2: `));
    expect(lines.some((l) => l.startsWith('fleet of'))).toBe(false);
    expect(verificationJson(verified)).toMatchObject({ fleet: null });
  });

  it('says the head names a log of the series that was not given', async () => {
    const position = (name: string): number => Number(/\.(\d+)\.receipts\.jsonl$/.exec(name)?.[1] ?? 1);
    const files = (await readdir(join(dir, 'series')))
      .filter((f) => f.endsWith('.receipts.jsonl'))
      .sort((a, b) => position(a) - position(b));
    expect(files.length).toBeGreaterThanOrEqual(3);
    // The last log dropped: the logs given hold together, and only the head says one is missing.
    const set = await openLogSet(
      files.slice(0, -1).map((f) => join(dir, 'series', f)),
      { keys, head: join(dir, 'series.head') },
    );
    const verified = await verifyLogSet(set);
    expect(verified).toMatchObject({ kind: 'series', ok: false, head: { kind: 'missing' } });
    expect(verificationLines(verified).at(-1)).toMatch(/^head: MISSING LOG: /);
    await expect(lostPauses(set)).rejects.toMatchObject({ code: 'RECEIPT_INVALID' });
  });
});

describe('what a listing of lost pauses comes to', () => {
  it('a fleet that pairs every pause is clean', async () => {
    const found = await lostPauses(await openLogSet([log('a'), log('b')], { keys }));
    expect(lostOutcome(found)).toBe('clean');
    expect(lostSource(found)).toBe('receipt logs, verified');
    expect(lostPausesJson(found)).toMatchObject({ files: [log('a'), log('b')], lost: [], orphans: [], ambiguous: [] });
    expect(lostVerdicts(found)).toEqual({ pauses: [], interruptions: [] });
    expect(lostTraceName(found)).toBe('lost-fleet');
  });

  it('a fleet with an orphan resumption and a pause left open is lost, each listed', async () => {
    const found = await lostPauses(await openLogSet([log('b'), log('c')], { keys }));
    expect(lostOutcome(found)).toBe('lost');
    const json = lostPausesJson(found) as {
      lost: { reason: string; traceId: string }[];
      orphans: { reason: string }[];
    };
    expect(json.lost.map((l) => l.reason)).toEqual(['recording_ended']);
    expect(json.lost[0]!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(json.orphans.map((o) => o.reason)).toEqual(['orphan']);
    expect(lostVerdicts(found).pauses).toHaveLength(1);
  });

  it('one verified log with a pause never resumed is lost, and rests on its verification', async () => {
    const found = await lostPauses(await openLogSet([log('c')], { keys }));
    expect(lostOutcome(found)).toBe('lost');
    expect(lostSource(found)).toBe('receipt log, verified');
    expect(lostPausesJson(found)).toMatchObject({
      file: log('c'),
      lost: [{ reason: 'recording_ended' }],
      unreceipted: null,
    });
    expect(lostVerdicts(found).pauses).toEqual(found.lost);
    expect(lostTraceName(found)).toBe('lost-c.receipts');
  });

  it('a recording is read by the observer: complete, its dialects, and the chain of rules when explained', async () => {
    const found = await lostPauses(recording('b'), { explain: true });
    expect(lostOutcome(found)).toBe('clean');
    expect(lostTraceName(found)).toBe('lost-b');
    expect(lostSource(found)).toBe('recording');
    const json = lostPausesJson(found, { explain: true });
    expect(json).toMatchObject({ file: recording('b'), complete: true, understood: true, read: true, explain: [] });
    expect(json).not.toHaveProperty('unreceipted');
    expect(lostPausesJson(found)).not.toHaveProperty('explain');
    expect(lostOutcome(await lostPauses(recording('c')))).toBe('lost');
  });
});
