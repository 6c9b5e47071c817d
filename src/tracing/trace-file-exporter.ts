/**
 * @module tracing/trace-file-exporter
 * `--traces DIR`: one OTLP-JSON file per recording (`DIR/<name>.otlp.json`, an
 * ExportTraceServiceRequest in the OTLP JSON encoding), with spans in a fixed order so the same
 * recording always gives the same file, byte for byte (docs/design.md §7, §10 `traces/`).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { writeOutputFileSync } from '../output-file.js';
import { compareHrTime } from './span-bridge.js';

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The order spans are written in: start, end, trace id, span id. Independent of export timing. */
export function compareSpans(a: ReadableSpan, b: ReadableSpan): number {
  return (
    compareHrTime(a.startTime, b.startTime) ||
    compareHrTime(a.endTime, b.endTime) ||
    compareText(a.spanContext().traceId, b.spanContext().traceId) ||
    compareText(a.spanContext().spanId, b.spanContext().spanId)
  );
}

/** The file's bytes: the OTLP JSON request for these spans, sorted, two-space indented. */
export function otlpJsonDocument(spans: readonly ReadableSpan[]): string {
  const request = JsonTraceSerializer.serializeRequest([...spans].sort(compareSpans));
  if (!request) throw new Error('the OTLP JSON serializer produced nothing');
  return `${JSON.stringify(JSON.parse(Buffer.from(request).toString('utf8')), null, 2)}\n`;
}

/**
 * Keeps every finished span and (re)writes the whole file on flush and shutdown, so the file
 * always holds the complete, sorted set seen so far. Written to a fresh temporary name, then
 * renamed, mode 0600, never through a link (src/output-file.ts).
 */
export class OtlpJsonFileExporter implements SpanExporter {
  readonly path: string;
  readonly #dir: string;
  readonly #spans: ReadableSpan[] = [];
  #written = -1;

  constructor(dir: string, name: string) {
    this.#dir = dir;
    this.path = join(dir, `${name}.otlp.json`);
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.#spans.push(...spans);
    resultCallback({ code: ExportResultCode.SUCCESS });
  }

  /** Writes the file now (skipped when nothing changed since the last write). Throws on I/O errors. */
  write(): void {
    if (this.#written === this.#spans.length) return;
    mkdirSync(this.#dir, { recursive: true });
    writeOutputFileSync(this.path, otlpJsonDocument(this.#spans));
    this.#written = this.#spans.length;
  }

  async forceFlush(): Promise<void> {
    this.write();
  }

  async shutdown(): Promise<void> {
    this.write();
  }
}
