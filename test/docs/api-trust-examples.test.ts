/**
 * The examples of docs/api.md's sections on checkpoints and proofs, witnesses, OTLP shipping and
 * interruptions, run as they are written there (relative imports stand in for the package name),
 * each followed by what it must show: a proof that verifies and a tampered line that does not, a
 * checkpoint cosigned by a C2SP witness on 127.0.0.1 (test/tlog/test-witness.ts), spans and
 * receipt-log records decoded from real OTLP protobuf by receivers on 127.0.0.1 and the shipped
 * log read back and verified, and interruptions continued, never continued and bypassed. A last
 * test checks that every line of those examples is written here as there.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Keyring, loadKeyFile, startPeer, verifyReceiptLog } from '../../src/index.js';
import {
  InterruptionAuditCollector,
  checkSince,
  checkWitnessQuorum,
  cosignaturesPathFor,
  generateReceiptKey,
  keyVerifierKey,
  latestNote,
  lostPauses,
  noteVerifierOf,
  openLogSet,
  parseCosignatureFile,
  parseCosignerKey,
  parseVerifierKey,
  proveReceipt,
  scanLogTree,
  verifyLogSet,
  verifyReceiptProof,
} from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { ROOT } from '../helpers/cli.js';
import { logRecordsOf, startLogsReceiver } from '../receipts/otlp-logs-receiver.js';
import { decodeTraceRequest, spansOf } from '../tracing/otlp-proto.js';
import { otlpReceiver } from '../tracing/otlp-receiver.js';
import { startTestWitness } from '../tlog/test-witness.js';
import { expectExamplesRunIn, pauseAndResume } from './doc-examples.js';

let dir = '';
const golden = (path: string): string => join(ROOT, 'golden', path);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'api-trust-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('proves one receipt of a log to someone who holds only that line and the public key', async () => {
  const { key } = await loadKeyFile(golden('test-key.json')); // an Ed25519 key: its logs' checkpoints are signed notes
  const verifiers = [noteVerifierOf(key)]; // or parseVerifierKey(vkey): the name+hash+key `keygen --vkey` writes
  const log = golden('input-asked-answered/recording.receipts.jsonl');
  const scan = await scanLogTree(log); // each line's leaf hash, the checkpoint notes, where each receipt is
  const { note } = latestNote(scan); // a C2SP signed note: the log's origin, its tree size and root
  const { proof, index } = proveReceipt(scan, 2); // c2sp.org/tlog-proof@v1: receipt 2 is in that tree
  const line = (await readFile(log, 'utf8')).split('\n')[index]!; // the receipt line as written
  const check = verifyReceiptProof(proof, line, verifiers); // offline: the proof, the line, the public key
  // check.index, .origin, .size; a line changed by a byte, another key or another origin throws
  const since = checkSince(scan, note, verifiers); // the log extends a note taken earlier: nothing rewritten

  expect(note.startsWith(`${check.origin}\n${check.size}\n`)).toBe(true);
  expect(JSON.parse(line)).toMatchObject({ type: 'ContinuationReceipt', seq: 2 });
  expect(check).toEqual({ index: 2, origin: expect.stringMatching(/^a2a-replay\/golden-test\//) as string, size: 3 });
  expect(since).toEqual({ oldSize: 3, newSize: 3, origin: check.origin });
  expect(() => verifyReceiptProof(proof, line.replace('"seq":2', '"seq":3'), verifiers)).toThrow(
    /inclusion proof does not lead to the checkpoint root/,
  );
  expect(() => verifyReceiptProof(proof, line, verifiers, 'a2a-replay/golden-test/another-log')).toThrow(/not of/);
  const stranger = noteVerifierOf(generateReceiptKey({ kid: 'golden-test' }));
  expect(() => verifyReceiptProof(proof, line, [stranger])).toThrow();
  const other = await scanLogTree(golden('input-never-answered/recording.receipts.jsonl'));
  expect(() => checkSince(other, note, verifiers)).toThrow(/earlier checkpoint is of/);
});

it('has each checkpoint cosigned by a witness and counts the cosignatures on the latest', async () => {
  const peer = await startPeer({ deterministic: true });
  const key = generateReceiptKey({ kid: 'docs' }); // or (await loadKeyFile(path)).key
  const vkey = keyVerifierKey(key)!; // what the witness's operator is given to trust the log's checkpoints
  const trusted = parseVerifierKey(vkey);
  const witness = await startTestWitness('witness.test/w1', [
    { originPrefix: `${trusted.name}/`, name: trusted.name, publicKey: Buffer.from(trusted.publicKey) },
  ]);
  const recorder = await startRecorder({
    upstream: peer.url,
    out: join(dir, 'witnessed.jsonl'),
    key,
    checkpointEvery: 1, // a checkpoint after each receipt, each sent to the witnesses as it is written
    witnessUrl: [witness.url], // C2SP tlog-witnesses, each with its verifier key at the same position
    witnessVkey: [witness.vkey],
  });
  await pauseAndResume(recorder.url);
  await recorder.close(); // the witnesses' answers are awaited and kept beside the log
  const log = join(dir, 'witnessed.receipts.jsonl');
  const scan = await scanLogTree(log);
  const records = parseCosignatureFile(await readFile(cosignaturesPathFor(log), 'utf8')); // cosigned or refused
  const witnessed = checkWitnessQuorum(latestNote(scan), records, [parseCosignerKey(witness.vkey)], 1);
  // witnessed.ok: a quorum of the witnesses given cosigned the latest checkpoint and none saw a fork
  const since = checkSince(scan, scan.notes[0]!.note, [noteVerifierOf(key)]); // the first note's tree is kept
  await witness.close();
  await peer.close();

  expect(witnessed).toMatchObject({ ok: true, quorum: 1, size: latestNote(scan).index, refusals: [] });
  expect(witnessed.signed.map((s) => s.witness)).toEqual(['witness.test/w1']);
  expect(witness.answers.every((a) => a.status === 200)).toBe(true);
  expect(since.oldSize).toBeLessThan(since.newSize);
  const elsewhere = await startTestWitness('witness.test/w2', []);
  expect(checkWitnessQuorum(latestNote(scan), records, [parseCosignerKey(elsewhere.vkey)], 1).ok).toBe(false);
  await elsewhere.close();
});

it('ships spans and every receipt-log line over OTLP, and reads the shipped log back as the log', async () => {
  const traces = await otlpReceiver();
  const logs = await startLogsReceiver();
  const tracesUrl = traces.url;
  const logsUrl = logs.url;
  const peer = await startPeer({ deterministic: true });
  const key = generateReceiptKey({ kid: 'docs' });
  const recorder = await startRecorder({
    upstream: peer.url,
    out: join(dir, 'shipped.jsonl'),
    key,
    otlp: tracesUrl, // the spans over OTLP/HTTP protobuf (a base URL gets /v1/traces)
    otlpLogs: logsUrl, // each receipt-log line a log record once durable in the file (/v1/logs)
  });
  await pauseAndResume(recorder.url);
  const summary = await recorder.close(); // what is still queued for either is sent before it resolves
  const exportFile = join(dir, 'collector-export.jsonl');
  await writeFile(exportFile, logs.requests.map((r) => `${JSON.stringify(r)}\n`).join(''));
  // a collector's `file` exporter output reads back as the log it carries
  const shipped = await openLogSet([exportFile], { keys: key });
  const verification = await verifyLogSet(shipped);
  await shipped.close();
  traces.server.close();
  await logs.close();
  await peer.close();

  expect(summary).toMatchObject({ pauses: 6, resumes: 6, complete: true });
  const names = traces.bodies.flatMap((b) => spansOf(decodeTraceRequest(b))).map((s) => s.name);
  expect(names.filter((n) => n === 'Suspension')).toHaveLength(6);
  expect(names.filter((n) => n === 'Resume')).toHaveLength(6);
  const file = (await readFile(join(dir, 'shipped.receipts.jsonl'), 'utf8')).trimEnd().split('\n');
  expect(logs.requests.flatMap(logRecordsOf).map((r) => r.body?.stringValue)).toEqual(file);
  expect(shipped.kind).toBe('log');
  expect(verification.ok).toBe(true);
});

it('audits interruptions by kind and lists the lost ones with their verdicts', async () => {
  const { key } = await loadKeyFile(golden('test-key.json'));
  // The agent asked for input (INPUT_REQUIRED) and was answered: an InterruptionReceipt, then a
  // ContinuationReceipt naming its hash. The audit of interruptions reads them as the log verifies.
  const asked = new InterruptionAuditCollector(); // as `audit --kind interruption`
  const log = golden('input-asked-answered/recording.receipts.jsonl');
  const result = await verifyReceiptLog(log, { keyring: new Keyring([key]), onLine: asked.onLine });
  const rows = result.ok ? asked.rows() : []; // rows of a log that verifies, never of one that does not
  // rows[0].state, .promptHash, .interruptedAt, .outcome ('continued' | 'open'), .cause, .continuedBy, .inputHash
  const never = await openLogSet([golden('input-never-answered/recording.receipts.jsonl')], { keys: key });
  const { interruptions } = await lostPauses(never); // never_continued: still asked when the log ended
  await never.close();
  const walkedPast = await lostPauses(golden('input-gate-bypassed/recording.jsonl')); // by the observer
  // walkedPast.interruptions[0].reason: 'bypassed', the task moved on with no answer naming it; .rule its row

  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({
    kind: 'interruption',
    state: 'TASK_STATE_INPUT_REQUIRED',
    outcome: 'continued',
    cause: 'message',
    promptHash: expect.stringMatching(/^sha256:/) as string,
    inputHash: expect.stringMatching(/^sha256:/) as string,
  });
  expect(interruptions.map((i) => i.reason)).toEqual(['never_continued']);
  expect(walkedPast.kind).toBe('recording');
  expect(walkedPast.interruptions).toEqual([
    expect.objectContaining({ reason: 'bypassed', rule: expect.any(String) as string }),
  ]);
  expect(walkedPast.lost).toEqual([]);
});

it('runs each line of the four examples in docs/api.md as written there', async () => {
  await expectExamplesRunIn(new URL(import.meta.url), [
    '## Checkpoints and proofs: one receipt shown without its log',
    '## Witnesses: checkpoints cosigned by others',
    '## Ship spans and receipts over OTLP',
    '## Interruptions: asked for input, answered or lost',
  ]);
});
