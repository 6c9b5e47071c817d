/**
 * @module bench/replay-scale
 * `a2a-replay run` over long recordings, and `a2a-replay report` over a long receipt log: peak RSS
 * (GNU `time -v`, the whole process) and wall time per entry, each size a fresh process.
 *
 * - `run REC` (the embedded reference peer, no flags) over a recording of S and of L GetTask
 *   exchanges (8 tasks, round robin; bench/replay-recording.ts writes them): exit code, peak RSS,
 *   ms per entry. `replayScale.rssLargeOverSmall` is the peak at L over the peak at S (goal ≤ 1.5:
 *   the replay holds a segment, not the recording); `replayScale.msPerEntryLargeOverSmall` the wall
 *   time per entry at L over that at S (1 is linear; the machine's load moves both).
 * - `--million`: the same once over a recording of 1,000,000 entries, in the default Node heap.
 * - `report LOG --out F` over a receipt log of P/10 and of P pauses (a suspension and a resumption
 *   each), peak RSS: `replayScale.reportRssLargeOverSmall` (flat with the log's length is 1).
 * - `run REC --peer URL --pace xF` (the paced path: a live real-time reference peer, the recorded
 *   spacing divided by F, every task's reads one poll loop) over S and L GetTask exchanges: exit
 *   code, peak RSS, ms per entry; `replayScale.pacedRssLargeOverSmall`.
 *
 *   npx tsx bench/replay-scale.ts [--small 20000] [--large 200000] [--pauses 200000] [--million]
 *     [--only run,report,paced] [--pace-factor 1000]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReceiptChain } from '../src/receipts/chain.js';
import { Keyring } from '../src/receipts/keys.js';
import { CREATED_AT, fixedKey, resumptionDraftFor, suspensionDraftFor, taskFor } from '../test/receipts/fixtures.js';
import { CLI, type Figures, ROOT, arg, cleanEnv, emitFigures, round, startCli } from './_lib.js';
import { writeGetTaskRecording } from './replay-recording.js';

const SMALL = Number(arg('small', '20000'));
const LARGE = Number(arg('large', '200000'));
const PAUSES = Number(arg('pauses', '200000'));
const MILLION = process.argv.includes('--million');
const ONLY = new Set(arg('only', 'run,report,paced').split(','));
const PACE_FACTOR = arg('pace-factor', '1000');

/** Runs the built CLI under `time -v`: exit code, peak RSS in MiB, wall seconds. */
function measure(args: string[]): { code: number | null; rssMiB: number; seconds: number; stdout: string } {
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, CLI, ...args], {
    encoding: 'utf8',
    env: cleanEnv(),
    maxBuffer: 1 << 26,
  });
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(r.stderr);
  if (!rss || !wall) throw new Error(`could not read /usr/bin/time output:\n${r.stderr.slice(-2000)}`);
  const seconds = Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]);
  const exit = /Exit status: (\d+)/.exec(r.stderr);
  return { code: exit ? Number(exit[1]) : r.status, rssMiB: Number(rss[1]) / 1024, seconds, stdout: r.stdout };
}

