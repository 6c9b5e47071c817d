/**
 * Peak memory of a fleet verdict (docs/design.md §17): `a2a-replay lost` over the receipt logs of
 * several recorder replicas, the same total pauses split over 2 logs and over 20. Half the logs
 * hold suspensions (replica A of each pair), the other half the resumptions of those pauses outside
 * their log (replica B, each naming its pause by token hash); one pause in 100 is never resumed. The
 * built CLI runs under `/usr/bin/time -v`; the baseline is the same CLI printing its version.
 * Goal: peak RSS for 20 logs within 1.3x of 2 logs.
 * `npx tsx bench/fleet-memory.ts [total pauses, default 200000]`
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
const TOTAL = Number(process.argv[2] ?? 200_000);

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

/** `pairs` pairs of replica logs in `dir`, `TOTAL / pairs` pauses each: A pauses, B resumes all but 1 in 100. */
async function fleet(dir: string, keyring: Keyring, pairs: number): Promise<void> {
  mkdirSync(dir);
  const per = Math.floor(TOTAL / pairs);
  for (let p = 0; p < pairs; p++) {
    const task = (n: number): string => `task-${p}-${n}`;
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

function measure(args: string[]): { rssMiB: number; seconds: number; stdout: string; code: number | null } {
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, CLI, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(r.stderr);
  if (!rss || !wall) throw new Error(`could not read /usr/bin/time output:\n${r.stderr}`);
  const seconds = Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]);
  return { rssMiB: Number(rss[1]) / 1024, seconds, stdout: r.stdout.trim(), code: r.status };
}

if (!existsSync('/usr/bin/time')) throw new Error('this bench needs /usr/bin/time (GNU time) to read peak RSS');
if (process.env.BENCH_BUILT !== '1') {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')],
    { stdio: 'inherit' },
  );
}
const root = mkdtempSync(join(tmpdir(), 'fleet-memory-'));
try {
  const key = fixedKey('bench-key');
  const keyFile = join(root, 'bench.key');
  writeFileSync(keyFile, canonicalJson(key.keyFile()), { mode: 0o600 });
  const keyring = new Keyring([key]);
  const baseline = measure(['--version']);
  const rows: { logs: number; rssMiB: number; seconds: number; first: string }[] = [];
  for (const pairs of [1, 10]) {
    const dir = join(root, `logs-${pairs * 2}`);
    await fleet(dir, keyring, pairs);
    const m = measure(['lost', dir, '--key', keyFile]);
    // Exit 1: the pauses never resumed are lost, as they should be.
    if (m.code !== 1) throw new Error(`lost exited ${m.code}: ${m.stdout.slice(0, 500)}`);
    rows.push({ logs: pairs * 2, rssMiB: m.rssMiB, seconds: m.seconds, first: m.stdout.split('\n')[0] ?? '' });
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`baseline (CLI --version): peak RSS ${baseline.rssMiB.toFixed(1)} MiB; ${TOTAL} pauses in all`);
  console.log('| logs | peak RSS | lost time | first line |');
  console.log('|---:|---:|---:|---|');
  for (const r of rows)
    console.log(`| ${r.logs} | ${r.rssMiB.toFixed(1)} MiB | ${r.seconds.toFixed(1)} s | ${r.first.slice(0, 60)}… |`);
  const [two, twenty] = rows;
  if (two && twenty) {
    console.log(`peak RSS, 20 logs over 2 logs: ${(twenty.rssMiB / two.rssMiB).toFixed(2)}x (goal <= 1.3x)`);
    emitFigures({
      'fleetMemory.rss20Over2Logs': round(twenty.rssMiB / two.rssMiB),
      'fleetMemory.rss2LogsOverBaseline': round(two.rssMiB / baseline.rssMiB),
    });
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
