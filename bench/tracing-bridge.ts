/**
 * Cost of rendering span events as OTel spans: the same pause stories (task, suspension, resume,
 * plus one lost pause in ten) fed to a sink that drops them (baseline), to the span bridge with
 * an in-memory exporter, and through `setupTracing --traces` including the sorted OTLP-JSON write.
 * `npx tsx bench/tracing-bridge.ts [stories]`
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { setupTracing } from '../src/tracing/tracing-setup.js';
import { EventIdGenerator } from '../src/tracing/event-id-generator.js';
import { SpanBridge } from '../src/tracing/span-bridge.js';
import { type SpanEvent, type SpanSink, deriveSpanId, deriveTraceId } from '../src/tracing/span-events.js';
import { emitFigures, round } from './_lib.js';

const STORIES = Number(process.argv[2] ?? 5_000);
const EPOCH = Date.UTC(2025, 0, 1);
const at = (ms: number): string => new Date(EPOCH + ms).toISOString();

function story(n: number): SpanEvent[] {
  const rec = 'bench';
  const task = { traceId: deriveTraceId(rec, `task:${n}`), spanId: deriveSpanId(rec, `task:${n}`) };
  const suspension = { traceId: task.traceId, spanId: deriveSpanId(rec, `suspension:${n}`) };
  const t = n * 10_000;
  const events: SpanEvent[] = [
    {
      type: 'task.start',
      key: `task:${n}`,
      taskId: `task-${n}`,
      at: at(t),
      span: task,
      attributes: { 'a2a.task.id': `task-${n}` },
    },
    {
      type: 'suspension.start',
      key: `s:${n}`,
      taskId: `task-${n}`,
      at: at(t + 10),
      span: suspension,
      parent: task,
      attributes: {},
    },
    {
      type: 'suspension.end',
      key: `s:${n}`,
      at: at(t + 20),
      attributes: { 'a2a.pause.initiated_by': 'PAUSE_INITIATOR_CLIENT' },
    },
  ];
  if (n % 10 === 9) {
    const lost = { traceId: deriveTraceId(rec, `lost:${n}`), spanId: deriveSpanId(rec, `lost:${n}`) };
    events.push({
      type: 'lost',
      key: `l:${n}`,
      suspensionKey: `s:${n}`,
      taskId: `task-${n}`,
      at: at(t + 900),
      span: lost,
      link: suspension,
      reason: 'recording_ended',
      attributes: {},
    });
  } else {
    const resume = { traceId: deriveTraceId(rec, `resume:${n}`), spanId: deriveSpanId(rec, `resume:${n}`) };
    events.push(
      {
        type: 'resume.start',
        key: `r:${n}`,
        suspensionKey: `s:${n}`,
        taskId: `task-${n}`,
        at: at(t + 500),
        span: resume,
        links: { suspension, pipeline: task },
        attributes: {},
      },
      { type: 'resume.end', key: `r:${n}`, at: at(t + 510), attributes: { 'a2a.resume.outcome': 'resumed' } },
    );
  }
  events.push({ type: 'task.end', key: `task:${n}`, at: at(t + 1000), attributes: {} });
  return events;
}

const events = Array.from({ length: STORIES }, (_, n) => story(n)).flat();

async function time(run: () => Promise<void> | void): Promise<number> {
  await run(); // warm-up
  const start = process.hrtime.bigint();
  await run();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return ms;
}

const drop: SpanSink = { handle: () => undefined };
const baseline = await time(() => {
  for (const e of events) drop.handle(e);
});
const memory = await time(async () => {
  const ids = new EventIdGenerator();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    idGenerator: ids,
    resource: resourceFromAttributes({ 'service.name': 'a2a-replay' }),
    sampler: new AlwaysOnSampler(),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const bridge = new SpanBridge(provider.getTracer('a2a-replay'), ids);
  for (const e of events) bridge.handle(e);
  await provider.shutdown();
});
const dir = mkdtempSync(join(tmpdir(), 'a2a-bench-traces-'));
let bytes = 0;
const file = await time(async () => {
  const tracing = setupTracing({ tracesDir: dir, name: 'bench', env: {} });
  for (const e of events) tracing.sink.handle(e);
  await tracing.shutdown();
  bytes = statSync(join(dir, 'bench.otlp.json')).size;
});
rmSync(dir, { recursive: true, force: true });

const spans = STORIES * 3;
console.log(`${STORIES} pause stories, ${events.length} span events, ~${spans} spans`);
console.log(`drop sink (baseline)        ${baseline.toFixed(1)} ms`);
console.log(`span bridge, in-memory      ${memory.toFixed(1)} ms  (${((memory * 1000) / spans).toFixed(1)} µs/span)`);
console.log(
  `setupTracing --traces file  ${file.toFixed(1)} ms  (${((file * 1000) / spans).toFixed(1)} ` +
    `µs/span, ${(bytes / 1e6).toFixed(1)} MB)`,
);
console.log(`ratio file / bridge: ${(file / memory).toFixed(2)}x`);
emitFigures({
  'tracing.bridgeUsPerSpan': round((memory * 1000) / spans, 2),
  'tracing.fileOverBridge': round(file / memory),
});
