/**
 * Receipts per second through the full pipeline — ReceiptLogWriter appends: seal, hash, HMAC,
 * chain, write to a temp file (fsync `batch`, the recorder's default, and `never`) — beside a raw
 * loop that only canonicalizes (RFC 8785) and HMACs the same receipt bodies, measured in the same
 * run (the raw loop runs before and after; its mean is the baseline). The drafts are built from
 * plain facts before the clock starts. Then `verifyReceiptLog` on the written log (after one
 * untimed verify of the warm-up log, as the raw loop and the pipeline are warmed up), in lines per
 * second against the same baseline, and the `a2a-replay verify` CLI (its start-up taken off), with
 * `--jobs 2` once that option exists.
 * `npx tsx bench/receipts-pipeline.ts [receipts, default 50000]`
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from '../src/canonical/canonical-json.js';
import { ManualClock } from '../src/clock.js';
import { ReceiptChain } from '../src/receipts/chain.js';
import {
  type ResumptionFacts,
  type SuspensionFacts,
  buildResumptionDraft,
  buildSuspensionDraft,
} from '../src/receipts/drafts.js';
import { Keyring } from '../src/receipts/keys.js';
import { type FsyncPolicy, ReceiptLogWriter } from '../src/receipts/log-writer.js';
import type { ResumptionDraft, SuspensionDraft } from '../src/receipts/types.js';
import { verifyReceiptLog } from '../src/receipts/verify.js';
import { CREATED_AT, fixedKey } from '../test/receipts/fixtures.js';
import { cliStartupMs, emitFigures, round, timeCli } from './_lib.js';

const COUNT = Number(process.argv[2] ?? 50_000);
const key = fixedKey('bench-key');
const keyring = new Keyring([key]);
const secret = Buffer.from(key.keyFile().hmac, 'base64url');

const span = (n: number): { traceId: string; spanId: string } => ({
  traceId: n.toString(16).padStart(32, 'a'),
  spanId: n.toString(16).padStart(16, 'b'),
});
const at = (ms: number): string => new Date(Date.parse(CREATED_AT) + ms).toISOString();

/** Plain facts as the observer hands them over: a pause, then its resume. */
type Facts = { kind: 'suspension'; facts: SuspensionFacts } | { kind: 'resumption'; facts: ResumptionFacts };
const facts: Facts[] = Array.from({ length: COUNT }, (_, n): Facts => {
  if (n % 2 === 0) {
    return {
      kind: 'suspension',
      facts: {
        taskId: `task-${n >> 1}`,
        contextId: `ctx-${n % 97}`,
        initiatedBy: 'PAUSE_INITIATOR_CLIENT',
        principal: 'jwt:sub=alice',
        via: 'PauseTask',
        reason: 'waiting for approval',
        mode: 'finish_step',
        conditions: { onEvent: `approval-${n}`, timeout: { durationMinutes: 30, onTimeout: 'fail' } },
        resumeToken: `token-${n}`,
        pausedAt: at(n * 1000),
        observedAt: at(n * 1000 + 5),
        entries: [n * 3 + 1, n * 3 + 2],
        span: span(n),
      },
    };
  }
  return {
    kind: 'resumption',
    facts: {
      taskId: `task-${n >> 1}`,
      cause: 'explicit_resume',
      outcome: 'resumed',
      principal: 'jwt:sub=bob',
      input: { approved: true, note: `ok ${n}` },
      continueTranscript: true,
      resumedAt: at(n * 1000),
      observedAt: at(n * 1000 + 5),
      entries: [n * 3 + 3],
      span: span(n),
      links: { suspension: span(n - 1), pipeline: null },
    },
  };
});

/** The same receipt bodies the pipeline signs (sealed once, untimed), for the raw loop. */
function bodies(): object[] {
  const chain = new ReceiptChain({
    keyring,
    checkpointEvery: 0,
    recording: 'bench',
    createdAt: CREATED_AT,
    tool: 'a2a-replay@bench',
  });
  let open = '';
  return facts.map((f) => {
    const sealed =
      f.kind === 'suspension'
        ? chain.sealSuspension(buildSuspensionDraft(f.facts))
        : chain.sealResumption(buildResumptionDraft(f.facts), open);
    open = sealed.receipt.hash;
    const { sig: _sig, ...body } = sealed.receipt.line;
    return body;
  });
}

function rawLoop(items: object[]): number {
  const started = performance.now();
  let sink = 0;
  for (const body of items) sink += createHmac('sha256', secret).update(canonicalJson(body)).digest()[0] as number;
  if (sink < 0) throw new Error('unreachable');
  return performance.now() - started;
}

type Draft = { kind: 'suspension'; draft: SuspensionDraft } | { kind: 'resumption'; draft: ResumptionDraft };

/** The drafts the observer would hand over, built before the clock starts. */
const drafts = (): Draft[] =>
  facts.map((f): Draft =>
    f.kind === 'suspension'
      ? { kind: 'suspension', draft: buildSuspensionDraft(f.facts) }
      : { kind: 'resumption', draft: buildResumptionDraft(f.facts) },
  );

