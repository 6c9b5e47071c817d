/**
 * Recording proxy overhead, every path in front of the same `a2a-replay peer --deterministic`
 * process and measured in the same run, in alternating segments so drift on a shared machine hits
 * all paths alike:
 *
 * - unary: GetTask of one task (created once with SendMessage), at concurrency C, directly,
 *   through the bare pass-through proxy (bench/bare-proxy.ts, its own process) and through
 *   `a2a-replay record --key K --fsync batch`;
 * - sse: SendStreamingMessage with the script `work:0` (task, WORKING, COMPLETED), each stream
 *   read to its end, on the same three paths;
 * - pause: SendMessage (`work:1`, a new task that stays WORKING on the peer's virtual clock),
 *   PauseTask and ResumeTask of it, one call being the three; directly, through the bare proxy,
 *   through `record --key K --fsync batch` and through `record --key K --fsync never` (the same
 *   work without the fsyncs the held answers wait for: `fsyncWaitP50Ms` is what those waits cost),
 *   and through the bare proxy with `--durable` (the floor of durable-before-acknowledged: the
 *   pause and resume answers held until two files are synced, nothing parsed, observed or sealed;
 *   `floorCpuOverBare` is its CPU per call over the bare proxy's).
 *
 * Beside the rates, each case reports the CPU per call of the recorder and of the bare proxy
 * (user + system of each process over its own segments, from /proc), and their ratio
 * (`*.recorderCpuOverBare`: the median of the rounds' ratios, `*Min` and `*Max` their spread):
 * the figure that moves least with the machine's load.
 *
 * `npx tsx bench/proxy-latency.ts [--unary 20000] [--streams 5000] [--pairs 4000] [--concurrency 8]
 *  [--rounds 3] [--only unary,sse,pause] [--cpu-prof DIR]` — with --cpu-prof each case's recorder
 * and bare proxy run under `node --cpu-prof` and write their profiles into DIR on exit
 * (record-unary, record-sse, record-pause, bare-unary, bare-sse, bare-pause), and the recorder's
 * busy time of each case is printed by stage (bench/profile-summary.ts `stagesOf`).
 * Needs `npm run build` first.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { textTable } from '../cli/text-table.js';
import {
  type Figures,
  Rpc,
  type ServerProcess,
  type Stats,
  arg,
  closedLoop,
  emitFigures,
  keygen,
  processCpuTimes,
  round,
  startBareProxy,
  startCli,
  stats,
} from './_lib.js';
import { STAGES, readProfile, stagesOf } from './profile-summary.js';

const UNARY = Number(arg('unary', '20000'));
const STREAMS = Number(arg('streams', '5000'));
const PAIRS = Number(arg('pairs', '4000'));
const CONCURRENCY = Number(arg('concurrency', '8'));
const ROUNDS = Number(arg('rounds', '3'));
const ONLY = arg('only', 'unary,sse,pause').split(',');
const PROF = arg('cpu-prof', '');

const dir = mkdtempSync(join(tmpdir(), 'bench-proxy-'));
const key = keygen(join(dir, 'key.json'));
const rpc = new Rpc(CONCURRENCY * 4);
const figures: Figures = {};
const rows: string[][] = [['case', 'path', 'calls', 'per second', 'p50 ms', 'p99 ms', 'proxy cpu µs per call']];

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** With --cpu-prof DIR: `node --cpu-prof` writing DIR/NAME.cpuprofile on exit. */
function profiled(name: string): string[] {
  if (!PROF) return [];
  mkdirSync(PROF, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${PROF}`, `--cpu-prof-name=${name}.cpuprofile`];
}

function record(peer: string, name: string, fsync: 'batch' | 'never' = 'batch'): Promise<ServerProcess> {
  const out = join(dir, `${name}.jsonl`);
  const args = ['record', '--upstream', peer, '--out', out, '--key', key, '--fsync', fsync];
  return startCli(args, profiled(`record-${name}`));
}

/**
 * A path's figures, and the CPU µs per call of its proxy process where it has one, in all and per
 * round, the latter also as user and system time apart.
 */
type PathStats = Stats & {
  cpuUsPerCall: number | undefined;
  roundCpuUs: number[];
  roundUserUs: number[];
  roundSystemUs: number[];
};

/**
 * Runs `once` on every path, `ROUNDS` times in turn, `count` calls per path in all. `pids` names
 * the proxy process of a path: its CPU (user + system, from /proc) over its segments, per call,
 * moves far less with the machine's load than the throughput does.
 */
async function compare(
  label: string,
  paths: Record<string, string>,
  pids: Record<string, number>,
  count: number,
  once: (base: string, lane: number) => Promise<void>,
): Promise<Record<string, PathStats>> {
  const names = Object.keys(paths);
  for (const name of names) await closedLoop(Math.min(300, count), CONCURRENCY, (lane) => once(paths[name]!, lane));
  const segments: Record<string, { ms: number; latencies: number[] }[]> = {};
  const cpu: Record<string, number> = {};
  const roundCpuUs: Record<string, number[]> = {};
  const roundUserUs: Record<string, number[]> = {};
  const roundSystemUs: Record<string, number[]> = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of names) {
      const pid = pids[name];
      const before = pid === undefined ? undefined : processCpuTimes(pid);
      const seg = await closedLoop(Math.ceil(count / ROUNDS), CONCURRENCY, (lane) => once(paths[name]!, lane));
      if (pid !== undefined && before !== undefined) {
        const after = processCpuTimes(pid);
        const userMs = after.userMs - before.userMs;
        const systemMs = after.systemMs - before.systemMs;
        cpu[name] = (cpu[name] ?? 0) + userMs + systemMs;
        const calls = seg.latencies.length;
        (roundCpuUs[name] ??= []).push((1000 * (userMs + systemMs)) / calls);
        (roundUserUs[name] ??= []).push((1000 * userMs) / calls);
        (roundSystemUs[name] ??= []).push((1000 * systemMs) / calls);
      }
      (segments[name] ??= []).push(seg);
    }
  }
  const result: Record<string, PathStats> = {};
  for (const name of names) {
    const s = stats(segments[name]!);
    const cpuUsPerCall = cpu[name] === undefined ? undefined : (1000 * cpu[name]) / s.count;
    result[name] = {
      ...s,
      cpuUsPerCall,
      roundCpuUs: roundCpuUs[name] ?? [],
      roundUserUs: roundUserUs[name] ?? [],
      roundSystemUs: roundSystemUs[name] ?? [],
    };
    const user = median(result[name].roundUserUs);
    const system = median(result[name].roundSystemUs);
    const cpuText =
      cpuUsPerCall === undefined
        ? ''
        : `${cpuUsPerCall.toFixed(0)} (user ${user.toFixed(0)}, sys ${system.toFixed(0)})`;
    rows.push([label, name, String(s.count), s.perSecond.toFixed(0), s.p50.toFixed(3), s.p99.toFixed(3), cpuText]);
  }
  return result;
}

/** Each round's CPU per call of one path over the bare proxy's in the same round; undefined without rounds. */
function roundRatios(path: number[], bare: number[]): number[] | undefined {
  if (path.length === 0 || path.length !== bare.length) return undefined;
  return path.map((cpu, i) => cpu / Math.max(bare[i]!, 1e-9));
}

/**
 * `key.recorderCpuUsPerCall`, `key.bareCpuUsPerCall` (medians of the rounds) and
 * `key.recorderCpuOverBare`: the median of the rounds' ratios (each round's recorder segment over
 * the bare segment next to it), with `…Min` and `…Max` the spread; and the same medians split into
 * user and system time (`…UserUsPerCall`, `…SystemUsPerCall`): fdatasync and the loopback TCP
 * stack are system time.
 */
function cpuFigures(key: string, s: Record<string, PathStats>): void {
  const recorder = s.record?.roundCpuUs ?? [];
  const bare = s.bare?.roundCpuUs ?? [];
  const ratios = roundRatios(recorder, bare);
  if (ratios === undefined) return;
  figures[`${key}.recorderCpuUsPerCall`] = round(median(recorder), 0);
  figures[`${key}.bareCpuUsPerCall`] = round(median(bare), 0);
  figures[`${key}.recorderCpuOverBare`] = round(median(ratios));
  figures[`${key}.recorderCpuOverBareMin`] = round(Math.min(...ratios));
  figures[`${key}.recorderCpuOverBareMax`] = round(Math.max(...ratios));
  figures[`${key}.recorderUserUsPerCall`] = round(median(s.record?.roundUserUs ?? [0]), 0);
  figures[`${key}.recorderSystemUsPerCall`] = round(median(s.record?.roundSystemUs ?? [0]), 0);
  figures[`${key}.bareUserUsPerCall`] = round(median(s.bare?.roundUserUs ?? [0]), 0);
  figures[`${key}.bareSystemUsPerCall`] = round(median(s.bare?.roundSystemUs ?? [0]), 0);
}

/**
 * With --cpu-prof: the recorder's busy time of case `name` by stage (bench/profile-summary.ts),
 * as µs per call (its share of the busy time times the CPU per call measured from /proc).
 */
function stageTable(name: string, key: string): void {
  const file = join(PROF, `record-${name}.cpuprofile`);
  const perCall = figures[`${key}.recorderCpuUsPerCall`];
  if (!PROF || !existsSync(file) || typeof perCall !== 'number') return;
  const { busyUs, us } = stagesOf(readProfile(file));
  stageRows.push(
    ...STAGES.map((stage) => {
      const share = us[stage] / Math.max(busyUs, 1);
      return [name, stage, `${(100 * share).toFixed(1)}%`, (share * perCall).toFixed(0)];
    }),
  );
}
const stageRows: string[][] = [['case', 'recorder stage', 'of busy', '≈ µs per call']];

const userMessage = (text: string, id: string): unknown => ({
  message: { messageId: id, role: 'ROLE_USER', parts: [{ text }] },
  configuration: { returnImmediately: true },
});

/** The bare proxy and a recorder of their own for case `name`, stopped (profiles written) after `run`. */
async function withProxies(
  peer: string,
  name: string,
  run: (paths: Record<string, string>, pids: Record<string, number>) => Promise<void>,
): Promise<void> {
  const bare = await startBareProxy(peer, profiled(`bare-${name}`));
  const recorder = await record(peer, name);
  try {
    await run({ direct: peer, bare: bare.url, record: recorder.url }, { bare: bare.pid, record: recorder.pid });
  } finally {
    await recorder.stop();
    await bare.stop();
  }
}

async function unary(peer: string): Promise<void> {
  await withProxies(peer, 'unary', async (paths, pids) => {
    const { task } = await rpc.call<{ task: { id: string } }>(paths.record!, 'SendMessage', userMessage('work:1', 'u'));
    const s = await compare('unary GetTask', paths, pids, UNARY, async (base) => {
      await rpc.call(base, 'GetTask', { id: task.id });
    });
    figures['proxy.unary.recorderOverBare'] = round(s.record!.perSecond / s.bare!.perSecond);
    figures['proxy.unary.addedP50OverBareMs'] = round(s.record!.p50 - s.bare!.p50);
    figures['proxy.unary.bareOverDirect'] = round(s.bare!.perSecond / s.direct!.perSecond);
    figures['proxy.unary.recordPerSecond'] = round(s.record!.perSecond, 0);
    figures['proxy.unary.barePerSecond'] = round(s.bare!.perSecond, 0);
    figures['proxy.unary.recordP50Ms'] = round(s.record!.p50);
    figures['proxy.unary.bareP50Ms'] = round(s.bare!.p50);
    cpuFigures('proxy.unary', s);
    await unaryAtConcurrency1(paths, task.id);
  });
  stageTable('unary', 'proxy.unary');
}

/**
 * What the recorder adds to one GetTask's latency when nothing else is in flight: p50 through
 * `record` minus through the bare proxy, one call at a time, the two paths alternating in
 * segments (the CPU figures are taken at concurrency 8, where queueing hides a call's own time).
 */
async function unaryAtConcurrency1(paths: Record<string, string>, taskId: string): Promise<void> {
  const calls = Math.max(20, Math.min(2000, Math.ceil(UNARY / 10)));
  const latencies: Record<'bare' | 'record', number[]> = { bare: [], record: [] };
  for (let r = 0; r < ROUNDS; r++)
    for (const name of ['bare', 'record'] as const) {
      const seg = await closedLoop(Math.ceil(calls / ROUNDS), 1, async () => {
        await rpc.call(paths[name]!, 'GetTask', { id: taskId });
      });
      latencies[name].push(...seg.latencies);
    }
  const p50 = (values: number[]): number => median(values);
  figures['proxy.unary.recordP50AtConcurrency1Ms'] = round(p50(latencies.record));
  figures['proxy.unary.bareP50AtConcurrency1Ms'] = round(p50(latencies.bare));
  figures['proxy.unary.addedP50AtConcurrency1Ms'] = round(p50(latencies.record) - p50(latencies.bare));
}

async function sse(peer: string): Promise<void> {
  await withProxies(peer, 'sse', async (paths, pids) => {
    let n = 0;
    const s = await compare('sse work:0', paths, pids, STREAMS, async (base) => {
      const reply = await rpc.post(base, 'SendStreamingMessage', userMessage('work:0', `s-${n++}`));
      if (reply.status !== 200 || !reply.body.includes('TASK_STATE_COMPLETED'))
        throw new Error(`stream did not complete: ${reply.body.slice(0, 200)}`);
    });
    figures['proxy.sse.recorderOverBare'] = round(s.record!.perSecond / s.bare!.perSecond);
    figures['proxy.sse.addedP50OverBareMs'] = round(s.record!.p50 - s.bare!.p50);
    figures['proxy.sse.bareOverDirect'] = round(s.bare!.perSecond / s.direct!.perSecond);
    figures['proxy.sse.recordPerSecond'] = round(s.record!.perSecond, 0);
    cpuFigures('proxy.sse', s);
  });
  stageTable('sse', 'proxy.sse');
}

async function pauseResume(peer: string): Promise<void> {
  const bare = await startBareProxy(peer, profiled('bare-pause'));
  const recorder = await record(peer, 'pause');
  // The same recorder without fsync: what the hold-until-durable waits cost, side by side.
  const unsynced = await record(peer, 'pause-nosync', 'never');
  // The bare proxy holding pause and resume answers until two files are synced, and nothing else:
  // the floor of durable-before-acknowledged (bench/bare-proxy.ts --durable).
  const floorDir = join(dir, 'floor');
  mkdirSync(floorDir);
  const floor = await startBareProxy(peer, [], floorDir);
  try {
    const paths = {
      direct: peer,
      bare: bare.url,
      floor: floor.url,
      record: recorder.url,
      'record-never': unsynced.url,
    };
    const pids = { bare: bare.pid, floor: floor.pid, record: recorder.pid, 'record-never': unsynced.pid };
    let n = 0;
    const s = await compare('send+pause+resume', paths, pids, PAIRS, async (base) => {
      const sent = await rpc.call<{ task: { id: string } }>(base, 'SendMessage', userMessage('work:1', `p-${n++}`));
      const taskId = sent.task.id;
      const paused = await rpc.call<{ pause: { resumeToken: string } }>(base, 'PauseTask', { taskId, reason: 'bench' });
      await rpc.call(base, 'ResumeTask', { taskId, resumeToken: paused.pause.resumeToken });
    });
    figures['proxy.pauseResume.recorderOverDirect'] = round(s.record!.perSecond / s.direct!.perSecond);
    figures['proxy.pauseResume.recorderOverBare'] = round(s.record!.perSecond / s.bare!.perSecond);
    figures['proxy.pauseResume.bareOverDirect'] = round(s.bare!.perSecond / s.direct!.perSecond);
    figures['proxy.pauseResume.recordPerSecond'] = round(s.record!.perSecond, 0);
    figures['proxy.pauseResume.directPerSecond'] = round(s.direct!.perSecond, 0);
    figures['proxy.pauseResume.addedP50Ms'] = round(s.record!.p50 - s.direct!.p50);
    figures['proxy.pauseResume.fsyncWaitP50Ms'] = round(s.record!.p50 - s['record-never']!.p50);
    figures['proxy.pauseResume.batchOverNever'] = round(s.record!.perSecond / s['record-never']!.perSecond);
    cpuFigures('proxy.pauseResume', s);
    const floorCpu = s.floor?.roundCpuUs ?? [];
    const floorRatios = roundRatios(floorCpu, s.bare?.roundCpuUs ?? []);
    if (floorRatios !== undefined) {
      figures['proxy.pauseResume.floorCpuUsPerCall'] = round(median(floorCpu), 0);
      figures['proxy.pauseResume.floorCpuOverBare'] = round(median(floorRatios));
    }
  } finally {
    await floor.stop();
    await unsynced.stop();
    await recorder.stop();
    await bare.stop();
  }
  stageTable('pause', 'proxy.pauseResume');
}

const peer = await startCli(['peer', '--deterministic']);
try {
  console.log(
    `concurrency ${CONCURRENCY}, ${ROUNDS} alternating rounds; unary ${UNARY} GetTask, sse ${STREAMS} streams, ` +
      `pause ${PAIRS} send+pause+resume calls per path`,
  );
  if (ONLY.includes('unary')) await unary(peer.url);
  if (ONLY.includes('sse')) await sse(peer.url);
  if (ONLY.includes('pause')) await pauseResume(peer.url);
  console.log(textTable(rows));
  if (stageRows.length > 1) console.log(textTable(stageRows));
  for (const [name, value] of Object.entries(figures)) console.log(`${name} = ${value}`);
  emitFigures(figures);
} finally {
  rpc.close();
  await peer.stop();
  rmSync(dir, { recursive: true, force: true });
}
