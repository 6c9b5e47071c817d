/**
 * Deterministic keys and drafts for receipt tests and benches.
 */
import { createHash } from 'node:crypto';
import { ReceiptChain, type SealedLine } from '../../src/receipts/chain.js';
import { buildResumptionDraft, buildSuspensionDraft } from '../../src/receipts/drafts.js';
import { type Keyring, ReceiptKey, generateReceiptKey } from '../../src/receipts/keys.js';
import type {
  ReceiptLogVersion,
  RecordingBinding,
  ResumptionDraft,
  SuspensionDraft,
} from '../../src/receipts/types.js';

/** A key whose bytes derive from `seed`: the same seed always gives the same key. */
export function fixedKey(kid: string, seed = kid, withEd25519 = true): ReceiptKey {
  let counter = 0;
  const random = (size: number): Uint8Array => {
    counter++;
    return createHash('sha256').update(`${seed}:${counter}`).digest().subarray(0, size);
  };
  const key = generateReceiptKey({ kid, random });
  return withEd25519 ? key : new ReceiptKey(kid, { hmac: Buffer.from(key.keyFile().hmac, 'base64url') });
}

const span = (n: number): { traceId: string; spanId: string } => ({
  traceId: createHash('sha256').update(`t${n}`).digest('hex').slice(0, 32),
  spanId: createHash('sha256').update(`s${n}`).digest('hex').slice(0, 16),
});

export function suspensionDraftFor(n: number): SuspensionDraft {
  return buildSuspensionDraft({
    taskId: taskFor(n),
    contextId: `ctx-${n % 3}`,
    initiatedBy: n % 2 === 0 ? 'PAUSE_INITIATOR_CLIENT' : 'PAUSE_INITIATOR_AGENT',
    principal: n % 2 === 0 ? 'jwt:sub=alice' : null,
    via: n % 2 === 0 ? 'PauseTask' : 'statusUpdate',
    reason: `waiting for approval ${n}`,
    mode: n % 2 === 0 ? 'finish_step' : null,
    conditions: n % 3 === 0 ? null : { onEvent: `approval-${n}`, timeout: { durationMinutes: 30, onTimeout: 'fail' } },
    resumeToken: `tok-${n}`,
    pausedAt: new Date(Date.UTC(2026, 0, 1, 9, 0, n % 60)).toISOString(),
    observedAt: new Date(Date.UTC(2026, 0, 1, 9, 0, n % 60, 5)).toISOString(),
    entries: [n * 3 + 2, n * 3 + 1],
    span: span(n),
  });
}

/** The task of {@link suspensionDraftFor}(n). */
export function taskFor(n: number): string {
  return `task-${n % 7}`;
}

/** A resumption of a suspension of `taskId` (a resumption names a suspension of its own task). */
export function resumptionDraftFor(
  n: number,
  outcome: ResumptionDraft['outcome'] = 'resumed',
  taskId = taskFor(n),
): ResumptionDraft {
  return buildResumptionDraft({
    taskId,
    cause: outcome === 'canceled' ? 'canceled' : 'explicit_resume',
    outcome,
    errorCode: outcome === 'rejected' ? -32011 : null,
    principal: 'jwt:sub=bob',
    input: n % 2 === 0 ? { approved: true } : undefined,
    continueTranscript: outcome === 'rejected' ? null : true,
    resumedAt: outcome === 'rejected' ? null : new Date(Date.UTC(2026, 0, 1, 10, 0, n % 60)).toISOString(),
    observedAt: new Date(Date.UTC(2026, 0, 1, 10, 0, n % 60, 5)).toISOString(),
    entries: [n * 3 + 3],
    span: span(n + 100000),
    links: { suspension: span(n), pipeline: null },
  });
}

export const CREATED_AT = '2026-01-01T09:00:00.000Z';

/**
 * A log of `count` receipts: suspensions, and for every third one a rejected attempt and then a
 * resumption. Returns the lines' canonical texts (header first, no newlines).
 */
export function buildLogLines(options: {
  count: number;
  keyring: Keyring;
  kid?: string;
  checkpointEvery?: number;
  rotateAt?: { seq: number; kid: string };
  /** The format version (default the current one). */
  version?: ReceiptLogVersion;
  /** What the closing checkpoint binds the log to (its `id` must be 'rec-test'). */
  binding?: RecordingBinding;
}): string[] {
  const chain = new ReceiptChain({
    keyring: options.keyring,
    ...(options.kid === undefined ? {} : { kid: options.kid }),
    checkpointEvery: options.checkpointEvery ?? 10,
    recording: 'rec-test',
    createdAt: CREATED_AT,
    tool: 'a2a-replay@test',
    ...(options.version === undefined ? {} : { version: options.version }),
  });
  const lines: SealedLine[] = [chain.header];
  const open: { hash: string; task: string }[] = [];
  let n = 0;
  while (chain.size < options.count) {
    if (options.rotateAt && chain.size + 1 === options.rotateAt.seq) chain.rotate(options.rotateAt.kid);
    const step = n % 4;
    const first = open[0];
    const sealed =
      step === 3 && first
        ? chain.sealResumption(resumptionDraftFor(n, 'resumed', first.task), (open.shift() as typeof first).hash)
        : step === 2 && first
          ? chain.sealResumption(resumptionDraftFor(n, 'rejected', first.task), first.hash)
          : chain.sealSuspension(suspensionDraftFor(n));
    if (sealed.receipt.line.type === 'SuspensionReceipt') open.push({ hash: sealed.receipt.hash, task: taskFor(n) });
    lines.push(sealed.receipt);
    if (sealed.checkpoint) lines.push(sealed.checkpoint);
    n++;
  }
  const last = chain.close(options.binding ?? null);
  if (last) lines.push(last);
  return lines.map((l) => l.text);
}
