/**
 * @module observe/interruption
 * The interruptions of docs/design.md §14.9: a task the peer showed INPUT_REQUIRED or
 * AUTH_REQUIRED, A2A v1.0's interrupted states, from that sighting to its continuation. Kept apart
 * from suspensions: a pause is the RFC's `PAUSED` and never moves into an interrupted state, nor
 * back (docs/design.md §3). Plain data; `observe/rules/interruption-rules` decides, and
 * `observe/interruption-observer` stores and emits.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import type { CallBinding } from './call-view.js';
import type { InterruptedState, SpanRef } from '../receipts/types.js';
import type { LostInterruptionReason } from './lost-pause-reasons.js';
import type { EntryRef, FactOf, Origin } from './fact.js';

/** A client message sent with the interrupted task's id: the answer, until the task moves on. */
export interface ContinuingMessage {
  readonly xid: string;
  readonly seq: number;
  /** When it was sent: where the Continuation span starts. */
  readonly at: string;
  readonly principal: string | null;
  readonly parts: JsonValue;
  readonly binding: CallBinding;
}

/** A client message in the interrupted task's context that named no task, or another one. */
export interface StrayMessage {
  readonly xid: string;
  readonly seq: number;
  readonly principal: string | null;
}

/** `interrupted`: the peer showed the task in an interrupted state; nothing continued it yet. */
export interface Interruption {
  /** `interruption:<seq>`: its span's and receipt's key. */
  readonly key: string;
  readonly taskId: string;
  readonly contextId: string | null;
  readonly state: InterruptedState;
  /** The agent's prompt (parts of `status.message`), null when it sent none. */
  readonly prompt: JsonValue | null;
  /** The status timestamp the peer stamped it with, null when it sent none. */
  readonly interruptedAt: string | null;
  readonly openSeq: number;
  readonly openAt: string;
  readonly span: SpanRef;
  /** Streams that delivered the interruption: what they show next follows it. */
  readonly caughtUp: Set<string>;
  /** Streams that carried the task when it was seen interrupted and have not delivered it yet. */
  readonly behind: Set<string>;
  /** The client's answer, once sent. */
  answer: ContinuingMessage | undefined;
  /** A message in its context that did not name it. */
  stray: StrayMessage | undefined;
  /**
   * Carried in from an earlier recording (docs/design.md §6, "Series"): its receipt's `promptHash`,
   * which stands for `prompt` (not carried) when a prompt is compared.
   */
  readonly carriedPromptHash?: string | null;
}

/**
 * An interruption an earlier recording left open, as its InterruptionReceipt states it, opened in
 * a new recording's observer before its first entry (openSeq 0: before every entry).
 */
export interface CarriedInterruption {
  /** `carried:<hash of its receipt>`, unlike any key of this recording. */
  readonly key: string;
  readonly taskId: string;
  readonly contextId: string | null;
  readonly state: InterruptedState;
  readonly promptHash: string | null;
  /** Its receipt's `interruptedAt`: the status timestamp the peer stamped it with. */
  readonly interruptedAt: string | null;
  readonly openAt: string;
  readonly span: SpanRef;
  readonly binding: CallBinding;
}

/** An entry, or the end of the recording (seq null). */
export interface When {
  readonly seq: number | null;
  readonly at: string;
}

/**
 * What the interruption rows read and ask for (docs/design.md §14.9); `observe/interruption-observer`
 * does it, so the rules need not know the store.
 */
export interface InterruptionActions {
  /** Whether `origin` is a stream that carried the task before the interruption and has not delivered it. */
  behindOn(i: Interruption, origin: Origin): boolean;
  samePrompt(i: Interruption, prompt: JsonValue | null): boolean;
  /**
   * Whether the sighting shows an interruption of its task already lost while the task stayed
   * interrupted: same state, prompt and status timestamp.
   */
  lostSeenAgain(fact: FactOf<'InterruptedSeen'>): boolean;
  /** A client message named the interrupted task: its answer, continuing it once the task moves on. */
  answered(i: Interruption, message: ContinuingMessage): void;
  /** A message in its context named no task or another (the first such is kept). */
  strayMessage(i: Interruption, message: StrayMessage): void;
  /** The client's answer was refused: it continues nothing. */
  answerRefused(i: Interruption): void;
  /** The task was seen interrupted: an interruption opens and its receipt is drafted. */
  open(fact: FactOf<'InterruptedSeen'>): void;
  seenAgain(i: Interruption, origin: Origin): void;
  /** The client's answer continued it. */
  continueByMessage(i: Interruption, when: When): void;
  /** The task ended while interrupted. */
  continueByEnd(i: Interruption, entry: EntryRef, cause: 'canceled' | 'failed'): void;
  /** AUTH_REQUIRED moved on with no message: credentials came out of band. */
  continueOutOfBand(i: Interruption, entry: EntryRef): void;
  /** It can no longer be continued as observed. */
  lose(i: Interruption, reason: LostInterruptionReason, when: When): void;
}
