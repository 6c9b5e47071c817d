/**
 * Runs every benchmark in bench/, one after the other, each in its own child process (never in
 * parallel: each measures its own baseline on the same machine in the same run), and gathers the
 * figures they hand over into one JSON object and a table with the goals.
 *
 *   npm run bench -- [--json FILE] [--size tiny|full] [name-filter]
 *
 * `--size tiny` runs every benchmark with tiny counts (a smoke run: every figure is present, the
 * ratios mean little). A figure that cannot be measured yet is null, with the reason in `notes`.
 * Exit 1 when a benchmark failed (its figures are then null, the failure in `notes`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { textTable } from '../cli/text-table.js';
import { ROOT, type Figures, arg } from './_lib.js';

type Size = 'tiny' | 'full';

interface Bench {
  file: string;
  args: Record<Size, string[]>;
}

/** Every benchmark with its arguments per size; `full` is each benchmark's own default. */
const BENCHES: Bench[] = [
  {
    file: 'proxy-latency.ts',
    args: { full: [], tiny: ['--unary', '300', '--streams', '120', '--pairs', '150', '--rounds', '2'] },
  },
  {
    file: 'recorder-scale.ts',
    args: {
      full: [],
      tiny: ['--small', '50', '--large', '200', '--rss-small', '50', '--rss-large', '200', '--warmup', '20'],
    },
  },
  { file: 'receipts-pipeline.ts', args: { full: [], tiny: ['2000'] } },
  { file: 'replay-throughput.ts', args: { full: [], tiny: ['--tasks', '30', '--rounds', '1'] } },
  { file: 'peer-roundtrip.ts', args: { full: [], tiny: ['--ms', '200', '--tasks', '200'] } },
  { file: 'observer-scale.ts', args: { full: [], tiny: ['200', '800'] } },
  { file: 'receipts-verify-memory.ts', args: { full: [], tiny: ['2000,20000'] } },
  { file: 'tracing-bridge.ts', args: { full: [], tiny: ['200'] } },
  { file: 'fleet-memory.ts', args: { full: [], tiny: ['2000'] } },
  { file: 'replay-scale.ts', args: { full: [], tiny: ['--small', '200', '--large', '2000', '--pauses', '2000'] } },
];

/** The figures every run reports, with their goals; the bench that measures each. */
const REQUIRED: { key: string; goal: string; bench: string }[] = [
  { key: 'proxy.unary.recorderOverBare', goal: '>= 0.8', bench: 'proxy-latency.ts' },
  { key: 'proxy.unary.addedP50OverBareMs', goal: '<= 0.3', bench: 'proxy-latency.ts' },
  { key: 'proxy.unary.addedP50AtConcurrency1Ms', goal: '<= 0.25', bench: 'proxy-latency.ts' },
  { key: 'cli.startupOverNode', goal: '<= 3', bench: 'replay-throughput.ts' },
  { key: 'proxy.sse.recorderOverBare', goal: '>= 0.8', bench: 'proxy-latency.ts' },
  { key: 'proxy.pauseResume.recorderOverDirect', goal: '>= 0.5', bench: 'proxy-latency.ts' },
  { key: 'proxy.unary.recorderCpuOverBare', goal: '<= 1.8', bench: 'proxy-latency.ts' },
  { key: 'proxy.sse.recorderCpuOverBare', goal: '<= 2.0', bench: 'proxy-latency.ts' },
  { key: 'proxy.pauseResume.recorderCpuOverBare', goal: '<= 2.0', bench: 'proxy-latency.ts' },
  { key: 'receipts.pipelineOverRaw', goal: '>= 0.6', bench: 'receipts-pipeline.ts' },
  { key: 'verify.overRaw', goal: '>= 0.8', bench: 'receipts-pipeline.ts' },
  { key: 'verify.jobs2OverRaw', goal: '>= 1.4', bench: 'receipts-pipeline.ts' },
  { key: 'replay.overPlain', goal: '>= 0.6', bench: 'replay-throughput.ts' },
  { key: 'scale.time20kOver5k', goal: '<= 4.4', bench: 'recorder-scale.ts' },
  { key: 'scale.rss100kOver10k', goal: '<= 1.3', bench: 'recorder-scale.ts' },
  { key: 'fleetMemory.lost.rss20Over2Logs', goal: '<= 1.3', bench: 'fleet-memory.ts' },
  { key: 'fleetMemory.audit.rss20Over2Logs', goal: '<= 1.3', bench: 'fleet-memory.ts' },
  { key: 'fleetMemory.lost.cpu2NOverN', goal: '<= 2.3', bench: 'fleet-memory.ts' },
  { key: 'fleetMemory.audit.cpu2NOverN', goal: '<= 2.3', bench: 'fleet-memory.ts' },
  { key: 'replayScale.largeExit', goal: '<= 0', bench: 'replay-scale.ts' },
  { key: 'replayScale.rssLargeOverSmall', goal: '<= 1.5', bench: 'replay-scale.ts' },
  { key: 'replayScale.msPerEntryLargeOverSmall', goal: '<= 1.3', bench: 'replay-scale.ts' },
  { key: 'replayScale.reportRssMiB', goal: '<= 300', bench: 'replay-scale.ts' },
  { key: 'replayScale.reportRssLargeOverSmall', goal: '<= 1.5', bench: 'replay-scale.ts' },
  { key: 'replayScale.pacedRssLargeOverSmall', goal: '<= 1.5', bench: 'replay-scale.ts' },
];

