/**
 * @module replay/live-time
 * Time against a live peer (docs/design.md §8, "Time against a live peer"): the replay cannot move
 * the peer's clock, so it keeps the recording's.
 *
 * - **Pacing.** Each lane (a task; the barriers share one) keeps an anchor: the recorded instant
 *   of its last request sent, or of the last poll loop's outcome shown, and the wall instant that
 *   happened at. A request goes no sooner than the anchor's wall instant plus its recorded
 *   distance from the anchor, at the {@link ReplayPace}. A lane with no anchor yet takes the
 *   latest any lane set (the replay's start at first). A late peer is never hurried: the spacing
 *   counts from when the lane's last request actually went.
 * - **Poll loops** (src/replay/poll-loops.ts) are read by state, not by time: the loop's outcome
 *   is read at once, again every {@link livePollMs}, until the peer shows the state and artifacts
 *   the loop ended in, shows more than that (it went past: a terminal state the recording does not
 *   show, more artifacts), or the loop's bound passes on the wall clock (its recorded duration
 *   × 4, at least 1 s, both counted from the request before the loop). Only the last answer is
 *   kept. A read that shows the loop's state with its recorded artifacts and more after them went
 *   through the outcome between two reads: the outcome was shown, and that answer is kept
 *   uncompared. What the recorded client sent next answered what it saw then: it goes at once. (A
 *   loaded recording's instants run ahead of its peer's work, so a loop read at them would read
 *   past the state it ended in, and a request paced after it would find the peer further on.)
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import type { Clock } from '../clock.js';
import type { RecordingEntry } from '../recording/format.js';
import { shapeDifferences, shapeOf } from './drift.js';
import type { LaneKey, PlannedExchange } from './lanes.js';
import { type ReplayPace, pacedMs } from './pace.js';
import { loopBoundMs } from './poll-loops.js';

/** The longest wait between two reads of a live poll loop, ms. */
export const LIVE_POLL_MAX_MS = 25;

/** The shortest wait between two reads of a live poll loop, ms. */
const LIVE_POLL_MIN_MS = 2;

/** Task states after which nothing changes. */
const TERMINAL_STATES: ReadonlySet<string> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
  'completed',
  'failed',
  'canceled',
  'rejected',
]);

interface Anchor {
  /** Recorded instant, ms. */
  at: number;
  /** Wall instant, ms. */
  wall: number;
}

function obj(value: JsonValue | undefined): { [key: string]: JsonValue } | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/** How many artifacts a task answer (GetTask, a `task` member) shows; undefined for anything else. */
export function artifactCount(body: JsonValue | undefined): number | undefined {
  const envelope = obj(body);
  const result = envelope && 'jsonrpc' in envelope ? obj(envelope.result) : envelope;
  const task = obj(result?.task) ?? result;
  if (!task || !obj(task.status)) return undefined;
  return Array.isArray(task.artifacts) ? task.artifacts.length : 0;
}

/** The `artifactId`s of a task answer's artifacts, in order. */
function artifactIds(body: JsonValue | undefined): string[] {
  const envelope = obj(body);
  const result = envelope && 'jsonrpc' in envelope ? obj(envelope.result) : envelope;
  const task = obj(result?.task) ?? result;
  const artifacts = Array.isArray(task?.artifacts) ? task.artifacts : [];
  return artifacts.map((a) => obj(a)?.artifactId).filter((id): id is string => typeof id === 'string');
}

/** Whether `list` is `prefix` and more. */
function startsWith(list: readonly string[], prefix: readonly string[]): boolean {
  return list.length > prefix.length && prefix.every((id, i) => list[i] === id);
}

/** Where a live poll read stands against the loop's recorded outcome. */
export type LoopReading =
  /** The state and artifacts the loop ended in. */
  | 'reached'
  /**
   * The same state with the recorded artifacts and more after them: the peer went through the
   * recorded outcome between two reads (the recorded client, late on its timer, read it then).
   */
  | 'through'
  /** Not yet: reading again may show it. */
  | 'before'
  /** Past it: a terminal state the recording does not show, or more artifacts than it shows. */
  | 'past';

/** Reads a live answer (ids and all as it came) against the recorded outcome of a poll loop. */
export function loopReading(
  recorded: RecordingEntry,
  live: Pick<RecordingEntry, 'kind' | 'http' | 'body' | 'grpc'>,
): LoopReading {
  const expected = shapeOf(recorded);
  const actual = shapeOf(live);
  const recordedArtifacts = artifactCount(recorded.body);
  const liveArtifacts = artifactCount(live.body);
  const sameShape = shapeDifferences(expected, actual).length === 0;
  if (sameShape && recordedArtifacts === liveArtifacts) return 'reached';
  if (sameShape && startsWith(artifactIds(live.body), artifactIds(recorded.body))) return 'through';
  if (actual.state !== null && TERMINAL_STATES.has(actual.state)) return 'past';
  if (recordedArtifacts !== undefined && liveArtifacts !== undefined && liveArtifacts > recordedArtifacts)
    return 'past';
  return 'before';
}

/** A state label with the artifacts shown, for a timing drift: `WORKING, 2 artifacts`. */
export function loopStateLabel(state: string | undefined, body: JsonValue | undefined): string {
  const n = artifactCount(body);
  const label = state ?? 'another answer';
  return n === undefined ? label : `${label}, ${n} artifact${n === 1 ? '' : 's'}`;
}

