/**
 * HTTP+JSON end to end through `a2a-replay record` (child processes, real sockets): the stock
 * `@a2a-js/sdk` client forced to its REST transport gets the same results with and without the
 * recorder from the SDK's own `restHandler` server, and every exchange is recorded; the same
 * pause/resume session against the reference peer over JSON-RPC and over HTTP+JSON yields receipts
 * equal except for their binding, and `verify`, `audit` and `lost` work on both.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, ClientFactory, ClientFactoryOptions, RestTransportFactory } from '@a2a-js/sdk/client';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { SCENARIOS } from '../../scripts/golden/scenarios.js';
import type { Binding } from '../../src/protocol/rest-binding.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { runCli } from '../helpers/cli.js';
import { type CliProcess, startCliProcess, startRecordProcess } from '../helpers/cli-process.js';
import { sdkSession as session, startSdkEchoServer } from '../intercept/sdk-echo-server.js';

let dir = '';
const processes: CliProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-rest-'));
});

afterEach(async () => {
  for (const p of processes.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

async function stop(p: CliProcess): Promise<number | null> {
  if (p.child.exitCode === null) p.child.kill('SIGTERM');
  return p.exited;
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

it('gives the SDK REST client the same answers from restHandler with and without record, recording all', async () => {
  const upstream = await startSdkEchoServer({ rest: true });
  try {
    const direct = await session(await restClient(upstream.url));
    const out = join(dir, 'session.jsonl');
    const recorder = await startRecordProcess(['--upstream', upstream.url, '--out', out]);
    processes.push(recorder);
    const proxied = await session(await restClient(recorder.url));
    expect(proxied).toEqual(direct);
    expect(JSON.stringify(direct)).toContain('TaskNotFoundError');
    expect(await stop(recorder)).toBe(0);

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
  const peer = await startCliProcess(['peer', '--deterministic']);
  processes.push(peer);
  const recording = join(dir, `${binding === 'JSONRPC' ? 'jsonrpc' : 'rest'}.jsonl`);
  const recorder = await startRecordProcess(['--upstream', peer.url, '--out', recording, '--key', key]);
  processes.push(recorder);
  const client = new A2aTestClient(recorder.url, 'operator', binding);
  for (const name of KEY_SCENARIOS) await SCENARIOS.find((s) => s.name === name)!.run(client);
  expect(await stop(recorder)).toBe(0);
  await stop(peer);
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
  expect((await runCli(['keygen', '--out', key, '--kid', 'k1'])).code).toBe(0);
  const rpc = await recordSession('JSONRPC', key);
  const rest = await recordSession('HTTP+JSON', key);

  const overRpc = await receiptsOf(rpc.receipts);
  const overRest = await receiptsOf(rest.receipts);
  expect(overRpc.map((r) => r.binding)).toEqual(['JSONRPC', 'JSONRPC', 'JSONRPC', 'JSONRPC']);
  expect(overRest.map((r) => r.binding)).toEqual(['HTTP+JSON', 'HTTP+JSON', 'HTTP+JSON', 'HTTP+JSON']);
  expect(overRest.map(content)).toEqual(overRpc.map(content));
  expect(overRest.find((r) => r.outcome === 'rejected')?.errorCode).toBe(-32011);

  for (const { recording, receipts } of [rpc, rest]) {
    const verified = await runCli(['verify', receipts, '--key', key]);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const audit = await runCli(['audit', receipts, '--key', key]);
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stdout).toContain('resumed (explicit_resume)');
    expect(audit.stdout).toContain('forgotten');
    for (const file of [recording, receipts]) {
      const lost = await runCli(['lost', file, '--json']);
      expect(lost.code, lost.stderr).toBe(1);
      expect((JSON.parse(lost.stdout) as { lost: unknown[] }).lost).toHaveLength(1);
    }
  }
});
