/**
 * The spans of a pause across recorders (docs/design.md §7, §17), with recorders started with a key
 * and `traces` (`startRecorder`, as `record --key --traces` runs them) in front of one reference
 * peer (`startPeer`), in this process over real sockets, read from their OTLP-JSON trace files: a
 * pause begun through replica A and resumed through replica B, and one begun before a stop (what
 * `record` does on SIGTERM) and resumed after the restart with `continueFrom`. The Resume span the later recorder
 * writes links (trace id and span id) to the Suspension span the earlier one wrote, as the Resume
 * span of a resume seen by the same recorder does; the recorder that stopped with the pause open
 * writes no LostPause for it but a PauseOpenAtStop under its Suspension, while `lost` over its
 * recording still says `recording_ended`.
 */
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startPeer } from '../../src/public/peer.js';
import { type ReceiptKey, generateReceiptKey } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { lostVerdict } from '../helpers/verdicts.js';
import { ok } from '../replay/session.js';
import { type OtlpSpan, type OtlpTraceRequest, attributesOf, spansOf } from '../tracing/otlp-proto.js';

let dir = '';
/** The peers and recorders a test started, closed after it even when an assertion stopped it early. */
const running: { close(): Promise<unknown> }[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-spans-'));
});

afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

interface Recorder {
  url: string;
  /** Stops it: true when every line reached its file and the log closed (`record` exits 0). */
  stop(): Promise<boolean>;
  recording: string;
  receipts: string;
  traces: string;
}

interface SpanRef {
  traceId: string;
  spanId: string;
}

type Line = { type: string; taskId?: string; span?: SpanRef; links?: { suspension: SpanRef } };

/** A receipt key of its own for a recorder. */
const keyOf = (kid: string): ReceiptKey => generateReceiptKey({ kid });

/**
 * A recorder with `key` and `traces` in front of `upstream`, writing `<name>.jsonl` (continuing
 * `from` when given); no OTEL_* variable of this process's is read (as the CLI tests run `record`).
 */
async function recorder(upstream: string, name: string, key: ReceiptKey, from?: string): Promise<Recorder> {
  const recording = join(dir, `${name}.jsonl`);
  const traces = join(dir, `${name}-traces`);
  await mkdir(traces);
  const started = await startRecorder({ upstream, out: recording, key, traces, continueFrom: from, env: {} });
  running.push(started);
  const stop = async (): Promise<boolean> => (await started.close()).complete;
  return { url: started.url, stop, recording, receipts: recording.replace(/\.jsonl$/, '.receipts.jsonl'), traces };
}

async function peer(): Promise<{ url: string }> {
  const started = await startPeer({ deterministic: true });
  running.push(started);
  return started;
}

/** A task started and paused through `url`: its id and resume token. */
async function pauseTask(url: string, text: string): Promise<{ taskId: string; resumeToken: string }> {
  const sent = await ok<{ task: { id: string } }>(url, 'SendMessage', {
    message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
    configuration: { returnImmediately: true },
  });
  const paused = await ok<{ state: string; pause: { resumeToken: string } }>(url, 'PauseTask', {
    taskId: sent.task.id,
    reason: text,
  });
  expect(paused.state).toBe('TASK_STATE_PAUSED');
  return { taskId: sent.task.id, resumeToken: paused.pause.resumeToken };
}

async function resumeTask(url: string, pause: { taskId: string; resumeToken: string }): Promise<void> {
  const resumed = await ok<{ state: string }>(url, 'ResumeTask', pause);
  expect(resumed.state).not.toBe('TASK_STATE_PAUSED');
}

