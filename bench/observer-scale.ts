/**
 * The PauseObserver over 5,000 and 20,000 pause/resume pairs (test/fixtures/pause-traffic.ts), in
 * two shapes: pairs one after another in three client styles, and all pauses open at once before
 * any is resumed. Measured in the same run: time, and the heap retained afterwards (after a full
 * GC). Work per entry is O(1) in the number of tasks, so 4x the pairs should take about 4x the time
 * (goal: ratio <= 4.4) and retain about the same heap.
 * `npx tsx bench/observer-scale.ts [small, default 5000] [large, default 20000]`
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PauseObserver } from '../src/observe/pause-observer.js';
import type { RecordingEntry } from '../src/recording/format.js';
import { manyOpenPauses, pauseResumePairs } from '../test/fixtures/pause-traffic.js';
import { type Figures, emitFigures, round } from './_lib.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const SMALL = Number(process.argv[2] ?? 5_000);
const LARGE = Number(process.argv[3] ?? 20_000);

interface Run {
  pairs: number;
  entries: number;
  ms: number;
  retainedMb: number;
}

type Traffic = (pairs: number) => Iterable<RecordingEntry>;

function run(pairs: number, traffic: Traffic): Run {
  gc();
  const before = process.memoryUsage().heapUsed;
  const observer = new PauseObserver({ recordingId: 'rec-bench' });
  let entries = 0;
  let receipts = 0;
  const start = performance.now();
  for (const entry of traffic(pairs)) {
    entries++;
    for (const out of observer.observe(entry)) if (out.type === 'suspension' || out.type === 'resumption') receipts++;
  }
  observer.finish(new Date(Date.parse('2026-05-01T00:00:00.000Z') + entries).toISOString());
  const ms = performance.now() - start;
  if (receipts !== pairs * 2) throw new Error(`expected ${pairs * 2} receipts, got ${receipts}`);
  gc();
  const retainedMb = (process.memoryUsage().heapUsed - before) / 1e6;
  // Keep the observer alive until the heap was measured.
  if (observer.stats().tasks < 0) throw new Error('unreachable');
  return { pairs, entries, ms, retainedMb };
}

const fmt = (r: Run): string =>
  `${String(r.pairs).padStart(6)} pairs  ${String(r.entries).padStart(7)} entries  ` +
  `${r.ms.toFixed(0).padStart(6)} ms  ${((r.ms * 1000) / r.entries).toFixed(2)} us/entry  ` +
  `retained ${r.retainedMb.toFixed(1)} MB`;

const figures: Figures = {};
for (const [name, key, traffic] of [
  ['pairs one after another (three client styles)', 'observer.pairs', pauseResumePairs],
  ['all pauses open at once, then all resumed', 'observer.openAtOnce', manyOpenPauses],
] as const) {
  run(1_000, traffic); // warm-up
  const small = run(SMALL, traffic);
  const large = run(LARGE, traffic);
  process.stdout.write(`${name}\n${fmt(small)}\n${fmt(large)}\n`);
  process.stdout.write(
    `  time ${LARGE}/${SMALL}: ${(large.ms / small.ms).toFixed(2)}x for ${(LARGE / SMALL).toFixed(1)}x the pairs ` +
      `(goal <= 4.4); retained heap ${(large.retainedMb / Math.max(small.retainedMb, 0.01)).toFixed(2)}x\n`,
  );
  figures[`${key}.timeLargeOverSmall`] = round(large.ms / small.ms);
  figures[`${key}.retainedLargeOverSmall`] = round(large.retainedMb / Math.max(small.retainedMb, 0.01));
}
emitFigures(figures);
