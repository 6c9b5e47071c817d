/**
 * @module tracing/tracing-setup
 * Wires the OTel SDK for a command (docs/design.md §7): a tracer provider whose ids come from the span
 * events ({@link EventIdGenerator}), a fixed resource, and the exporters the user asked for —
 * OTLP/HTTP protobuf (`--otlp URL`, or the standard OTEL_EXPORTER_OTLP_* variables) and
 * OTLP-JSON files (`--traces DIR`). Export failures are told once on stderr and never stop the
 * command.
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { errorMessage } from '../errors.js';
import { redactUrl } from '../recording/redaction.js';
import { EventIdGenerator } from './event-id-generator.js';
import { SpanBridge } from './span-bridge.js';
import { OtlpJsonFileExporter } from './trace-file-exporter.js';
import {
  type Tracing,
  type TracingOptions,
  disabledTracing,
  resolveOtlpTimeoutMs,
  resolveOtlpTracesUrl,
} from './tracing-options.js';

export { type Tracing, type TracingOptions, resolveOtlpTracesUrl } from './tracing-options.js';

/** The service every span is reported under (Jaeger's "Service" box). */
export const TRACING_SERVICE_NAME = 'a2a-replay';
/** The instrumentation scope name; no version, so trace files do not change with releases. */
export const TRACER_NAME = 'a2a-replay';

/**
 * Sets up tracing for one recording (or one server run). Call {@link Tracing.shutdown} before
 * exiting; a command that handles several recordings sets up one per recording, each with its
 * own `name`, so each gets its own trace file.
 */
export function setupTracing(options: TracingOptions = {}): Tracing {
  const env = options.env ?? process.env;
  const write = options.warn ?? ((line: string) => void process.stderr.write(`a2a-replay: ${line}\n`));
  // An exporter failure surfaces again when flush or shutdown rejects: say it once.
  let told = false;
  const warn = (line: string): void => {
    told = true;
    write(line);
  };
  const afterExport = (what: string) => (error: unknown) => {
    if (!told) warn(`tracing: ${what} failed: ${describe(error)}`);
  };
  const otlpUrl = resolveOtlpTracesUrl(options.otlp, env);
  const work = options.work ?? 'recording';
  const serviceName = options.serviceName ?? TRACING_SERVICE_NAME;
  const fileExporter =
    options.tracesDir === undefined
      ? undefined
      : new OtlpJsonFileExporter(options.tracesDir, options.name ?? serviceName);

  if (otlpUrl === undefined && fileExporter === undefined) return disabledTracing();

  const processors: SpanProcessor[] = [];
  if (otlpUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(otlpUrl);
    } catch {
      warn(`tracing: OTLP endpoint ${JSON.stringify(redactUrl(otlpUrl))} is not a URL; spans are not sent there`);
    }
    if (url) {
      const timeoutMillis = options.otlpTimeoutMs ?? resolveOtlpTimeoutMs('traces', env, 5000, write);
      const exporter = new OTLPTraceExporter({ url: url.href, timeoutMillis });
      // A replay produces spans much faster than the default queue (2,048) drains: keep them all.
      const batching = { maxQueueSize: 100_000, maxExportBatchSize: 1_000 };
      processors.push(
        new BatchSpanProcessor(
          new ReportingExporter(exporter, `OTLP export to ${redactUrl(url)}`, warn, work),
          batching,
        ),
      );
    }
  }
  if (fileExporter)
    processors.push(
      new SimpleSpanProcessor(new ReportingExporter(fileExporter, `writing ${fileExporter.path}`, warn, work)),
    );

  const ids = new EventIdGenerator();
  const provider = new BasicTracerProvider({
    idGenerator: ids,
    // Fixed: nothing about this host or process, so the same recording gives the same file.
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    sampler: new AlwaysOnSampler(),
    spanProcessors: processors,
  });
  const bridge = new SpanBridge(provider.getTracer(TRACER_NAME), ids, { onProblem: warn });
  let closing: Promise<void> | undefined;

  return {
    sink: bridge,
    enabled: true,
    otlpUrl,
    tracesFile: fileExporter?.path,
    async flush() {
      if (closing) return closing;
      await provider.forceFlush().catch(afterExport('flush'));
    },
    shutdown() {
      closing ??= (async () => {
        bridge.close();
        await provider.forceFlush().catch(afterExport('flush'));
        await provider.shutdown().catch(afterExport('shutdown'));
      })();
      return closing;
    },
  };
}

function describe(error: unknown): string {
  return errorMessage(error);
}

/** Passes spans on, and tells the first failure once; a failing exporter never fails the command. */
class ReportingExporter implements SpanExporter {
  readonly #inner: SpanExporter;
  readonly #what: string;
  readonly #warn: (line: string) => void;
  readonly #work: string;
  #told = false;

  constructor(inner: SpanExporter, what: string, warn: (line: string) => void, work: string) {
    this.#inner = inner;
    this.#what = what;
    this.#warn = warn;
    this.#work = work;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    try {
      this.#inner.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) this.#fail(result.error);
        resultCallback(result);
      });
    } catch (error) {
      this.#fail(error);
      resultCallback({
        code: ExportResultCode.FAILED,
        error: error instanceof Error ? error : new Error(String(error)),
      });
    }
  }

  async forceFlush(): Promise<void> {
    await this.#guard(() => this.#inner.forceFlush?.());
  }

  async shutdown(): Promise<void> {
    await this.#guard(() => this.#inner.shutdown());
  }

  async #guard(step: () => Promise<void> | undefined): Promise<void> {
    try {
      await step();
    } catch (error) {
      this.#fail(error);
    }
  }

  #fail(error: unknown): void {
    if (this.#told) return;
    this.#told = true;
    this.#warn(
      `tracing: ${this.#what} failed (${error === undefined ? 'no reason given' : describe(error)}); ` +
        `${this.#work} goes on without it`,
    );
  }
}
