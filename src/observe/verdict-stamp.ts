/**
 * @module observe/verdict-stamp
 * Every verdict names the rule that decided it (docs/design.md §14.8): receipt outputs carry
 * `rule`; Suspension, Resume and LostPause span ends (and the interruptions') carry it as an
 * attribute.
 */
import { ATTR_RULE } from '../tracing/attributes.js';
import type { SpanEvent } from '../tracing/span-events.js';
import type { ObserverOutput } from './suspension.js';

/**
 * A verdict named by its rule: receipt outputs carry `rule`; Suspension, Resume and LostPause
 * span ends carry it as an attribute.
 */
/** The span events that carry the rule of their verdict (docs/design.md §7). */
const RULED_SPAN_EVENTS: ReadonlySet<SpanEvent['type']> = new Set([
  'suspension.end',
  'resume.end',
  'lost',
  'interruption.end',
  'continuation.end',
  'interruption.lost',
]);

export function stamped(o: ObserverOutput, rule: string): ObserverOutput {
  switch (o.type) {
    case 'suspension':
    case 'resumption':
    case 'interruption':
    case 'continuation':
    case 'interruption-lost':
      return o.rule === undefined ? { ...o, rule } : o;
    case 'span': {
      const e = o.event;
      if (!RULED_SPAN_EVENTS.has(e.type)) return o;
      if (e.attributes[ATTR_RULE] !== undefined) return o;
      // `{...e.attributes, [ATTR_RULE]: rule}`, built by assignment into one new object.
      const attributes = Object.assign({}, e.attributes);
      attributes[ATTR_RULE] = rule;
      return { type: 'span', event: { ...e, attributes } };
    }
    case 'finding':
      return o;
    default: {
      const never: never = o;
      return never;
    }
  }
}
