/**
 * Replays that keep time — the embedded peer on a virtual clock, a paced live peer — stream in
 * segments as unpaced ones do (docs/design.md §8, "Long recordings"): a poll loop goes on across a
 * cut, so a paced replay in segments of two entries gives what the whole recording replayed at
 * once gives, over the golden corpus (test/replay/run-real-time.test.ts: the same on a virtual clock).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { DETERMINISTIC_EPOCH } from '../../src/peer/epoch.js';
import { startPeer } from '../../src/peer/start-peer.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { recordedPeerSetup } from '../../src/replay/recorded-peer.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import type { ExchangeDrift } from '../../src/replay/drift.js';
import { type DriveResult, driveRecordingStream } from '../../src/replay/driver.js';
import { type PlannedExchange, planReplay } from '../../src/replay/lanes.js';
import { PollLoops, type PollRole, pollLoops } from '../../src/replay/poll-loops.js';
import { segmentsOf } from '../../src/replay/segments.js';
import { entry, result, rpc } from './fixtures.js';

const ROOT = join(import.meta.dirname, '../..');
const GOLDEN = readdirSync(join(ROOT, 'golden'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

/** A role as data: the outcome's first read by xid, so two plans' roles compare. */
const roleOf = (role: PollRole | undefined): unknown =>
  role?.kind === 'outcome' ? { kind: 'outcome', first: role.first.xid, reads: role.reads } : role;

describe('PollLoops', () => {
  const get = (seq: number, xid: string, task: string): RecordingEntry[] => [
    entry(seq, xid, 'request', rpc('GetTask', { id: task })),
    entry(seq + 1, xid, 'response', result({ id: task, status: { state: 'TASK_STATE_WORKING' } })),
  ];
  const cancel = (seq: number, xid: string, task: string): RecordingEntry[] => [
    entry(seq, xid, 'request', rpc('CancelTask', { id: task })),
    entry(seq + 1, xid, 'response', result({ id: task, status: { state: 'TASK_STATE_CANCELED' } })),
  ];
  // Task a: five reads, then a cancel; task b: four reads, the last after a stretch without b.
  const entries = [
    ...get(1, 'a1', 'a'),
    ...get(3, 'b1', 'b'),
    ...get(5, 'a2', 'a'),
    ...get(7, 'b2', 'b'),
    ...get(9, 'a3', 'a'),
    ...get(11, 'b3', 'b'),
    ...get(13, 'a4', 'a'),
    ...get(15, 'a5', 'a'),
    ...cancel(17, 'a6', 'a'),
    ...get(19, 'b4', 'b'),
  ];
  const cut = (bounds: number[]): ReturnType<typeof planReplay>[] =>
    bounds.slice(0, -1).map((from, i) => planReplay(entries.slice(from, bounds[i + 1])));
  const rolesIn = (plans: ReturnType<typeof planReplay>[]): Record<string, unknown> => {
    const loops = new PollLoops();
    const out: Record<string, unknown> = {};
    plans.forEach((plan, i) => {
      const roles = loops.rolesOf(plan, plans[i + 1]);
      for (const ex of plan.exchanges as PlannedExchange[]) out[ex.xid] = roleOf(roles.get(ex.xid));
    });
    return out;
  };

  it('reads a loop cut across segments as the one loop the whole plan holds', () => {
    const whole = pollLoops(planReplay(entries));
    const expected: Record<string, unknown> = {};
    for (const ex of planReplay(entries).exchanges) expected[ex.xid] = roleOf(whole.get(ex.xid));
    expect(expected.a5).toEqual({ kind: 'outcome', first: 'a1', reads: 5 });
    expect(expected.b4).toEqual({ kind: 'outcome', first: 'b1', reads: 4 });
    expect(rolesIn(cut([0, 6, 12, 20]))).toEqual(expected);
    expect(rolesIn(cut([0, 10, 20]))).toEqual(expected);
  });

  it('ends a loop at a cut when the next segment does not touch its lane', () => {
    // b3 ends the first segment; the second holds none of b, so b4 starts a loop of its own.
    const roles = rolesIn(cut([0, 12, 18, 20]));
    expect(roles.b3).toEqual({ kind: 'outcome', first: 'b1', reads: 3 });
    expect(roles.b4).toEqual({ kind: 'outcome', first: 'b4', reads: 1 });
    expect(roles.a5).toEqual({ kind: 'outcome', first: 'a1', reads: 5 });
    expect(roles.a4).toEqual({ kind: 'read' });
  });
});