/** Appends every draft (seal, HMAC, chain, write) and closes the log: ms. */
async function pipeline(path: string, fsync: FsyncPolicy): Promise<number> {
  const items = drafts();
  const started = performance.now();
  const writer = await ReceiptLogWriter.open(path, {
    keyring,
    fsync,
    recording: 'bench',
    clock: new ManualClock(Date.parse(CREATED_AT)),
    tool: 'a2a-replay@bench',
  });
  let open = '';
  for (const item of items) {
    const result =
      item.kind === 'suspension'
        ? await writer.appendSuspension(item.draft)
        : await writer.appendResumption(item.draft, open);
    open = result.hash;
  }
  await writer.close();
  return performance.now() - started;
}

const perSecond = (n: number, ms: number): number => (n / ms) * 1000;
const show = (perS: number, what: string): string => `${Math.round(perS).toLocaleString('en-US')} ${what}/s`;
const rate = (n: number, ms: number, what = 'receipts'): string => show(perSecond(n, ms), what);
const dir = mkdtempSync(join(tmpdir(), 'receipts-pipeline-'));
try {
  const items = bodies();
  rawLoop(items.slice(0, 2000)); // warm-up
  await pipeline(join(dir, 'warm-up.receipts.jsonl'), 'never');
  // The raw loop before and after the pipelines; its mean is the baseline.
  const rawBefore = rawLoop(items);
  const ms: Record<FsyncPolicy, number> = { always: NaN, never: 0, batch: 0 };
  for (const fsync of ['never', 'batch'] as const)
    ms[fsync] = await pipeline(join(dir, `${fsync}.receipts.jsonl`), fsync);
  const log = join(dir, 'batch.receipts.jsonl');
  // Warmed up like the raw loop and the pipeline: the warm-up log verified once, untimed.
  const warm = await verifyReceiptLog(join(dir, 'warm-up.receipts.jsonl'), { keyring });
  if (!warm.ok) throw new Error(`verify of the warm-up log failed: ${JSON.stringify(warm.firstError)}`);
  const started = performance.now();
  const result = await verifyReceiptLog(log, { keyring });
  const verifyMs = performance.now() - started;
  if (!result.ok) throw new Error(`verify failed: ${JSON.stringify(result.firstError)}`);
  const raw = (rawBefore + rawLoop(items)) / 2;
  const rawRate = perSecond(COUNT, raw);

  // The CLI: `verify LOG --key K`, and `--jobs 2` once the option exists; start-up taken off.
  const keyFile = join(dir, 'bench.key');
  writeFileSync(keyFile, canonicalJson(key.keyFile()), { mode: 0o600 });
  const startup = cliStartupMs();
  const cliRate = (args: string[]): number => {
    const run = timeCli(['verify', log, '--key', keyFile, ...args]);
    if (run.code !== 0) throw new Error(`verify ${args.join(' ')} exited with ${run.code}: ${run.stdout}`);
    return perSecond(result.lines, Math.max(1, run.ms - startup));
  };
  const hasJobs = /--jobs\b/.test(timeCli(['verify', '--help']).stdout);
  const cli1 = cliRate(hasJobs ? ['--jobs', '1'] : []);
  const cli2 = hasJobs ? cliRate(['--jobs', '2']) : null;

  console.log(`raw JCS + HMAC loop:         ${rate(COUNT, raw)}  (baseline, mean of a run before and after)`);
  for (const fsync of ['never', 'batch'] as const) {
    console.log(
      `pipeline, fsync ${fsync.padEnd(6)}:      ${rate(COUNT, ms[fsync])}  = ` +
        `${(raw / ms[fsync]).toFixed(2)}x the raw loop (${(ms[fsync] / raw).toFixed(2)}x its time)`,
    );
  }
  console.log(
    `verifyReceiptLog:            ${rate(result.lines, verifyMs, 'lines')}  = ` +
      `${(perSecond(result.lines, verifyMs) / rawRate).toFixed(2)}x the raw loop (${result.lines} lines)`,
  );
  console.log(
    `a2a-replay verify:           ${show(cli1, 'lines')}  = ${(cli1 / rawRate).toFixed(2)}x ` +
      `(CLI start-up of ${startup.toFixed(0)} ms taken off)`,
  );
  console.log(
    cli2 === null
      ? 'a2a-replay verify --jobs 2:  the option does not exist yet'
      : `a2a-replay verify --jobs 2:  ${show(cli2, 'lines')}  = ${(cli2 / rawRate).toFixed(2)}x`,
  );
  emitFigures(
    {
      'receipts.pipelineOverRaw': round(raw / ms.batch),
      'receipts.pipelineNeverOverRaw': round(raw / ms.never),
      'receipts.rawPerSecond': round(rawRate, 0),
      'receipts.pipelinePerSecond': round(perSecond(COUNT, ms.batch), 0),
      'verify.overRaw': round(perSecond(result.lines, verifyMs) / rawRate),
      'verify.linesPerSecond': round(perSecond(result.lines, verifyMs), 0),
      'verify.cliOverRaw': round(cli1 / rawRate),
      'verify.jobs2OverRaw': cli2 === null ? null : round(cli2 / rawRate),
    },
    cli2 === null ? { 'verify.jobs2OverRaw': '`a2a-replay verify` has no --jobs option yet' } : {},
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
