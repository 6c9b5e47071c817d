/**
 * @module tracing/open-tracing
 * {@link openTracing}: the OpenTelemetry SDK (src/tracing/tracing-setup.ts) is loaded only when an exporter
 * is asked for, so commands without `--otlp`/`--traces` start without it (docs/design.md §7).
 */
import { type Tracing, type TracingOptions, disabledTracing, wantsTracing } from './tracing-options.js';

/** `setupTracing(options)`, with the OpenTelemetry SDK loaded only when an exporter is asked for. */
export async function openTracing(options: TracingOptions = {}): Promise<Tracing> {
  if (!wantsTracing(options)) return disabledTracing();
  const { setupTracing } = await import('./tracing-setup.js');
  return setupTracing(options);
}
