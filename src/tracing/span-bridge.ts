/**
 * @module tracing/span-bridge
 * Turns the PauseObserver's span events into OTel spans through `@opentelemetry/api` (docs/design.md §7):
 * `Task`, `Suspension` (child of the caller's traceparent or the task span; with ids from the pause's
 * identity, a root of its own trace linked to that span), `Resume` (a new root linked to its
 * Suspension and to the pipeline span), `LostPause` (status ERROR, linked to its Suspension),
 * `PauseOpenAtStop` (a pause open when the recorder stopped, under its Suspension), `Interruption`
 * (child of the task span), `Continuation` (a new root linked to its Interruption) and
 * `LostInterruption`. Ids and times are the ones the events carry, never the tracer's own: the ids
 * reach the tracer through an {@link EventIdGenerator}, the times as explicit `HrTime`s.
 */
import {
  type Attributes,
  type Context,
  type HrTime,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { SpanRef } from '../receipts/types.js';
import {
  ATTR_LINK_INTERRUPTION_SPAN_ID,
  ATTR_LINK_INTERRUPTION_TRACE_ID,
  ATTR_LINK_KIND,
  ATTR_LINK_PIPELINE_SPAN_ID,
  ATTR_LINK_PIPELINE_TRACE_ID,
  ATTR_LINK_SUSPENSION_SPAN_ID,
  ATTR_LINK_SUSPENSION_TRACE_ID,
  ATTR_LOST_REASON,
  ATTR_METHOD_NAME,
  ATTR_PAUSE_OPEN_AT_STOP,
  ATTR_RECEIPT_HASH,
  ATTR_RESUME_OUTCOME,
  ATTR_TASK_ID,
  LINK_KINDS,
  SPAN_NAMES,
  type SpanName,
} from './attributes.js';
import type { EventIdGenerator } from './event-id-generator.js';
import { type SpanAttributes, type SpanEvent, type SpanSink, deriveSpanId } from './span-events.js';
import { isStopVerdict } from '../observe/lost-pause-reasons.js';
import { errorMessage } from '../errors.js';

export interface SpanBridgeOptions {
  /**
   * Told once per kind of problem (an end for a span never started, ids the tracer did not
   * honour, an unreadable time). Problems never throw into the caller.
   */
  onProblem?: (message: string) => void;
}

interface OpenSpan {
  name: SpanName;
  span: Span;
  ref: SpanRef;
  start: HrTime;
  /** For a Resume: the key of the suspension it tries to close. */
  suspensionKey?: string;
}

interface EndedSuspension {
  ref: SpanRef;
  end: HrTime;
}

const ISO_FRACTION = /T\d{2}:\d{2}:\d{2}(?:\.(\d{1,9}))?/;

/** An ISO 8601 instant as OTel `HrTime` (seconds, nanoseconds), keeping up to 9 fraction digits. */
export function isoToHrTime(iso: string): HrTime | undefined {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return undefined;
  const fraction = ISO_FRACTION.exec(iso)?.[1] ?? '';
  return [Math.floor(ms / 1000), Number(fraction.padEnd(9, '0'))];
}

/** Orders two `HrTime`s: negative, zero or positive. */
export function compareHrTime(a: readonly [number, number], b: readonly [number, number]): number {
  return a[0] !== b[0] ? a[0] - b[0] : a[1] - b[1];
}

/** Attributes with keys in code-unit order, so the same event always yields the same bytes. */
function sorted(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const key of Object.keys(attributes).sort()) out[key] = attributes[key];
  return out;
}

/**
 * The {@link SpanSink} that writes OTel spans. Give it a tracer from a provider whose
 * `idGenerator` is the same {@link EventIdGenerator}; with any other tracer (e.g. the API's
 * no-op one) it still runs, the spans just do not carry the events' ids.
 */
export class SpanBridge implements SpanSink {
  readonly #tracer: Tracer;
  readonly #ids: EventIdGenerator;
  readonly #onProblem: (message: string) => void;
  readonly #told = new Set<string>();
  readonly #open = new Map<string, OpenSpan>();
  /** Open spans by span id, so a child started in this process gets the real parent object. */
  readonly #bySpanId = new Map<string, Span>();
  readonly #suspensions = new Map<string, EndedSuspension>();
  #latest: HrTime | undefined;

