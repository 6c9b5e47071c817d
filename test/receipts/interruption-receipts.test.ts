/**
 * Interruption and continuation receipts in a receipt log (docs/design.md §6, §14.9): version 5
 * seals them in the chain, every reader reads them the same way, `verify` checks that a
 * continuation closes an open interruption of its own task, and a log before version 5 holds none.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson, hashCanonical, sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { buildContinuationDraft, buildInterruptionDraft } from '../../src/receipts/interruption-drafts.js';
import { Keyring } from '../../src/receipts/keys.js';
import { readReceiptLogLineByFields } from '../../src/receipts/read-line.js';
import { readReceiptLineFast } from '../../src/receipts/read-line-fast.js';
import { scanReceiptLine } from '../../src/receipts/scan-line.js';
import { signReceipt } from '../../src/receipts/signing.js';
import type {
  ContinuationCause,
  ContinuationDraft,
  InterruptionDraft,
  ReceiptLogVersion,
} from '../../src/receipts/types.js';
import { verifyReceiptLogBytes } from '../../src/receipts/verify.js';
import { RECORDING_VERSION, type RecordingHeader } from '../../src/recording/format.js';
import { deriveReceiptLog } from '../../src/replay/derive-receipts.js';
import { CTX, Entries, TASK, userMessage } from '../observe/entries.js';
import { CREATED_AT, fixedKey } from './fixtures.js';

const key = fixedKey('key-a');
const keyring = new Keyring([key]);
const SPAN = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
const NEXT = { traceId: 'c'.repeat(32), spanId: 'd'.repeat(16) };

function chainOf(version?: ReceiptLogVersion): ReceiptChain {
  return new ReceiptChain({
    keyring,
    checkpointEvery: 0,
    recording: 'rec-1',
    createdAt: CREATED_AT,
    tool: 'a2a-replay@test',
    ...(version === undefined ? {} : { version }),
  });
}

function interruption(taskId = 'task-1'): InterruptionDraft {
  return buildInterruptionDraft({
    taskId,
    contextId: 'ctx-1',
    state: 'TASK_STATE_INPUT_REQUIRED',
    prompt: [{ text: 'Approve? (yes/no)' }],
    interruptedAt: '2026-01-01T09:00:01.000Z',
    observedAt: '2026-01-01T09:00:01.005Z',
    entries: [5],
    span: SPAN,
    binding: 'JSONRPC',
  });
}

function continuation(cause: ContinuationCause = 'message', taskId = 'task-1'): ContinuationDraft {
  return buildContinuationDraft({
    taskId,
    cause,
    principal: cause === 'message' ? 'jwt:sub=alice' : null,
    input: cause === 'message' ? [{ text: 'yes' }] : null,
    observedAt: '2026-01-01T09:00:09.005Z',
    entries: [9, 5, 7],
    span: NEXT,
    interruptionSpan: SPAN,
    binding: 'HTTP+JSON',
  });
}

/** A closed version-5 log: an interruption and what `close` adds after it. */
function logOf(build: (chain: ReceiptChain, interrupted: string) => string[]): string {
  const chain = chainOf();
  const sealed = chain.sealInterruption(interruption());
  const lines = [chain.header.text, sealed.receipt.text, ...build(chain, sealed.receipt.hash)];
  const closing = chain.close(null);
  if (closing) lines.push(closing.text);
  return `${lines.join('\n')}\n`;
}

