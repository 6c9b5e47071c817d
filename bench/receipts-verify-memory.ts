/**
 * Peak memory of `a2a-replay verify` as the log grows: it streams, so peak RSS should stay flat
 * from 100k to 1M receipts. Logs are generated with the in-memory chain, then the built CLI
 * verifies each under `/usr/bin/time -v` (peak RSS of the whole process). The baseline is the
 * same CLI printing its version, measured in the same run.
 * `npx tsx bench/receipts-verify-memory.ts [sizes, default 100000,1000000]`
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from '../src/canonical/canonical-json.js';
import { ReceiptChain, type SealedLine } from '../src/receipts/chain.js';
import { Keyring } from '../src/receipts/keys.js';
import { CREATED_AT, fixedKey, resumptionDraftFor, suspensionDraftFor, taskFor } from '../test/receipts/fixtures.js';
import { emitFigures, round } from './_lib.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const SIZES = (process.argv[2] ?? '100000,1000000').split(',').map(Number);

async function generate(path: string, keyring: Keyring, count: number): Promise<void> {
  const out = createWriteStream(path);
  const chain = new ReceiptChain({
    keyring,
    checkpointEvery: 256,
    recording: 'bench',
    createdAt: CREATED_AT,
    tool: 'a2a-replay@bench',
  });
  let chunk: string[] = [`${chain.header.text}\n`];
  const flush = async (): Promise<void> => {
    if (!out.write(chunk.join(''))) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    chunk = [];
  };
  let open: string | null = null;
  for (let n = 0; chain.size < count; n++) {
    const sealed: { receipt: SealedLine; checkpoint: SealedLine | null } =
      open !== null && n % 2 === 1
        ? chain.sealResumption(resumptionDraftFor(n, 'resumed', taskFor(n - 1)), open)
        : chain.sealSuspension(suspensionDraftFor(n));
    open = sealed.receipt.line.type === 'SuspensionReceipt' ? sealed.receipt.hash : null;
    chunk.push(`${sealed.receipt.text}\n`);
    if (sealed.checkpoint) chunk.push(`${sealed.checkpoint.text}\n`);
    if (chunk.length >= 1000) await flush();
  }
  const last = chain.close();
  if (last) chunk.push(`${last.text}\n`);
  await flush();
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

function measure(args: string[]): { rssMiB: number; seconds: number; stdout: string; code: number | null } {
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, CLI, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(r.stderr);
  if (!rss || !wall) throw new Error(`could not read /usr/bin/time output:\n${r.stderr}`);
  const seconds = Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]);
  return { rssMiB: Number(rss[1]) / 1024, seconds, stdout: r.stdout.trim(), code: r.status };
}

if (!existsSync('/usr/bin/time')) throw new Error('this bench needs /usr/bin/time (GNU time) to read peak RSS');
// bench/run.ts builds once for every benchmark and says so with BENCH_BUILT=1.
if (process.env.BENCH_BUILT !== '1') {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')],
    { stdio: 'inherit' },
  );
}
const dir = mkdtempSync(join(tmpdir(), 'receipts-memory-'));
try {
  const key = fixedKey('bench-key');
  const keyFile = join(dir, 'bench.key');
  writeFileSync(keyFile, canonicalJson(key.keyFile()), { mode: 0o600 });
  const baseline = measure(['--version']);
  console.log(`baseline (CLI --version): peak RSS ${baseline.rssMiB.toFixed(1)} MiB`);
  const rows: { count: number; rssMiB: number; seconds: number; mib: number }[] = [];
  for (const count of SIZES) {
    const log = join(dir, `${count}.receipts.jsonl`);
    const started = performance.now();
    await generate(log, new Keyring([key]), count);
    const mib = statSync(log).size / 2 ** 20;
    console.log(
      `generated ${count} receipts (${mib.toFixed(0)} MiB) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const m = measure(['verify', log, '--key', keyFile]);
    if (m.code !== 0) throw new Error(`verify failed: ${m.stdout}`);
    console.log(
      `verify ${count}: peak RSS ${m.rssMiB.toFixed(1)} MiB, ${m.seconds.toFixed(1)} s, ` +
        `${Math.round(count / m.seconds)} receipts/s — ${m.stdout}`,
    );
    rows.push({ count, rssMiB: m.rssMiB, seconds: m.seconds, mib });
    rmSync(log);
  }
  console.log('\n| receipts | log size | peak RSS | over baseline | verify time |');
  console.log('|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(
      `| ${r.count} | ${r.mib.toFixed(0)} MiB | ${r.rssMiB.toFixed(1)} MiB | ` +
        `${(r.rssMiB / baseline.rssMiB).toFixed(2)}x | ${r.seconds.toFixed(1)} s |`,
    );
  }
  const first = rows[0];
  const last = rows.at(-1);
  if (first && last && last !== first) {
    console.log(
      `\nlog grew ${(last.count / first.count).toFixed(0)}x; peak RSS grew ${(last.rssMiB / first.rssMiB).toFixed(2)}x`,
    );
    emitFigures({
      'verifyMemory.rssLargeOverSmall': round(last.rssMiB / first.rssMiB),
      'verifyMemory.rssLargeOverBaseline': round(last.rssMiB / baseline.rssMiB),
      'verifyMemory.largeReceiptsPerSecond': round(last.count / last.seconds, 0),
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
