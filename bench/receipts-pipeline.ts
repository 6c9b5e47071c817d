/**
 * Receipts per second through the full pipeline — build the draft from plain facts,
 * canonicalize, hash, sign, chain, write (ReceiptLogWriter, fsync `batch` and `never`) — beside
 * a raw loop that only canonicalizes and HMACs the same receipt bodies, measured in the same run;
 * then `verifyReceiptLog` on the written file against the same baseline.
 * `npx tsx bench/receipts-pipeline.ts [receipts, default 50000]`
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type FsyncPolicy,
  Keyring,
  ManualClock,
  ReceiptChain,
  ReceiptLogWriter,
  type ResumptionFacts,
  type SuspensionFacts,
  buildResumptionDraft,
  buildSuspensionDraft,
  canonicalJson,
  verifyReceiptLog,
} from '../src/internal.js';
import { CREATED_AT, fixedKey } from '../test/receipts/fixtures.js';

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

async function pipeline(path: string, fsync: FsyncPolicy): Promise<number> {
  const started = performance.now();
  const writer = await ReceiptLogWriter.open(path, {
    keyring,
    fsync,
    recording: 'bench',
    clock: new ManualClock(Date.parse(CREATED_AT)),
    tool: 'a2a-replay@bench',
  });
  let open = '';
  for (const f of facts) {
    const result =
      f.kind === 'suspension'
        ? await writer.appendSuspension(buildSuspensionDraft(f.facts))
        : await writer.appendResumption(buildResumptionDraft(f.facts), open);
    open = result.hash;
  }
  await writer.close();
  return performance.now() - started;
}

const rate = (ms: number): string => `${Math.round((COUNT / ms) * 1000).toLocaleString('en-US')} receipts/s`;
const dir = mkdtempSync(join(tmpdir(), 'receipts-pipeline-'));
try {
  const items = bodies();
  rawLoop(items.slice(0, 2000)); // warm-up
  const raw = rawLoop(items);
  console.log(`raw JCS + HMAC loop:         ${rate(raw)}  (baseline)`);
  for (const fsync of ['never', 'batch'] as const) {
    const path = join(dir, `${fsync}.receipts.jsonl`);
    const ms = await pipeline(path, fsync);
    console.log(
      `pipeline, fsync ${fsync.padEnd(6)}:      ${rate(ms)}  = ${(raw / ms).toFixed(2)}x the raw ` +
        `loop (${(ms / raw).toFixed(2)}x its time)`,
    );
    if (fsync === 'batch') {
      const started = performance.now();
      const result = await verifyReceiptLog(path, { keyring });
      const vms = performance.now() - started;
      if (!result.ok) throw new Error(`verify failed: ${JSON.stringify(result.firstError)}`);
      console.log(
        `verifyReceiptLog:            ${rate(vms)}  = ${(raw / vms).toFixed(2)}x the raw loop ` +
          `(${(vms / raw).toFixed(2)}x its time)`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
