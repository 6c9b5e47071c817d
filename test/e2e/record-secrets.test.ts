/**
 * No secret at rest and none exposed by `a2a-replay record`, as a process: credentials in headers,
 * in the query and in the upstream URL's user-info reach no file the recorder writes (recording,
 * receipt log, trace file), no line it or `audit` / `verify` / `lost` / `run` prints, and no answer
 * a client gets (a 502 included); `/control` is not forwarded from a non-loopback listen address.
 * The reference peer runs in the test's process; what `verify` and `audit --json` print is what
 * their library calls give (test/helpers/verdicts.ts); redaction by the name rule is the
 * recorder's (`startRecorder`, in the test's process).
 */
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { CONTROL_REFUSED_MESSAGE } from '../../src/intercept/recording-proxy.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { RedactionMarks, derivedMarkKey } from '../../src/recording/redaction-mark.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { runCli } from '../helpers/cli.js';
import { auditVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { type CliProcess, startRecordProcess, stopProcess } from '../helpers/cli-process.js';

const USER = 'admin-u7q';
const PASSWORD = 's3cretpw-Zq81';
const API_KEY = 'AK-7f3e9c1d2b44';
const BEARER = 'opq-tok-5e8a1c0d9f';
const COOKIE = 'ck-91ab77e3';
const AUTH_TOKEN = 'xat-3c4d5e6f70';
const QUERY_KEY = 'QS-k2l9m8n7p6';
const SECRETS = [USER, PASSWORD, API_KEY, BEARER, COOKIE, AUTH_TOKEN, QUERY_KEY];

let dir = '';
const procs: CliProcess[] = [];
const peers: RunningPeer[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-secrets-'));
});
afterEach(async () => {
  for (const p of procs.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const peer of peers.splice(0)) await peer.close();
  await rm(dir, { recursive: true, force: true });
});

/** The deterministic reference peer, in this process; what it would say on stderr goes to `said`. */
async function peerHere(said: string[] = []): Promise<RunningPeer> {
  const peer = await startPeer({ deterministic: true, warn: (line) => said.push(line) });
  peers.push(peer);
  return peer;
}

