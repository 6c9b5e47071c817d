/**
 * @module observe/lost-pause-reasons
 * The lost-pause vocabulary (docs/design.md §7 `LostPause`, §14.9): why the observer declares a
 * pause or an interruption lost. The tracing layer draws these verdicts as spans; the words are
 * the observer's.
 */

/** Why a pause was declared lost (docs/design.md §7, §14.5). */
export const LOST_PAUSE_REASONS = [
  'stream_ended',
  'recording_ended',
  'paused_until_passed',
  'task_gone',
  'pause_ignored',
] as const;
export type LostPauseReason = (typeof LOST_PAUSE_REASONS)[number];

/**
 * Whether `reason` is a verdict the end of a recording alone gives (docs/design.md §7, §14.5): the
 * pause was open when the recorder stopped, and nothing the peer showed says it is gone. `lost`
 * reports it (a verdict about the recording); no LostPause span is drawn for it (the process).
 */
export function isStopVerdict(reason: LostPauseReason): boolean {
  return reason === 'recording_ended' || reason === 'stream_ended';
}

/** Why an interruption was declared lost (docs/design.md §14.9), as `observe/interruption` lists them. */
export type LostInterruptionReason = 'never_continued' | 'continued_as_new_task' | 'bypassed' | 'lost_after_restart';