/** `value` with the peer's port left out: each drive has a fresh peer, whose card names its port. */
const portless = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value).replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')) as unknown;

/** A drift as compared here: the durations of a timing drift are the wall clock's, not the replay's. */
function comparable(drift: readonly ExchangeDrift[]): unknown {
  return portless(drift.map((d) => (d.type === 'timing' ? { ...d, replayedMs: 0 } : d)));
}

/**
 * Drives `name`'s golden recording, paced at x1000, against a fresh reference peer set up as the
 * recorded one (as `run` sets up its embedded peer), read as a live peer: every poll loop is read
 * until the peer shows its outcome. `segments` counts the segments driven.
 */
async function pacedDrive(
  name: string,
  segmentEntries: number,
): Promise<Pick<DriveResult, 'drift' | 'replayed' | 'entries' | 'exchanges'> & { segments: number }> {
  const { header, entries } = await readRecording(join(ROOT, 'golden', name, 'recording.jsonl'));
  const recorded = recordedPeerSetup(entries, header);
  const peer = await startPeer({
    deterministic: true,
    control: true,
    clock: new ManualClock(recorded?.clockOriginMs ?? Date.parse(DETERMINISTIC_EPOCH)),
    seed: recorded?.seed ?? 0,
    stepMs: recorded?.stepMs ?? 1000,
    legacyPause: recorded?.legacyPause ?? false,
    ...(recorded?.bypassAskAfterMs === undefined ? {} : { bypassAskAfterMs: recorded.bypassAskAfterMs }),
    a2aVersion: recorded === undefined ? 'both' : (recorded.a2aVersion ?? '1.0'),
    port: 0,
  });
  let segments = 0;
  try {
    const result = await driveRecordingStream(entries, {
      peerUrl: peer.url,
      grpcPeer: peer.grpcUrl,
      segmentEntries,
      keepReplayed: true,
      totalEntries: entries.length,
      firstExtraSeq: (entries.at(-1)?.seq ?? 0) + 1,
      pace: { kind: 'scaled', factor: 1000 },
      onSegment: () => void segments++,
    });
    return { ...result, segments };
  } finally {
    await peer.close();
  }
}

/** How many segments of at least `window` entries `name`'s recording is cut into. */
async function segmentCount(name: string, window: number): Promise<number> {
  const { entries } = await readRecording(join(ROOT, 'golden', name, 'recording.jsonl'));
  let n = 0;
  for await (const _ of segmentsOf(entries, window)) n++;
  return n;
}

describe('a paced replay in segments of two entries', () => {
  it('cuts most of the corpus into several segments', async () => {
    let cut = 0;
    for (const name of GOLDEN) if ((await segmentCount(name, 2)) > 1) cut++;
    expect(cut).toBeGreaterThan(GOLDEN.length / 2);
  });

  it.each(GOLDEN)(
    '%s replays as the whole recording does',
    async (name) => {
      const whole = await pacedDrive(name, Number.POSITIVE_INFINITY);
      const segmented = await pacedDrive(name, 2);
      expect(whole.segments).toBe(1);
      expect(segmented.segments).toBe(await segmentCount(name, 2));
      expect(segmented.entries).toBe(whole.entries);
      expect(segmented.exchanges).toBe(whole.exchanges);
      expect(comparable(segmented.drift)).toEqual(comparable(whole.drift));
      expect(portless(segmented.replayed)).toEqual(portless(whole.replayed));
    },
    60_000,
  );
});
