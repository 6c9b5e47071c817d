/**
 * Not in `run.ts`: where the CPU time of a call goes in `a2a-replay record --key K --fsync batch`
 * and in the bare proxy (and, with `--baseline CLI`, another build's recorder), by the recorder's
 * stages, from `perf record -e cpu-clock:u` attached to each process (`node --perf-basic-prof`
 * names the JavaScript frames). Unlike `--cpu-prof`, whose sampler also counts the time a thread
 * waits to run again after it was preempted, a `cpu-clock` sample is taken only while a thread
 * runs: the figures are CPU time (user time; the kernel's is `/proc`'s `stime`, see
 * `recorder-cpu.ts`). Each main-thread sample goes to a stage as `profile-summary.ts --stages`
 * does (the innermost JavaScript frame decides; Node's own code is `http machinery` whoever
 * called it); the process's other threads (V8's compiler and GC helpers, libuv's pool) are one
 * row. One `perf record` covers every process while they take their calls in alternating segments.
 * A frame TurboFan inlined into another counts as that other one.
 * `npx tsx bench/perf-stages.ts [--case unary|sse|pause|large|card] [--calls 4000] [--warmup 10000]
 *   [--baseline DIR/dist/cli/main.js] [--floor] [--top N]` (needs `perf` and `npm run build`); `--floor`
 * adds the floor of durable-before-acknowledged (`bare-proxy.ts --durable`); `--top N` lists each
 * process's N JavaScript functions with the most time of their own and of the native code they call.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { textTable } from '../cli/text-table.js';
import {
  CLI,
  ROOT,
  Rpc,
  type ServerProcess,
  arg,
  closedLoop,
  keygen,
  proxyCase,
  startRecorderPaths,
  startServer,
} from './_lib.js';
import { STAGES, type Stage, projectPathOf, stageOf } from './profile-summary.js';

const KIND = arg('case', 'unary');
const SEGMENTS = 4;
const CALLS = SEGMENTS * Math.ceil(Number(arg('calls', '4000')) / SEGMENTS);
const WARMUP = Number(arg('warmup', '10000'));
const BASELINE = arg('baseline', '');
const TOP = Number(arg('top', '0'));
const CONCURRENCY = 8;
/** One sample per this many ns of a thread's CPU time. */
const PERIOD_NS = 250_000;

/**
 * Samples of one process: per stage for its main thread, per JavaScript function (the innermost
 * JavaScript frame: its name and source file, the project's or Node's), and its other threads
 * together.
 */
interface Tally {
  stages: Record<Stage, number>;
  functions: Map<string, number>;
  main: number;
  others: number;
}

/** `JS:*name file:///x.js:LINE:COL` (perf's name for a frame from node's perf map) as a call frame. */
function frameOf(symbol: string): { functionName: string; url: string; lineNumber: number; columnNumber: number } {
  const m = /^JS:[*~^+-]?(\S*)\s+(.*?):(\d+):(\d+)$/.exec(symbol);
  if (m === null) return { functionName: symbol, url: '', lineNumber: 0, columnNumber: 0 };
  return { functionName: m[1] ?? '', url: m[2] ?? '', lineNumber: Number(m[3]) - 1, columnNumber: Number(m[4]) - 1 };
}

const V8_GC = /Scaveng|Heap::|MarkCompact|Marking|Sweeper|Evacuat|MinorMC/;

/**
 * The stage of one main-thread sample, from its frames, innermost first, and the JavaScript
 * function it ran in (the project's, or Node's; undefined when no frame is JavaScript).
 */
function sampleStage(symbols: readonly string[], root: string): { stage: Stage; fn?: string } {
  for (const symbol of symbols) {
    if (!symbol.startsWith('JS:')) continue;
    const frame = frameOf(symbol);
    if (frame.url === '') continue;
    const path = projectPathOf(frame, root);
    const stage = stageOf(path, frame);
    return { stage, fn: `${frame.functionName || '(anonymous)'} ${path ?? frame.url}` };
  }
  return { stage: symbols.some((s) => V8_GC.test(s)) ? 'gc' : 'other' };
}

/** A fresh tally. */
function emptyTally(): Tally {
  const stages = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  return { stages, functions: new Map(), main: 0, others: 0 };
}

/**
 * Reads `perf script` of `data` into one tally per process of `roots` (by pid: the checkout whose
 * build it runs): its main thread's samples by stage and function, its other threads' together.
 */