async function filesUnder(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

function expectNoSecret(where: string, text: string): void {
  for (const secret of SECRETS) expect(text.includes(secret), `${where} holds ${secret}`).toBe(false);
}

it('keeps every credential out of files, output and answers, and names the key-holder by a hash', async () => {
  const key = join(dir, 'key.json');
  const receiptKey = generateReceiptKey({ kid: 'secrets' });
  await writeFile(key, canonicalJson(receiptKey.keyFile()), { mode: 0o600 });
  const peerSaid: string[] = [];
  const peer = await peerHere(peerSaid);
  const upstream = peer.url.replace('http://', `http://${USER}:${PASSWORD}@`);
  const out = join(dir, 'session.jsonl');
  const recorder = await startRecordProcess([
    '--upstream',
    upstream,
    '--out',
    out,
    '--key',
    key,
    '--principal-from',
    'header:x-api-key',
    '--traces',
    join(dir, 'traces'),
  ]);
  procs.push(recorder);
  const recorderStdout = recorder.stdout;

  const answers: string[] = [];
  const credentials = {
    'x-api-key': API_KEY,
    authorization: `Bearer ${BEARER}`,
    cookie: `sid=${COOKIE}`,
    'x-auth-token': AUTH_TOKEN,
  };
  let id = 1;
  const send = async (method: string, params: unknown, path = '/'): Promise<Record<string, unknown>> => {
    const res = await fetch(`${recorder.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...credentials },
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
    });
    const text = await res.text();
    answers.push(text);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const ok = async <T>(method: string, params: unknown, path = '/'): Promise<T> => {
    const reply = await send(method, params, path);
    expect(reply, method).toHaveProperty('result');
    return reply.result as T;
  };

  const card = await fetch(`${recorder.url}/.well-known/agent-card.json?api_key=${QUERY_KEY}&lang=en`, {
    headers: credentials,
  });
  expect(card.status).toBe(200);
  answers.push(await card.text());

  // Task A: paused, a wrong-token resume (rejected), resumed. Task B: paused and left behind.
  const start = (): Promise<{ task: { id: string } }> =>
    ok('SendMessage', {
      message: { messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
  const a = await start();
  await ok('AdvanceClock', { ms: 1000 }, '/control');
  const paused = await ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId: a.task.id, reason: 'review' });
  expect(await send('ResumeTask', { taskId: a.task.id, resumeToken: 'wrong' })).toMatchObject({
    error: { code: -32011 },
  });
  await ok('AdvanceClock', { ms: 5000 }, '/control');
  await ok('ResumeTask', { taskId: a.task.id, resumeToken: paused.pause.resumeToken });
  await ok('AdvanceClock', { ms: 3000 }, '/control');
  const b = await start();
  await ok('AdvanceClock', { ms: 1000 }, '/control');
  await ok('PauseTask', { taskId: b.task.id, reason: 'left behind' });

  // The upstream goes away: the 502 names it without its user-info.
  await peer.close();
  const failed = await fetch(recorder.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...credentials },
    body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'GetTask', params: { id: a.task.id } }),
  });
  expect(failed.status).toBe(502);
  const failure = await failed.text();
  answers.push(failure);
  expect(failure).toContain(`upstream ${peer.url} failed`);
  expect(await stopProcess(recorder)).toBe(0);

  // What was recorded: the principal by hash, redacted headers and query, the upstream without user-info.
  // Keyed under the mark key the receipt key derives: no guess at the key hashes to it without it.
  const marks = new RedactionMarks(derivedMarkKey((d) => receiptKey.macOf([d])));
  const principal = `header:x-api-key=hmac:${marks.digest(API_KEY, 16)}`;
  const recording = await readRecording(out);
  expect(recording.header.target.url).toBe(peer.url);
  const requests = recording.entries.filter((e) => e.kind === 'request');
  expect(requests.length).toBe(12);
  expect(new Set(requests.map((e) => e.principal))).toEqual(new Set([principal]));
  for (const name of Object.keys(credentials)) {
    expect(requests[0]?.http.headers?.[name], name).toMatch(/^\[redacted hmac:[0-9a-f]{16}\]$/);
  }
  expect(requests[0]?.http.path).toMatch(
    /^\/\.well-known\/agent-card\.json\?api_key=%5Bredacted%20hmac%3A[0-9a-f]{16}%5D&lang=en$/,
  );
  const last = recording.entries.at(-1);
  expect(last?.kind).toBe('error');
  expect(last?.error).toContain(`upstream ${peer.url} failed`);

  const log = join(dir, 'session.receipts.jsonl');
  const audit = await auditVerdict([log], key);
  expect(audit.code).toBe(0);
  const rows = audit.rows as { taskId: string; principal: string | null }[];
  expect(rows.map((r) => [r.taskId, r.principal])).toEqual([
    [a.task.id, principal],
    [b.task.id, principal],
  ]);
  const auditTable = await runCli(['audit', log, '--key', key]);
  expect(auditTable.code).toBe(0);
  const verify = await verifyVerdict([log], key);
  expect(verify.code).toBe(0);
  expect(verify.lines.join('\n')).toContain('ok: 4 receipts');
  const lostRecording = await runCli(['lost', out]);
  const lostLog = await runCli(['lost', log, '--key', key]);
  for (const lost of [lostRecording, lostLog]) {
    expect(lost.code).toBe(1);
    expect(lost.stdout).toContain(b.task.id);
  }
  // run names a --peer it cannot reach without its user-info
  const unreachable = peer.url.replace('http://', `http://${USER}:${PASSWORD}@`);
  const run = await runCli(['run', out, '--key', key, '--peer', unreachable]);
  expect(run.code).toBe(3);
  expect(run.stdout).toContain(`cannot reach the peer at ${peer.url} (`);

  const files = await filesUnder(dir);
  expect(files.map((f) => f.slice(dir.length + 1)).sort()).toEqual([
    'key.json',
    'session.jsonl',
    'session.receipts.jsonl',
    join('traces', 'session.otlp.json'),
  ]);
  for (const file of files) expectNoSecret(file, await readFile(file, 'utf8'));
  for (const file of [out, log]) expect((await stat(file)).mode & 0o777).toBe(0o600);
  expectNoSecret('record stdout', recorderStdout());
  expectNoSecret('record stderr', recorder.stderr());
  expectNoSecret('peer stderr', peerSaid.join('\n'));
  expectNoSecret('audit --json', JSON.stringify(audit.rows));
  expectNoSecret('verify', `${verify.lines.join('\n')}\n${JSON.stringify(verify.json)}`);
  for (const result of [auditTable, lostRecording, lostLog, run]) {
    expectNoSecret('command output', `${result.stdout}\n${result.stderr}`);
  }
  for (const answer of answers) expectNoSecret('an answer', answer);
});

it('does not forward /control from a non-loopback listen address and warns once on stderr', async () => {
  const key = join(dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'wide' }).keyFile()), { mode: 0o600 });
  const peer = await peerHere();
  const out = join(dir, 'wide.jsonl');
  const recorder = await startRecordProcess([
    '--upstream',
    peer.url.replace('http://', `http://${USER}:${PASSWORD}@`),
    '--out',
    out,
    '--key',
    key,
    '--listen',
    '0.0.0.0:0',
  ]);
  procs.push(recorder);
  expect(recorder.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
  const local = recorder.url.replace('0.0.0.0', '127.0.0.1');
  const post = (url: string, method: string, params: unknown): Promise<Response> =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
    });

  const refused = await post(`${local}/control`, 'AdvanceClock', { ms: 60_000 });
  expect(refused.status).toBe(403);
  expect(await refused.json()).toMatchObject({ id: 7, error: { code: -32600, message: CONTROL_REFUSED_MESSAGE } });
  const sent = await post(local, 'SendMessage', {
    message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'work:1' }] },
    configuration: { returnImmediately: true },
  });
  expect(await sent.json()).toHaveProperty('result.task.id');
  // the peer's clock never moved
  expect(await (await post(`${peer.url}/control`, 'GetClock', {})).json()).toMatchObject({
    result: { now: '2026-01-01T00:00:00.000Z' },
  });
  expect(await stopProcess(recorder)).toBe(0);

  expect(recorder.stderr().trimEnd().split('\n')).toEqual([
    `a2a-replay: listening on a non-loopback address: every client that can reach it can send requests to ` +
      `${peer.url} through this recorder (/control is not forwarded)`,
    // and the summary at the stop, which names the files, not the upstream's user-info
    expect.stringMatching(/^a2a-replay: stopped: 2 exchanges, 0 pauses, .*; wrote \S+wide\.jsonl and /),
  ]);
  const entries = (await readRecording(out)).entries;
  expect(entries.slice(0, 2).map((e) => [e.kind, e.http.path, e.error])).toEqual([
    ['request', '/control', undefined],
    ['error', '/control', CONTROL_REFUSED_MESSAGE],
  ]);
  expect(entries.filter((e) => e.kind === 'request').map((e) => e.http.path)).toEqual(['/control', '/']);
});

