/**
 * Interruption, Continuation and pause spans through a keyed recorder with `traces` and
 * `principalFrom: 'jwt-sub'` (`startRecorder`, what `record --key --traces` runs) in front of the
 * deterministic reference peer (`startPeer`), both in this process (docs/design.md §7, §14.9): an
 * `ask:` answered by a
 * client message gives an Interruption span and a Continuation span linked to it, carrying the
 * ids and hashes of their receipts and the semantic-convention attributes; the pause spans carry
 * those attributes too; `run --traces` of the recording (`replayReport`) writes the same trace
 * file, byte for byte.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, hashCanonical, sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { bearer } from '../helpers/jwt.js';
import { replayReport } from '../helpers/run-report.js';
import { ok } from '../replay/session.js';
import { type OtlpSpan, type OtlpTraceRequest, attributesOf, spansOf } from './otlp-proto.js';

/** The reference peer's agent card `name`. */
const AGENT = 'a2a-replay reference peer';

let dir = '';
let recording = '';
let receipts = '';
let keyFile = '';
let traces = '';
interface TaskView {
  id: string;
  contextId: string;
  status: { state: string };
}

const none: TaskView = { id: '', contextId: '', status: { state: '' } };
let asked = none;
let unanswered = none;
let paused = none;

/** A blocking SendMessage of `text` as `sub` (on `taskId` when given): the task it answers with. */
async function send(url: string, text: string, sub: string, taskId?: string): Promise<TaskView> {
  const message = { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId } : {}) };
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: bearer(sub) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
  });
  const body = (await res.json()) as { result?: { task: TaskView } };
  if (!body.result) throw new Error(`SendMessage failed: ${JSON.stringify(body)}`);
  return body.result.task;
}