function meets(value: number | null | undefined, goal: string): string {
  if (typeof value !== 'number') return '-';
  const [op, bound] = goal.split(' ');
  const ok = op === '>=' ? value >= Number(bound) : value <= Number(bound);
  return ok ? 'met' : 'MISSED';
}

const size = arg('size', 'full');
if (size !== 'tiny' && size !== 'full') throw new Error(`--size: expected tiny or full, got ${size}`);
const jsonFile = process.argv.includes('--json') ? arg('json', '') : undefined;
if (jsonFile === '') throw new Error('--json needs a FILE');
const valued = new Set(['--json', '--size']);
const filter = process.argv.slice(2).find((a, i, all) => !a.startsWith('--') && !valued.has(all[i - 1] ?? '')) ?? '';

// Build dist/ once: the process benchmarks run the CLI users get. BENCH_BUILT=1 says it is fresh
// already (the test suite builds it before any test, and tests elsewhere may be running it).
if (process.env.BENCH_BUILT !== '1') {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')],
    {
      stdio: 'inherit',
    },
  );
}

const figures: Figures = {};
const notes: Record<string, string> = {};
const seconds: Record<string, number> = {};
const loadAfter: Record<string, number> = {};
const failed: string[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'bench-run-'));
const started = performance.now();
const loadBefore = loadavg()[0];
try {
  for (const bench of BENCHES.filter((b) => b.file.includes(filter))) {
    process.stdout.write(`\n== ${bench.file} ${bench.args[size].join(' ')} ==\n`);
    const out = join(scratch, `${bench.file}.json`);
    const t0 = performance.now();
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'bench', bench.file), ...bench.args[size]],
      {
        cwd: ROOT,
        stdio: 'inherit',
        env: { ...process.env, BENCH_FIGURES: out, BENCH_BUILT: '1' },
      },
    );
    seconds[bench.file] = Number(((performance.now() - t0) / 1000).toFixed(1));
    loadAfter[bench.file] = Number(loadavg()[0]?.toFixed(2));
    let handed: { figures: Figures; notes: Record<string, string> } | undefined;
    try {
      handed = JSON.parse(readFileSync(out, 'utf8')) as typeof handed;
    } catch {
      handed = undefined;
    }
    if (result.status !== 0 || handed === undefined) {
      failed.push(bench.file);
      notes[bench.file] = `failed: exit ${result.status ?? result.signal}${handed ? '' : ', no figures'}`;
      continue;
    }
    Object.assign(figures, handed.figures);
    Object.assign(notes, handed.notes);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

for (const { key, bench } of REQUIRED) {
  if (key in figures || !BENCHES.some((b) => b.file === bench && b.file.includes(filter))) continue;
  figures[key] = null;
  notes[key] ??= `not measured: ${bench} ${failed.includes(bench) ? 'failed' : 'handed over no such figure'}`;
}

const required = new Set(REQUIRED.map((r) => r.key));
const show = (v: number | null | undefined): string => (v === null || v === undefined ? 'null' : String(v));
process.stdout.write(`\n== figures (${size}) ==\n`);
process.stdout.write(
  `${textTable([
    ['figure', 'value', 'goal', ''],
    ...REQUIRED.filter((r) => r.key in figures).map((r) => [
      r.key,
      show(figures[r.key]),
      r.goal,
      meets(figures[r.key], r.goal),
    ]),
  ])}\n\n`,
);
process.stdout.write(
  `${textTable([
    ['other figure', 'value'],
    ...Object.entries(figures)
      .filter(([k]) => !required.has(k))
      .map(([k, v]) => [k, show(v)]),
  ])}\n`,
);
for (const [key, note] of Object.entries(notes)) process.stdout.write(`note: ${key}: ${note}\n`);
if (size === 'tiny') process.stdout.write('(tiny counts: the ratios above are not meaningful)\n');

if (jsonFile !== undefined) {
  const report = {
    ...figures,
    notes,
    meta: {
      size,
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      // One-minute load averages: well above the benchmarks' own two or three processes means
      // something else shared the machine during the run.
      loadAverage: { before: Number(loadBefore?.toFixed(2)), afterEach: loadAfter },
      totalSeconds: Number(((performance.now() - started) / 1000).toFixed(1)),
      seconds,
      goals: Object.fromEntries(REQUIRED.map((r) => [r.key, r.goal])),
    },
  };
  writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`wrote ${jsonFile}\n`);
}
process.exitCode = failed.length === 0 ? 0 : 1;