/** A receipt log of `pauses` suspension/resumption pairs, checkpointed every 256, closed. */
async function writePauseLog(path: string, pauses: number): Promise<void> {
  const out = createWriteStream(path, { mode: 0o600 });
  const chain = new ReceiptChain({
    keyring: new Keyring([fixedKey('bench-key')]),
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
  for (let n = 0; n < pauses; n++) {
    const suspension = chain.sealSuspension(suspensionDraftFor(2 * n));
    chunk.push(`${suspension.receipt.text}\n`);
    if (suspension.checkpoint) chunk.push(`${suspension.checkpoint.text}\n`);
    const resumption = chain.sealResumption(
      resumptionDraftFor(2 * n + 1, 'resumed', taskFor(2 * n)),
      suspension.receipt.hash,
    );
    chunk.push(`${resumption.receipt.text}\n`);
    if (resumption.checkpoint) chunk.push(`${resumption.checkpoint.text}\n`);
    if (chunk.length >= 1000) await flush();
  }
  const last = chain.close();
  if (last) chunk.push(`${last.text}\n`);
  await flush();
  await new Promise<void>((resolve) => out.end(() => resolve()));
}

/** `run` over a fresh recording of `gets` GetTask exchanges: exit, peak RSS, ms per entry. */
async function replay(
  dir: string,
  gets: number,
  extra: string[] = [],
): Promise<{ code: number | null; rssMiB: number; msPerEntry: number }> {
  const file = join(dir, `gets-${gets}.jsonl`);
  const entries = await writeGetTaskRecording(file, gets, 8);
  const run = measure(['run', file, ...extra]);
  rmSync(file, { force: true });
  const result = { code: run.code, rssMiB: round(run.rssMiB, 1), msPerEntry: round((run.seconds * 1000) / entries, 4) };
  process.stdout.write(`run ${extra.join(' ')} over ${entries} entries: ${JSON.stringify(result)}\n`);
  return result;
}

/** `report` over a fresh receipt log of `pauses` pauses: exit, peak RSS. */
async function report(dir: string, pauses: number): Promise<{ code: number | null; rssMiB: number }> {
  const log = join(dir, `pauses-${pauses}.receipts.jsonl`);
  await writePauseLog(log, pauses);
  const run = measure(['report', log, '--out', join(dir, 'report.html')]);
  rmSync(log, { force: true });
  process.stdout.write(`report over ${pauses} pauses: exit ${run.code}, peak RSS ${round(run.rssMiB, 1)} MiB\n`);
  return { code: run.code, rssMiB: round(run.rssMiB, 1) };
}

if (!existsSync('/usr/bin/time')) throw new Error('this bench needs /usr/bin/time (GNU time) to read peak RSS');
if (process.env.BENCH_BUILT !== '1') {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')],
    {
      stdio: 'inherit',
    },
  );
}
const dir = mkdtempSync(join(tmpdir(), 'replay-scale-'));
const figures: Figures = {};
const notes: Record<string, string> = {};
try {
  if (ONLY.has('run')) {
    const small = await replay(dir, SMALL);
    const large = await replay(dir, LARGE);
    figures['replayScale.smallExit'] = small.code;
    figures['replayScale.largeExit'] = large.code;
    figures['replayScale.smallRssMiB'] = small.rssMiB;
    figures['replayScale.largeRssMiB'] = large.rssMiB;
    figures['replayScale.rssLargeOverSmall'] = round(large.rssMiB / small.rssMiB, 3);
    figures['replayScale.smallMsPerEntry'] = small.msPerEntry;
    figures['replayScale.largeMsPerEntry'] = large.msPerEntry;
    figures['replayScale.msPerEntryLargeOverSmall'] = round(large.msPerEntry / small.msPerEntry, 3);
  }
  if (ONLY.has('run') && MILLION) {
    const million = await replay(dir, 500_000 - 8);
    figures['replayScale.millionExit'] = million.code;
    figures['replayScale.millionRssMiB'] = million.rssMiB;
    figures['replayScale.millionMsPerEntry'] = million.msPerEntry;
  } else {
    for (const key of ['millionExit', 'millionRssMiB', 'millionMsPerEntry']) {
      figures[`replayScale.${key}`] = null;
      notes[`replayScale.${key}`] = 'run with --million (once, on a quiet machine: it takes long)';
    }
  }
  if (ONLY.has('report')) {
    const small = await report(dir, Math.round(PAUSES / 10));
    const large = await report(dir, PAUSES);
    figures['replayScale.reportExit'] = large.code;
    figures['replayScale.reportSmallRssMiB'] = small.rssMiB;
    figures['replayScale.reportRssMiB'] = large.rssMiB;
    figures['replayScale.reportRssLargeOverSmall'] = round(large.rssMiB / small.rssMiB, 3);
  }
  if (ONLY.has('paced')) {
    // A real-time reference peer: its card is no deterministic one's, so `run --peer` paces.
    const peer = await startCli(['peer', '--port', '0']);
    try {
      const paced = ['--peer', peer.url, '--pace', `x${PACE_FACTOR}`];
      const small = await replay(dir, SMALL, paced);
      const large = await replay(dir, LARGE, paced);
      figures['replayScale.pacedSmallExit'] = small.code;
      figures['replayScale.pacedLargeExit'] = large.code;
      figures['replayScale.pacedSmallRssMiB'] = small.rssMiB;
      figures['replayScale.pacedLargeRssMiB'] = large.rssMiB;
      figures['replayScale.pacedRssLargeOverSmall'] = round(large.rssMiB / small.rssMiB, 3);
      figures['replayScale.pacedMsPerEntryLargeOverSmall'] = round(large.msPerEntry / small.msPerEntry, 3);
    } finally {
      await peer.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
emitFigures(figures, notes);
