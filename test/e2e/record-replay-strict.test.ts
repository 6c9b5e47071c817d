/**
 * `a2a-replay record --key K --traces DIR` against `a2a-replay peer --deterministic`, then
 * `a2a-replay run --strict` against what the recorder wrote: the recorder's receipt log is the log
 * replay derives, byte for byte, and the recorder's trace file carries the receipts' span ids.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { TOOL_NAME } from '../../src/version.js';
import { runCli } from '../helpers/cli.js';
import { recordPauseSession } from '../intercept/pause-session.js';
import { type OtlpSpan, type OtlpTraceRequest, attributesOf, spansOf } from '../tracing/otlp-proto.js';

let dir = '';
let recording = '';
let receipts = '';
let keyFile = '';
let traces = '';

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
  await writeFile(keyFile, JSON.stringify(generateReceiptKey({ kid: 'k-strict' }).keyFile()), { mode: 0o600 });
  const recorder = await recordPauseSession(['--out', recording, '--key', keyFile, '--traces', traces]);
  // Nothing said but the summary at the stop.
  expect(recorder.stderr()).toMatch(/^a2a-replay: stopped: [^\n]*\n$/);
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
    const verified = await runCli(['verify', receipts, '--key', keyFile]);
    expect(verified.stdout).toContain('ok: 4 receipts');
    expect(verified.code).toBe(0);
  });

  it('replays to the recorder-written receipt log byte for byte, signatures included, without --update', async () => {
    const before = await readFile(receipts, 'utf8');
    const replay = await runCli(['run', recording, '--key', keyFile, '--strict']);
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
    const replay = await runCli(['run', recording, '--key', keyFile, '--traces', join(dir, 'replayed')]);
    expect(replay.code).toBe(0);
    expect(await readFile(join(dir, 'replayed', 'pauses.otlp.json'), 'utf8')).toBe(
      await readFile(join(traces, 'pauses.otlp.json'), 'utf8'),
    );
  });
});
