/**
 * CPU time per call of the recording proxy's forwarding alone (bench/relay-proxy.ts: the proxy of
 * this build with a recorder that records nothing) beside the bare proxy and, with
 * `--baseline DIR/dist`, beside another build's forwarding, all in front of one
 * `a2a-replay peer --deterministic`, in alternating segments: what the recorder's use of node:http
 * costs over a bare pass-through, apart from what recording costs. Per case it prints the median
 * and quartiles of the segments' CPU µs per call (user + system from /proc/PID/stat, which counts
 * in 10 ms ticks: a segment needs some thousand calls) and the ratio of the medians over bare.
 * Not in run.ts. Needs `npm run build` first.
 *
 * `npx tsx bench/relay-cpu.ts [--calls 16000] [--segments 8] [--cases unary,sse,pause] [--baseline DIR/dist]`
 */
import { join } from 'node:path';
import { textTable } from '../cli/text-table.js';
import {
  type CpuSegments,
  ROOT,
  type ServerProcess,
  Rpc,
  alternatingCpu,
  arg,
  startBareProxy,
  startCli,
  startServer,
} from './_lib.js';

const CALLS = Number(arg('calls', '16000'));
const SEGMENTS = Number(arg('segments', '8'));
const CASES = arg('cases', 'unary,sse,pause').split(',');
const BASELINE = arg('baseline', '');
const CONCURRENCY = 8;
const rpc = new Rpc(CONCURRENCY * 4);

const relay = (dist: string, upstream: string): Promise<ServerProcess> =>
  startServer(join(ROOT, 'bench/relay-proxy.ts'), ['--dist', dist, '--upstream', upstream], ['--import', 'tsx']);
const quantile = (sorted: number[], q: number): number => sorted[Math.round(q * (sorted.length - 1))] ?? NaN;

const peer = await startCli(['peer', '--deterministic']);
const procs: Record<string, ServerProcess> = {};
try {
  if (BASELINE) procs.baseline = await relay(BASELINE, peer.url);
  procs.relay = await relay(join(ROOT, 'dist'), peer.url);
  procs.bare = await startBareProxy(peer.url);
  const rows = [['case', 'path', 'calls', 'cpu µs per call (q1 median q3)', 'median over bare']];
  for (const kind of CASES) {
    const segments = await alternatingCpu(kind, procs, rpc, {
      calls: CALLS,
      segments: SEGMENTS,
      concurrency: CONCURRENCY,
      warmup: 500,
    });
    const perCall = (seg: CpuSegments): number[] => seg.cpuMs.map((ms) => (1000 * ms) / seg.calls);
    const bare = quantile(
      perCall(segments.bare!).sort((a, b) => a - b),
      0.5,
    );
    for (const [name, seg] of Object.entries(segments)) {
      const sorted = perCall(seg).sort((a, b) => a - b);
      const [q1, median, q3] = [0.25, 0.5, 0.75].map((q) => quantile(sorted, q).toFixed(0));
      const over = (quantile(sorted, 0.5) / bare).toFixed(2);
      rows.push([kind, name, String(seg.calls * SEGMENTS), `${q1} ${median} ${q3}`, over]);
    }
  }
  console.log(textTable(rows));
} finally {
  for (const p of Object.values(procs)) await p.stop();
  await peer.stop();
  rpc.close();
}