  constructor(tracer: Tracer, ids: EventIdGenerator, options: SpanBridgeOptions = {}) {
    this.#tracer = tracer;
    this.#ids = ids;
    this.#onProblem = options.onProblem ?? (() => undefined);
  }

  /** Number of spans started and not yet ended. */
  get openSpans(): number {
    return this.#open.size;
  }

  handle(event: SpanEvent, extra?: { receiptHash?: string }): void {
    try {
      this.#handle(event, extra);
    } catch (error) {
      this.#problem('failed', `tracing: could not render ${event.type} span event: ${errorMessage(error)}`);
    }
  }

  /**
   * Ends every span still open at the latest instant seen in any event (deterministic, unlike
   * the wall clock). For the end of a recording or a server's shutdown.
   */
  close(): void {
    const at = this.#latest;
    for (const [key, open] of this.#open) {
      open.span.end(at !== undefined && compareHrTime(at, open.start) >= 0 ? at : open.start);
      this.#forget(key, open);
    }
  }

  #handle(event: SpanEvent, extra: { receiptHash?: string } | undefined): void {
    const at = this.#time(event.at, event.type);
    if (at === undefined) return;
    switch (event.type) {
      case 'task.start':
        this.#start(
          event.key,
          SPAN_NAMES.TASK,
          event.span,
          at,
          { ...event.attributes, [ATTR_TASK_ID]: event.taskId },
          {
            parent: null,
          },
        );
        return;
      case 'suspension.start': {
        const place = suspensionPlace(event.span, event.parent);
        const attributes = { ...event.attributes, ...place.attributes, [ATTR_TASK_ID]: event.taskId };
        const started = this.#start(event.key, SPAN_NAMES.SUSPENSION, event.span, at, attributes, place);
        // A Suspension in the pause's own trace: the caller's trace gets the call that began it.
        if (started && place.parent === null) this.#pauseCall(event, at);
        return;
      }
      case 'resume.start': {
        const { suspension, pipeline } = event.links;
        const attributes: SpanAttributes = {
          ...event.attributes,
          [ATTR_TASK_ID]: event.taskId,
          [ATTR_LINK_SUSPENSION_TRACE_ID]: suspension.traceId,
          [ATTR_LINK_SUSPENSION_SPAN_ID]: suspension.spanId,
        };
        const links: Link[] = [
          { context: remoteContext(suspension), attributes: { [ATTR_LINK_KIND]: LINK_KINDS.SUSPENSION } },
        ];
        if (pipeline) {
          attributes[ATTR_LINK_PIPELINE_TRACE_ID] = pipeline.traceId;
          attributes[ATTR_LINK_PIPELINE_SPAN_ID] = pipeline.spanId;
          links.push({ context: remoteContext(pipeline), attributes: { [ATTR_LINK_KIND]: LINK_KINDS.PIPELINE } });
        }
        this.#start(event.key, SPAN_NAMES.RESUME, event.span, at, attributes, { parent: null, links });
        const open = this.#open.get(event.key);
        if (open) open.suspensionKey = event.suspensionKey;
        if (open && event.caller !== undefined) this.#resumeCall(event, event.caller, at);
        return;
      }
      case 'lost': {
        if (isStopVerdict(event.reason) && event.verdict !== true) {
          this.#openAtStop(event, at);
          return;
        }
        const suspension = this.#suspensions.get(event.suspensionKey);
        const since = event.since === undefined ? undefined : isoToHrTime(event.since);
        const pausedFrom =
          suspension && compareHrTime(suspension.end, at) <= 0
            ? suspension.end
            : since !== undefined && compareHrTime(since, at) <= 0
              ? since
              : at;
        const attributes: SpanAttributes = {
          ...event.attributes,
          [ATTR_TASK_ID]: event.taskId,
          [ATTR_LOST_REASON]: event.reason,
          [ATTR_LINK_SUSPENSION_TRACE_ID]: event.link.traceId,
          [ATTR_LINK_SUSPENSION_SPAN_ID]: event.link.spanId,
        };
        const links: Link[] = [
          { context: remoteContext(event.link), attributes: { [ATTR_LINK_KIND]: LINK_KINDS.SUSPENSION } },
        ];
        // In the Suspension's trace it hangs under the Suspension, so Jaeger shows it with the pause.
        const parent = event.span.traceId === event.link.traceId ? event.link : null;
        const span = this.#start(event.key, SPAN_NAMES.LOST_PAUSE, event.span, pausedFrom, attributes, {
          parent,
          links,
        });
        if (!span) return;
        span.setStatus({ code: SpanStatusCode.ERROR, message: `pause lost: ${event.reason}` });
        this.#end(event.key, at, {}, undefined, undefined);
        this.#suspensions.delete(event.suspensionKey);
        return;
      }
      case 'interruption.start':
      case 'continuation.start':
      case 'interruption.lost':
        this.#interruption(event, at);
        return;
      case 'task.end':
      case 'interruption.end':
      case 'continuation.end':
        this.#end(event.key, at, event.attributes, undefined, extra?.receiptHash);
        return;
      case 'suspension.end':
      case 'resume.end':
        this.#end(event.key, at, event.attributes, event.error, extra?.receiptHash);
        return;
      default: {
        const never: never = event;
        this.#problem(
          'unknown-type',
          `tracing: unknown span event ${JSON.stringify((never as { type?: unknown }).type)}`,
        );
      }
    }
  }

  /** The spans of an interruption (docs/design.md §14.9): Interruption, Continuation, LostInterruption. */
  #interruption(
    event: Extract<SpanEvent, { type: 'interruption.start' | 'continuation.start' | 'interruption.lost' }>,
    at: HrTime,
  ): void {
    switch (event.type) {
      case 'interruption.lost': {
        const attributes: SpanAttributes = {
          ...event.attributes,
          [ATTR_TASK_ID]: event.taskId,
          [ATTR_LOST_REASON]: event.reason,
        };
        const links: Link[] = [
          { context: remoteContext(event.link), attributes: { [ATTR_LINK_KIND]: LINK_KINDS.INTERRUPTION } },
        ];
        const span = this.#start(event.key, SPAN_NAMES.LOST_INTERRUPTION, event.span, at, attributes, {
          parent: null,
          links,
        });
        if (!span) return;
        span.setStatus({ code: SpanStatusCode.ERROR, message: `interruption lost: ${event.reason}` });
        this.#end(event.key, at, {}, undefined, undefined);
        return;
      }
      case 'interruption.start':
        this.#start(
          event.key,
          SPAN_NAMES.INTERRUPTION,
          event.span,
          at,
          { ...event.attributes, [ATTR_TASK_ID]: event.taskId },
          { parent: event.parent },
        );
        return;
      case 'continuation.start': {
        const attributes: SpanAttributes = {
          ...event.attributes,
          [ATTR_TASK_ID]: event.taskId,
          [ATTR_LINK_INTERRUPTION_TRACE_ID]: event.link.traceId,
          [ATTR_LINK_INTERRUPTION_SPAN_ID]: event.link.spanId,
        };
        const links: Link[] = [
          { context: remoteContext(event.link), attributes: { [ATTR_LINK_KIND]: LINK_KINDS.INTERRUPTION } },
        ];
        this.#start(event.key, SPAN_NAMES.CONTINUATION, event.span, at, attributes, { parent: null, links });
        return;
      }
      default: {
        const never: never = event;
        return never;
      }
    }
  }

  /**
   * The call that began a pause whose Suspension is the root of the pause's own trace (docs/design.md
   * §7): a `PauseCall` span in the caller's trace (a child of its `traceparent` span, else of the
   * task's span), from the call to PAUSED, linked to the Suspension, whose ids it repeats as
   * attributes (Jaeger drops link attributes). Its id derives from both spans' ids, so record and
   * replay agree; the Suspension's ids, which replicas agree on, do not change.
   */
  #pauseCall(event: Extract<SpanEvent, { type: 'suspension.start' }>, at: HrTime): void {
    const span = { traceId: event.parent.traceId, spanId: pauseCallSpanId(event.span, event.parent) };
    const method = event.attributes[ATTR_METHOD_NAME];
    const attributes: SpanAttributes = {
      [ATTR_TASK_ID]: event.taskId,
      [ATTR_LINK_SUSPENSION_TRACE_ID]: event.span.traceId,
      [ATTR_LINK_SUSPENSION_SPAN_ID]: event.span.spanId,
      ...(typeof method === 'string' ? { [ATTR_METHOD_NAME]: method } : {}),
    };
    const links: Link[] = [
      { context: remoteContext(event.span), attributes: { [ATTR_LINK_KIND]: LINK_KINDS.SUSPENSION } },
    ];
    this.#start(pauseCallKey(event.key), SPAN_NAMES.PAUSE_CALL, span, at, attributes, {
      parent: event.parent,
      links,
    });
  }

  /**
   * The ResumeTask call in its caller's trace (docs/design.md §7): a `ResumeCall` span, a child of
   * the call's `traceparent` span, from the call to the Resume's end, linked to the Resume and to
   * the Suspension it resumes, whose ids it repeats as attributes.
   */
  #resumeCall(event: Extract<SpanEvent, { type: 'resume.start' }>, caller: SpanRef, at: HrTime): void {
    const { suspension } = event.links;
    const span = { traceId: caller.traceId, spanId: pauseCallSpanId(event.span, caller) };
    const method = event.attributes[ATTR_METHOD_NAME];
    const attributes: SpanAttributes = {
      [ATTR_TASK_ID]: event.taskId,
      [ATTR_LINK_SUSPENSION_TRACE_ID]: suspension.traceId,
      [ATTR_LINK_SUSPENSION_SPAN_ID]: suspension.spanId,
      ...(typeof method === 'string' ? { [ATTR_METHOD_NAME]: method } : {}),
    };
    const links: Link[] = [
      { context: remoteContext(event.span), attributes: { [ATTR_LINK_KIND]: LINK_KINDS.RESUME } },
      { context: remoteContext(suspension), attributes: { [ATTR_LINK_KIND]: LINK_KINDS.SUSPENSION } },
    ];
    this.#start(pauseCallKey(event.key), SPAN_NAMES.RESUME_CALL, span, at, attributes, { parent: caller, links });
  }

  /**
   * A pause open when the recorder stopped (docs/design.md §7): no LostPause; a span under its
   * Suspension, from PAUSED to the stop, that says so ({@link ATTR_PAUSE_OPEN_AT_STOP}).
   */
  #openAtStop(event: Extract<SpanEvent, { type: 'lost' }>, at: HrTime): void {
    const suspension = this.#suspensions.get(event.suspensionKey);
    const pausedFrom = suspension && compareHrTime(suspension.end, at) <= 0 ? suspension.end : at;
    const { [ATTR_LOST_REASON]: _verdict, ...rest } = event.attributes;
    const attributes: SpanAttributes = {
      ...rest,
      [ATTR_TASK_ID]: event.taskId,
      [ATTR_PAUSE_OPEN_AT_STOP]: true,
      [ATTR_LINK_SUSPENSION_TRACE_ID]: event.link.traceId,
      [ATTR_LINK_SUSPENSION_SPAN_ID]: event.link.spanId,
    };
    const span = { traceId: event.link.traceId, spanId: event.span.spanId };
    const links: Link[] = [
      { context: remoteContext(event.link), attributes: { [ATTR_LINK_KIND]: LINK_KINDS.SUSPENSION } },
    ];
    if (
      !this.#start(event.key, SPAN_NAMES.PAUSE_OPEN_AT_STOP, span, pausedFrom, attributes, {
        parent: event.link,
        links,
      })
    )
      return;
    this.#end(event.key, at, {}, undefined, undefined);
    this.#suspensions.delete(event.suspensionKey);
  }

  #start(
    key: string,
    name: SpanName,
    ref: SpanRef,
    startTime: HrTime,
    attributes: SpanAttributes,
    options: { parent: SpanRef | null; links?: Link[] },
  ): Span | undefined {
    if (this.#open.has(key)) {
      this.#problem('duplicate', `tracing: span event key ${key} started twice; the second start is ignored`);
      return undefined;
    }
    const parentContext = options.parent ? this.#parentContext(options.parent) : ROOT_CONTEXT;
    this.#ids.assign(ref);
    let span: Span;
    try {
      span = this.#tracer.startSpan(
        name,
        {
          kind: SpanKind.INTERNAL,
          startTime,
          attributes: sorted(attributes),
          links: options.links ?? [],
          root: options.parent === null,
        },
        parentContext,
      );
    } finally {
      this.#ids.clear();
    }
    const actual = span.spanContext();
    const wantTrace = options.parent ? options.parent.traceId : ref.traceId;
    if (span.isRecording() && (actual.spanId !== ref.spanId || actual.traceId !== wantTrace)) {
      this.#problem(
        'ids',
        `tracing: the tracer gave span ${actual.traceId}/${actual.spanId} instead of ` +
          `${wantTrace}/${ref.spanId}; install the bridge's EventIdGenerator as the provider's idGenerator`,
      );
    }
    this.#open.set(key, { name, span, ref, start: startTime });
    this.#bySpanId.set(ref.spanId, span);
    return span;
  }

  #end(
    key: string,
    at: HrTime,
    attributes: SpanAttributes,
    error: string | undefined,
    receiptHash: string | undefined,
  ): void {
    const open = this.#open.get(key);
    if (!open) {
      this.#problem('unknown-key', `tracing: an end for span event key ${key}, which was never started, is ignored`);
      return;
    }
    const more: Attributes = { ...attributes };
    if (receiptHash !== undefined) more[ATTR_RECEIPT_HASH] = receiptHash;
    if (Object.keys(more).length > 0) open.span.setAttributes(sorted(more));
    if (error !== undefined) open.span.setStatus({ code: SpanStatusCode.ERROR, message: error });
    open.span.end(compareHrTime(at, open.start) >= 0 ? at : open.start);
    if (open.name === SPAN_NAMES.SUSPENSION) this.#suspensions.set(key, { ref: open.ref, end: at });
    // The call that began or resumed it, in its caller's trace, ends with it.
    if (this.#open.has(pauseCallKey(key))) this.#end(pauseCallKey(key), at, {}, error, undefined);
    // A pause that was resumed cannot be lost any more; a rejected attempt leaves it open.
    if (open.suspensionKey !== undefined && attributes[ATTR_RESUME_OUTCOME] !== 'rejected')
      this.#suspensions.delete(open.suspensionKey);
    this.#forget(key, open);
  }

  #forget(key: string, open: OpenSpan): void {
    this.#open.delete(key);
    if (this.#bySpanId.get(open.ref.spanId) === open.span) this.#bySpanId.delete(open.ref.spanId);
  }

  #parentContext(parent: SpanRef): Context {
    const local = this.#bySpanId.get(parent.spanId);
    if (local && local.spanContext().traceId === parent.traceId) return trace.setSpan(ROOT_CONTEXT, local);
    return trace.setSpanContext(ROOT_CONTEXT, remoteContext(parent));
  }

  #time(iso: string, type: string): HrTime | undefined {
    const at = isoToHrTime(iso);
    if (at === undefined) {
      this.#problem(
        'time',
        `tracing: ${type} span event has an unreadable time ${JSON.stringify(iso)}; the event is skipped`,
      );
      return undefined;
    }
    if (this.#latest === undefined || compareHrTime(at, this.#latest) > 0) this.#latest = at;
    return at;
  }

  #problem(kind: string, message: string): void {
    if (this.#told.has(kind)) return;
    this.#told.add(kind);
    this.#onProblem(message);
  }
}