const receiptLines = async (): Promise<Array<{ text: string; line: Record<string, unknown> }>> =>
  (await readFile(receipts, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((text) => ({ text, line: JSON.parse(text) as Record<string, unknown> }));
const traceSpans = async (file: string): Promise<OtlpSpan[]> =>
  spansOf(JSON.parse(await readFile(file, 'utf8')) as OtlpTraceRequest);
const attrs = (span: OtlpSpan | undefined): Record<string, unknown> => attributesOf(span?.attributes);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracing-interruptions-'));
  recording = join(dir, 'asks.jsonl');
  receipts = join(dir, 'asks.receipts.jsonl');
  keyFile = join(dir, 'key.json');
  traces = join(dir, 'traces');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'k-asks' }).keyFile()), { mode: 0o600 });
  const peer = await startPeer({ deterministic: true });
  try {
    const recorder = await startRecorder({
      upstream: peer.url,
      out: recording,
      key: keyFile,
      principalFrom: 'jwt-sub',
      traces,
      warn: () => undefined,
    });
    try {
      asked = await send(recorder.url, 'ask:approve_the_deploy?', 'bob');
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect((await send(recorder.url, 'yes', 'alice', asked.id)).status.state).toBe('TASK_STATE_COMPLETED');
      const message = { messageId: 'm-work', role: 'ROLE_USER', parts: [{ text: 'work:3' }] };
      const started = await ok<{ task: TaskView }>(recorder.url, 'SendMessage', {
        message,
        configuration: { returnImmediately: true },
      });
      paused = started.task;
      const pause = await ok<{ pause: { resumeToken: string } }>(recorder.url, 'PauseTask', { taskId: paused.id });
      await ok(recorder.url, 'ResumeTask', { taskId: paused.id, resumeToken: pause.pause.resumeToken });
      unanswered = await send(recorder.url, 'ask:anyone_there?', 'bob');
    } finally {
      expect((await recorder.close()).complete).toBe(true);
    }
  } finally {
    await peer.close();
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('record --key --traces with an ask: step', () => {
  it('writes an Interruption span with its receipt’s ids and hash and the A2A attributes', async () => {
    const spans = await traceSpans(join(traces, 'asks.otlp.json'));
    const receipt = (await receiptLines()).find(
      (r) => r.line.type === 'InterruptionReceipt' && r.line.taskId === asked.id,
    );
    const ref = receipt?.line.span as { traceId: string; spanId: string };
    const span = spans.find((s) => s.spanId === ref.spanId);
    expect(span).toMatchObject({ name: 'Interruption', traceId: ref.traceId });
    expect(attrs(span)).toMatchObject({
      'a2a.task.id': asked.id,
      'a2a.task.state': 'TASK_STATE_INPUT_REQUIRED',
      'a2a.method.name': 'SendMessage',
      'gen_ai.conversation.id': asked.contextId,
      'gen_ai.agent.name': AGENT,
      'a2a.interruption.prompt_hash': hashCanonical([{ text: 'approve the deploy?' }]),
      'a2a.receipt.hash': sha256Prefixed(receipt?.text ?? ''),
    });
  });

  it('writes a Continuation span linked to the Interruption, naming who continued it, with what and how', async () => {
    const spans = await traceSpans(join(traces, 'asks.otlp.json'));
    const lines = await receiptLines();
    const interruption = lines.find((r) => r.line.type === 'InterruptionReceipt' && r.line.taskId === asked.id);
    const continuation = lines.find((r) => r.line.type === 'ContinuationReceipt');
    const ref = continuation?.line.span as { traceId: string; spanId: string };
    const interruptionRef = interruption?.line.span as { traceId: string; spanId: string };
    const span = spans.find((s) => s.spanId === ref.spanId);
    expect(span).toMatchObject({ name: 'Continuation', traceId: ref.traceId });
    expect(span?.parentSpanId ?? '').toBe('');
    expect(span?.links?.map((l) => [l.traceId, l.spanId, attrs(l)['a2a.link.kind']])).toEqual([
      [interruptionRef.traceId, interruptionRef.spanId, 'interruption'],
    ]);
    expect(attrs(span)).toMatchObject({
      'a2a.task.id': asked.id,
      'a2a.task.state': 'TASK_STATE_COMPLETED',
      'a2a.method.name': 'SendMessage',
      'gen_ai.conversation.id': asked.contextId,
      'gen_ai.agent.name': AGENT,
      'a2a.continuation.cause': 'message',
      'a2a.principal': 'jwt:sub=alice',
      'a2a.continuation.input_hash': hashCanonical([{ text: 'yes' }]),
      'a2a.receipt.hash': sha256Prefixed(continuation?.text ?? ''),
    });
  });

  it('puts the A2A attributes on the pause spans and on the LostInterruption of the unanswered ask:', async () => {
    const spans = await traceSpans(join(traces, 'asks.otlp.json'));
    const one = (name: string): OtlpSpan | undefined => {
      const found = spans.filter((s) => s.name === name);
      expect(found, name).toHaveLength(1);
      return found[0];
    };
    const common = { 'gen_ai.agent.name': AGENT };
    expect(attrs(one('Suspension'))).toMatchObject({
      ...common,
      'a2a.task.id': paused.id,
      'a2a.task.state': 'TASK_STATE_PAUSED',
      'a2a.method.name': 'PauseTask',
      'gen_ai.conversation.id': paused.contextId,
    });
    expect(attrs(one('Resume'))).toMatchObject({
      ...common,
      'a2a.task.id': paused.id,
      'a2a.method.name': 'ResumeTask',
      'gen_ai.conversation.id': paused.contextId,
    });
    expect(attrs(one('LostInterruption'))).toMatchObject({
      ...common,
      'a2a.task.id': unanswered.id,
      'a2a.task.state': 'TASK_STATE_INPUT_REQUIRED',
      'gen_ai.conversation.id': unanswered.contextId,
      'a2a.lost.reason': 'never_continued',
    });
    expect(spans.filter((s) => s.name === 'Interruption')).toHaveLength(2);
  });

  it('gives the same trace file when the recording is replayed', async () => {
    const replay = await replayReport([recording], { key: keyFile, traces: join(dir, 'replayed') });
    expect(replay.code, replay.warnings.join('\n') + replay.stdout).toBe(0);
    expect(await readFile(join(dir, 'replayed', 'asks.otlp.json'), 'utf8')).toBe(
      await readFile(join(traces, 'asks.otlp.json'), 'utf8'),
    );
  });
});
