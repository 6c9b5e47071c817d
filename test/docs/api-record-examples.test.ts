/**
 * The examples of docs/api.md's "Record as `a2a-replay record` does" and "Read logs as one" run
 * as they are written there (relative imports stand in for the package name): the reference peer
 * recorded through startRecorder with rotation, and the series it wrote read back as one, verified,
 * with no pause lost. A last test checks that every line of those examples is written here as there.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { canonicalJson, startPeer } from '../../src/index.js';
import {
  describeVerification,
  generateReceiptKey,
  lostPauses,
  openLogSet,
  verifyLogSet,
} from '../../src/public/receipts.js';
import { type RecorderEvent, startRecorder } from '../../src/public/record.js';
import { expectExamplesRunIn, pauseAndResume } from './doc-examples.js';

let dir = '';
const events: RecorderEvent['kind'][] = [];
const warnings: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'api-record-'));
  await writeFile(join(dir, 'key.json'), canonicalJson(generateReceiptKey({ kid: 'api' }).keyFile()), {
    mode: 0o600,
  });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('records as a2a-replay record does, through startRecorder', async () => {
  const peer = await startPeer({ deterministic: true });
  const recorder = await startRecorder({
    upstream: peer.url,
    out: join(dir, 'session.jsonl'),
    key: join(dir, 'key.json'), // a key file's path, or a loaded ReceiptKey or Keyring; without one, no receipts
    rotateBytes: 4096, // go on in session.2.jsonl and session.2.receipts.jsonl past 4 KiB: a series
    onEvent: (event) => events.push(event.kind), // 'pause', 'resume', 'lost-pause', 'not-understood'
    warn: (line) => warnings.push(line), // default: `a2a-replay: <line>` on stderr
  });
  await pauseAndResume(recorder.url); // a client sends its requests to recorder.url
  const summary = await recorder.close();
  // summary.pauses, .resumes, .receipts, .lostPauses, .recordingFiles, .receiptFiles, .complete
  await peer.close();

  expect(warnings).toEqual([]);
  expect(summary).toMatchObject({ pauses: 6, resumes: 6, receipts: 12, lostPauses: 0, complete: true });
  expect(summary.receiptFiles!.length).toBeGreaterThan(1);
  expect(events.filter((kind) => kind === 'pause').length).toBe(6);
  expect(events.filter((kind) => kind === 'resume').length).toBe(6);
});

it('reads the logs it wrote as one series, verified, with nothing lost', async () => {
  const set = await openLogSet([dir], { keys: join(dir, 'key.json') }); // files, directories, collector exports
  // set.kind: 'log' | 'series' (linked logs, read as one) | 'fleet' (several recorders' logs)
  const verification = await verifyLogSet(set);
  if (verification.kind === 'log') console.log(describeVerification(verification.result).word);
  const lost = await lostPauses(set); // or lostPauses('session.jsonl'): a recording's, by the observer
  // lost.lost: pauses never resumed; lost.interruptions; lost.fleet for a fleet's pairing
  await set.close();

  expect(set.kind).toBe('series');
  expect(verification.ok).toBe(true);
  expect(lost.lost).toEqual([]);
  expect(lost.interruptions).toEqual([]);
  expect((await lostPauses(join(dir, 'session.jsonl'))).kind).toBe('recording');
});

it('runs each line of the two examples in docs/api.md as written there', async () => {
  await expectExamplesRunIn(new URL(import.meta.url), [
    '## Record as `a2a-replay record` does',
    '## Read logs as one: files, directories, series, fleets',
  ]);
});
