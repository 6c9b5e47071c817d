/**
 * @module bench/replay-cpu
 * CPU time of the whole `a2a-replay run REC --peer URL --key K` process (user + system, GC and
 * thread pool included) for this build and, with `--baseline DIR/dist/cli/main.js`, for another
 * build, in alternating rounds, each run against a fresh `a2a-replay peer --deterministic`. The
 * recording is the session of `replay-throughput.ts`, recorded once through this build's
 * `record --key K`. On a shared machine the CPU of a run moves less than its wall time, so this
 * compares two builds more fairly than `replay.overPlain`. Not in run.ts (it needs a second build
 * to be useful). Linux only: a run's CPU is read from this process's `cutime`/`cstime`
 * (`/proc/self/stat`), which grow by the CPU of each child once it has exited and been reaped.
 *
 *   npx tsx bench/replay-cpu.ts [--tasks 1000] [--rounds 3] [--baseline DIR/dist/cli/main.js]
 *
 * Needs `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { textTable } from '../cli/text-table.js';
import { CLI, arg, cleanEnv, keygen, processCpuMs, replaySession, startCli } from './_lib.js';

const TASKS = Number(arg('tasks', '1000'));
const ROUNDS = Number(arg('rounds', '3'));
const BASELINE = arg('baseline', '');
/** One `run` of `cli` to its end: its CPU and wall ms. */
function timedRun(cli: string, args: string[]): Promise<{ cpuMs: number; wallMs: number }> {
  const cpuBefore = processCpuMs('self', 'children');
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env: cleanEnv(), stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`${cli} ${args.join(' ')} exited with ${code}`));
      else resolve({ cpuMs: processCpuMs('self', 'children') - cpuBefore, wallMs: performance.now() - started });
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'bench-replay-cpu-'));
try {
  const key = keygen(join(dir, 'key.json'));
  const recording = join(dir, 'session.jsonl');
  const peer = await startCli(['peer', '--deterministic']);
  try {
    const recorder = await startCli(['record', '--upstream', peer.url, '--out', recording, '--key', key]);
    await replaySession(recorder.url, TASKS, 16).finally(() => recorder.stop());
  } finally {
    await peer.stop();
  }
  const builds = [{ name: 'this build', cli: CLI }];
  if (BASELINE !== '') builds.unshift({ name: 'baseline', cli: BASELINE });
  const rows: string[][] = [];
  const cpu = new Map<string, number[]>(builds.map((b) => [b.name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const build of builds) {
      const fresh = await startCli(['peer', '--deterministic']);
      try {
        const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0] ?? '?';
        const run = await timedRun(build.cli, ['run', recording, '--peer', fresh.url, '--key', key]);
        cpu.get(build.name)?.push(run.cpuMs);
        rows.push([String(r + 1), build.name, run.cpuMs.toFixed(0), run.wallMs.toFixed(0), load]);
      } finally {
        await fresh.stop();
      }
    }
  }
  console.log(textTable([['round', 'build', 'CPU ms', 'wall ms', 'load'], ...rows]));
  for (const [name, list] of cpu) {
    const mean = list.reduce((a, b) => a + b, 0) / list.length;
    const perExchange = (mean * 1000) / (TASKS * 10);
    console.log(`${name}: mean ${mean.toFixed(0)} ms of CPU per run, ${perExchange.toFixed(0)} µs per exchange`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