function tally(data: string, roots: ReadonlyMap<number, string>): Map<number, Tally> {
  const text = execFileSync('perf', ['script', '-i', data, '-F', 'pid,tid,ip,sym'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const tallies = new Map([...roots.keys()].map((pid) => [pid, emptyTally()]));
  for (const block of text.split('\n\n')) {
    const lines = block.trim().split('\n');
    const [pid, tid] = (lines[0] ?? '')
      .trim()
      .split(/[\s/]+/)
      .map(Number);
    const t = pid === undefined ? undefined : tallies.get(pid);
    const root = pid === undefined ? undefined : roots.get(pid);
    if (t === undefined || root === undefined) continue;
    if (tid !== pid) {
      t.others += 1;
      continue;
    }
    t.main += 1;
    // Each frame line: address, then symbol.
    const symbols = lines.slice(1).map((l) => l.trim().replace(/^\S+\s+/, ''));
    const { stage, fn } = sampleStage(symbols, root);
    t.stages[stage] += 1;
    if (fn !== undefined) t.functions.set(fn, (t.functions.get(fn) ?? 0) + 1);
  }
  return tallies;
}

/** `perf record` of every thread of `pids`, with call stacks; resolves once it has started. */
async function startPerf(pids: readonly number[], out: string): Promise<ChildProcess> {
  const args = ['record', '-g', '-e', 'cpu-clock:u', '-c', String(PERIOD_NS), '-o', out, '-p', pids.join(',')];
  const child = spawn('perf', args, { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    setTimeout(resolve, 800);
  });
  return child;
}

const dir = mkdtempSync(join(tmpdir(), 'bench-perf-stages-'));
const key = keygen(join(dir, 'key.json'));
const rpc = new Rpc(CONCURRENCY * 4);
const perfMap = ['--perf-basic-prof'];
const peer = await startServer(CLI, ['peer', '--deterministic']);
const procs: Record<string, ServerProcess> = {};
try {
  const floor = process.argv.includes('--floor');
  await startRecorderPaths(procs, { upstream: peer.url, dir, key, baseline: BASELINE, floor, nodeArgs: perfMap });
  const urls = Object.fromEntries(Object.entries(procs).map(([name, p]) => [name, p.url]));
  const once = await proxyCase(KIND, urls, rpc, CONCURRENCY);
  for (const name of Object.keys(procs)) await closedLoop(WARMUP, CONCURRENCY, (lane) => once(name, lane));
  const data = join(dir, 'perf.data');
  const perf = await startPerf(
    Object.values(procs).map((p) => p.pid),
    data,
  );
  // Segments alternate, as in recorder-cpu.ts, so that the machine's drift hits every process alike.
  for (let s = 0; s < SEGMENTS; s++)
    for (const name of Object.keys(procs)) await closedLoop(CALLS / SEGMENTS, CONCURRENCY, (lane) => once(name, lane));
  perf.kill('SIGINT');
  await new Promise((resolve) => perf.once('exit', resolve));
  // A build's CLI is ROOT/dist/cli/main.js: its source maps name files under ROOT.
  const rootOf = (name: string): string => (name === 'baseline' ? resolvePath(BASELINE, '../../..') : ROOT);
  const byPid = tally(data, new Map(Object.entries(procs).map(([name, p]) => [p.pid, rootOf(name)])));
  const tallies = Object.fromEntries(Object.entries(procs).map(([name, p]) => [name, byPid.get(p.pid)!]));
  const us = (samples: number): string => ((samples * PERIOD_NS) / 1000 / CALLS).toFixed(1);
  const names = Object.keys(tallies);
  const rows = [['µs of user CPU per call', ...names]];
  for (const stage of STAGES) {
    if (names.every((n) => tallies[n]!.stages[stage] === 0)) continue;
    rows.push([stage, ...names.map((n) => us(tallies[n]!.stages[stage]))]);
  }
  rows.push(['main thread', ...names.map((n) => us(tallies[n]!.main))]);
  rows.push(['other threads', ...names.map((n) => us(tallies[n]!.others))]);
  console.log(`${KIND}: ${CALLS} calls after ${WARMUP} at concurrency ${CONCURRENCY}, perf cpu-clock:u`);
  console.log(textTable(rows));
  for (const name of TOP > 0 ? names : []) {
    const top = [...tallies[name]!.functions].sort((a, b) => b[1] - a[1]).slice(0, TOP);
    console.log(`${name}: JavaScript functions by their own time and the native code they call (µs per call)`);
    console.log(textTable([['µs', 'function'], ...top.map(([fn, n]) => [us(n), fn])]));
  }
} finally {
  for (const p of Object.values(procs)) await p.stop();
  await peer.stop();
  rpc.close();
  rmSync(dir, { recursive: true, force: true });
}
