/**
 * HTTP+JSON end to end through the recorder (`startRecorder` in this process, real sockets): the
 * stock `@a2a-js/sdk` client forced to its REST transport gets the same results with and without
 * the recorder from the SDK's own `restHandler` server, and every exchange is recorded; the same
 * pause/resume session against the reference peer (`startPeer`) over JSON-RPC and over HTTP+JSON
 * yields receipts equal except for their binding, and what `verify`, `audit` and `lost` conclude
 * (`verifyLogSet`, `auditLogSet`, `lostPauses`) holds on both.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, ClientFactory, ClientFactoryOptions, RestTransportFactory } from '@a2a-js/sdk/client';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { SCENARIOS } from '../../scripts/golden/scenarios.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import type { Binding } from '../../src/protocol/rest-binding.js';
import { startPeer } from '../../src/public/peer.js';
import { auditLogSet, auditRefusal, generateReceiptKey, openLogSet } from '../../src/public/receipts.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { type TestRecorder, startTestRecorder } from '../helpers/in-process.js';
import { lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { sdkSession as session, startSdkEchoServer } from '../intercept/sdk-echo-server.js';

let dir = '';
const recorders: TestRecorder[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-rest-'));
});

afterEach(async () => {
  for (const r of recorders.splice(0)) await r.close();
  await rm(dir, { recursive: true, force: true });
});

/** Closes `r`: true when every line was written (as `record` exits 0 on SIGTERM). */
async function stop(r: TestRecorder): Promise<boolean> {
  return (await r.close()).complete;
}

function restClient(url: string): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new RestTransportFactory()],
      preferredTransports: ['HTTP+JSON'],
    }),
  );
  return factory.createFromUrl(url);
}

const SAME_ANSWERS = 'gives the SDK REST client the same answers from restHandler with and without the recorder';

it(`${SAME_ANSWERS}, recording all`, async () => {
  const upstream = await startSdkEchoServer({ rest: true });
  try {
    const direct = await session(await restClient(upstream.url));
    const out = join(dir, 'session.jsonl');
    const recorder = await startTestRecorder({ upstream: upstream.url, out });
    recorders.push(recorder);
    const proxied = await session(await restClient(recorder.url));
    expect(proxied).toEqual(direct);
    expect(JSON.stringify(direct)).toContain('TaskNotFoundError');
    expect(await stop(recorder)).toBe(true);

    const recording = await readRecording(out);
    const requests = recording.entries.filter((e) => e.kind === 'request');
    expect(requests.map((e) => `${e.http.method} ${e.http.path.replace(/[0-9a-f-]{36}/g, '{id}')}`)).toEqual([
      'GET /.well-known/agent-card.json',
      'POST /a2a/rest/message:send',
      'GET /a2a/rest/tasks/{id}',
      'POST /a2a/rest/message:stream',
      'GET /a2a/rest/tasks/no-such-task',
      'POST /a2a/rest/tasks/{id}:cancel',
    ]);
    const streamXid = requests[3]?.xid;
    const kinds = recording.entries.filter((e) => e.xid === streamXid).map((e) => e.kind);
    expect(kinds[0]).toBe('request');
    expect(kinds.filter((k) => k === 'event').length).toBe((direct as unknown[][])[2]!.length);
    expect(kinds.at(-1)).toBe('end');
    const missing = recording.entries.find((e) => e.kind === 'response' && e.xid === requests[4]?.xid);
    expect(missing?.http.status).toBe(404);
    expect(missing?.body).toMatchObject({ error: { details: [{ reason: 'TASK_NOT_FOUND' }] } });
  } finally {
    await upstream.close();
  }
});

const KEY_SCENARIOS = ['wrong-token-then-right', 'lost-pause'];

interface Receipt {
  type: string;
  binding?: string;
  [key: string]: unknown;
}

/** Records the wrong-token-then-right and lost-pause sessions in `binding`; returns the files written. */
async function recordSession(binding: Binding, key: string): Promise<{ recording: string; receipts: string }> {
  const peer = await startPeer({ deterministic: true });
  const recording = join(dir, `${binding === 'JSONRPC' ? 'jsonrpc' : 'rest'}.jsonl`);
  try {
    const recorder = await startTestRecorder({ upstream: peer.url, out: recording, key });
    recorders.push(recorder);
    const client = new A2aTestClient(recorder.url, 'operator', binding);
    for (const name of KEY_SCENARIOS) await SCENARIOS.find((s) => s.name === name)!.run(client);
    expect(await stop(recorder)).toBe(true);
  } finally {
    await peer.close();
  }
  return { recording, receipts: recording.replace(/\.jsonl$/, '.receipts.jsonl') };
}

async function receiptsOf(file: string): Promise<Receipt[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Receipt)
    .filter((l) => l.type === 'SuspensionReceipt' || l.type === 'ResumptionReceipt');
}

/** What a receipt says about the session: no chain links, signatures, spans or recorder times. */
function content(r: Receipt): Record<string, unknown> {
  const { prev: _p, sig: _s, span: _sp, links: _l, suspension: _su, observedAt: _o, binding: _b, ...rest } = r;
  return rest;
}

it('derives receipts equal except for the binding from one session over JSON-RPC and over HTTP+JSON', async () => {
  const key = join(dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'k1' }).keyFile()), { mode: 0o600 });
  const rpc = await recordSession('JSONRPC', key);
  const rest = await recordSession('HTTP+JSON', key);

  const overRpc = await receiptsOf(rpc.receipts);
  const overRest = await receiptsOf(rest.receipts);
  expect(overRpc.map((r) => r.binding)).toEqual(['JSONRPC', 'JSONRPC', 'JSONRPC', 'JSONRPC']);
  expect(overRest.map((r) => r.binding)).toEqual(['HTTP+JSON', 'HTTP+JSON', 'HTTP+JSON', 'HTTP+JSON']);
  expect(overRest.map(content)).toEqual(overRpc.map(content));
  expect(overRest.find((r) => r.outcome === 'rejected')?.errorCode).toBe(-32011);

  for (const { recording, receipts } of [rpc, rest]) {
    const verdict = await verifyVerdict([receipts], [key]);
    expect(verdict.code, verdict.stdout).toBe(0);
    const set = await openLogSet([receipts], { keys: [key] });
    try {
      // `audit` prints the rows when auditRefusal is null (exit 0), each ending as `resumed (cause)`.
      const audit = await auditLogSet(set);
      expect(auditRefusal(audit)).toBeNull();
      expect(audit.rows).toContainEqual(expect.objectContaining({ outcome: 'resumed', cause: 'explicit_resume' }));
      expect(audit.rows).toContainEqual(expect.objectContaining({ reason: 'forgotten' }));
    } finally {
      await set.close();
    }
    for (const file of [recording, receipts]) {
      const lost = await lostVerdict([file]);
      expect(lost.code).toBe(1);
      expect(lost.found.lost).toHaveLength(1);
    }
  }
});