/**
 * The wait between two reads of a live poll loop: a quarter of the recorded client's, at least
 * 2 ms and at most {@link LIVE_POLL_MAX_MS}, so a state the recorded client saw, which lasted at
 * least one of its polls, is not read past.
 */
export function livePollMs(recordedMs: number, reads: number): number {
  const interval = reads > 1 ? recordedMs / (reads - 1) : LIVE_POLL_MAX_MS * 4;
  return Math.min(LIVE_POLL_MAX_MS, Math.max(LIVE_POLL_MIN_MS, interval / 4));
}

/** Resolves after `ms` of wall time. */
export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/** The pacing of one drive against a live peer (see the module doc). */
export class LiveTime {
  readonly pace: ReplayPace;
  readonly clock: Clock;
  readonly #anchors = new Map<LaneKey | null, Anchor>();
  #latest: Anchor | undefined;
  /** Lanes whose last step was a poll loop's outcome: their next request goes at once. */
  readonly #synced = new Set<LaneKey>();

  /** `start`: the recorded instant the replay starts at (its first entry's). */
  constructor(pace: ReplayPace, clock: Clock, start: RecordingEntry | undefined) {
    this.pace = pace;
    this.clock = clock;
    const at = start ? Date.parse(start.at) : Number.NaN;
    if (Number.isFinite(at)) this.#latest = { at, wall: clock.now() };
  }

  #anchorOf(lane: LaneKey | null): Anchor | undefined {
    return (lane === null ? undefined : this.#anchors.get(lane)) ?? this.#latest;
  }

  /** The wall instant `entry` of `lane` is due at, ms. */
  dueAt(entry: RecordingEntry, lane: LaneKey | null): number {
    const at = Date.parse(entry.at);
    const anchor = this.#anchorOf(lane);
    if (!anchor || !Number.isFinite(at) || (lane !== null && this.#synced.has(lane))) return this.clock.now();
    return anchor.wall + pacedMs(this.pace, Math.max(0, at - anchor.at));
  }

  /** Waits until `entry` of `lane` is due, then anchors the lane there. */
  async reach(entry: RecordingEntry, lane: LaneKey | null): Promise<void> {
    if (this.pace.kind !== 'none') await sleep(this.dueAt(entry, lane) - this.clock.now());
    this.anchor(entry, lane);
  }

  /** `entry` of `lane` happened now (a request went). */
  anchor(entry: RecordingEntry, lane: LaneKey | null): void {
    const at = Date.parse(entry.at);
    if (!Number.isFinite(at)) return;
    const anchor = { at, wall: this.clock.now() };
    if (lane !== null) {
      this.#anchors.set(lane, anchor);
      this.#synced.delete(lane);
    }
    this.#latest = anchor;
  }

  /**
   * A poll loop of `lane` showed its outcome now: what the recorded client sent next answered
   * what it saw then, so it goes at once (and anchors the lane).
   */
  synced(lane: LaneKey | null): void {
    if (lane !== null) this.#synced.add(lane);
  }

  /**
   * Since `lane`'s last request (the one before a poll loop), ms: recorded up to `entry`, and on
   * the wall clock up to now.
   */
  since(entry: RecordingEntry, lane: LaneKey | null): { recordedMs: number; wallMs: number } {
    const anchor = this.#anchorOf(lane);
    const at = Date.parse(entry.at);
    if (!anchor || !Number.isFinite(at)) return { recordedMs: 0, wallMs: 0 };
    return { recordedMs: Math.max(0, at - anchor.at), wallMs: this.clock.now() - anchor.wall };
  }
}

/** What reading a live poll loop's outcome found: the answer entries of its last read and how it stands. */
export interface LiveLoopEnd<T> {
  got: T[];
  reading: LoopReading;
  /** From the request before the loop to the loop's last answer, ms: recorded, and on replay (wall). */
  recordedMs: number;
  replayedMs: number;
}

/**
 * Reads a live loop's outcome (see the module doc) at once, again and again, until the peer shows
 * it, goes past it, or the loop's bound passes (counted, as the loop's durations are, from the
 * request before the loop); undefined when a read failed.
 */
export async function readLiveLoop<T extends { kind: string }>(
  live: LiveTime,
  loop: { last: PlannedExchange; reads: number; readsMs: number },
  read: () => Promise<T[] | undefined>,
  toEntry: (answer: T) => Pick<RecordingEntry, 'kind' | 'http' | 'body' | 'grpc'>,
): Promise<LiveLoopEnd<T> | undefined> {
  const recorded = loop.last.response;
  const lane = loop.last.lane;
  const recordedMs = live.since(recorded ?? loop.last.request, lane).recordedMs;
  const boundMs = loopBoundMs(recordedMs);
  const wait = livePollMs(loop.readsMs, loop.reads);
  for (;;) {
    const got = await read();
    if (!got) return undefined;
    const response = got.find((d) => d.kind === 'response');
    const reading = recorded && response ? loopReading(recorded, toEntry(response)) : 'reached';
    const replayedMs = live.since(loop.last.request, lane).wallMs;
    if (reading !== 'before' || replayedMs >= boundMs) {
      live.synced(lane);
      return { got, reading, recordedMs, replayedMs };
    }
    await sleep(Math.min(wait, boundMs - replayedMs));
  }
}
