/**
 * CPU time per call of `a2a-replay record --key K --fsync batch` (user + system of the whole
 * process, from /proc/PID/stat, so GC and the thread pool count), beside the bare proxy and,
 * with `--baseline CLI`, beside another build's recorder (e.g. a checkout of main), all in front
 * of one `a2a-replay peer --deterministic` and driven in alternating segments. Under a loaded
 * machine CPU per call moves less than throughput does, so it compares two builds more fairly.
 * Not in run.ts (it needs a second build to be useful).
 *
 * `npx tsx bench/recorder-cpu.ts [--calls 3000] [--cases unary,sse,pause] [--baseline DIR/dist/cli/main.js]`
 * — unary: GetTask; sse: SendStreamingMessage `work:0` read to its end; pause: PauseTask +
 * ResumeTask (one call = the pair); large: GetTask of a 60 KB answer; card: GET of the agent card.
 * Needs `npm run build` first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { textTable } from '../cli/text-table.js';
import {
  CLI,
  type ServerProcess,
  Rpc,
  proxyCase,
  arg,
  closedLoop,
  keygen,
  processCpuMs,
  startBareProxy,
  startCli,
  startServer,
} from './_lib.js';

const CALLS = Number(arg('calls', '3000'));
const CASES = arg('cases', 'unary,sse,pause').split(',');
const BASELINE = arg('baseline', '');
const ROUNDS = 3;
const CONCURRENCY = 8;

const dir = mkdtempSync(join(tmpdir(), 'bench-recorder-cpu-'));
const key = keygen(join(dir, 'key.json'));
const rpc = new Rpc(CONCURRENCY * 4);

const peer = await startCli(['peer', '--deterministic']);
const procs: Record<string, ServerProcess> = {};
try {
  const recordArgs = (name: string): string[] => [
    'record',
    '--upstream',
    peer.url,
    '--out',
    join(dir, `${name}.jsonl`),
    '--key',
    key,
    '--fsync',
    'batch',
  ];
  if (BASELINE) procs.baseline = await startServer(BASELINE, recordArgs('baseline'));
  procs.record = await startServer(CLI, recordArgs('record'));
  procs.bare = await startBareProxy(peer.url);
  const rows = [['case', 'path', 'calls', 'cpu µs per call', 'calls per second']];
  for (const kind of CASES) {
    const once = await proxyCase(
      kind,
      Object.fromEntries(Object.entries(procs).map(([name, p]) => [name, p.url])),
      rpc,
      CONCURRENCY,
    );
    for (const name of Object.keys(procs)) await closedLoop(300, CONCURRENCY, (lane) => once(name, lane));
    const totals: Record<string, { cpu: number; ms: number; calls: number }> = {};
    for (let r = 0; r < ROUNDS; r++) {
      for (const [name, p] of Object.entries(procs)) {
        const calls = Math.ceil(CALLS / ROUNDS);
        const cpu0 = processCpuMs(p.pid);
        const t0 = performance.now();
        await closedLoop(calls, CONCURRENCY, (lane) => once(name, lane));
        const t = (totals[name] ??= { cpu: 0, ms: 0, calls: 0 });
        t.cpu += processCpuMs(p.pid) - cpu0;
        t.ms += performance.now() - t0;
        t.calls += calls;
      }
    }
    for (const [name, t] of Object.entries(totals)) {
      rows.push([
        kind,
        name,
        String(t.calls),
        ((1000 * t.cpu) / t.calls).toFixed(0),
        ((1000 * t.calls) / t.ms).toFixed(0),
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
