/**
 * The pause in Jaeger (docs/design.md §7), over real sockets and real OTLP/HTTP protobuf decoded
 * as a collector does: `record --otlp` puts a `PauseCall` span into the caller's trace (a child of
 * its `traceparent` span) linked to the Suspension, which is the root of the pause's own trace;
 * the Resume links to that Suspension; the recorder's stop draws no LostPause. `lost --otlp` over
 * the recording then exports exactly one LostPause (status ERROR) under and linked to the
 * Suspension of the pause never resumed, the same span ids on a second run; over a two-replica
 * fleet whose pause was resumed through the other replica, it exports none. The recorders and the
 * reference peer run in the test's process (`startRecorder` with `otlp`, `startPeer`); `lost --otlp`
 * is its library calls (`lostPauses`, `lostVerdicts`, `exportLostVerdicts`, as cli/commands/lost.ts
 * makes them), and once a `lost --otlp` process, whose spans the library's must equal.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { type Recorder, startRecorder } from '../../src/public/record.js';
import { exportLostVerdicts } from '../../src/public/observe.js';
import { lostTraceName, lostVerdicts } from '../../src/public/receipts.js';
import { runCli } from '../helpers/cli.js';
import { type LostVerdict, lostVerdict } from '../helpers/verdicts.js';
import { ok } from '../replay/session.js';
import { type OtlpSpan, attributesOf, decodeTraceRequest, spansOf } from '../tracing/otlp-proto.js';
import { type OtlpReceiver, otlpReceiver } from '../tracing/otlp-receiver.js';

const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';

let dir = '';
let keyFile = '';
let receiver: OtlpReceiver;
/** What a test started, closed after it whatever happens (each once). */
const closers: (() => Promise<unknown>)[] = [];

/** The spans received since `from` (an index into the bodies). */
const received = (from = 0): OtlpSpan[] =>
  receiver.bodies.slice(from).flatMap((b) => spansOf(decodeTraceRequest(new Uint8Array(b))));
