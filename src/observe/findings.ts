/**
 * @module observe/findings
 * What the PauseObserver reports when the traffic breaks the protocol: malformed entries and
 * payloads, impossible transitions, answers without requests, lost pauses. A finding never stops
 * the observer; it names the entry (`seq`) and the field so a person can look it up.
 */

export const FINDING_CODES = [
  /** The entry itself does not have the recording-format shape (docs/design.md §5). */
  'malformed-entry',
  /** Entries were fed out of `seq` order. */
  'out-of-order',
  /** A body is not a JSON-RPC 2.0 message. */
  'malformed-json-rpc',
  /** A request's `params` do not parse for its method. */
  'malformed-params',
  /**
   * The peer answered with a result a call whose request did not parse (`malformed-params`): what
   * it did to the task is not read (docs/design.md §14.2).
   */
  'unread-call',
  /** A result or stream event does not parse (other than its pause payload). */
  'malformed-result',
  /** A pause or resume payload (`status.pause`, resume metadata, `metadata.harn.pause`) is malformed. */
  'malformed-pause',
  /** A response, event, end or error whose exchange has no request. */
  'orphan-entry',
  /** A second request with an exchange id already in use. */
  'duplicate-request',
  /** A JSON-RPC response whose id is not the request's. */
  'id-mismatch',
  /** A state change the state machine refuses (checkTransition). */
  'impossible-transition',
  /** A resume, cancel or failure the observer cannot tie to a pause it saw. */
  'unmatched-resume',
  /** A pause can no longer be resumed as observed (also emitted as a `lost` span event). */
  'lost-pause',
  /** An interruption (INPUT_REQUIRED, AUTH_REQUIRED) can no longer be continued as observed (docs/design.md §14.9). */
  'lost-interruption',
  /** The observer hit an unexpected error on this entry and skipped the rest of it. */
  'observer-error',
  /**
   * The entry does not hold all the peer sent (`incomplete`: the recorder could not read it;
   * `cut`: it keeps the head of a body the recorder observed whole): a pause or resume it showed
   * cannot be seen from the recording, so a reading of it is incomplete (docs/design.md §14).
   */
  'incomplete-entry',
  /**
   * A request on the A2A path in no dialect the observer reads (a method neither A2A 0.3 nor 1.0
   * has, an `A2A-Version` it does not speak, v0.3 over gRPC): what it showed cannot be seen, so no
   * reading of it is a clean verdict (docs/design.md §14.10).
   */
  'not-understood',
] as const;
export type FindingCode = (typeof FINDING_CODES)[number];

export interface ObserverFinding {
  code: FindingCode;
  /** The entry it is about; null for findings made at the end of the recording. */
  seq: number | null;
  /** Dotted path of the offending field (`body.result.statusUpdate.status.pause.pausedAt`), or `entry`. */
  field: string;
  /** What is wrong, in user words. */
  message: string;
  taskId?: string;
}
