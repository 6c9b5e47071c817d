/**
 * @module replay/drive-report
 * What a replay drive says besides its drift (docs/design.md §8): the state timelines of the lanes
 * that drifted, notes on requests sent with a body their method usually lacks, and the totals of
 * its segments, every list bounded so that a long recording costs no more to report than a short one.
 */
import type { RecordingEntry } from '../recording/format.js';
import { type ExchangeDrift, driftLane, shapeOf } from './drift.js';
import type { ReplayPlan } from './lanes.js';
import type { ReplayLedger } from './ledger.js';
import { bodyOfBodilessMethod } from './live-exchange.js';

/** Requests with a body their method usually lacks that are named one by one in the notes. */
const BODY_NOTES_LISTED = 20;

/** A task's states in order, recorded and live, for reports. */
export interface TaskTimeline {
  lane: string;
  expected: string[];
  actual: string[];
}

export function stateLabel(entry: RecordingEntry): string | undefined {
  const shape = shapeOf(entry);
  if (shape.outcome === 'error') return `error ${shape.errorCode ?? '?'}`;
  if (shape.state === null) return undefined;
  const state = shape.state.replace(/^TASK_STATE_/, '');
  return shape.legacy ? `${state}(legacy ${shape.legacy})` : state;
}

function timeline(entries: readonly RecordingEntry[]): string[] {
  const out: string[] = [];
  for (const e of entries) {
    const label = stateLabel(e);
    if (label !== undefined && out.at(-1) !== label) out.push(label);
  }
  return out;
}

/**
 * Notes on requests sent with a body their method usually lacks, the first
 * {@link BODY_NOTES_LISTED} of them listed, the rest counted.
 */
export class BodyNotes {
  readonly #notes: string[] = [];
  #unlisted = 0;

  note(request: RecordingEntry, body: string | undefined): void {
    const bytes = bodyOfBodilessMethod(request.http.method, body);
    if (bytes === undefined) return;
    if (this.#notes.length >= BODY_NOTES_LISTED) {
      this.#unlisted += 1;
      return;
    }
    this.#notes.push(
      `seq ${request.seq}: ${request.http.method} ${request.http.path} was recorded with a ${bytes}-byte body; ` +
        'sent as recorded, framed by Content-Length',
    );
  }

  list(): string[] {
    const notes = [...this.#notes];
    if (this.#unlisted > 0) {
      notes.push(`${this.#unlisted} more requests with a body their method usually lacks were sent the same way`);
    }
    return notes;
  }
}

/** The recorded and live state timelines of each lane that drifted. */
export function driftTimelines(
  plan: ReplayPlan,
  ledger: ReplayLedger,
  drift: readonly ExchangeDrift[],
): TaskTimeline[] {
  const drifted = new Set(drift.map(driftLane));
  const timelines: TaskTimeline[] = [];
  for (const lane of plan.lanes) {
    if (!drifted.has(lane)) continue;
    const recorded = plan.entries.filter((e) => plan.laneOfSeq.get(e.seq) === lane);
    timelines.push({ lane, expected: timeline(recorded), actual: timeline(ledger.replayedOf(lane)) });
  }
  return timelines;
}

/** What one segment's drive yields. */
export interface SegmentResult {
  exchanges: number;
  replayed: RecordingEntry[];
  drift: ExchangeDrift[];
  timelines: TaskTimeline[];
  liveEntries: number;
  settled: number;
}

/** Drift kept in a drive's result; more is counted, and said in its notes. */
export const DRIFT_LISTED = 1000;

/** Timelines kept in a drive's result (of the first lanes that drifted). */
const TIMELINES_LISTED = 100;

/** Gathers the segments' results into the drive's: drift and timelines bounded, replayed entries if asked. */
export class DriveTotals {
  exchanges = 0;
  entries = 0;
  liveEntries = 0;
  readonly drift: ExchangeDrift[] = [];
  driftUnlisted = 0;
  readonly replayed: RecordingEntry[] = [];
  readonly #timelines = new Map<string, TaskTimeline>();

  add(segment: SegmentResult, keepReplayed: boolean): void {
    this.exchanges += segment.exchanges;
    this.entries += segment.settled;
    this.liveEntries += segment.liveEntries;
    for (const d of segment.drift) {
      if (this.drift.length < DRIFT_LISTED) this.drift.push(d);
      else this.driftUnlisted += 1;
    }
    if (keepReplayed) for (const e of segment.replayed) this.replayed.push(e);
    for (const t of segment.timelines) {
      const kept = this.#timelines.get(t.lane);
      if (kept) {
        for (const s of t.expected) if (kept.expected.at(-1) !== s) kept.expected.push(s);
        for (const s of t.actual) if (kept.actual.at(-1) !== s) kept.actual.push(s);
      } else if (this.#timelines.size < TIMELINES_LISTED) {
        this.#timelines.set(t.lane, { lane: t.lane, expected: [...t.expected], actual: [...t.actual] });
      }
    }
  }

  get timelines(): TaskTimeline[] {
    return [...this.#timelines.values()];
  }
}