/** The key of the `PauseCall` span of the Suspension opened under `key`. */
const pauseCallKey = (suspensionKey: string): string => `${suspensionKey}\ncall`;

/** The span id of the `PauseCall` span of `suspension` under `parent` (docs/design.md §7). */
export function pauseCallSpanId(suspension: SpanRef, parent: SpanRef): string {
  return deriveSpanId(PAUSE_CALL_NAMESPACE, `${suspension.traceId}/${suspension.spanId}\n${parent.spanId}`);
}

const PAUSE_CALL_NAMESPACE = 'a2a-replay/pause-call';

/**
 * Where a Suspension span goes (docs/design.md §7): under `parent` when it is in `parent`'s trace;
 * else (its ids derive from the pause's identity, §17) a root of its own trace linked to `parent`,
 * the span that was active when the pause began, whose ids it repeats as attributes.
 */
function suspensionPlace(
  span: SpanRef,
  parent: SpanRef,
): { parent: SpanRef | null; links?: Link[]; attributes?: SpanAttributes } {
  if (span.traceId === parent.traceId) return { parent };
  return {
    parent: null,
    links: [{ context: remoteContext(parent), attributes: { [ATTR_LINK_KIND]: LINK_KINDS.PIPELINE } }],
    attributes: { [ATTR_LINK_PIPELINE_TRACE_ID]: parent.traceId, [ATTR_LINK_PIPELINE_SPAN_ID]: parent.spanId },
  };
}

/** A span we did not start here (a caller's, or one from an earlier run), sampled. */
function remoteContext(ref: SpanRef): SpanContext {
  return { traceId: ref.traceId, spanId: ref.spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true };
}
