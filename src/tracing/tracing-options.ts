/**
 * @module tracing/tracing-options
 * What a command asks of tracing (docs/design.md §7), without the OpenTelemetry SDK: the options
 * and the endpoint resolution. src/tracing/open-tracing.ts loads the SDK (src/tracing/tracing-setup.ts) only when
 * an exporter is asked for, so commands without `--otlp`/`--traces` start without it.
 */
import type { SpanEvent, SpanSink } from './span-events.js';

export interface TracingOptions {
  /**
   * OTLP/HTTP endpoint. A base URL (`http://127.0.0.1:4318`) gets `/v1/traces` appended; a URL
   * already ending in `/v1/traces` is used as is. Without it: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
   * as is, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`, else no OTLP export.
   */
  otlp?: string | undefined;
  /** Directory for OTLP-JSON files; the file is `DIR/<name>.otlp.json`. */
  tracesDir?: string | undefined;
  /** File stem under `tracesDir`, e.g. the recording's base name. Default: the service name. */
  name?: string | undefined;
  /** Default {@link TRACING_SERVICE_NAME}. Keep the default where trace files must match across commands. */
  serviceName?: string | undefined;
  /** Where OTEL_* variables are read from. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** What goes on when an exporter fails, for its warning. Default `recording`. */
  work?: string;
  /** One line per problem (export failed, ...). Default: `a2a-replay: <line>` on stderr. */
  warn?: (line: string) => void;
  /**
   * How long one OTLP export may take, retries included. Without it: OTEL_EXPORTER_OTLP_TRACES_TIMEOUT,
   * else OTEL_EXPORTER_OTLP_TIMEOUT (milliseconds), else 5000 ms.
   */
  otlpTimeoutMs?: number;
}

export interface Tracing {
  /** Give this to the observation pipeline; it never throws. */
  sink: SpanSink;
  /** False when no exporter was asked for: the sink then drops events at no cost. */
  enabled: boolean;
  /** The OTLP traces URL in use, if any. */
  otlpUrl: string | undefined;
  /** The trace file written on flush/shutdown, if any. */
  tracesFile: string | undefined;
  /** Exports what has ended so far and rewrites the trace file. Never rejects. */
  flush(): Promise<void>;
  /** Ends spans still open (at the latest event time), exports, writes the file. Idempotent, never rejects. */
  shutdown(): Promise<void>;
}

/** `--otlp` / environment → the traces URL, or undefined for no OTLP export. */
export function resolveOtlpTracesUrl(otlp: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (otlp !== undefined && otlp !== '') return withTracesPath(otlp);
  const traces = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];
  if (traces !== undefined && traces.trim() !== '') return traces.trim();
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  if (base !== undefined && base.trim() !== '') return `${base.trim().replace(/\/+$/, '')}/v1/traces`;
  return undefined;
}

/**
 * How long one OTLP export of `signal` may take, retries included (an unreachable collector is
 * tried again until then): OTEL_EXPORTER_OTLP_<SIGNAL>_TIMEOUT, else OTEL_EXPORTER_OTLP_TIMEOUT, in
 * milliseconds as the OpenTelemetry specification defines them, else `fallback`. A value that is
 * not a whole number of milliseconds above 0 is said through `warn` and not used.
 */
export function resolveOtlpTimeoutMs(
  signal: 'traces' | 'logs',
  env: NodeJS.ProcessEnv,
  fallback: number,
  warn: (line: string) => void,
): number {
  for (const name of [`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_TIMEOUT`, 'OTEL_EXPORTER_OTLP_TIMEOUT']) {
    const value = env[name]?.trim();
    if (value === undefined || value === '') continue;
    if (/^[0-9]+$/.test(value) && Number(value) > 0 && Number.isSafeInteger(Number(value))) return Number(value);
    warn(`${name}=${JSON.stringify(value)} is not a time-out in milliseconds; using ${fallback} ms`);
    return fallback;
  }
  return fallback;
}

function withTracesPath(url: string): string {
  const trimmed = url.trim().replace(/\/+$/, '');
  return trimmed.endsWith('/v1/traces') ? trimmed : `${trimmed}/v1/traces`;
}

const noopSink: SpanSink = { handle: (_event: SpanEvent) => undefined };

/** Tracing that exports nothing: its sink drops events at no cost. */
export function disabledTracing(): Tracing {
  return {
    sink: noopSink,
    enabled: false,
    otlpUrl: undefined,
    tracesFile: undefined,
    flush: async () => undefined,
    shutdown: async () => undefined,
  };
}

/** True when `options` (or the OTEL_* variables) ask for an exporter. */
export function wantsTracing(options: Pick<TracingOptions, 'otlp' | 'tracesDir' | 'env'>): boolean {
  return (
    options.tracesDir !== undefined || resolveOtlpTracesUrl(options.otlp, options.env ?? process.env) !== undefined
  );
}