describe('interruption receipts', () => {
  it('seals an interruption and its continuation in a version-5 log that verifies', () => {
    const log = logOf((chain, hash) => [chain.sealContinuation(continuation(), hash).receipt.text]);
    const result = verifyReceiptLogBytes(log, { keyring });
    expect(result.firstError).toBeUndefined();
    expect(result).toMatchObject({ ok: true, version: 5, receipts: 2 });
    const [, first, second] = log
      .split('\n')
      .map((l) => (l === '' ? null : (JSON.parse(l) as Record<string, unknown>)));
    expect(first).toMatchObject({
      type: 'InterruptionReceipt',
      seq: 1,
      state: 'TASK_STATE_INPUT_REQUIRED',
      promptHash: hashCanonical([{ text: 'Approve? (yes/no)' }]),
    });
    expect(second).toMatchObject({
      type: 'ContinuationReceipt',
      seq: 2,
      interruption: sha256Prefixed(log.split('\n')[1] as string),
      principal: 'jwt:sub=alice',
      inputHash: hashCanonical([{ text: 'yes' }]),
      entries: [5, 7, 9],
      interruptionSpan: SPAN,
    });
  });

  it('reads each kind the same by the scan, the fast reader and the field readers', () => {
    for (const cause of ['message', 'out_of_band', 'canceled', 'failed'] as const) {
      const chain = chainOf();
      const i = chain.sealInterruption(interruption());
      const c = chain.sealContinuation(continuation(cause), i.receipt.hash);
      for (const sealed of [i.receipt, c.receipt]) {
        const scanned = scanReceiptLine(sealed.text);
        expect(scanned, `${cause}: ${sealed.line.type} scanned`).not.toBeNull();
        const general = readReceiptLogLineByFields(JSON.parse(sealed.text));
        expect(general.ok).toBe(true);
        expect(scanned?.line).toEqual(general.ok ? general.value : null);
        expect(readReceiptLineFast(JSON.parse(sealed.text))).toEqual(scanned?.line);
        expect(canonicalJson(scanned?.line)).toBe(sealed.text);
      }
    }
  });

  it('names the member a continuation line gets wrong', () => {
    const chain = chainOf();
    const i = chain.sealInterruption(interruption());
    const c = JSON.parse(chain.sealContinuation(continuation(), i.receipt.hash).receipt.text) as Record<
      string,
      unknown
    >;
    const read = readReceiptLogLineByFields({ ...c, cause: 'explicit_resume' });
    expect(read.ok ? null : read.issue.field).toBe('cause');
  });

  it('fails a continuation naming no open interruption, one already closed, or one of another task', () => {
    const unknown = logOf((chain) => [chain.sealContinuation(continuation(), `sha256:${'0'.repeat(64)}`).receipt.text]);
    expect(verifyReceiptLogBytes(unknown, { keyring }).firstError).toMatchObject({
      line: 3,
      reason: 'unknown_interruption',
    });
    const twice = logOf((chain, hash) => [
      chain.sealContinuation(continuation(), hash).receipt.text,
      chain.sealContinuation(continuation(), hash).receipt.text,
    ]);
    const second = verifyReceiptLogBytes(twice, { keyring }).firstError;
    expect(second).toMatchObject({ line: 4, reason: 'unknown_interruption' });
    expect(second?.message).toMatch(/an earlier line closed/);
    const other = logOf((chain, hash) => [
      chain.sealContinuation(continuation('message', 'task-2'), hash).receipt.text,
    ]);
    expect(verifyReceiptLogBytes(other, { keyring }).firstError?.message).toMatch(
      /for task task-2, but the interruption it names is of task task-1/,
    );
  });

  it('refuses interruption lines in a log before version 5, and a chain of one will not seal them', () => {
    const chain = chainOf(4);
    expect(chain.takesInterruptions).toBe(false);
    expect(() => chain.sealInterruption(interruption())).toThrow(/version-4 receipt log holds no interruption/);
    // Signed by the key, chained to a version-4 header: refused for what it is, at its line.
    const body = { ...interruption(), seq: 1, prev: chain.header.hash };
    const line = canonicalJson({ ...body, sig: signReceipt(body, key) });
    const failure = verifyReceiptLogBytes(`${chain.header.text}\n${line}\n`, { keyring, allowOpen: true }).firstError;
    expect(failure).toMatchObject({ line: 2, reason: 'malformed_line' });
    expect(failure?.message).toMatch(/InterruptionReceipt in a version-4 log/);
  });
});

describe('interruption receipts derived from a recording', () => {
  const header: RecordingHeader = {
    type: 'recording',
    version: RECORDING_VERSION,
    id: 'rec-interrupt',
    createdAt: CREATED_AT,
    target: { url: 'http://127.0.0.1:1/' },
    tool: 'a2a-replay@test',
  };

  function session(): Entries {
    const e = new Entries();
    e.request('m1', 'SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'deploy' }] } });
    e.result('m1', {
      task: {
        id: TASK,
        contextId: CTX,
        status: {
          state: 'TASK_STATE_INPUT_REQUIRED',
          message: { messageId: 'p', role: 'ROLE_AGENT', parts: [{ text: 'Approve?' }] },
        },
      },
    });
    e.request('m2', 'SendMessage', userMessage('yes', TASK), { principal: 'jwt:sub=alice' });
    e.result('m2', { task: { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_COMPLETED' } } });
    return e;
  }

  it('writes an interruption and its continuation, chained, in a version-5 log that verifies', async () => {
    const { lines } = await deriveReceiptLog({ header, entries: session().list, keyring, tool: 'a2a-replay@test' });
    const types = lines.map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types).toEqual(['ReceiptLog', 'InterruptionReceipt', 'ContinuationReceipt', 'Checkpoint']);
    expect(JSON.parse(lines[2] as string)).toMatchObject({ principal: 'jwt:sub=alice', cause: 'message' });
    expect(verifyReceiptLogBytes(`${lines.join('\n')}\n`, { keyring }).ok).toBe(true);
  });

  it("leaves them out of a log derived in a golden's version 4", async () => {
    const { lines } = await deriveReceiptLog({
      header,
      entries: session().list,
      keyring,
      tool: 'a2a-replay@test',
      version: 4,
    });
    expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['ReceiptLog', 'Checkpoint']);
  });
});
