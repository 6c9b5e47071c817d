/**
 * @module bench/peer-roundtrip
 * Pause+resume round trips per second against the reference peer, beside plain GetTask round
 * trips measured in the same run on the same peer and connection pool. One pause+resume round
 * trip is a PauseTask followed by a ResumeTask with the token it returned (two HTTP requests).
 *
 * Then the peer under load, each against a baseline of the same run: the heap after N and after
 * 2N finished tasks with `--max-tasks N` (bounded state: the ratio stays near 1), and the latency
 * of a GetTask sent while an AdvanceClock fires 10,000 timers, beside an idle GetTask.
 *
 *   npx tsx bench/peer-roundtrip.ts [--ms 3000] [--concurrency 1,8] [--tasks 10000]
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { systemClock } from '../src/clock.js';
import { type RunningPeer, startPeer } from '../src/peer/start-peer.js';
import type { PauseTaskResult, Task } from '../src/protocol/types.js';
import { type Figures, emitFigures, round } from './_lib.js';

const figures: Figures = {};

const HEADERS = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

async function call<T>(url: string, method: string, params: unknown): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: unknown };
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

/** Runs `lanes` loops of `once` for `ms` and returns completed iterations per second. */
async function rate(ms: number, lanes: number, once: (lane: number) => Promise<void>): Promise<number> {
  const start = systemClock.now();
  let count = 0;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      while (systemClock.now() - start < ms) {
        await once(lane);
        count++;
      }
    }),
  );
  return (count * 1000) / (systemClock.now() - start);
}

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

function heapMb(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed / (1024 * 1024);
}

async function finishTasks(url: string, n: number, lanes: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < n) {
        next++;
        await call(url, 'SendMessage', {
          message: { messageId: `done-${next}`, role: 'ROLE_USER', parts: [{ text: 'work:0' }] },
          configuration: { returnImmediately: true },
        });
      }
    }),
  );
}

/** Heap growth from N to 2N finished tasks on a peer keeping at most `maxTasks` of them. */
async function heapGrowth(n: number, maxTasks: number): Promise<{ atN: number; at2N: number; ratio: number }> {
  // Let the sockets of what ran before close, so the baseline holds none of it.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const peer = await startPeer({ deterministic: true, maxTasks });
  try {
    const before = heapMb();
    await finishTasks(peer.url, n, 16);
    const atN = heapMb() - before;
    await finishTasks(peer.url, n, 16);
    const at2N = heapMb() - before;
    return { atN, at2N, ratio: at2N / atN };
  } finally {
    await peer.close();
  }
}

/** Bounded (`--max-tasks N`) against a peer that keeps all 2N, in the same run. */
async function boundedState(n: number): Promise<void> {
  const kept = await heapGrowth(n, 2 * n);
  const bounded = await heapGrowth(n, n);
  const show = (g: { atN: number; at2N: number; ratio: number }): string =>
    `+${g.atN.toFixed(1)} MB after ${n}, +${g.at2N.toFixed(1)} MB after ${2 * n} (x${g.ratio.toFixed(2)})`;
  console.log(`finished tasks, heap growth: keeping all ${show(kept)}; --max-tasks ${n} ${show(bounded)}`);
  figures['peer.boundedHeap2nOverN'] = round(bounded.ratio);
  figures['peer.keptHeap2nOverN'] = round(kept.ratio);
}

/** GetTask latency while a clock move fires 10,000 timers, beside an idle GetTask. */
async function stallDuringAdvance(): Promise<void> {
  const peer = await startPeer({ deterministic: true, stepMs: 1 });
  try {
    const other = (
      await call<{ task: Task }>(peer.url, 'SendMessage', {
        message: { messageId: 'other', role: 'ROLE_USER', parts: [{ text: 'await:go' }] },
        configuration: { returnImmediately: true },
      })
    ).task;
    await call(peer.url, 'SendMessage', {
      message: { messageId: 'load', role: 'ROLE_USER', parts: [{ text: 'work:10000' }] },
      configuration: { returnImmediately: true },
    });
    const timed = async (): Promise<number> => {
      const start = performance.now();
      await call(peer.url, 'GetTask', { id: other.id });
      return performance.now() - start;
    };
    for (let i = 0; i < 50; i++) await timed();
    const idles: number[] = [];
    for (let i = 0; i < 21; i++) idles.push(await timed());
    const idle = idles.sort((a, b) => a - b)[10]!;
    const advanceStart = performance.now();
    const advancing = fetch(`${peer.url}/control`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'AdvanceClock', params: { ms: 10_000 } }),
    }).then(() => performance.now() - advanceStart);
    const during = await timed();
    const advance = await advancing;
    console.log(
      `clock move firing 10,000 timers: ${advance.toFixed(0)} ms; a GetTask sent meanwhile answered in ` +
        `${during.toFixed(1)} ms vs ${idle.toFixed(1)} ms idle (median of 21); during / move = ` +
        `${(during / advance).toFixed(2)} (1.00 would be a stall)`,
    );
    figures['peer.getDuringClockMoveOverMove'] = round(during / advance);
  } finally {
    await peer.close();
  }
}

async function main(): Promise<void> {
  const ms = Number(arg('ms', '3000'));
  const levels = arg('concurrency', '1,8').split(',').map(Number);
  const peer: RunningPeer = await startPeer({ deterministic: true });
  try {
    const tasks: Task[] = [];
    for (let i = 0; i < Math.max(...levels); i++) {
      const sent = await call<{ task: Task }>(peer.url, 'SendMessage', {
        message: { messageId: `bench-${i}`, role: 'ROLE_USER', parts: [{ text: 'work:1' }] },
        configuration: { returnImmediately: true },
      });
      tasks.push(sent.task);
    }
    const id = (lane: number): string => tasks[lane]!.id;
    // Warm up the connection pool and the JIT.
    await rate(300, 1, async () => void (await call(peer.url, 'GetTask', { id: id(0) })));

    console.log(`reference peer round trips, ${ms} ms per measurement (deterministic mode, loopback)`);
    for (const lanes of levels) {
      const get = await rate(ms, lanes, async (lane) => void (await call(peer.url, 'GetTask', { id: id(lane) })));
      const pauseResume = await rate(ms, lanes, async (lane) => {
        const paused = await call<PauseTaskResult>(peer.url, 'PauseTask', { taskId: id(lane) });
        await call(peer.url, 'ResumeTask', { taskId: id(lane), resumeToken: paused.pause.resumeToken });
      });
      console.log(
        `concurrency ${String(lanes).padStart(2)}: GetTask ${get.toFixed(0)}/s, pause+resume ` +
          `${pauseResume.toFixed(0)}/s ` +
          `(${(pauseResume * 2).toFixed(0)} requests/s); pause+resume / GetTask = ${(pauseResume / get).toFixed(2)} ` +
          `(per request ${((pauseResume * 2) / get).toFixed(2)})`,
      );
      figures[`peer.c${lanes}.pauseResumeOverGetTask`] = round(pauseResume / get);
    }
  } finally {
    await peer.close();
  }
  await boundedState(Number(arg('tasks', '10000')));
  await stallDuringAdvance();
  emitFigures(figures);
}

await main();
