/**
 * @module replay/earlier-times
 * A receipt of a log before version 5 as a log of version 5 writes it (docs/design.md §6, "Peer
 * times"): from version 5 on the peer's times are written in one canonical text, and a condition's
 * `trigger.at` with them, so its `conditionsHash` is taken over the canonical text too. A golden
 * log of an earlier version is compared with a later log of the same session in those terms. A
 * hash that does not match its own receipt's conditions is left as it is, so it still drifts.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { canonicalTimeText } from '../protocol/time-text.js';
import type { ResumeConditions } from '../protocol/types.js';
import { conditionsHashOf } from '../receipts/drafts.js';

type Obj = { [key: string]: JsonValue };

const isObj = (v: JsonValue | undefined): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The receipt members that hold a time the peer stated. */
const PEER_TIME_MEMBERS = ['pausedAt', 'pausedUntil', 'resumedAt', 'interruptedAt'] as const;

/** `text` in the canonical text when it is an RFC 3339 time, else unchanged. */
const canonical = (text: JsonValue | undefined): JsonValue | undefined =>
  typeof text === 'string' ? (canonicalTimeText(text) ?? text) : text;

/** `receipt` with its peer times, and its conditions and their hash, as version 5 writes them. */
export function withLaterTimeText(receipt: Obj): Obj {
  const out: Obj = { ...receipt };
  for (const member of PEER_TIME_MEMBERS) {
    const value = canonical(out[member]);
    if (value !== undefined) out[member] = value;
  }
  const conditions = out.conditions;
  if (!isObj(conditions) || !isObj(conditions.trigger) || typeof conditions.trigger.at !== 'string') return out;
  const later: Obj = {
    ...conditions,
    trigger: { ...conditions.trigger, at: canonical(conditions.trigger.at) ?? null },
  };
  out.conditions = later;
  const ownHash = conditionsHashOf(conditions as unknown as ResumeConditions);
  if (out.conditionsHash === ownHash) out.conditionsHash = conditionsHashOf(later as unknown as ResumeConditions);
  return out;
}
