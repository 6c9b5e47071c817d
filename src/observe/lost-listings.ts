/**
 * @module observe/lost-listings
 * A lost pause and a lost interruption as they are listed (docs/design.md §7 `LostPause`, §14.9):
 * what `lost` prints and what a verdict span is drawn from. The observer's collectors that make
 * them are src/observe/lost-pauses.ts.
 */
import type { SpanRef } from '../receipts/types.js';
import type { LostInterruptionReason, LostPauseReason } from './lost-pause-reasons.js';

/** One lost pause, as `a2a-replay lost` shows it. */
export interface LostPauseListing {
  taskId: string;
  /** RFC `pause.initiatedBy`, null when the pause was never proven (no receipt). */
  initiatedBy: string | null;
  reason: LostPauseReason;
  /** When the pause began: the peer's `pausedAt`, else when the pause was first seen. */
  since: string;
  /** When it was found lost (the recording entry's time); null for a receipt log. */
  detectedAt: string | null;
  /** The pause's own `reason`, if it gave one. */
  pauseReason: string | null;
  /** The Suspension span, to find it in Jaeger. */
  span: SpanRef | null;
  /**
   * The observer rule that declared it lost (docs/design.md §14.8), from the LostPause span's
   * `a2a_replay.rule`; null from a receipt log, which holds no rule.
   */
  rule: string | null;
  /**
   * The A2A versions the task's exchanges spoke (`["0.3"]`, `["0.3", "1.0"]` for a pause seen in
   * one dialect and resumed in another; docs/design.md §14.10), from a recording that holds a
   * version other than 1.0; absent otherwise (a receipt log names none).
   */
  a2aVersions?: string[];
}

/** One lost interruption (INPUT_REQUIRED, AUTH_REQUIRED), as `a2a-replay lost` shows it (docs/design.md §14.9). */
export interface LostInterruptionListing {
  taskId: string;
  /** `TASK_STATE_INPUT_REQUIRED` or `TASK_STATE_AUTH_REQUIRED`, when known. */
  state: string | null;
  reason: LostInterruptionReason;
  /** When the task was seen interrupted. */
  since: string;
  /** When it was found lost (the recording entry's time); null for a receipt log. */
  detectedAt: string | null;
  /** The span of the interruption's receipt. */
  span: SpanRef;
  /** The observer rule that declared it lost; null from a receipt log. */
  rule: string | null;
  /** As a lost pause's `a2aVersions`. */
  a2aVersions?: string[];
  /**
   * In a fleet (docs/design.md §17): the file and line of its InterruptionReceipt, as the fleet's
   * audit names it (`interruptedIn`); absent for one log, a series or a recording.
   */
  interruptedIn?: { file: string; line: number };
}
