/**
 * Receipts of gRPC calls (docs/design.md §16): the same session (send, pause, a resume with a
 * wrong token, resume) sent over gRPC and over JSON-RPC through a keyed recorder (`startRecorder`,
 * what `a2a-replay record --key` runs) to a fresh deterministic reference peer (`startPeer`), both
 * in this process, gets the RFC's status codes over gRPC and gives receipts that verify (what
 * `verify --recording` concludes) and are equal but for `binding`, the entries they cite, span ids,
 * times and what hangs on those (prev, sig, the suspension's hash).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type JsonValue, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import { Client as GrpcClient, Metadata, type ServiceError, credentials, status } from '@grpc/grpc-js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { GRPC_METHODS } from '../../src/grpc/methods.js';
import type { CoreMethod, PauseMethod } from '../../src/protocol/methods.js';
import { startPeer } from '../../src/public/peer.js';
import { type ReceiptKey, generateReceiptKey } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { verifyVerdict } from '../helpers/verdicts.js';
import { call, ok } from '../replay/session.js';

let dir = '';
const closers: (() => Promise<unknown>)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-grpc-receipts-'));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await rm(dir, { recursive: true, force: true });
});

/** What a call answered: its result, or the error as a JSON-RPC code (JSON-RPC) or gRPC status and reason. */
type Answer = { result: Record<string, unknown> } | { error: { code: number; reason?: string } };
type Caller = (method: CoreMethod | PauseMethod, params: JsonValue) => Promise<Answer>;

function jsonRpcCaller(url: string): Caller {
  return async (method, params) => {
    const reply = await call(url, method, params);
    if ('result' in reply) return { result: reply.result as Record<string, unknown> };
    return { error: { code: (reply.error as { code: number }).code } };
  };
}

function grpcCaller(client: GrpcClient): Caller {
  return (method, params) => {
    const { service, request, response } = GRPC_METHODS[method];
    const metadata = new Metadata();
    metadata.set('a2a-version', '1.0');
    return new Promise((resolve) => {
      client.makeUnaryRequest(
        `/${service}/${method}`,
        (value: JsonValue) => Buffer.from(toBinary(request, fromJson(request, value))),
        (bytes: Buffer) => toJson(response, fromBinary(response, bytes)),
        params,
        metadata,
        (error: ServiceError | null, value?: JsonValue) => {
          if (error === null) {
            resolve({ result: value as Record<string, unknown> });
            return;
          }
          const bin = error.metadata.get('grpc-status-details-bin')[0];
          const reason = Buffer.isBuffer(bin) ? /[A-Z_]{6,}/.exec(bin.toString('latin1'))?.[0] : undefined;
          resolve({ error: { code: error.code, ...(reason === undefined ? {} : { reason }) } });
        },
      );
    });
  };
}

/** Send, pause, a resume with a wrong token, resume; gives what the two resume calls answered. */
async function pauseSession(send: Caller, control: string): Promise<Answer[]> {
  const started = await send('SendMessage', {
    message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
    configuration: { returnImmediately: true },
  });
  if (!('result' in started)) throw new Error(`SendMessage failed: ${JSON.stringify(started)}`);
  const taskId = (started.result.task as { id: string }).id;
  await ok(control, 'AdvanceClock', { ms: 1000 }, '/control');
  const paused = await send('PauseTask', { taskId, reason: 'review', mode: 'interrupt_immediate' });
  if (!('result' in paused)) throw new Error(`PauseTask failed: ${JSON.stringify(paused)}`);
  const token = (paused.result.pause as { resumeToken: string }).resumeToken;
  const wrong = await send('ResumeTask', { taskId, resumeToken: 'wrong' });
  await ok(control, 'AdvanceClock', { ms: 5000 }, '/control');
  const resumed = await send('ResumeTask', { taskId, resumeToken: token, input: { approved: true, note: null } });
  return [wrong, resumed];
}

