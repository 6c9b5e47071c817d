/**
 * `a2a-replay run` with tracing: a session of the deterministic peer (`startPeer`) recorded
 * through `startRecorder` (what `record` starts), replayed with `--traces` and `--otlp` as `run`
 * replays it (`replayRecordings`, test/helpers/run-report.ts); the built CLI runs where the
 * process is the subject: the OTEL_EXPORTER_OTLP_* environment and its one warning on standard
 * error, and `lost`'s listing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { runCli } from '../helpers/cli.js';
import { replayReport } from '../helpers/run-report.js';
import { ok } from '../replay/session.js';
import { attributesOf, decodeTraceRequest, spansOf } from '../tracing/otlp-proto.js';
import { otlpReceiver } from '../tracing/otlp-receiver.js';

/** task A: paused by the caller and resumed; task B: paused and never resumed. */
async function session(url: string): Promise<void> {
  const start = (messageId: string): Promise<{ task: { id: string } }> =>
    ok(url, 'SendMessage', {
      message: { messageId, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
  const a = await start('m-a');
  await ok(url, 'AdvanceClock', { ms: 1000 }, '/control');
  const paused = await ok<{ pause: { resumeToken: string } }>(url, 'PauseTask', {
    taskId: a.task.id,
    reason: 'review',
    mode: 'finish_step',
  });
  await ok(url, 'AdvanceClock', { ms: 5000 }, '/control');
  await ok(url, 'ResumeTask', { taskId: a.task.id, resumeToken: paused.pause.resumeToken });
  await ok(url, 'AdvanceClock', { ms: 3000 }, '/control');
  await ok(url, 'GetTask', { id: a.task.id });
  const b = await start('m-b');
  await ok(url, 'AdvanceClock', { ms: 1000 }, '/control');
  await ok(url, 'PauseTask', { taskId: b.task.id, reason: 'left behind', mode: 'finish_step' });
}

let dir: string;
let recording: string;
let keyFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'a2a-trace-run-'));
  recording = join(dir, 'pauses.jsonl');
  keyFile = join(dir, 'key.json');
  writeFileSync(
    keyFile,
    JSON.stringify(generateReceiptKey({ kid: 'k-trace', random: (n) => new Uint8Array(n).fill(3) }).keyFile()),
    { mode: 0o600 },
  );
  const peer = await startPeer({ deterministic: true });
  try {
    const recorder = await startRecorder({ upstream: peer.url, out: recording, key: keyFile, warn: () => undefined });
    try {
      await session(recorder.url);
    } finally {
      await recorder.close();
    }
  } finally {
    await peer.close();
  }
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a2a-replay run with tracing', () => {
  it('writes the same trace file, byte for byte, on every replay of a recording', async () => {
    const first = await replayReport([recording], { key: keyFile, traces: join(dir, 'one') });
    expect(first.warnings).toEqual([]);
    expect(first.code).toBe(0);
    const second = await replayReport([recording], { key: keyFile, traces: join(dir, 'two') });
    expect(second.code).toBe(0);
    const one = readFileSync(join(dir, 'one', 'pauses.otlp.json'), 'utf8');
    expect(readFileSync(join(dir, 'two', 'pauses.otlp.json'), 'utf8')).toBe(one);
    expect((one.match(/"name": "(Suspension|Resume|LostPause|PauseOpenAtStop)"/g) ?? []).sort()).toEqual([
      '"name": "PauseOpenAtStop"',
      '"name": "Resume"',
      '"name": "Suspension"',
      '"name": "Suspension"',
    ]);
  });

  it('sends the same spans over OTLP/HTTP protobuf, with the ids the receipts carry', async () => {
    const { server, bodies } = await otlpReceiver();
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const result = await replayReport([recording], { key: keyFile, otlp: url });
      expect(result.code).toBe(0);
      const spans = bodies.flatMap((b) => spansOf(decodeTraceRequest(b)));
      const receipts = readFileSync(recording.replace(/\.jsonl$/, '.receipts.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map(
          (l) =>
            JSON.parse(l) as {
              type: string;
              span?: { traceId: string; spanId: string };
              links?: { suspension: { spanId: string } };
            },
        );
      const suspensions = receipts.filter((r) => r.type === 'SuspensionReceipt');
      const resumption = receipts.find((r) => r.type === 'ResumptionReceipt');
      expect(suspensions).toHaveLength(2);
      for (const receipt of suspensions) {
        const span = spans.find((s) => s.spanId === receipt.span?.spanId);
        expect(span).toMatchObject({ name: 'Suspension', traceId: receipt.span?.traceId });
      }
      const resume = spans.find((s) => s.name === 'Resume');
      expect(resume).toMatchObject({ traceId: resumption?.span?.traceId, spanId: resumption?.span?.spanId });
      expect(resume?.links?.[0]?.spanId).toBe(resumption?.links?.suspension.spanId);
      // The pause open when the recording ends is no LostPause: it was open when the recorder stopped.
      expect(spans.filter((s) => s.name === 'LostPause')).toEqual([]);
      const open = spans.filter((s) => s.name === 'PauseOpenAtStop');
      expect(open).toHaveLength(1);
      expect(open[0]?.status?.code ?? 0).toBe(0);
      expect(open[0]?.parentSpanId).toBe(suspensions[1]?.span?.spanId);
      expect(attributesOf(open[0]?.attributes)['a2a_replay.pause.open_at_stop']).toBe(true);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('honours OTEL_EXPORTER_OTLP_ENDPOINT as record does, and tells a dead collector once per run', async () => {
    const { server, bodies } = await otlpReceiver();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const result = await runCli(['run', recording, '--key', keyFile], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: url } });
      expect(result.code).toBe(0);
      expect(bodies.flatMap((b) => spansOf(decodeTraceRequest(b))).map((s) => s.name)).toContain('Suspension');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    // Nothing listens there now: two recordings, one warning, in replay words.
    // OTEL_EXPORTER_OTLP_TIMEOUT shortens the exporter's retrying of the refused connection (5 s by default).
    const down = await runCli(['run', recording, recording, '--key', keyFile], {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_TIMEOUT: '300' },
    });
    const warnings = down.stderr.split('\n').filter((l) => l.includes('OTLP export'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/the replay goes on without it$/);
  });

  it('lists the pause left behind with the lost command', async () => {
    const result = await runCli(['lost', recording]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('PAUSE_INITIATOR_CLIENT  recording_ended');
    expect(result.stdout).toContain('"left behind"');
  });
});
