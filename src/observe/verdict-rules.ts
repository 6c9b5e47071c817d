/**
 * @module observe/verdict-rules
 * The rules that decided each pause of a recording (docs/design.md §14.8), keyed by its
 * Suspension span (the recording's ids and the pause identity's, §7): the rule that proved it, and
 * the rule that ended it (closed it or declared it lost). A receipt log holds no rule, so `audit`
 * and the report re-derive them with this, from the recording given beside the log, and match
 * each receipt by the span it carries.
 */
import type { RecordingEntry } from '../recording/format.js';
import type { SpanRef } from '../receipts/types.js';
import { ATTR_RULE } from '../tracing/attributes.js';
import { pauseSpan } from './observer-spans.js';
import { PauseObserver } from './pause-observer.js';
import type { ObserverOutput } from './suspension.js';

/** The rules that decided one pause: `end` is null while nothing ended it. */
export interface PauseRules {
  readonly pause: string | null;
  readonly end: string | null;
}

const spanKey = (span: SpanRef): string => `${span.traceId}/${span.spanId}`;

export class VerdictRules {
  readonly #observer: PauseObserver;
  /** Suspension span → its rules. */
  readonly #bySpan = new Map<string, { pause: string | null; end: string | null }>();

  constructor(recordingId: string) {
    // Each pause is keyed under both Suspension span derivations (docs/design.md §7): logs of any format match.
    this.#observer = new PauseObserver({ recordingId, suspensionSpans: 'recording' });
  }

  observe(entry: RecordingEntry): void {
    this.#take(this.#observer.observe(entry));
  }

  finish(at: string): void {
    this.#take(this.#observer.finish(at));
  }

  /** The rules of the pause whose Suspension span is `span`; undefined when the recording showed none. */
  of(span: SpanRef): PauseRules | undefined {
    return this.#bySpan.get(spanKey(span));
  }

  #take(out: readonly ObserverOutput[]): void {
    for (const o of out) {
      switch (o.type) {
        case 'suspension': {
          const rules = { pause: o.rule ?? null, end: null };
          const { taskId, resumeTokenHash, pausedAt } = o.draft;
          this.#bySpan.set(spanKey(o.draft.span), rules);
          this.#bySpan.set(spanKey(pauseSpan(taskId, { resumeTokenHash, pausedAt })), rules);
          break;
        }
        case 'resumption':
          if (o.draft.outcome !== 'rejected') this.#end(o.draft.links.suspension, o.rule ?? null);
          break;
        case 'span':
          if (o.event.type === 'lost') {
            const rule = o.event.attributes[ATTR_RULE];
            this.#end(o.event.link, typeof rule === 'string' ? rule : null);
          }
          break;
        case 'finding':
        case 'interruption':
        case 'continuation':
        case 'interruption-lost':
          break;
        default: {
          const never: never = o;
          throw new Error(`unhandled output ${JSON.stringify(never)}`);
        }
      }
    }
  }

  /** The pause whose Suspension span is `suspension` ended by `rule`. */
  #end(suspension: SpanRef, rule: string | null): void {
    const rules = this.#bySpan.get(spanKey(suspension));
    if (rules) rules.end = rule;
  }
}
