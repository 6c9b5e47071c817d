/**
 * @module tracing/export-lost-verdicts
 * Lost pauses and interruptions exported as verdict spans (docs/design.md §7), the OpenTelemetry
 * SDK loaded only when an exporter is asked for (src/tracing/open-tracing.ts).
 */
import { openTracing } from './open-tracing.js';
import { type LostInterruptionVerdict, type LostPauseVerdict, lostVerdictSpanEvents } from './lost-verdict-spans.js';
import type { TracingOptions } from './tracing-options.js';

/**
 * Draws the verdict as spans when `options` (or the OTEL_EXPORTER_OTLP_* variables) ask for an
 * exporter: each lost pause a LostPause under the Suspension it condemns, each lost interruption a
 * LostInterruption linked to its Interruption, with ids that derive from those spans, so the same
 * verdict exported again gives the same spans. False when no exporter was asked for.
 */
export async function exportLostVerdicts(
  options: TracingOptions,
  pauses: readonly LostPauseVerdict[],
  interruptions: readonly LostInterruptionVerdict[],
): Promise<boolean> {
  const tracing = await openTracing(options);
  if (!tracing.enabled) return false;
  for (const event of lostVerdictSpanEvents(pauses, interruptions)) tracing.sink.handle(event);
  await tracing.shutdown();
  return true;
}
