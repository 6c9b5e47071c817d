import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { afterEach, describe, expect, it } from 'vitest';
import { otlpJsonDocument } from '../../src/tracing/trace-file-exporter.js';
import { openTracing } from '../../src/tracing/open-tracing.js';
import { resolveOtlpTimeoutMs, wantsTracing } from '../../src/tracing/tracing-options.js';
import { resolveOtlpTracesUrl, setupTracing } from '../../src/tracing/tracing-setup.js';
import {
  ATTR_LINK_KIND,
  ATTR_LINK_PIPELINE_SPAN_ID,
  ATTR_LINK_SUSPENSION_SPAN_ID,
  ATTR_LOST_REASON,
  ATTR_RECEIPT_HASH,
  ATTR_TASK_ID,
} from '../../src/tracing/attributes.js';
import { memoryTracing } from './memory-tracing.js';
import { attributesOf, decodeTraceRequest, spansOf, withoutDefaults } from './otlp-proto.js';
import { TASK, feed, lostStory, pauseStory, suspensionIn, taskRef } from './stories.js';

interface Receiver {
  url: string;
  bodies: { contentType: string | undefined; path: string | undefined; body: Buffer }[];
  server: Server;
}

/** A minimal OTLP/HTTP collector on 127.0.0.1: keeps each request body, answers 200. */
async function startReceiver(): Promise<Receiver> {
  const bodies: Receiver['bodies'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push({ contentType: req.headers['content-type'], path: req.url, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, server };
}

const story = pauseStory({
  initiatedBy: 'PAUSE_INITIATOR_CLIENT',
  via: 'PauseTask',
  cause: 'explicit_resume',
  outcome: 'resumed',
  pipeline: taskRef,
});
const hashes = { 'suspension:5': 'sha256:aaaa', 'resume:9': 'sha256:bbbb' };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-traces-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The JSON encoding without span and link `flags`. */
function withoutFlags(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutFlags);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'flags')
      .map(([k, v]) => [k, withoutFlags(v)]),
  );
}

