/**
 * Property-based test of a recorder with a key (`startRecorder`, in this process) in front of the
 * deterministic reference peer (`startPeer`): random sequences of pause/resume flows mixed with
 * hostile requests (random and deeply nested JSON, lone surrogates in a reason, in `conditions` and
 * in a JWT `sub`, invalid UTF-8, broken envelopes, bodies over the limit). Properties, for every
 * run: `seq` is contiguous and the recording reads back whole; `lost` reads it (`lostPauses`: exit
 * 0 or 1, never 2); the receipt log verifies (`verifyLogSet`); and there is exactly one
 * SuspensionReceipt per pause and one resumed ResumptionReceipt per resume that a client was told
 * about; and every JSON-RPC call with an id gets a JSON-RPC answer (a result or an error). Inputs
 * come from a fixed seed.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { generateReceiptKey } from '../../src/public/receipts.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { startTestRecorder } from '../helpers/in-process.js';
import { lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { unsignedJwt } from '../helpers/jwt.js';
import { fuzzRuns } from '../helpers/fuzz.js';

let dir = '';
let keyFile = '';
let peer: RunningPeer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-fuzz-'));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'fuzz' }).keyFile()), { mode: 0o600 });
  peer = await startPeer({ deterministic: true });
});
afterAll(async () => {
  await peer.close();
  await rm(dir, { recursive: true, force: true });
});

const lone = fc.constantFrom('\ud800', 'x\udfff', '\udc00\ud800', 'ok\ud83d');
const text = fc.oneof(fc.string({ maxLength: 12 }), lone);

type Step =
  | { kind: 'pause'; reason: string; onEvent: string | null; sub: string | null; resume: 'right' | 'wrong' | 'none' }
  | { kind: 'raw'; body: Buffer | string };

const nested = fc.integer({ min: 1_000, max: 60_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`);
const hostile: fc.Arbitrary<Step> = fc
  .oneof(
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    nested,
    fc.constantFrom(
      '{"jsonrpc":"2.0","id":1,"method":"PauseTask","params":{"taskId":"\\ud800"}}',
      '{"jsonrpc":"2.0","id":{},"method":"GetTask","params":{"id":"x"}}',
      '{"jsonrpc":"1.0","id":1,"method":"ListTasks"}',
      '[{"jsonrpc":"2.0","id":1,"method":"ListTasks"}]',
      '{"jsonrpc":"2.0","id":1,"method":"PauseTask","params":{"taskId":"t","reason":"a","reason":"b"}}',
      'not json at all',
      '',
    ),
    fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.from([0xff, 0xfe, ...bytes])),
    fc.constant('x'.repeat(70_000)),
  )
  .map((body) => ({ kind: 'raw' as const, body }));
const pause: fc.Arbitrary<Step> = fc.record({
  kind: fc.constant('pause' as const),
  reason: text,
  onEvent: fc.option(text, { nil: null }),
  sub: fc.option(text, { nil: null }),
  resume: fc.constantFrom('right' as const, 'wrong' as const, 'none' as const),
});

interface Answer {
  status: number;
  body: unknown;
}

async function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body,
  });
  const raw = await res.text();
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw) as unknown;
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body: parsed };
}

let nextId = 1;
function rpc(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params });
}

type Result = { result?: Record<string, unknown> };

/** Runs the steps through the recorder; returns the task ids whose pause and resume were acknowledged. */
async function drive(
  url: string,
  steps: Step[],
): Promise<{ pauses: string[]; resumes: string[]; sent: number; unanswered: string[] }> {
  const pauses: string[] = [];
  const resumes: string[] = [];
  let sent = 0;
  const unanswered: string[] = [];
  const send = (body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> => {
    sent++;
    return post(url, body, headers);
  };
  for (const step of steps) {
    if (step.kind === 'raw') {
      const answer = await send(step.body);
      if (isCall(step.body)) unanswered.push(...(isRpcAnswer(answer.body) ? [] : [JSON.stringify(answer.body)]));
      continue;
    }
    const auth: Record<string, string> = step.sub === null ? {} : { authorization: `Bearer ${unsignedJwt(step.sub)}` };
    const started = (
      await send(
        rpc('SendMessage', {
          message: { messageId: `m-${nextId}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
          configuration: { returnImmediately: true },
        }),
        auth,
      )
    ).body as Result;
    const taskId = (started.result?.task as { id?: string } | undefined)?.id;
    if (taskId === undefined) continue;
    const conditions = step.onEvent === null ? undefined : { onEvent: step.onEvent };
    const paused = (await send(rpc('PauseTask', { taskId, reason: step.reason, conditions }), auth)).body as Result;
    if (paused.result?.state !== 'TASK_STATE_PAUSED') continue;
    pauses.push(taskId);
    if (step.resume === 'none') continue;
    const token = (paused.result.pause as { resumeToken: string }).resumeToken;
    const resumed = (
      await send(rpc('ResumeTask', { taskId, resumeToken: step.resume === 'right' ? token : `${token}-wrong` }), auth)
    ).body as Result;
    if (resumed.result?.state !== undefined) resumes.push(taskId);
  }
  return { pauses, resumes, sent, unanswered };
}

/** A JSON-RPC request with an id (a call that must get an answer), from raw bytes or text. */
function isCall(body: Buffer | string): boolean {
  try {
    const value = JSON.parse(body.toString()) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
    const { id, method } = value as { id?: unknown; method?: unknown };
    return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number');
  } catch {
    return false;
  }
}

/** A JSON-RPC answer: `jsonrpc: "2.0"` and a result or an error. */
function isRpcAnswer(body: unknown): boolean {
  if (body === null || typeof body !== 'object') return false;
  const answer = body as Record<string, unknown>;
  return answer.jsonrpc === '2.0' && ('result' in answer || 'error' in answer);
}

let runs = 0;

it('records every hostile run whole, with one receipt per acknowledged pause and resume', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.oneof(pause, hostile), { minLength: 3, maxLength: 12 }), async (steps) => {
      const out = join(dir, `run-${runs++}.jsonl`);
      const recorder = await startTestRecorder({ upstream: peer.url, out, key: keyFile, maxBodyBytes: 64 * 1024 });
      let acknowledged: Awaited<ReturnType<typeof drive>>;
      try {
        acknowledged = await drive(recorder.url, steps);
      } finally {
        expect((await recorder.close()).complete, recorder.warnings.join('\n')).toBe(true);
      }
      expect(recorder.warnings.join('\n')).not.toMatch(/failed/);
      // Every JSON-RPC call, however hostile, got a JSON-RPC answer through the recorder.
      expect(acknowledged.unanswered).toEqual([]);

      const recording = await readRecording(out);
      expect(recording.entries.map((e) => e.seq)).toEqual(recording.entries.map((_, i) => i + 1));
      expect(recording.entries.filter((e) => e.kind === 'request')).toHaveLength(acknowledged.sent);
      // Bytes that are not UTF-8 are never written as lossy text: a note with their hash stands in.
      const notes = recording.entries.filter((e) =>
        /^\[body not recorded: not valid UTF-8; sha256 /.test(e.bodyText ?? ''),
      );
      expect(notes).toHaveLength(steps.filter((s) => s.kind === 'raw' && Buffer.isBuffer(s.body)).length);
      expect(recording.entries.some((e) => (e.bodyText ?? '').includes('\ufffd'))).toBe(false);
      expect([0, 1]).toContain((await lostVerdict([out])).code);

      const log = out.replace(/\.jsonl$/, '.receipts.jsonl');
      const verdict = await verifyVerdict([log], [keyFile]);
      expect(verdict.stdout).toMatch(/: ok: /);
      const lines = (await readFile(log, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; taskId?: string; outcome?: string; via?: string });
      const suspensions = lines.filter((l) => l.type === 'SuspensionReceipt' && l.via === 'PauseTask');
      const resumed = lines.filter((l) => l.type === 'ResumptionReceipt' && l.outcome === 'resumed');
      expect(suspensions.map((l) => l.taskId).sort()).toEqual([...acknowledged.pauses].sort());
      expect(resumed.map((l) => l.taskId).sort()).toEqual([...acknowledged.resumes].sort());
    }),
    { numRuns: fuzzRuns(4), seed: 20261203, endOnFailure: true },
  );
}, 240_000);
