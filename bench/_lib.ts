/**
 * Shared pieces of the benchmarks: CLI servers as child processes, a keep-alive JSON-RPC client
 * over node:http, a closed-loop load generator, memory of another process, and the hand-over of
 * figures to bench/run.ts (a benchmark run alone just prints).
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLI = join(ROOT, 'dist/cli/main.js');

/** `--name value` from argv, else `fallback`. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

/** This process's environment without what changes the CLI's behaviour (CI, OTEL_*, A2A_REPLAY_*). */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name === 'CI' || name.startsWith('OTEL_') || name.startsWith('A2A_REPLAY_') || name.startsWith('BENCH_'))
      continue;
    env[name] = value;
  }
  return env;
}

export interface ServerProcess {
  url: string;
  pid: number;
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Servers still running; killed when this process exits, however it exits. */
const running = new Set<ChildProcessWithoutNullStreams>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Runs `node NODE_ARGS SCRIPT ARGS` and resolves on its first stdout line, `listening on URL`. */
export function startServer(script: string, args: string[], nodeArgs: string[] = []): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: string): void => {
      out += d;
      if (!out.includes('\n')) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      const m = /^listening on (http:\/\/\S+)$/.exec(out.split('\n')[0] ?? '');
      if (m?.[1]) resolve({ url: m[1], pid: child.pid!, child, stderr: () => err, stop });
      else reject(new Error(`unexpected first line: ${out}`));
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.on('exit', (code) => reject(new Error(`${[script, ...args].join(' ')} exited with ${code}: ${err}`)));
  });
}

/** `a2a-replay ARGS` (a server command: peer, record) from dist/. */
export function startCli(args: string[], nodeArgs: string[] = []): Promise<ServerProcess> {
  return startServer(CLI, args, nodeArgs);
}

/**
 * bench/bare-proxy.ts in front of `upstream`, in its own process; with `durableDir`, the floor of
 * durable-before-acknowledged (its `--durable DIR`).
 */
export function startBareProxy(upstream: string, nodeArgs: string[] = [], durableDir = ''): Promise<ServerProcess> {
  const args = ['--upstream', upstream, ...(durableDir ? ['--durable', durableDir] : [])];
  return startServer(join(ROOT, 'bench/bare-proxy.ts'), args, ['--import', 'tsx', ...nodeArgs]);
}

/**
 * The paths a recorder's CPU is measured on, each in front of the peer at `upstream`, started into
 * `procs` one by one (so that a caller stopping `procs` stops those that started): `baseline`,
 * another build's `record` when given; `record`, this build's (`record --key KEY --fsync batch`,
 * its files in `dir`); `bare`, the bare proxy; and with `floor`, the floor of durable-before-
 * acknowledged (`bench/bare-proxy.ts --durable DIR/floor`). `nodeArgs` go to every process.
 */
export async function startRecorderPaths(
  procs: Record<string, ServerProcess>,
  paths: { upstream: string; dir: string; key: string; baseline: string; floor: boolean; nodeArgs?: string[] },
): Promise<void> {
  const { upstream, dir, key, baseline, nodeArgs = [] } = paths;
  const recordArgs = (name: string): string[] => [
    'record',
    '--upstream',
    upstream,
    '--out',
    join(dir, `${name}.jsonl`),
    '--key',
    key,
    '--fsync',
    'batch',
  ];
  if (baseline) procs.baseline = await startServer(baseline, recordArgs('baseline'), nodeArgs);
  procs.record = await startServer(CLI, recordArgs('record'), nodeArgs);
  procs.bare = await startBareProxy(upstream, nodeArgs);
  if (paths.floor) {
    mkdirSync(join(dir, 'floor'));
    procs.floor = await startBareProxy(upstream, nodeArgs, join(dir, 'floor'));
  }
}

/** A fresh receipt key file, written by `a2a-replay keygen`. */
export function keygen(path: string): string {
  execFileSync(process.execPath, [CLI, 'keygen', '--out', path], { env: cleanEnv(), stdio: 'ignore' });
  return path;
}

