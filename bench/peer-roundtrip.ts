/**
 * @module bench/peer-roundtrip
 * Pause+resume round trips per second against the reference peer, beside plain GetTask round
 * trips measured in the same run on the same peer and connection pool. One pause+resume round
 * trip is a PauseTask followed by a ResumeTask with the token it returned (two HTTP requests).
 *
 *   npx tsx bench/peer-roundtrip.ts [--ms 3000] [--concurrency 1,8]
 */
import { type PauseTaskResult, type RunningPeer, type Task, startPeer, systemClock } from '../src/index.js';

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
    }
  } finally {
    await peer.close();
  }
}

await main();
