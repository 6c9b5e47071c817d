/**
 * `startRecorder` with a key and `traces` (what `a2a-replay record --key K --traces DIR` runs)
 * in front of a deterministic reference peer, then what `a2a-replay run --strict` concludes against
 * what the recorder wrote (`replayReport`): the recorder's receipt log is the log replay derives,
 * byte for byte, and the recorder's trace file carries the receipts' span ids. All in this process.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { type ReceiptKey, generateReceiptKey } from '../../src/public/receipts.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { TOOL_NAME } from '../../src/version.js';
import { verifyVerdict } from '../helpers/verdicts.js';
import { recordPauseSessionHere } from '../helpers/in-process.js';
import { replayReport } from '../helpers/run-report.js';
import { type OtlpSpan, type OtlpTraceRequest, attributesOf, spansOf } from '../tracing/otlp-proto.js';

let dir = '';
let recording = '';
let receipts = '';
let keyFile = '';
let traces = '';
let key: ReceiptKey;

interface Line {
  type: string;
  span?: { traceId: string; spanId: string };
  outcome?: string;
  [field: string]: unknown;
}

const lines = (text: string): Line[] =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
const traceSpans = async (file: string): Promise<OtlpSpan[]> =>
  spansOf(JSON.parse(await readFile(file, 'utf8')) as OtlpTraceRequest);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-strict-'));
  recording = join(dir, 'pauses.jsonl');
  receipts = join(dir, 'pauses.receipts.jsonl');
  keyFile = join(dir, 'key.json');
  traces = join(dir, 'traces');
  key = generateReceiptKey({ kid: 'k-strict' });
  await writeFile(keyFile, JSON.stringify(key.keyFile()), { mode: 0o600 });
  const recorded = await recordPauseSessionHere({ out: recording, key: keyFile, traces });
  // Nothing said: no warning, and a complete stop.
  expect(recorded.warnings).toEqual([]);
  expect(recorded.summary.complete).toBe(true);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('record --key, then run --strict', () => {
  it('writes a receipt log whose header names the recording, its createdAt and the tool', async () => {
    const { header } = await readRecording(recording);
    const log = lines(await readFile(receipts, 'utf8'));
    expect(log[0]).toMatchObject({
      type: 'ReceiptLog',
      recording: header.id,
      createdAt: header.createdAt,
      tool: TOOL_NAME,
    });
    expect(
      log.filter((l) => l.type.endsWith('Receipt')).map((l) => `${l.type}${l.outcome ? ` ${l.outcome}` : ''}`),
    ).toEqual(['SuspensionReceipt', 'ResumptionReceipt rejected', 'ResumptionReceipt resumed', 'SuspensionReceipt']);
    expect(log.at(-1)).toMatchObject({ type: 'Checkpoint' });
    const verified = await verifyVerdict([receipts], key);
    expect(verified.stdout).toContain('ok: 4 receipts');
    expect(verified.code).toBe(0);
  });

  it('replays to the recorder-written receipt log byte for byte, signatures included, without --update', async () => {
    const before = await readFile(receipts, 'utf8');
    const replay = await replayReport([recording], { key: keyFile, strict: true });
    expect(replay.stdout).toMatch(/^PASS /m);
    expect(replay.code).toBe(0);
    expect(await readFile(receipts, 'utf8')).toBe(before);
  });

  it('writes DIR/<name>.otlp.json whose Suspension and Resume spans carry the receipts’ ids and hashes', async () => {
    const spans = await traceSpans(join(traces, 'pauses.otlp.json'));
    const log = (await readFile(receipts, 'utf8')).trimEnd().split('\n');
    const suspensions = log.filter((l) => l.includes('"type":"SuspensionReceipt"'));
    expect(suspensions).toHaveLength(2);
    for (const text of suspensions) {
      const receipt = JSON.parse(text) as Line;
      const span = spans.find((s) => s.spanId === receipt.span?.spanId);
      expect(span).toMatchObject({ name: 'Suspension', traceId: receipt.span?.traceId });
      expect(attributesOf(span?.attributes)['a2a.receipt.hash']).toBe(sha256Prefixed(text));
    }
    const resumed = lines(log.join('\n')).find((l) => l.outcome === 'resumed');
    expect(spans.find((s) => s.name === 'Resume' && s.spanId === resumed?.span?.spanId)).toMatchObject({
      traceId: resumed?.span?.traceId,
    });
    // Task B's pause is never resumed: the recording ends with it open, which is no evidence of loss.
    expect(spans.filter((s) => s.name === 'LostPause')).toEqual([]);
    expect(spans.filter((s) => s.name === 'PauseOpenAtStop')).toHaveLength(1);
  });

  it('gives the same trace file when the recording is replayed', async () => {
    const replay = await replayReport([recording], { key: keyFile, traces: join(dir, 'replayed') });
    expect(replay.code).toBe(0);
    expect(await readFile(join(dir, 'replayed', 'pauses.otlp.json'), 'utf8')).toBe(
      await readFile(join(traces, 'pauses.otlp.json'), 'utf8'),
    );
  });
});