const attr = (span: OtlpSpan | undefined, name: string) => attributesOf(span?.attributes)[name];
const ids = (s: { traceId?: string | undefined; spanId?: string | undefined } | undefined) => ({
  traceId: s?.traceId,
  spanId: s?.spanId,
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lost-otlp-'));
  keyFile = join(dir, 'k.key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'k' }).keyFile()), { mode: 0o600 });
  receiver = await otlpReceiver();
});

afterAll(async () => {
  await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function peerHere(): Promise<RunningPeer> {
  const peer = await startPeer({ deterministic: true });
  closers.push(() => peer.close());
  return peer;
}

/** The recorder of `record --key KEY [--otlp URL]`, in this process (no OTEL_* variables read). */
async function recordHere(upstream: string, out: string, otlp?: string): Promise<Recorder> {
  const recorder = await startRecorder({ upstream, out, key: keyFile, otlp, env: {}, warn: () => undefined });
  let closed: ReturnType<Recorder['close']> | undefined;
  const close = (): ReturnType<Recorder['close']> => (closed ??= recorder.close());
  closers.push(close);
  return { url: recorder.url, close };
}

/** Closes a recorder: true when it wrote all (`record` exits 0). */
const stopped = async (recorder: Recorder): Promise<boolean> => (await recorder.close()).complete;

/** `lost FILES [--key KEY] --otlp RECEIVER`: what it found, its lost verdicts exported as it exports them. */
async function lostOtlp(files: string[], keys?: string): Promise<LostVerdict> {
  const lost = await lostVerdict(files, keys === undefined ? {} : { keys });
  const found = lost.found!;
  const { pauses, interruptions } = lostVerdicts(found);
  const options = { otlp: receiver.url, name: lostTraceName(found), work: 'lost', env: {} };
  await exportLostVerdicts(options, pauses, interruptions);
  return lost;
}

async function send(url: string, text: string): Promise<string> {
  const sent = await ok<{ task: { id: string } }>(url, 'SendMessage', {
    message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
    configuration: { returnImmediately: true },
  });
  return sent.task.id;
}

/** A JSON-RPC call through `url` with the caller's `traceparent`: its result. */
async function callTraced<T>(url: string, method: string, params: unknown, trace: string, span: string): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', traceparent: `00-${trace}-${span}-01` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: T }).result;
}

/** PauseTask through `url` with the caller's `traceparent`: the resume token. */
async function pauseWithTraceparent(url: string, taskId: string): Promise<string> {
  const params = { taskId, reason: 'review' };
  const result = await callTraced<{ state: string; pause: { resumeToken: string } }>(
    url,
    'PauseTask',
    params,
    CALLER_TRACE,
    CALLER_SPAN,
  );
  expect(result.state).toBe('TASK_STATE_PAUSED');
  return result.pause.resumeToken;
}

const RESUMER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const RESUMER_SPAN = '00f067aa0ba902b7';

describe('record --otlp and lost --otlp', () => {
  it("puts the pause into the caller's trace, and lost draws one LostPause, the same on a second run", async () => {
    const peer = await peerHere();
    const recording = join(dir, 'one.jsonl');
    const rec = await recordHere(peer.url, recording, receiver.url);
    const resumed = await send(rec.url, 'resumed');
    const token = await pauseWithTraceparent(rec.url, resumed);
    const params = { taskId: resumed, resumeToken: token };
    await callTraced(rec.url, 'ResumeTask', params, RESUMER_TRACE, RESUMER_SPAN);
    const left = await send(rec.url, 'left');
    await pauseWithTraceparent(rec.url, left);
    expect(await stopped(rec)).toBe(true);

    const spans = received();
    const suspensions = spans.filter((s) => s.name === 'Suspension');
    expect(suspensions).toHaveLength(2);
    for (const suspension of suspensions) {
      // The Suspension is the root of the pause's own trace...
      expect(suspension.traceId).not.toBe(CALLER_TRACE);
      // ...and the caller's trace holds the call that began it, linked to it.
      const call = spans.find(
        (s) => s.name === 'PauseCall' && attr(s, 'a2a.task.id') === attr(suspension, 'a2a.task.id'),
      );
      expect(call).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN });
      expect(call?.links?.map(ids)).toEqual([ids(suspension)]);
      expect(attr(call, 'a2a.link.suspension.span_id')).toBe(suspension.spanId);
      expect(attr(call, 'a2a.method.name')).toBe('PauseTask');
    }
    const suspensionOf = (taskId: string) => suspensions.find((s) => attr(s, 'a2a.task.id') === taskId);
    const resume = spans.find((s) => s.name === 'Resume');
    expect(resume?.links?.map(ids)).toContainEqual(ids(suspensionOf(resumed)));
    // The resumer's trace holds its ResumeTask, linked to the Resume and to the Suspension.
    const resumeCall = spans.find((s) => s.name === 'ResumeCall');
    expect(resumeCall).toMatchObject({ traceId: RESUMER_TRACE, parentSpanId: RESUMER_SPAN });
    expect(resumeCall?.links?.map(ids)).toEqual([ids(resume), ids(suspensionOf(resumed))]);
    expect(attr(resumeCall, 'a2a.link.suspension.span_id')).toBe(suspensionOf(resumed)?.spanId);
    expect(spans.filter((s) => s.name === 'LostPause')).toEqual([]);

    // The first run is the command's, the second the library's.
    const lostSpans = async (run: 'process' | 'library'): Promise<OtlpSpan[]> => {
      const from = receiver.bodies.length;
      if (run === 'process') {
        const result = await runCli(['lost', recording, '--otlp', receiver.url]);
        expect(result.code).toBe(1);
        expect(result.stdout).toContain(suspensionOf(left)?.traceId);
      } else {
        const result = await lostOtlp([recording]);
        expect(result.code).toBe(1);
        expect(result.found?.lost.map((l) => l.span?.traceId)).toContain(suspensionOf(left)?.traceId);
      }
      return received(from);
    };
    const first = await lostSpans('process');
    expect(first.map((s) => s.name)).toEqual(['LostPause']);
    const lost = first[0];
    expect(lost?.status?.code).toBe(2); // STATUS_CODE_ERROR
    expect(lost).toMatchObject({ traceId: suspensionOf(left)?.traceId, parentSpanId: suspensionOf(left)?.spanId });
    expect(lost?.links?.map(ids)).toEqual([ids(suspensionOf(left))]);
    expect(attr(lost, 'a2a.task.id')).toBe(left);
    expect(attr(lost, 'a2a.lost.reason')).toBe('recording_ended');
    expect(attr(lost, 'a2a_replay.lost.verdict')).toBe(true);
    const second = await lostSpans('library');
    expect(second.map(ids)).toEqual(first.map(ids));
  });

  it('exports no LostPause over a fleet whose pause was resumed through the other replica', async () => {
    const peer = await peerHere();
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    const recA = await recordHere(peer.url, a);
    const recB = await recordHere(peer.url, b);
    const taskId = await send(recA.url, 'fleet');
    const token = await pauseWithTraceparent(recA.url, taskId);
    await ok(recB.url, 'ResumeTask', { taskId, resumeToken: token });
    expect(await stopped(recA)).toBe(true);
    expect(await stopped(recB)).toBe(true);
    const from = receiver.bodies.length;
    const logs = [a, b].map((f) => f.replace(/\.jsonl$/, '.receipts.jsonl'));
    const result = await lostOtlp(logs, keyFile);
    expect(result.found?.kind).toBe('fleet');
    expect(result.found?.lost).toEqual([]);
    expect(result.code).toBe(0);
    expect(received(from)).toEqual([]);
    // Replica A alone saw the pause begin and not end: over it alone the pause is lost.
    const alone = await lostOtlp([logs[0]!], keyFile);
    expect(alone.code).toBe(1);
    expect(received(from).map((s) => s.name)).toEqual(['LostPause']);
  });
});
