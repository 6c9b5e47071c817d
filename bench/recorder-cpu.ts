/**
 * CPU time per call of `a2a-replay record --key K --fsync batch` (user + system of the whole
 * process, from /proc/PID/stat, so GC and the thread pool count), beside the bare proxy and,
 * with `--baseline CLI`, beside another build's recorder (e.g. a checkout of main), all in front
 * of one `a2a-replay peer --deterministic` and driven in alternating segments. Under a loaded
 * machine CPU per call moves less than throughput does, so it compares two builds more fairly.
 * Not in run.ts (it needs a second build to be useful).
 *
 * `npx tsx bench/recorder-cpu.ts [--calls 3000] [--cases unary,sse,pause] [--baseline DIR/dist/cli/main.js]
 *   [--floor] [--warmup 300]`
 * — unary: GetTask; sse: SendStreamingMessage `work:0` read to its end; pause: PauseTask +
 * ResumeTask (one call = the pair); large: GetTask of a 60 KB answer; card: GET of the agent card.
 * With `--floor`, the bare proxy with `--durable` runs beside them too: each exchange written as
 * one line, pause and resume answers held until two files are synced (the floor of
 * durable-before-acknowledged, bench/bare-proxy.ts). `--warmup N` (default 300) calls each
 * before the segments: V8's optimizing compiler is still at work on other threads for thousands of
 * calls, so a short warm-up measures start-up work too and a long one (10000) the steady state
 * (bench/README.md). The table gives each process's CPU per call and its main thread's part (the
 * rest is V8's compiler and GC helpers, and libuv's thread pool). Needs `npm run build` first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { textTable } from '../cli/text-table.js';
import { type ServerProcess, Rpc, alternatingCpu, arg, keygen, startCli, startRecorderPaths } from './_lib.js';

const CALLS = Number(arg('calls', '3000'));
const CASES = arg('cases', 'unary,sse,pause').split(',');
const BASELINE = arg('baseline', '');
const WARMUP = Number(arg('warmup', '300'));
const ROUNDS = 3;
const CONCURRENCY = 8;

const dir = mkdtempSync(join(tmpdir(), 'bench-recorder-cpu-'));
const key = keygen(join(dir, 'key.json'));
const rpc = new Rpc(CONCURRENCY * 4);

const peer = await startCli(['peer', '--deterministic']);
const procs: Record<string, ServerProcess> = {};
try {
  const floor = process.argv.includes('--floor');
  await startRecorderPaths(procs, { upstream: peer.url, dir, key, baseline: BASELINE, floor });
  const rows = [['case', 'path', 'calls', 'cpu µs per call', 'main thread µs', 'calls per second']];
  for (const kind of CASES) {
    const segments = await alternatingCpu(kind, procs, rpc, {
      calls: CALLS,
      segments: ROUNDS,
      concurrency: CONCURRENCY,
      warmup: WARMUP,
    });
    for (const [name, seg] of Object.entries(segments)) {
      const calls = seg.calls * seg.cpuMs.length;
      const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
      rows.push([
        kind,
        name,
        String(calls),
        ((1000 * sum(seg.cpuMs)) / calls).toFixed(0),
        ((1000 * sum(seg.mainMs)) / calls).toFixed(0),
        ((1000 * calls) / sum(seg.wallMs)).toFixed(0),
      ]);
    }
  }
  console.log(textTable(rows));
} finally {
  for (const p of Object.values(procs)) await p.stop();
  await peer.stop();
  rpc.close();
  rmSync(dir, { recursive: true, force: true });
}
