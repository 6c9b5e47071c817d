/**
 * @module tracing/event-id-generator
 * Hands the tracer the span ids a span event asked for. OTel lets a caller choose a span's times
 * and parent, but its own ids come from the tracer provider's IdGenerator; this object is that
 * generator (structurally the SDK's `IdGenerator`, no SDK import), and the span bridge fills its
 * "next ids" slot right before each `tracer.startSpan` (docs/design.md §7: ids are derived, never random).
 */
import type { SpanRef } from '../receipts/types.js';
import { deriveSpanId, deriveTraceId } from './span-events.js';

/**
 * An IdGenerator-compatible object: install it as `new BasicTracerProvider({ idGenerator })` and
 * give the same instance to {@link SpanBridge}. A span started without an assignment (another
 * library using the same provider) still gets well-formed ids, from a counter, never random.
 */
export class EventIdGenerator {
  #next: SpanRef | undefined;
  #unassigned = 0;

  /** The ids the next started span must carry. {@link clear} it once the span has started. */
  assign(ref: SpanRef): void {
    this.#next = ref;
  }

  clear(): void {
    this.#next = undefined;
  }

  /** Called by the tracer for a new root span only; a child keeps its parent's trace id. */
  generateTraceId(): string {
    return this.#next?.traceId ?? deriveTraceId('unassigned', String(++this.#unassigned));
  }

  generateSpanId(): string {
    return this.#next?.spanId ?? deriveSpanId('unassigned', String(++this.#unassigned));
  }
}
