/**
 * @module bench/replay-throughput
 * Exchanges per second of `a2a-replay run RECORDING --peer URL --key K` beside a plain client
 * sending the same session (same requests, same count, same concurrency), each against a fresh
 * `a2a-replay peer --deterministic` process, in the same run and in alternating rounds.
 *
 * The session: T tasks, C at a time, each sequentially SendMessage(work:3, returnImmediately) →
 * PauseTask → GetTask ×6 → ResumeTask → GetTask: 10 exchanges per task, so 1,000 tasks make
 * 10,000 exchanges and 2,000 receipts. It is recorded once through `a2a-replay record --key K`.
 *
 * `replay.overPlain` compares CPU: the plain client's CPU per exchange (this process's own, from
 * `process.cpuUsage()`, while it alone runs the session) over the `run` process's (user + system
 * from `/proc`, as the reaped child's `cutime`/`cstime`), the CPU of `a2a-replay --version` taken
 * off the latter, so what is compared is the replayer's work per exchange: read the recording,
 * send, read the answer, derive and compare the receipts. The rates are reported too
 * (`replay.rateOverPlain`, whole `run` process against the plain client, wall time).
 *
 *   npx tsx bench/replay-throughput.ts [--tasks 1000] [--concurrency 16] [--rounds 3] [--cpu-prof DIR]
 *
 * `--cpu-prof DIR` runs each `run` under `node --cpu-prof`, one `run-N.cpuprofile` per round in DIR.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  type Figures,
  arg,
  cliStartupMs,
  emitFigures,
  processCpuMs,
  keygen,
  nodeStartupMs,
  replaySession,
  round,
  startCli,
  timeCli,
  versionCpuMs,
} from './_lib.js';

const TASKS = Number(arg('tasks', '1000'));
const CONCURRENCY = Number(arg('concurrency', '16'));
const ROUNDS = Number(arg('rounds', '3'));
const GETS = 6;
const PROFILE_DIR = arg('cpu-prof', '');

/** The session, `CONCURRENCY` tasks in flight; resolves with the exchanges sent. */
function session(base: string): Promise<number> {
  return replaySession(base, TASKS, CONCURRENCY, GETS);
}

/** Runs `body` against a fresh deterministic peer process. */
async function withPeer<T>(body: (url: string) => Promise<T>): Promise<T> {
  const peer = await startCli(['peer', '--deterministic']);
  try {
    return await body(peer.url);
  } finally {
    await peer.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'bench-replay-'));
try {
  const key = keygen(join(dir, 'key.json'));
  const recording = join(dir, 'session.jsonl');

  // 1. Record the session through `a2a-replay record`.
  const recorded = await withPeer(async (url) => {
    const recorder = await startCli(['record', '--upstream', url, '--out', recording, '--key', key]);
    const exchanges = await session(recorder.url).finally(() => recorder.stop());
    const code = await recorder.stop();
    if (code !== 0) throw new Error(`record exited with ${code}: ${recorder.stderr()}`);
    return exchanges;
  });
  const requests = readFileSync(recording, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"kind":"request"')).length;

  // 2. Alternate: the plain client, then the replay, each on a fresh peer.
  let plainMs = 0;
  let replayMs = 0;
  let plainExchanges = 0;
  let plainCpuMs = 0;
  let replayCpuMs = 0;
  for (let r = 0; r < ROUNDS; r++) {
    plainMs += await withPeer(async (url) => {
      const started = performance.now();
      const cpu = process.cpuUsage();
      plainExchanges += await session(url);
      const used = process.cpuUsage(cpu);
      plainCpuMs += (used.user + used.system) / 1000;
      return performance.now() - started;
    });
    replayMs += await withPeer(async (url) => {
      const profile =
        PROFILE_DIR === ''
          ? []
          : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=run-${r + 1}.cpuprofile`];
      const cpu = processCpuMs('self', 'children');
      const run = timeCli(['run', recording, '--peer', url, '--key', key], profile);
      replayCpuMs += processCpuMs('self', 'children') - cpu;
      if (run.code !== 0) throw new Error(`run exited with ${run.code}:\n${run.stdout}`);
      return run.ms;
    });
  }
  const startup = cliStartupMs();
  const startupCpuMs = versionCpuMs();
  const nodeMs = nodeStartupMs();
  const plainCpuUs = (1000 * plainCpuMs) / plainExchanges;
  const replayCpuUs = (1000 * (replayCpuMs - startupCpuMs * ROUNDS)) / (recorded * ROUNDS);
  const plainRate = (plainExchanges * 1000) / plainMs;
  const replayRate = (recorded * ROUNDS * 1000) / replayMs;
  const replayRateAfterStartup = (recorded * ROUNDS * 1000) / (replayMs - startup * ROUNDS);
  console.log(
    [
      `session: ${TASKS} tasks, ${recorded} exchanges (${requests} request entries), ${CONCURRENCY} tasks in flight, ` +
        `${ROUNDS} rounds`,
      `plain client:  ${plainExchanges} exchanges in ${plainMs.toFixed(0)} ms (${plainRate.toFixed(0)}/s)`,
      `a2a-replay run: ${recorded * ROUNDS} exchanges in ${replayMs.toFixed(0)} ms (${replayRate.toFixed(0)}/s), ` +
        `CLI start-up ${startup.toFixed(0)} ms per run`,
      `run / plain: ${(replayRate / plainRate).toFixed(2)}x; without the start-up ` +
        `${(replayRateAfterStartup / plainRate).toFixed(2)}x`,
      `CPU per exchange: plain client ${plainCpuUs.toFixed(0)} µs, run ${replayCpuUs.toFixed(0)} µs ` +
        `(the ${startupCpuMs.toFixed(0)} ms of CPU of its start-up taken off each run): ` +
        `plain / run ${(plainCpuUs / replayCpuUs).toFixed(2)}`,
      `CLI start-up ${startup.toFixed(0)} ms against node -e 0 ${nodeMs.toFixed(0)} ms: ` +
        `${(startup / nodeMs).toFixed(2)}x`,
    ].join('\n'),
  );
  const figures: Figures = {
    'replay.overPlain': round(plainCpuUs / replayCpuUs),
    'replay.plainCpuUsPerExchange': round(plainCpuUs, 0),
    'replay.runCpuUsPerExchange': round(replayCpuUs, 0),
    'replay.rateOverPlain': round(replayRate / plainRate),
    'replay.rateOverPlainAfterStartup': round(replayRateAfterStartup / plainRate),
    'replay.runPerSecond': round(replayRate, 0),
    'replay.plainPerSecond': round(plainRate, 0),
    'replay.cliStartupMs': round(startup, 0),
    'cli.startupOverNode': round(startup / nodeMs),
    'cli.nodeStartupMs': round(nodeMs, 0),
  };
  emitFigures(figures);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
