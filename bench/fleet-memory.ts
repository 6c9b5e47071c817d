/**
 * Peak memory and CPU of the fleet verdicts (docs/design.md §17): `a2a-replay lost` and
 * `a2a-replay audit` over the receipt logs of several recorder replicas, the same total pauses
 * split over 2 logs and over 20, and over 20 logs of half that total. Half the logs hold
 * suspensions (replica A of each pair), the other half the resumptions of those pauses outside
 * their log (replica B, each naming its pause by token hash); one pause in 100 is never resumed.
 * The built CLI runs under `/usr/bin/time -v` (peak RSS); a module loaded first with `--import`
 * writes the CLI process's own `process.cpuUsage()` (user + system, every thread) as it exits. The
 * baseline is the same CLI printing its version; its CPU is taken off each run's before the ratio.
 * Goals: peak RSS for 20 logs within 1.3x of 2 logs; CPU for N receipts over N/2 about 2 (linear).
 * `npx tsx bench/fleet-memory.ts [total pauses, default 100000]`
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  closeSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from '../src/canonical/canonical-json.js';
import { ReceiptChain, type SealedLine } from '../src/receipts/chain.js';
import { Keyring } from '../src/receipts/keys.js';
import { hashToken } from '../src/recording/resume-token.js';
import { CREATED_AT, fixedKey, resumptionDraftFor, suspensionDraftFor } from '../test/receipts/fixtures.js';
import { emitFigures, round } from './_lib.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const TOTAL = Number(process.argv[2] ?? 100_000);

/** Writes one log line by line through a stream, `lines` yielding each line's text. */
async function writeLog(path: string, lines: Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  let chunk: string[] = [];
  for (const line of lines) {
    chunk.push(`${line}\n`);
    if (chunk.length < 1000) continue;
    if (!out.write(chunk.join(''))) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    chunk = [];
  }
  out.write(chunk.join(''));
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

const chainOf = (keyring: Keyring, recording: string): ReceiptChain =>
  new ReceiptChain({ keyring, checkpointEvery: 256, recording, createdAt: CREATED_AT, tool: 'a2a-replay@bench' });

function* texts(
  chain: ReceiptChain,
  seal: (n: number) => { receipt: SealedLine; checkpoint: SealedLine | null },
  count: number,
): Generator<string> {
  yield chain.header.text;
  for (let n = 0; n < count; n++) {
    const sealed = seal(n);
    yield sealed.receipt.text;
    if (sealed.checkpoint) yield sealed.checkpoint.text;
  }
  const last = chain.close();
  if (last) yield last.text;
}

/**
 * `pairs` pairs of replica logs in `dir`, `total / pairs` pauses each: A pauses, B resumes all but
 * 1 in 100. With `oneTask`, every pause of a pair is of one task (a task paused again and again).
 */
async function fleet(dir: string, keyring: Keyring, pairs: number, total: number, oneTask: boolean): Promise<void> {
  mkdirSync(dir);
  const per = Math.floor(total / pairs);
  for (let p = 0; p < pairs; p++) {
    const task = (n: number): string => (oneTask ? `task-${p}` : `task-${p}-${n}`);
    const token = (n: number): string => `tok-${p}-${n}`;
    const a = chainOf(keyring, `a-${p}`);
    await writeLog(
      join(dir, `a-${p}.receipts.jsonl`),
      texts(
        a,
        (n) => a.sealSuspension({ ...suspensionDraftFor(n), taskId: task(n), resumeTokenHash: hashToken(token(n)) }),
        per,
      ),
    );
    const b = chainOf(keyring, `b-${p}`);
    const resumed = per - Math.ceil(per / 100);
    await writeLog(
      join(dir, `b-${p}.receipts.jsonl`),
      texts(
        b,
        (n) =>
          b.sealResumption(resumptionDraftFor(n, 'resumed', task(n)), {
            pausedAt: null,
            resumeTokenHash: hashToken(token(n)),
          }),
        resumed,
      ),
    );
  }
}

/** Writes the process's CPU time (µs, user and system) to BENCH_CPU_FILE as it exits, whatever exits it. */
const CPU_AT_EXIT =
  'data:text/javascript,' +
  encodeURIComponent(
    "import { writeFileSync } from 'node:fs';" +
      "process.on('exit', () => writeFileSync(process.env.BENCH_CPU_FILE, JSON.stringify(process.cpuUsage())));",
  );

interface Run {
  rssMiB: number;
  cpuMs: number;
  seconds: number;
  first: string;
  code: number | null;
}

/** One CLI run: its peak RSS (GNU time), its own CPU (process.cpuUsage as it exits), its first stdout line. */
function measure(scratch: string, args: string[]): Run {
  const out = join(scratch, 'stdout');
  const cpuFile = join(scratch, 'cpu.json');
  rmSync(cpuFile, { force: true });
  const fd = openSync(out, 'w');
  let r;
  try {
    // stdout to a file: audit writes one row per pause, held by no pipe buffer of this process.
    r = spawnSync('/usr/bin/time', ['-v', process.execPath, '--import', CPU_AT_EXIT, CLI, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', fd, 'pipe'],
      env: { ...process.env, BENCH_CPU_FILE: cpuFile },
      maxBuffer: 1 << 26,
    });
  } finally {
    closeSync(fd);
  }
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(r.stderr);
  if (!rss || !wall) throw new Error(`could not read /usr/bin/time output:\n${r.stderr}`);
  const cpu = JSON.parse(readFileSync(cpuFile, 'utf8')) as { user: number; system: number };
  const seconds = Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]);
  const first = readFileSync(out, 'utf8').slice(0, 200).split('\n')[0] ?? '';
  return { rssMiB: Number(rss[1]) / 1024, cpuMs: (cpu.user + cpu.system) / 1000, seconds, first, code: r.status };
}

