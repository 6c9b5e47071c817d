/**
 * @module observe/peer-times
 * The peer's times in a fact, in their canonical text (docs/design.md §6, "Peer times"): the
 * observer reads `pausedAt`, `pausedUntil`, `trigger.at`, `resumedAt` and `status.timestamp` once,
 * here, so receipts, pause identities (§17) and spans carry one text of an instant whichever
 * binding carried it. Pure.
 */
import { A2aReplayError } from '../errors.js';
import { canonicalTimeText } from '../protocol/time-text.js';
import type { TaskPause } from '../protocol/types.js';
import type { Fact } from './fact.js';

/**
 * The time text read last and its canonical text: an entry states one time in several facts (a
 * sighting's `times` and its state's `timestamp`), and a polled task the same one again.
 * `canonicalTimeText` is pure, so the same text has the same canonical text.
 */
let lastText: string | undefined;
let lastCanonical = '';

/** The canonical text of a time the parsers accepted; throws naming the field when it is none. */
function canonical(text: string, field: string): string {
  if (text === lastText) return lastCanonical;
  const out = canonicalTimeText(text);
  if (out === undefined)
    throw new A2aReplayError('INVALID_ARGUMENT', `${field}: expected an RFC 3339 time; got ${JSON.stringify(text)}`);
  lastText = text;
  lastCanonical = out;
  return out;
}

function canonicalPause(pause: TaskPause): TaskPause {
  const out: TaskPause = { ...pause, pausedAt: canonical(pause.pausedAt, 'pause.pausedAt') };
  if (pause.pausedUntil !== undefined) out.pausedUntil = canonical(pause.pausedUntil, 'pause.pausedUntil');
  const trigger = pause.conditions?.trigger;
  if (pause.conditions && trigger)
    out.conditions = { ...pause.conditions, trigger: { at: canonical(trigger.at, 'pause.conditions.trigger.at') } };
  return out;
}

const canonicalStamp = (timestamp: string | undefined): string | undefined =>
  timestamp === undefined ? undefined : canonical(timestamp, 'status.timestamp');

/** `fact` with every time the peer stated in it in the canonical text; a fact without one as it is. */
export function withCanonicalTimes(fact: Fact): Fact {
  switch (fact.type) {
    case 'TaskSeen':
      return { ...fact, times: fact.times.map((t) => canonical(t, 'status.timestamp')) };
    case 'PausedSeen':
      return { ...fact, pause: canonicalPause(fact.pause) };
    case 'ResumeAnnounced':
      return { ...fact, signal: { ...fact.signal, resumedAt: canonical(fact.signal.resumedAt, 'resumedAt') } };
    case 'ResumeAnswered':
      return { ...fact, resumedAt: canonical(fact.resumedAt, 'resumedAt') };
    case 'InterruptedSeen':
    case 'StateSeen':
      return { ...fact, timestamp: canonicalStamp(fact.timestamp) };
    default:
      return fact;
  }
}
