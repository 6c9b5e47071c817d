/**
 * The example of docs/api.md's "What `verify` and `lost` say, from code", run as it is written
 * there (relative imports stand in for the package name): a recorder in front of the reference
 * peer, in this process, with a C2SP witness on 127.0.0.1 (test/tlog/test-witness.ts) cosigning
 * each checkpoint; the log is then checked against its recording, a note taken at its first
 * checkpoint and the witness, and its pauses listed. A last test checks that every line of the
 * example is written here as there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPeer } from '../../src/public/peer.js';
import { lostOutcome, lostPauses, lostPausesJson, lostSource, lostTraceName } from '../../src/public/receipts.js';
import {
  generateReceiptKey,
  keyVerifierKey,
  openLogSet,
  parseCosignerKey,
  parseVerifierKey,
  scanLogTree,
  verificationLines,
  verifyLogSet,
  verifySummary,
} from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { startTestWitness } from '../tlog/test-witness.js';
import { expectExamplesRunIn, pauseAndResume } from './doc-examples.js';

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'api-verify-lost-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('verifies a log with its recording, a note taken earlier and its witness, and lists nothing lost', async () => {
  const peer = await startPeer({ deterministic: true });
  const key = generateReceiptKey({ kid: 'docs' });
  const trusted = parseVerifierKey(keyVerifierKey(key)!);
  const w = await startTestWitness('witness.test/w1', [
    { originPrefix: `${trusted.name}/`, name: trusted.name, publicKey: Buffer.from(trusted.publicKey) },
  ]);
  const vkey = w.vkey;
  const recording = join(dir, 'session.jsonl');
  const recorder = await startRecorder({
    upstream: peer.url,
    out: recording,
    key,
    checkpointEvery: 1,
    witnessUrl: [w.url],
    witnessVkey: [vkey],
  });
  await pauseAndResume(recorder.url);
  await recorder.close();
  await w.close();
  await peer.close();
  const log = join(dir, 'session.receipts.jsonl');
  const earlier = (await scanLogTree(log)).notes[0]!.note;

  const set = await openLogSet([log], { keys: key });
  const verified = await verifyLogSet(set, {
    recording, // the log's recording: the one it was derived from, unchanged and read whole
    since: { note: earlier, name: 'earlier.note' }, // a checkpoint note taken before: the log must extend it
    witnesses: { witnesses: [parseCosignerKey(vkey)], quorum: 1 }, // who must have cosigned its latest checkpoint
  });
  // verified.ok: the chain, a head given and each check held; verified.recording, .since, .witnesses
  const lines = verificationLines(verified); // what `verify` prints; verificationJson(verified): `verify --json`
  const found = await lostPauses(set);
  const outcome = lostOutcome(found); // 'clean' | 'lost' | 'untrusted' | 'not-understood': `lost` exits 0, 1, 1, 2
  const source = lostSource(found); // what the listing rests on: 'receipt log, verified', 'recording', ...
  const json = lostPausesJson(found); // what `lost --json` prints; lostVerdicts(found): the spans `lost --otlp` draws
  const traceName = lostTraceName(found); // the file `lost --traces DIR` draws them in: DIR/<traceName>.otlp.json
  await set.close();

  expect(verified.ok).toBe(true);
  if (verified.kind !== 'log') throw new Error(`a log verified as a ${verified.kind}`);
  expect(lines).toEqual([
    verifySummary(log, verified.result),
    `${recording}: complete: the recorder read every answer whole`,
    expect.stringMatching(/: extends earlier\.note: .* grew from \d+ to \d+ lines \(consistency proof verified\)$/),
    expect.stringMatching(/: witnessed: /),
  ]);
  expect(outcome).toBe('clean');
  expect(source).toBe('receipt log, verified');
  expect(traceName).toBe(`lost-${basename(log).replace(/\.jsonl$/, '')}`);
  expect(json).toMatchObject({ file: log, source, lost: [], lostInterruptions: [], unreceipted: null });
  // Another witness never cosigned: the log still verifies, the set does not.
  const stranger = await startTestWitness('witness.test/w2', []);
  const unwitnessed = await verifyLogSet(await openLogSet([log], { keys: key }), {
    witnesses: { witnesses: [parseCosignerKey(stranger.vkey)] },
  });
  await stranger.close();
  expect(unwitnessed).toMatchObject({ ok: false, result: { ok: true }, witnesses: { ok: false } });
});

it('runs each line of the example in docs/api.md as written there', async () => {
  await expectExamplesRunIn(new URL(import.meta.url), ['## What `verify` and `lost` say, from code']);
});
