/**
 * @module replay/result
 * What a replay run reports: one {@link RecordingResult} per recording and a {@link RunSummary}
 * with the exit code (docs/design.md §8: 0 match, 1 drift, 2 usage or malformed input, 3 infrastructure, 130
 * stopped by a signal).
 * Plain data, shared by the runner and the text / JSON / JUnit reporters.
 */
import { EXIT_CODES } from '../errors.js';
import type { ReceiptDiff, ReceiptDifference } from './diff.js';
import type { TaskTimeline } from './drive-report.js';
import type { ExchangeDrift } from './drift.js';

export type RecordingOutcome =
  /** Receipts and exchanges as recorded. */
  | 'match'
  /** Receipts or exchanges differ. */
  | 'drift'
  /** `--update` wrote the golden receipts. */
  | 'updated'
  /** The recording or golden file is malformed or missing (exit 2). */
  | 'malformed'
  /** The peer could not be reached, crashed, or a deadline passed (exit 3). */
  | 'infrastructure'
  /** SIGINT or SIGTERM stopped the run: what it found up to there, partial (exit 130). */
  | 'stopped';

export interface RecordingResult {
  /** The recording's path as given. */
  recording: string;
  /** The recording header's `id`, when it could be read. */
  recordingId: string | null;
  golden: string;
  outcome: RecordingOutcome;
  /** Recorded exchanges and entries, and live entries observed. */
  exchanges: number;
  entries: number;
  liveEntries: number;
  durationMs: number;
  /** Null when the receipts were not compared (update, malformed, infrastructure). */
  receipts: ReceiptDiff | null;
  drift: ExchangeDrift[];
  timelines: TaskTimeline[];
  /** With `--update`: whether the golden file existed, and what changed in it. */
  update: { created: boolean; changes: ReceiptDifference[] } | null;
  /** For `malformed` and `infrastructure`: what failed, in user words. */
  error: { code: string; message: string } | null;
  /** Remarks a reader needs (unsigned comparison, ids remapped, ...). */
  notes: string[];
  /**
   * The likely cause of a drift or failure, said first: the agent cards compared and the live
   * answers classified (src/replay/likely-cause.ts). Empty when nothing points anywhere.
   */
  causes: string[];
}

export interface RunSummary {
  results: RecordingResult[];
  exitCode: number;
  durationMs: number;
}

/** The exit code of one result. */
export function exitCodeOf(outcome: RecordingOutcome): number {
  switch (outcome) {
    case 'match':
    case 'updated':
      return EXIT_CODES.ok;
    case 'drift':
      return EXIT_CODES.drift;
    case 'malformed':
      return EXIT_CODES.usage;
    case 'infrastructure':
      return EXIT_CODES.infrastructure;
    case 'stopped':
      return EXIT_CODES.stopped;
    default: {
      const never: never = outcome;
      return never;
    }
  }
}

/** The run's exit code: the most severe of its results (130 > 3 > 2 > 1 > 0). */
export function summaryExitCode(results: readonly RecordingResult[]): number {
  return results.reduce<number>((code, r) => Math.max(code, exitCodeOf(r.outcome)), EXIT_CODES.ok);
}