if (!existsSync('/usr/bin/time')) throw new Error('this bench needs /usr/bin/time (GNU time) to read peak RSS');
if (process.env.BENCH_BUILT !== '1') {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')],
    { stdio: 'inherit' },
  );
}

/** Each command, with the exit code it must give: `lost` 1 (the pauses never resumed are lost), `audit` 0. */
const COMMANDS = [
  { name: 'lost', code: 1 },
  { name: 'audit', code: 0 },
] as const;
type Command = (typeof COMMANDS)[number];
/**
 * The fleets: 2 and 20 logs of TOTAL pauses (memory), 20 logs of half of it (CPU against the 20 of
 * all), and the same two with each pair's pauses of one task (`lost` alone: the same pairing).
 */
const FLEETS: { logs: number; total: number; oneTask: boolean; commands: readonly Command[] }[] = [
  { logs: 2, total: TOTAL, oneTask: false, commands: COMMANDS },
  { logs: 20, total: TOTAL, oneTask: false, commands: COMMANDS },
  { logs: 20, total: Math.floor(TOTAL / 2), oneTask: false, commands: COMMANDS },
  { logs: 20, total: TOTAL, oneTask: true, commands: [COMMANDS[0]] },
  { logs: 20, total: Math.floor(TOTAL / 2), oneTask: true, commands: [COMMANDS[0]] },
];
const label = (name: string, f: { logs: number; total: number; oneTask: boolean }): string =>
  `${name} ${f.logs} ${f.total}${f.oneTask ? ' one-task' : ''}`;

const root = mkdtempSync(join(tmpdir(), 'fleet-memory-'));
try {
  const key = fixedKey('bench-key');
  const keyFile = join(root, 'bench.key');
  writeFileSync(keyFile, canonicalJson(key.keyFile()), { mode: 0o600 });
  const keyring = new Keyring([key]);
  const baseline = measure(root, ['--version']);
  const runs = new Map<string, Run>();
  for (const f of FLEETS) {
    const dir = join(root, `logs-${f.logs}-${f.total}${f.oneTask ? '-one' : ''}`);
    await fleet(dir, keyring, f.logs / 2, f.total, f.oneTask);
    for (const c of f.commands) {
      const m = measure(root, [c.name, dir, '--key', keyFile]);
      if (m.code !== c.code) throw new Error(`${c.name} exited ${m.code}, expected ${c.code}: ${m.first}`);
      runs.set(label(c.name, f), m);
    }
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `baseline (CLI --version): peak RSS ${baseline.rssMiB.toFixed(1)} MiB, CPU ${baseline.cpuMs.toFixed(0)} ms`,
  );
  console.log('| command | logs | pauses | tasks | peak RSS | CPU | wall | first line |');
  console.log('|---|---:|---:|---|---:|---:|---:|---|');
  for (const f of FLEETS)
    for (const c of f.commands) {
      const r = runs.get(label(c.name, f))!;
      console.log(
        `| ${c.name} | ${f.logs} | ${f.total} | ${f.oneTask ? 'one a pair' : 'one a pause'} | ` +
          `${r.rssMiB.toFixed(1)} MiB | ${r.cpuMs.toFixed(0)} ms | ${r.seconds.toFixed(1)} s | ` +
          `${r.first.slice(0, 40)}… |`,
      );
    }
  const figures: Record<string, number> = {};
  const half = Math.floor(TOTAL / 2);
  // CLI start-up taken off both: what is left is the reading, verifying and pairing.
  const cpuRatio = (large: Run, small: Run): number => (large.cpuMs - baseline.cpuMs) / (small.cpuMs - baseline.cpuMs);
  for (const c of COMMANDS) {
    const two = runs.get(label(c.name, { logs: 2, total: TOTAL, oneTask: false }))!;
    const twenty = runs.get(label(c.name, { logs: 20, total: TOTAL, oneTask: false }))!;
    const small = runs.get(label(c.name, { logs: 20, total: half, oneTask: false }))!;
    const rss = twenty.rssMiB / two.rssMiB;
    const cpu = cpuRatio(twenty, small);
    console.log(`${c.name}: peak RSS, 20 logs over 2 logs: ${rss.toFixed(2)}x (goal <= 1.3x)`);
    console.log(`${c.name}: CPU, ${TOTAL} pauses over ${half} in 20 logs: ${cpu.toFixed(2)}x (2 is linear)`);
    figures[`fleetMemory.${c.name}.rss20Over2Logs`] = round(rss);
    figures[`fleetMemory.${c.name}.rss2LogsOverBaseline`] = round(two.rssMiB / baseline.rssMiB);
    figures[`fleetMemory.${c.name}.cpu2NOverN`] = round(cpu);
  }
  const oneTask = cpuRatio(
    runs.get(label('lost', { logs: 20, total: TOTAL, oneTask: true }))!,
    runs.get(label('lost', { logs: 20, total: half, oneTask: true }))!,
  );
  console.log(`lost, each pair's pauses of one task: CPU, ${TOTAL} over ${half}: ${oneTask.toFixed(2)}x (2 is linear)`);
  figures['fleetMemory.lost.oneTaskCpu2NOverN'] = round(oneTask);
  emitFigures(figures);
} finally {
  rmSync(root, { recursive: true, force: true });
}
