/**
 * @module cli/lost-verdict
 * `lost --otlp` / `--traces` (docs/design.md §7): the verdict of `lost` drawn as spans, and the
 * trace id each row of its listing prints.
 */
import { openTracing } from '../src/tracing/open-tracing.js';
import type { FleetPause } from '../src/receipts/fleet.js';
import { pauseSpan } from '../src/observe/observer-spans.js';
import {
  type LostInterruptionVerdict,
  type LostPauseVerdict,
  lostVerdictSpanEvents,
} from '../src/tracing/lost-verdict-spans.js';

/**
 * Draws the verdict as spans (docs/design.md §7) when an exporter is asked for (`--otlp`,
 * `--traces`, the OTEL_EXPORTER_OTLP_* variables): each lost pause a LostPause under the Suspension
 * it condemns, each lost interruption a LostInterruption linked to its Interruption, with ids that
 * derive from those spans, so running `lost` again exports the same spans.
 */
export async function exportVerdict(
  options: { otlp?: string | undefined; traces?: string | undefined },
  name: string,
  pauses: readonly LostPauseVerdict[],
  interruptions: readonly LostInterruptionVerdict[],
): Promise<void> {
  const tracing = await openTracing({ otlp: options.otlp, tracesDir: options.traces, name, work: 'lost' });
  if (!tracing.enabled) return;
  for (const event of lostVerdictSpanEvents(pauses, interruptions)) tracing.sink.handle(event);
  await tracing.shutdown();
}

/** The trace id of a row's span, or `-`: where to open it in Jaeger. */
export const traceOf = (span: { traceId: string } | null): string => span?.traceId ?? '-';

/** A fleet's lost pause as a verdict: its Suspension span is the one its identity names (§17). */
export function fleetVerdict(p: FleetPause): LostPauseVerdict {
  return {
    taskId: p.taskId,
    initiatedBy: p.initiatedBy,
    reason: 'recording_ended',
    since: p.pausedAt,
    detectedAt: null,
    pauseReason: p.reason,
    span: pauseSpan(p.taskId, { pausedAt: p.pausedAt, resumeTokenHash: p.resumeTokenHash }),
    rule: null,
    principal: p.principal,
    begun: [`${p.begun.file}:${p.begun.line}`],
  };
}