describe('setupTracing', () => {
  it('sends Suspension, Resume and LostPause spans over OTLP/HTTP protobuf with links and attributes', async () => {
    const receiver = await startReceiver();
    cleanups.push(() => new Promise<void>((resolve) => receiver.server.close(() => resolve())));
    const warnings: string[] = [];
    const tracing = setupTracing({ otlp: receiver.url, env: {}, warn: (line) => warnings.push(line) });
    feed(tracing.sink, story, hashes);
    feed(tracing.sink, lostStory('paused_until_passed'));
    await tracing.shutdown();

    expect(warnings).toEqual([]);
    expect(receiver.bodies.length).toBeGreaterThan(0);
    expect(receiver.bodies.every((b) => b.path === '/v1/traces' && b.contentType === 'application/x-protobuf')).toBe(
      true,
    );
    const requests = receiver.bodies.map((b) => decodeTraceRequest(b.body));
    const spans = requests.flatMap(spansOf);
    expect(spans.map((s) => s.name).sort()).toEqual([
      'LostPause',
      'Resume',
      'Suspension',
      'Suspension',
      'Task',
      'Task',
    ]);
    const resource = attributesOf(requests[0]?.resourceSpans?.[0]?.resource?.attributes);
    expect(resource).toEqual({ 'service.name': 'a2a-replay' });

    const suspension = suspensionIn(taskRef);
    const resume = spans.find((s) => s.name === 'Resume');
    expect(resume?.parentSpanId).toBeUndefined();
    expect(resume?.links?.map((l) => [l.traceId, l.spanId, attributesOf(l.attributes)[ATTR_LINK_KIND]])).toEqual([
      [suspension.traceId, suspension.spanId, 'suspension'],
      [taskRef.traceId, taskRef.spanId, 'pipeline'],
    ]);
    expect(attributesOf(resume?.attributes)).toMatchObject({
      [ATTR_TASK_ID]: TASK,
      [ATTR_LINK_SUSPENSION_SPAN_ID]: suspension.spanId,
      [ATTR_LINK_PIPELINE_SPAN_ID]: taskRef.spanId,
      [ATTR_RECEIPT_HASH]: 'sha256:bbbb',
    });
    const firstSuspension = spans.find(
      (s) => s.name === 'Suspension' && attributesOf(s.attributes)[ATTR_RECEIPT_HASH] === 'sha256:aaaa',
    );
    expect(firstSuspension).toMatchObject({
      traceId: suspension.traceId,
      spanId: suspension.spanId,
      parentSpanId: taskRef.spanId,
    });
    expect(firstSuspension?.startTimeUnixNano).toBe(`${Date.UTC(2025, 0, 1, 0, 0, 5)}000000`);
    const lost = spans.find((s) => s.name === 'LostPause');
    expect(lost?.status).toEqual({ code: 2, message: 'pause lost: paused_until_passed' });
    expect(attributesOf(lost?.attributes)[ATTR_LOST_REASON]).toBe('paused_until_passed');
  });

  it('puts on the wire exactly what the OTLP JSON encoding of the same spans says', async () => {
    const receiver = await startReceiver();
    cleanups.push(() => new Promise<void>((resolve) => receiver.server.close(() => resolve())));
    const tracing = setupTracing({ otlp: `${receiver.url}/v1/traces`, env: {}, warn: () => undefined });
    feed(tracing.sink, story, hashes);
    await tracing.shutdown();

    const memory = memoryTracing();
    cleanups.push(() => memory.provider.shutdown());
    feed(memory.bridge, story, hashes);
    const json = JSON.parse(
      Buffer.from(JsonTraceSerializer.serializeRequest(memory.spans()) ?? []).toString('utf8'),
    ) as unknown;
    const decoded = receiver.bodies.map((b) => decodeTraceRequest(b.body));
    expect(decoded).toHaveLength(1);
    // The generated schema predates Span.flags / Link.flags (proto fields 16 and 6), so those are
    // the one member it cannot read back; everything else must match the JSON encoding exactly.
    expect(withoutDefaults(decoded[0])).toEqual(withoutDefaults(withoutFlags(json)));
  });

  it('writes the same span events to byte-identical trace files', async () => {
    const dir = tempDir();
    const write = async (name: string): Promise<string> => {
      const tracing = setupTracing({ tracesDir: dir, name, env: {}, warn: () => undefined });
      feed(tracing.sink, story, hashes);
      feed(tracing.sink, lostStory('recording_ended'));
      await tracing.shutdown();
      expect(tracing.tracesFile).toBe(join(dir, `${name}.otlp.json`));
      return readFileSync(join(dir, `${name}.otlp.json`), 'utf8');
    };
    const first = await write('first');
    const second = await write('second');
    expect(second).toBe(first);
    const document = JSON.parse(first) as {
      resourceSpans: {
        resource: unknown;
        scopeSpans: { scope: unknown; spans: { name: string; startTimeUnixNano: string }[] }[];
      }[];
    };
    expect(document.resourceSpans[0]?.resource).toEqual({
      attributes: [{ key: 'service.name', value: { stringValue: 'a2a-replay' } }],
      droppedAttributesCount: 0,
    });
    expect(document.resourceSpans[0]?.scopeSpans[0]?.scope).toEqual({ name: 'a2a-replay' });
    const starts = document.resourceSpans[0]?.scopeSpans[0]?.spans.map((s) => BigInt(s.startTimeUnixNano)) ?? [];
    expect(starts).toEqual([...starts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(first).not.toMatch(/host|process\.|telemetry\.sdk/);
  });

  it('writes spans in the same order whatever order they ended in', () => {
    const one = memoryTracing();
    const two = memoryTracing();
    cleanups.push(
      () => one.provider.shutdown(),
      () => two.provider.shutdown(),
    );
    feed(one.bridge, story, hashes);
    feed(two.bridge, story, hashes);
    expect(otlpJsonDocument([...two.spans()].reverse())).toBe(otlpJsonDocument(one.spans()));
  });

  it('tells an unreachable collector once on stderr and still writes the trace file', async () => {
    const probe = await startReceiver();
    const deadUrl = probe.url;
    await new Promise<void>((resolve) => probe.server.close(() => resolve()));
    const dir = tempDir();
    const warnings: string[] = [];
    const tracing = setupTracing({
      otlp: deadUrl,
      tracesDir: dir,
      name: 'dead',
      env: {},
      warn: (line) => warnings.push(line),
      otlpTimeoutMs: 300,
    });
    feed(tracing.sink, story, hashes);
    await tracing.flush();
    feed(tracing.sink, lostStory('task_gone'));
    await tracing.shutdown();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`OTLP export to ${deadUrl}/v1/traces failed`);
    expect(readFileSync(join(dir, 'dead.otlp.json'), 'utf8')).toContain('"LostPause"');
  });

  it('is disabled at no cost when no exporter is asked for', async () => {
    const tracing = setupTracing({ env: {} });
    expect(tracing.enabled).toBe(false);
    feed(tracing.sink, story);
    await tracing.shutdown();
  });

  it('is opened by openTracing only when an exporter is asked for, by option or variable', async () => {
    expect(wantsTracing({ env: {} })).toBe(false);
    expect(wantsTracing({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' } })).toBe(true);
    const off = await openTracing({ env: {} });
    expect(off.enabled).toBe(false);
    const dir = tempDir();
    const on = await openTracing({ tracesDir: dir, name: 'opened', env: {}, warn: () => undefined });
    expect(on.enabled).toBe(true);
    feed(on.sink, lostStory('recording_ended'));
    await on.shutdown();
    expect(JSON.parse(readFileSync(join(dir, 'opened.otlp.json'), 'utf8'))).toHaveProperty('resourceSpans');
  });

  it('takes the OTLP endpoint from --otlp, then the traces variable as is, then the base variable', () => {
    expect(resolveOtlpTracesUrl('http://127.0.0.1:4318', {})).toBe('http://127.0.0.1:4318/v1/traces');
    expect(resolveOtlpTracesUrl('http://127.0.0.1:4318/v1/traces/', {})).toBe('http://127.0.0.1:4318/v1/traces');
    expect(
      resolveOtlpTracesUrl(undefined, {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:9/custom',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b:1',
      }),
    ).toBe('http://c:9/custom');
    expect(resolveOtlpTracesUrl(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b:4318/' })).toBe(
      'http://b:4318/v1/traces',
    );
    expect(resolveOtlpTracesUrl('http://a:1', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b:1' })).toBe(
      'http://a:1/v1/traces',
    );
    expect(resolveOtlpTracesUrl(undefined, {})).toBeUndefined();
  });

  it('takes the export time-out from the signal variable, then the shared one, and says one it cannot read', () => {
    const said: string[] = [];
    const warn = (line: string): void => void said.push(line);
    const both = { OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '250', OTEL_EXPORTER_OTLP_TIMEOUT: '900' };
    expect(resolveOtlpTimeoutMs('traces', both, 5000, warn)).toBe(250);
    expect(resolveOtlpTimeoutMs('logs', both, 10_000, warn)).toBe(900);
    expect(resolveOtlpTimeoutMs('logs', { OTEL_EXPORTER_OTLP_LOGS_TIMEOUT: ' 40 ' }, 10_000, warn)).toBe(40);
    expect(resolveOtlpTimeoutMs('traces', {}, 5000, warn)).toBe(5000);
    expect(resolveOtlpTimeoutMs('traces', { OTEL_EXPORTER_OTLP_TIMEOUT: '' }, 5000, warn)).toBe(5000);
    expect(said).toEqual([]);
    for (const bad of ['0', '-5', '1.5', '10s', '99999999999999999999'])
      expect(resolveOtlpTimeoutMs('traces', { OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: bad }, 5000, warn)).toBe(5000);
    expect(said).toHaveLength(5);
    expect(said[3]).toBe('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT="10s" is not a time-out in milliseconds; using 5000 ms');
  });
});