async function linesOf(file: string): Promise<Line[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

/** The spans of the one trace file a recorder wrote. */
async function spansIn(r: Recorder): Promise<OtlpSpan[]> {
  const files = await readdir(r.traces);
  expect(files).toHaveLength(1);
  return spansOf(JSON.parse(await readFile(join(r.traces, files[0]!), 'utf8')) as OtlpTraceRequest);
}

const attr = (span: OtlpSpan | undefined, name: string) => attributesOf(span?.attributes)[name];

/** The Suspension span of `taskId`, which is the span its SuspensionReceipt names. */
async function suspensionOf(r: Recorder, taskId: string): Promise<OtlpSpan> {
  const receipt = (await linesOf(r.receipts)).find((l) => l.type === 'SuspensionReceipt' && l.taskId === taskId);
  const span = (await spansIn(r)).find((s) => s.name === 'Suspension' && attr(s, 'a2a.task.id') === taskId);
  expect(span).toBeDefined();
  expect({ traceId: span?.traceId, spanId: span?.spanId }).toEqual(receipt?.span);
  return span!;
}

/** The Resume span of `taskId`, checked against its ResumptionReceipt: it links to `suspension`. */
async function expectResumeLinksTo(r: Recorder, taskId: string, suspension: OtlpSpan): Promise<void> {
  const receipt = (await linesOf(r.receipts)).find((l) => l.type === 'ResumptionReceipt' && l.taskId === taskId);
  const resume = (await spansIn(r)).find((s) => s.name === 'Resume' && attr(s, 'a2a.task.id') === taskId);
  expect({ traceId: resume?.traceId, spanId: resume?.spanId }).toEqual(receipt?.span);
  const target = { traceId: suspension.traceId, spanId: suspension.spanId };
  expect(receipt?.links?.suspension).toEqual(target);
  expect(resume?.links?.map((l) => ({ traceId: l.traceId, spanId: l.spanId }))).toContainEqual(target);
  expect(attr(resume, 'a2a.link.suspension.trace_id')).toBe(target.traceId);
  expect(attr(resume, 'a2a.link.suspension.span_id')).toBe(target.spanId);
}

/** The recorder's trace holds no LostPause, and one PauseOpenAtStop under `suspension`. */
async function expectOpenAtStop(r: Recorder, suspension: OtlpSpan): Promise<void> {
  const spans = await spansIn(r);
  expect(spans.filter((s) => s.name === 'LostPause')).toEqual([]);
  const open = spans.filter((s) => s.name === 'PauseOpenAtStop');
  expect(open).toHaveLength(1);
  expect(open[0]).toMatchObject({ traceId: suspension.traceId, parentSpanId: suspension.spanId });
  expect(open[0]?.status?.code ?? 0).toBe(0);
  expect(attr(open[0], 'a2a_replay.pause.open_at_stop')).toBe(true);
}

/** `lost` over the recording alone (test/helpers/verdicts.ts): the pause is `recording_ended` there. */
async function expectLostInRecording(r: Recorder, taskId: string): Promise<void> {
  const lost = await lostVerdict([r.recording]);
  expect(lost.code).toBe(1);
  const listed = (lost.json as { lost: { taskId: string; reason: string }[] }).lost;
  expect(listed.map((l) => [l.taskId, l.reason])).toEqual([[taskId, 'recording_ended']]);
}

describe('the spans of one pause across recorders', () => {
  it('links the Resume span replica B writes to the Suspension span replica A wrote', async () => {
    const upstream = await peer();
    const a = await recorder(upstream.url, 'a', keyOf('replica-a'));
    const b = await recorder(upstream.url, 'b', keyOf('replica-b'));
    const acrossReplicas = await pauseTask(a.url, 'across');
    const withinA = await pauseTask(a.url, 'within');
    await resumeTask(b.url, acrossReplicas);
    await resumeTask(a.url, withinA);
    expect(await a.stop()).toBe(true);
    expect(await b.stop()).toBe(true);

    const suspension = await suspensionOf(a, acrossReplicas.taskId);
    await expectResumeLinksTo(b, acrossReplicas.taskId, suspension);
    // A resume A saw itself links to A's Suspension span the same way.
    await expectResumeLinksTo(a, withinA.taskId, await suspensionOf(a, withinA.taskId));
    expect(suspension.parentSpanId ?? '').toBe('');
    await expectOpenAtStop(a, suspension);
    await expectLostInRecording(a, acrossReplicas.taskId);
  }, 60_000);

  it('links the Resume span of a recorder restarted with --continue-from to the Suspension span before', async () => {
    const upstream = await peer();
    const key = keyOf('series');
    const first = await recorder(upstream.url, 's', key);
    const pause = await pauseTask(first.url, 'restart');
    expect(await first.stop()).toBe(true);
    const second = await recorder(upstream.url, 's.2', key, first.recording);
    await resumeTask(second.url, pause);
    expect(await second.stop()).toBe(true);

    const suspension = await suspensionOf(first, pause.taskId);
    await expectResumeLinksTo(second, pause.taskId, suspension);
    await expectOpenAtStop(first, suspension);
    expect((await spansIn(second)).filter((s) => s.name === 'LostPause' || s.name === 'PauseOpenAtStop')).toEqual([]);
    await expectLostInRecording(first, pause.taskId);
  }, 60_000);
});