/** Runs the session through a keyed recorder in front of a fresh deterministic peer; gives the log's lines. */
async function recorded(
  name: string,
  keyFile: string,
  session: (recorderUrl: string) => Promise<Answer[]>,
): Promise<{ answers: Answer[]; log: string; lines: Record<string, unknown>[]; recording: string }> {
  const peer = await startPeer({ deterministic: true });
  let peerClosed = false;
  closers.push(async () => peerClosed || (await peer.close()));
  const out = join(dir, `${name}.jsonl`);
  const recorder = await startRecorder({ upstream: peer.url, out, key: keyFile, warn: () => undefined });
  let recorderClosed = false;
  closers.push(async () => recorderClosed || (await recorder.close()));
  const answers = await session(recorder.url);
  recorderClosed = true;
  expect((await recorder.close()).complete).toBe(true);
  peerClosed = true;
  await peer.close();
  const log = join(dir, `${name}.receipts.jsonl`);
  const lines = (await readFile(log, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { answers, log, lines, recording: out };
}

/**
 * A receipt without what differs by binding: the binding, entries, span ids, the recorder's times
 * and the hashes over them. The peer's times compare as text: ProtoJSON writes `…01Z` what
 * JSON-RPC writes `…01.000Z`, and both logs hold the canonical text (docs/design.md §6, "Peer times").
 */
function comparable(line: Record<string, unknown>): Record<string, unknown> {
  const {
    binding: _binding,
    entries: _entries,
    span: _span,
    links: _links,
    prev: _prev,
    sig: _sig,
    suspension: _suspension,
    observedAt: _observedAt,
    ...rest
  } = line;
  return rest;
}

it('gives gRPC receipts that verify and equal JSON-RPC ones but for binding, entries, spans and times', async () => {
  const keyFile = join(dir, 'key.json');
  const key: ReceiptKey = generateReceiptKey({ kid: 'e2e' });
  await writeFile(keyFile, canonicalJson(key.keyFile()), { mode: 0o600 });

  const overJson = await recorded('json', keyFile, (url) => pauseSession(jsonRpcCaller(url), url));
  const overGrpc = await recorded('grpc', keyFile, async (url) => {
    const client = new GrpcClient(new URL(url).host, credentials.createInsecure());
    try {
      return await pauseSession(grpcCaller(client), url);
    } finally {
      client.close();
    }
  });

  // The RFC's codes: -32011 over JSON-RPC is FAILED_PRECONDITION + RESUME_TOKEN_MISMATCH over gRPC.
  expect(overJson.answers[0]).toEqual({ error: { code: -32011 } });
  expect(overGrpc.answers[0]).toEqual({
    error: { code: status.FAILED_PRECONDITION, reason: 'RESUME_TOKEN_MISMATCH' },
  });
  expect(overGrpc.answers[1]).toMatchObject({ result: { state: 'TASK_STATE_WORKING' } });

  const receipts = (lines: Record<string, unknown>[]) => lines.filter((l) => String(l.type).endsWith('Receipt'));
  const json = receipts(overJson.lines);
  const grpc = receipts(overGrpc.lines);
  expect(grpc.map((r) => [r.type, r.outcome ?? null, r.binding])).toEqual([
    ['SuspensionReceipt', null, 'GRPC'],
    ['ResumptionReceipt', 'rejected', 'GRPC'],
    ['ResumptionReceipt', 'resumed', 'GRPC'],
  ]);
  expect(json.every((r) => r.binding === 'JSONRPC')).toBe(true);
  expect(grpc.map(comparable)).toEqual(json.map(comparable));
  expect(grpc[2]?.inputHash).toMatch(/^sha256:/);
  expect(overGrpc.lines[0]).toMatchObject({ type: 'ReceiptLog', version: 5 });

  // The recording holds the calls as ProtoJSON, the resume token as its placeholder.
  const entries = (await readRecording(overGrpc.recording)).entries.filter((e) => e.grpc !== undefined);
  expect(JSON.stringify(entries)).toContain('a2a-replay:resume-token:sha256:');

  const verified = await verifyVerdict([overGrpc.log], key, { checks: { recording: overGrpc.recording } });
  expect(verified.code, verified.stdout).toBe(0);
});
