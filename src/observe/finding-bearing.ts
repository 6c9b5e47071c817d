/**
 * @module observe/finding-bearing
 * What each finding means for a verdict over the recording it was made on (docs/design.md §14.2):
 * one table, read by `lost`, `verify --recording` and the report alike, so that no reader signs a
 * clean verdict over traffic another calls unread. Where the record cannot follow the peer, it
 * says so.
 */
import type { FindingCode } from './findings.js';

/**
 * - `incomplete`: the entry does not hold all the peer sent (§5).
 * - `not-understood`: a request in no dialect the observer reads (§14.10).
 * - `unread`: the observer could not read what the peer said (or what a call the peer carried out
 *   asked), so a pause, resume or interruption it showed may have no receipt: no verdict over the
 *   recording is clean.
 * - `verdict`: the verdict itself (a lost pause or interruption), reported as such.
 * - `noted`: read, and the protocol broken where it was read (a transition the state machine
 *   refuses, a response id not the request's, a call whose params the peer refused): the verdict
 *   follows what the peer said.
 */
export type FindingBearing = 'incomplete' | 'not-understood' | 'unread' | 'verdict' | 'noted';

/** The bearing of every finding code; a code added without one fails to compile. */
export const FINDING_BEARING: { readonly [C in FindingCode]: FindingBearing } = {
  'incomplete-entry': 'incomplete',
  'not-understood': 'not-understood',
  // The entry, the body or the order the observer reads from cannot be read: what it carried is unseen.
  'malformed-entry': 'unread',
  'out-of-order': 'unread',
  'malformed-json-rpc': 'unread',
  'malformed-result': 'unread',
  'malformed-pause': 'unread',
  'orphan-entry': 'unread',
  'duplicate-request': 'unread',
  'observer-error': 'unread',
  // A call the peer answered with a result whose request the observer could not read.
  'unread-call': 'unread',
  'malformed-params': 'noted',
  // A resume with no open pause to close: most often one a poll or a stream already showed ended
  // (a client that left reads its answer late), or one begun at another replica of a fleet. The
  // pauses are judged by what the peer showed of them, so it is noted, not a gap.
  'unmatched-resume': 'noted',
  'id-mismatch': 'noted',
  'impossible-transition': 'noted',
  'lost-pause': 'verdict',
  'lost-interruption': 'verdict',
};

/** Whether `code` leaves a verdict over the recording that cannot be trusted (any but `verdict` and `noted`). */
export function findingSpoilsVerdict(code: FindingCode): boolean {
  const bearing = FINDING_BEARING[code];
  return bearing !== 'verdict' && bearing !== 'noted';
}