/** Wall time of `a2a-replay ARGS` run to its end, in ms, with its exit code and stdout. */
export function timeCli(args: string[], nodeArgs: string[] = []): { ms: number; code: number | null; stdout: string } {
  const started = performance.now();
  try {
    const stdout = execFileSync(process.execPath, [...nodeArgs, CLI, ...args], {
      env: cleanEnv(),
      encoding: 'utf8',
      maxBuffer: 1 << 26,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return { ms: performance.now() - started, code: 0, stdout };
  } catch (error) {
    const e = error as { status?: number | null; stdout?: string };
    return { ms: performance.now() - started, code: e.status ?? null, stdout: e.stdout ?? '' };
  }
}

/** Median wall time of `a2a-replay --version`: the start-up every CLI run pays. */
export function cliStartupMs(runs = 5): number {
  const times = Array.from({ length: runs }, () => timeCli(['--version']).ms).sort((a, b) => a - b);
  return times[Math.floor(runs / 2)] ?? 0;
}

/** Median wall time of `node -e 0`: what any Node program pays to start, beside {@link cliStartupMs}. */
export function nodeStartupMs(runs = 5): number {
  const times = Array.from({ length: runs }, () => {
    const started = performance.now();
    execFileSync(process.execPath, ['-e', '0'], { env: cleanEnv(), stdio: 'ignore' });
    return performance.now() - started;
  }).sort((a, b) => a - b);
  return times[Math.floor(runs / 2)] ?? 0;
}

/** Median CPU ms (user + system, from /proc as a reaped child) of `a2a-replay --version`. */
export function versionCpuMs(runs = 5): number {
  const times = Array.from({ length: runs }, () => {
    const before = processCpuMs('self', 'children');
    timeCli(['--version']);
    return processCpuMs('self', 'children') - before;
  }).sort((a, b) => a - b);
  return times[Math.floor(runs / 2)] ?? 0;
}

/** Clock ticks per second of `/proc` times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU ms (user + system, all threads, GC and the thread pool included) from /proc/PID/stat:
 * what process `pid` has used so far, or with `children`, what its children that have exited and
 * been reaped used (`cutime`, `cstime`).
 */
export function processCpuMs(pid: number | 'self', of: 'own' | 'children' = 'own'): number {
  const { userMs, systemMs } = processCpuTimes(pid, of);
  return userMs + systemMs;
}

/** processCpuMs apart: user time (`utime`) and kernel time (`stime`: syscalls, fdatasync, the TCP stack). */
export function processCpuTimes(
  pid: number | 'self',
  of: 'own' | 'children' = 'own',
): { userMs: number; systemMs: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which may hold spaces and parentheses: field 3 first.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // proc(5) fields 14 and 15 (utime, stime) or 16 and 17 (cutime, cstime).
  const at = of === 'own' ? 11 : 13;
  return {
    userMs: (Number(fields[at]) * 1000) / TICKS_PER_SECOND,
    systemMs: (Number(fields[at + 1]) * 1000) / TICKS_PER_SECOND,
  };
}

/**
 * CPU ms of process `pid` (user + system, from `/proc/PID/task/TID/stat`) split by thread: its
 * main thread (the event loop, the JavaScript) and every other thread (V8's optimizing compiler and
 * GC helpers, libuv's thread pool). A thread that has ended is counted in neither.
 */
export function threadCpuMs(pid: number): { mainMs: number; otherMs: number } {
  let mainMs = 0;
  let otherMs = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
    if (tid === String(pid)) mainMs += ms;
    else otherMs += ms;
  }
  return { mainMs, otherMs };
}

export interface Reply {
  status: number;
  body: string;
}

/** A JSON-RPC client on one keep-alive pool. */
export class Rpc {
  readonly #agent: Agent;
  #id = 0;

  constructor(sockets: number) {
    this.#agent = new Agent({ keepAlive: true, maxSockets: sockets });
  }

  /** POSTs one request; resolves with the whole answer (an SSE stream read to its end). */
  post(base: string, method: string, params: unknown, path = '/'): Promise<Reply> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params });
    return new Promise((resolve, reject) => {
      const req = request(
        new URL(path, base),
        {
          method: 'POST',
          agent: this.#agent,
          headers: {
            'content-type': 'application/json',
            'a2a-version': '1.0',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** GETs `path`; resolves with the whole answer, a non-200 one throws. */
  get(base: string, path: string): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, base), { agent: this.#agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`GET ${path}: HTTP ${res.statusCode}`));
          else resolve({ status: 200, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** A unary call's `result`; a JSON-RPC error or a non-200 answer throws. */
  async call<T>(base: string, method: string, params: unknown, path = '/'): Promise<T> {
    const reply = await this.post(base, method, params, path);
    const parsed = JSON.parse(reply.body) as { result?: T; error?: unknown };
    if (reply.status !== 200 || parsed.error !== undefined)
      throw new Error(`${method}: HTTP ${reply.status} ${JSON.stringify(parsed.error)}`);
    return parsed.result as T;
  }

  close(): void {
    this.#agent.destroy();
  }
}

export interface Stats {
  count: number;
  ms: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/** `lanes` loops calling `once` until `count` calls were made; latencies per call. */
export async function closedLoop(
  count: number,
  lanes: number,
  once: (lane: number) => Promise<void>,
): Promise<{ ms: number; latencies: number[] }> {
  const latencies: number[] = [];
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      while (issued < count) {
        issued++;
        const t0 = performance.now();
        await once(lane);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { ms: performance.now() - started, latencies };
}

/** Statistics over several closed-loop segments of the same path. */
export function stats(segments: { ms: number; latencies: number[] }[]): Stats {
  const latencies = segments.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const ms = segments.reduce((sum, s) => sum + s.ms, 0);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { count: latencies.length, ms, perSecond: (latencies.length * 1000) / ms, p50: at(0.5), p99: at(0.99) };
}

/** Peak (VmHWM) and current (VmRSS) resident memory of a process, in MiB, from /proc. */
export function memoryOf(pid: number): { peakMiB: number; rssMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peakMiB: kib('VmHWM') / 1024, rssMiB: kib('VmRSS') / 1024 };
}

export type Figures = Record<string, number | null>;

/**
 * Hands the figures (and, for a null, why) to bench/run.ts when it ran this benchmark
 * (BENCH_FIGURES names the file); alone, a benchmark only prints.
 */
export function emitFigures(figures: Figures, notes: Record<string, string> = {}): void {
  const file = process.env.BENCH_FIGURES;
  if (file) writeFileSync(file, `${JSON.stringify({ figures, notes })}\n`);
}

export const round = (n: number, digits = 3): number => Number(n.toFixed(digits));

/**
 * The replay benchmarks' session against `base`: `tasks` tasks, `concurrency` at a time, each
 * SendMessage(work:3, returnImmediately) → PauseTask → GetTask × `gets` → ResumeTask → GetTask.
 * Resolves with the exchanges sent (`4 + gets` per task).
 */
export async function replaySession(base: string, tasks: number, concurrency: number, gets = 6): Promise<number> {
  const rpc = new Rpc(concurrency * 2);
  let next = 0;
  let exchanges = 0;
  const one = async (n: number): Promise<void> => {
    const { task } = await rpc.call<{ task: { id: string } }>(base, 'SendMessage', {
      message: { messageId: `m-${n}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    const paused = await rpc.call<{ pause: { resumeToken: string } }>(base, 'PauseTask', {
      taskId: task.id,
      reason: 'bench',
      mode: 'finish_step',
    });
    for (let i = 0; i < gets; i++) await rpc.call(base, 'GetTask', { id: task.id });
    await rpc.call(base, 'ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
    await rpc.call(base, 'GetTask', { id: task.id });
    exchanges += 4 + gets;
  };
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < tasks) await one(next++);
      }),
    );
  } finally {
    rpc.close();
  }
  return exchanges;
}

/** A user message that returns at once (the bench's SendMessage and SendStreamingMessage params). */
export const benchMessage = (text: string, id: string): unknown => ({
  message: { messageId: id, role: 'ROLE_USER', parts: [{ text }] },
  configuration: { returnImmediately: true },
});

/**
 * One proxy's segments of an {@link alternatingCpu} run: CPU ms and wall ms of each, `calls` each;
 * `mainMs` the part of `cpuMs` its main thread used ({@link threadCpuMs}).
 */
export interface CpuSegments {
  calls: number;
  cpuMs: number[];
  mainMs: number[];
  wallMs: number[];
}

/**
 * Case `kind` ({@link proxyCase}) through every proxy of `procs`, in alternating segments: each
 * proxy warmed up with `warmup` calls, then `segments` rounds in which each proxy in turn takes
 * `calls / segments` calls at `concurrency`, its process CPU (from /proc) and the wall time of
 * each segment kept.
 */
export async function alternatingCpu(
  kind: string,
  procs: Readonly<Record<string, ServerProcess>>,
  rpc: Rpc,
  options: { calls: number; segments: number; concurrency: number; warmup: number },
): Promise<Record<string, CpuSegments>> {
  const { segments, concurrency } = options;
  const urls = Object.fromEntries(Object.entries(procs).map(([name, p]) => [name, p.url]));
  const once = await proxyCase(kind, urls, rpc, concurrency);
  for (const name of Object.keys(procs)) await closedLoop(options.warmup, concurrency, (lane) => once(name, lane));
  const calls = Math.ceil(options.calls / segments);
  const out: Record<string, CpuSegments> = {};
  for (let s = 0; s < segments; s++) {
    for (const [name, p] of Object.entries(procs)) {
      const cpu0 = processCpuMs(p.pid);
      const main0 = threadCpuMs(p.pid).mainMs;
      const { ms } = await closedLoop(calls, concurrency, (lane) => once(name, lane));
      const seg = (out[name] ??= { calls, cpuMs: [], mainMs: [], wallMs: [] });
      seg.cpuMs.push(processCpuMs(p.pid) - cpu0);
      seg.mainMs.push(threadCpuMs(p.pid).mainMs - main0);
      seg.wallMs.push(ms);
    }
  }
  return out;
}

/** About 60 KB of text with the odd newline and quote, as a long message or artifact holds. */
export const LARGE_TEXT = 'The agent read the report and wrote "a summary" of it.\n'.repeat(1100);

/**
 * One call of a proxy CPU case on the proxy `name` of `urls`, for lane `lane`: `unary` a GetTask of
 * the lane's task (a 1 KB answer), `sse` a SendStreamingMessage `work:0` read to its end, `pause`
 * a PauseTask and a ResumeTask of the lane's task, `large` a GetTask of a lane task whose message
 * holds {@link LARGE_TEXT} (a 60 KB answer), `card` a GET of the agent card. Makes each proxy's
 * lane tasks first.
 */
export async function proxyCase(
  kind: string,
  urls: Record<string, string>,
  rpc: Rpc,
  lanes: number,
): Promise<(name: string, lane: number) => Promise<void>> {
  const tasks: Record<string, string[]> = {};
  for (const [name, url] of Object.entries(urls)) {
    const ids: string[] = [];
    for (let lane = 0; lane < lanes; lane++) {
      const sent = await rpc.call<{ task: { id: string } }>(
        url,
        'SendMessage',
        benchMessage(kind === 'large' ? `work:1 ${LARGE_TEXT}` : 'work:1', `${name}-${lane}`),
      );
      ids.push(sent.task.id);
    }
    tasks[name] = ids;
  }
  let n = 0;
  return async (name, lane) => {
    const url = urls[name]!;
    const id = tasks[name]![lane]!;
    if (kind === 'unary' || kind === 'large') await rpc.call(url, 'GetTask', { id });
    else if (kind === 'card') await rpc.get(url, '/.well-known/agent-card.json');
    else if (kind === 'sse') await rpc.post(url, 'SendStreamingMessage', benchMessage('work:0', `s-${n++}`));
    else {
      const paused = await rpc.call<{ pause: { resumeToken: string } }>(url, 'PauseTask', { taskId: id, reason: 'b' });
      await rpc.call(url, 'ResumeTask', { taskId: id, resumeToken: paused.pause.resumeToken });
    }
  };
}
