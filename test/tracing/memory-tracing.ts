/**
 * A tracer provider wired the way the CLI wires it (EventIdGenerator, fixed resource), exporting
 * into memory, plus span-event builders for hand-written scenarios.
 */
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { EventIdGenerator } from '../../src/tracing/event-id-generator.js';
import { SpanBridge } from '../../src/tracing/span-bridge.js';
import type { SpanRef } from '../../src/receipts/types.js';
import { deriveSpanId, deriveTraceId } from '../../src/tracing/span-events.js';

export interface MemoryTracing {
  exporter: InMemorySpanExporter;
  bridge: SpanBridge;
  problems: string[];
  provider: BasicTracerProvider;
  spans(): ReadableSpan[];
  byName(name: string): ReadableSpan[];
  one(name: string): ReadableSpan;
}

export function memoryTracing(options: { honourIds?: boolean } = {}): MemoryTracing {
  const exporter = new InMemorySpanExporter();
  const ids = new EventIdGenerator();
  const provider = new BasicTracerProvider({
    ...(options.honourIds === false ? {} : { idGenerator: ids }),
    resource: resourceFromAttributes({ 'service.name': 'a2a-replay' }),
    sampler: new AlwaysOnSampler(),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const problems: string[] = [];
  const bridge = new SpanBridge(provider.getTracer('a2a-replay'), ids, { onProblem: (m) => problems.push(m) });
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  const byName = (name: string): ReadableSpan[] => spans().filter((s) => s.name === name);
  return {
    exporter,
    bridge,
    problems,
    provider,
    spans,
    byName,
    one(name) {
      const found = byName(name);
      if (found.length !== 1) throw new Error(`expected one ${name} span, found ${found.length}`);
      return found[0] as ReadableSpan;
    },
  };
}

export const RECORDING_ID = 'rec-test-0001';

/** The ids the recorder derives for the span opened by entry `seq` of kind `kind`. */
export function refFor(kind: string, seq: number, traceName = `task:${seq}`): SpanRef {
  return { traceId: deriveTraceId(RECORDING_ID, traceName), spanId: deriveSpanId(RECORDING_ID, `${kind}:${seq}`) };
}

/** `2025-01-01T00:00:<s>.000Z`, seconds after the scenario's start. */
export function at(seconds: number): string {
  return new Date(Date.UTC(2025, 0, 1) + seconds * 1000).toISOString();
}

/** The HrTime the exported span must carry for {@link at}(seconds). */
export function hr(seconds: number): [number, number] {
  return [Date.UTC(2025, 0, 1) / 1000 + Math.floor(seconds), Math.round((seconds % 1) * 1e9)];
}