it('redacts gateway credentials and OAuth codes by the name rule, and keeps a --keep-header in clear', async () => {
  const peer = await peerHere();
  const out = join(dir, 'gateways.jsonl');
  // No key: a recording only.
  const recorder = await startRecorder({
    upstream: peer.url,
    out,
    keepHeader: ['X-Tenant-Key'],
    principalFrom: 'header:x-tenant-key',
    warn: () => undefined,
  });
  const secretHeaders: Record<string, string> = {
    'x-functions-key': 'fnk-81c2d3e4',
    'ocp-apim-subscription-key': 'apim-5a6b7c8d',
    'cf-access-jwt-assertion': 'cfj-9e0f1a2b',
    'x-goog-iap-jwt-assertion': 'iap-3c4d5e6f',
    'x-amzn-oidc-data': 'oidc-7a8b9c0d',
    'x-access-key': 'acc-1e2f3a4b',
    'x-private-key': 'prv-5c6d7e8f',
  };
  const secretQuery: Record<string, string> = {
    code: 'oc-9a8b7c6d',
    pwd: 'pwd-5e4f3a2b',
    pw: 'pw-1c0d9e8f',
    jwt: 'qj-7a6b5c4d',
  };
  const query = Object.entries(secretQuery)
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const res = await fetch(`${recorder.url}/?${query}&lang=en`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-tenant-key': 'acme', ...secretHeaders },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
  });
  expect(res.status).toBe(200);
  await res.text();
  expect((await recorder.close()).complete).toBe(true);

  const text = await readFile(out, 'utf8');
  for (const secret of [...Object.values(secretHeaders), ...Object.values(secretQuery)])
    expect(text.includes(secret), `the recording holds ${secret}`).toBe(false);
  const request = (await readRecording(out)).entries.find((e) => e.kind === 'request');
  for (const name of Object.keys(secretHeaders))
    expect(request?.http.headers?.[name], name).toMatch(/^\[redacted hmac:[0-9a-f]{16}\]$/);
  expect(request?.http.headers?.['x-tenant-key']).toBe('acme');
  expect(request?.principal).toBe('acme');
  expect(request?.http.path).toMatch(/&lang=en$/);
});

it('refuses a header named by both --keep-header and --redact', async () => {
  const result = await runCli([
    'record',
    '--upstream',
    'http://127.0.0.1:9',
    '--out',
    join(dir, 'x.jsonl'),
    '--redact',
    'X-Tenant',
    '--keep-header',
    'x-tenant',
  ]);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('--keep-header: x-tenant is also named by --redact');
});
