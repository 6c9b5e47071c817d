/**
 * How `a2a-replay record --key K` scales with the length of a recording: PauseTask + ResumeTask
 * pairs (C lanes, one `work:1` task each, paused and resumed again and again) through a fresh
 * recorder in front of a fresh `a2a-replay peer --deterministic`, both their own processes.
 *
 * - time: N pairs, 4N pairs, then N pairs again (the two N runs averaged, so a bench process
 *   still warming up does not flatter the ratio), each after the same warm-up of W pairs (not
 *   timed), each on a fresh recorder and peer; work per pair is O(1), so the ratio should be
 *   about 4 (goal <= 4.4);
 * - memory: one recorder through M and then 10M pairs, its peak resident memory (VmHWM of the
 *   record process, from /proc) read at both points; state is bounded, so the ratio should stay
 *   near 1 (goal <= 1.3).
 *
 * `npx tsx bench/recorder-scale.ts [--small 5000] [--large 20000] [--rss-small 10000]
 *  [--rss-large 100000] [--warmup 1000] [--concurrency 8]`. Needs `npm run build` first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type Figures, Rpc, arg, emitFigures, keygen, memoryOf, round, startCli } from './_lib.js';

const SMALL = Number(arg('small', '5000'));
const LARGE = Number(arg('large', '20000'));
const RSS_SMALL = Number(arg('rss-small', '10000'));
const RSS_LARGE = Number(arg('rss-large', '100000'));
const WARMUP = Number(arg('warmup', '1000'));
const CONCURRENCY = Number(arg('concurrency', '8'));

const dir = mkdtempSync(join(tmpdir(), 'bench-recorder-scale-'));
const key = keygen(join(dir, 'key.json'));
let runs = 0;

interface Session {
  /** Sends `pairs` more pause+resume pairs; resolves with the time it took in ms. */
  pairs(pairs: number): Promise<number>;
  recorderPid: number;
  close(): Promise<void>;
}

async function session(): Promise<Session> {
  const peer = await startCli(['peer', '--deterministic']);
  const out = join(dir, `scale-${++runs}.jsonl`);
  const recorder = await startCli(['record', '--upstream', peer.url, '--out', out, '--key', key]);
  const rpc = new Rpc(CONCURRENCY);
  const tasks: string[] = [];
  for (let lane = 0; lane < CONCURRENCY; lane++) {
    const sent = await rpc.call<{ task: { id: string } }>(recorder.url, 'SendMessage', {
      message: { messageId: `m-${lane}`, role: 'ROLE_USER', parts: [{ text: 'work:1' }] },
      configuration: { returnImmediately: true },
    });
    tasks.push(sent.task.id);
  }
  return {
    recorderPid: recorder.pid,
    async pairs(pairs) {
      let issued = 0;
      const started = performance.now();
      await Promise.all(
        tasks.map(async (taskId) => {
          while (issued < pairs) {
            issued++;
            const paused = await rpc.call<{ pause: { resumeToken: string } }>(recorder.url, 'PauseTask', {
              taskId,
              reason: 'scale',
            });
            await rpc.call(recorder.url, 'ResumeTask', { taskId, resumeToken: paused.pause.resumeToken });
          }
        }),
      );
      return performance.now() - started;
    },
    async close() {
      rpc.close();
      const code = await recorder.stop();
      await peer.stop();
      if (code !== 0) throw new Error(`record exited with ${code}: ${recorder.stderr()}`);
      rmSync(out, { force: true });
      rmSync(out.replace(/\.jsonl$/, '.receipts.jsonl'), { force: true });
    },
  };
}

async function timed(pairs: number): Promise<number> {
  const s = await session();
  try {
    await s.pairs(WARMUP);
    return await s.pairs(pairs);
  } finally {
    await s.close();
  }
}

const figures: Figures = {};
try {
  const first = await timed(SMALL);
  const large = await timed(LARGE);
  const again = await timed(SMALL);
  const small = (first + again) / 2;
  const perSecond = (pairs: number, ms: number): string => `${Math.round((pairs * 1000) / ms)} pairs/s`;
  console.log(
    `${SMALL} pairs: ${first.toFixed(0)} ms, again ${again.toFixed(0)} ms, mean ${small.toFixed(0)} ms ` +
      `(${perSecond(SMALL, small)})`,
  );
  console.log(`${LARGE} pairs: ${large.toFixed(0)} ms (${perSecond(LARGE, large)})`);
  console.log(`time ${LARGE}/${SMALL}: ${(large / small).toFixed(2)}x for ${(LARGE / SMALL).toFixed(1)}x the pairs`);
  figures['scale.time20kOver5k'] = round(large / small);
  figures['scale.smallPairsPerSecond'] = round((SMALL * 1000) / small, 0);
  figures['scale.largePairsPerSecond'] = round((LARGE * 1000) / large, 0);

  const s = await session();
  try {
    const before = memoryOf(s.recorderPid);
    await s.pairs(RSS_SMALL);
    const atSmall = memoryOf(s.recorderPid);
    await s.pairs(RSS_LARGE - RSS_SMALL);
    const atLarge = memoryOf(s.recorderPid);
    const show = (m: { peakMiB: number; rssMiB: number }): string =>
      `peak ${m.peakMiB.toFixed(1)} MiB, now ${m.rssMiB.toFixed(1)} MiB`;
    console.log(`recorder memory: at start ${show(before)}`);
    console.log(`recorder memory: after ${RSS_SMALL} pairs ${show(atSmall)}`);
    console.log(`recorder memory: after ${RSS_LARGE} pairs ${show(atLarge)}`);
    console.log(`peak ${RSS_LARGE}/${RSS_SMALL}: ${(atLarge.peakMiB / atSmall.peakMiB).toFixed(2)}x`);
    figures['scale.rss100kOver10k'] = round(atLarge.peakMiB / atSmall.peakMiB);
    figures['scale.rssSmallMiB'] = round(atSmall.peakMiB, 1);
    figures['scale.rssLargeMiB'] = round(atLarge.peakMiB, 1);
    figures['scale.rssStartMiB'] = round(before.peakMiB, 1);
  } finally {
    await s.close();
  }
  emitFigures(figures);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
