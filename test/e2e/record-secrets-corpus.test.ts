/**
 * Secrets by rule (docs/design.md §5, "Secrets by rule"): a seeded corpus of planted
 * credentials — header names of every family, URL-valued headers with user-info and credential
 * query parameters, query names, JSON members at any depth, URLs in bodies, in requests, answers,
 * SSE events and the agent card, over JSON-RPC, HTTP+JSON and gRPC metadata — is recorded by the
 * recorder of `record` (`startRecorder`, in the test's process) in front of a fake agent (a
 * node:http server planting credentials in what it answers) and in front of the reference peer
 * (in the test's process too); then every command that writes a file runs over what was recorded:
 * `run --html --junit --traces` as a process, `report` and `mock --report` as the library calls
 * those commands make; and what `lost --json` and `audit --json` print is what their library calls
 * give (test/helpers/verdicts.ts). No planted value is in any file written or any output,
 * no mark is the hash of a guess, equal values get equal marks, and `run` and `mock` still work on
 * the redacted recording.
 */
import { createHash, createHmac } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MessageInitShape, create, toBinary } from '@bufbuild/protobuf';
import { Client as GrpcClient, Metadata, credentials } from '@grpc/grpc-js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { Role, SendMessageRequestSchema } from '../../src/grpc/gen/lf/a2a/v1/a2a_pb.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { startPeer } from '../../src/public/peer.js';
import { type Recorder, type RecorderOptions, startRecorder } from '../../src/public/record.js';
import { loadKeyring } from '../../src/public/receipts.js';
import { REPLAY_MAX_BODY_DEPTH, startMockServer } from '../../src/public/mock.js';
import { reportSections, writeHtmlReport } from '../../src/public/report.js';
import { usageFailure } from '../../cli/record-flags.js';
import { describeMockReport } from '../../cli/commands/mock.js';
import { runCli } from '../helpers/cli.js';
import { auditVerdict, lostVerdict } from '../helpers/verdicts.js';
import { Corpus, URL_HEADERS, headerNames, jsonKeys, queryNames, urlValue } from './secrets-corpus.js';

let dir = '';
const closers: (() => Promise<void>)[] = [];

/**
 * The recorder of `record`, in this process, closed after the test if it did not close it; what
 * it would say on stderr goes to `said`.
 */
async function recordHere(options: RecorderOptions, said: string[] = []): Promise<Recorder> {
  const recorder = await startRecorder({ warn: (line) => said.push(line), ...options });
  let closed: ReturnType<Recorder['close']> | undefined;
  const close = (): ReturnType<Recorder['close']> => (closed ??= recorder.close());
  closers.push(async () => void (await close()));
  return { url: recorder.url, close };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'secrets-corpus-'));
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await rm(dir, { recursive: true, force: true });
});

async function filesUnder(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

/** What `report FILES [--key KEY] --out OUT` writes (cli/commands/report.ts). */
async function reportHere(files: string[], out: string, key?: string): Promise<void> {
  const keyring = key === undefined ? undefined : (await loadKeyring({ keys: [key], publicKeys: [], env: {} })).keyring;
  await writeHtmlReport(out, await reportSections(files, { keyring }), 'a2a-replay report');
}

/** Planted credentials of every kind, for one place: headers, a query, JSON members, URLs. */
function plant(corpus: Corpus, place: string, base: string) {
  const headers: Record<string, string> = {};
  for (const name of headerNames(corpus, 8)) headers[name] = corpus.value(`${place} header`, name);
  for (const name of URL_HEADERS) {
    const query = `${corpus.pick(['access_token', 'code', 'otp', 'X-Amz-Signature'])}=`;
    const user = `u-${corpus.value(`${place} ${name} user-info`, name)}`;
    headers[name] = urlValue(name, base, user, `${query}${corpus.value(`${place} ${name} query`, name)}`);
  }
  const query = queryNames(corpus, 6)
    .map((name) => `${encodeURIComponent(name)}=${corpus.value(`${place} query`, name)}`)
    .join('&');
  const members: Record<string, unknown> = {};
  for (const name of jsonKeys(corpus, 8)) members[name] = corpus.value(`${place} JSON`, name);
  const nested = { level1: { level2: [{ level3: members }] } };
  const presigned =
    `https://bucket.example/o?X-Amz-Credential=${corpus.value(`${place} presigned`, 'X-Amz-Credential')}` +
    `&X-Amz-Signature=${corpus.value(`${place} presigned`, 'X-Amz-Signature')}&X-Amz-Expires=60`;
  const user = corpus.value(`${place} URL user-info`, 'user');
  const callback = `https://cb-${user}@hooks.example/in?sig=${corpus.value(`${place} URL`, 'sig')}`;
  return { headers, query, json: { ...members, nested, presigned, callback } };
}

/** The fake agent: a card, a JSON-RPC and an HTTP+JSON answer and an SSE stream, each planted. */
function fakeAgent(corpus: Corpus): Promise<{ url: string; cardSecret: string }> {
  let url = '';
  const cardSecret = corpus.value('card', 'client_secret');
  const answer = (res: ServerResponse, body: unknown, extra: Record<string, string> = {}): void => {
    const planted = plant(corpus, 'answer', 'agent.example');
    res.writeHead(200, { 'content-type': 'application/json', ...planted.headers, ...extra });
    res.end(JSON.stringify({ ...(body as object), planted: planted.json }));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      const path = req.url ?? '/';
      if (path.startsWith('/.well-known/agent-card.json')) {
        const user = `card-${corpus.value('card user-info', 'user')}`;
        const apiKey = corpus.value('card query', 'api_key');
        answer(res, {
          name: 'planted',
          supportedInterfaces: [
            { url: url.replace('http://', `http://${user}@`) + `/?api_key=${apiKey}`, protocolBinding: 'JSONRPC' },
          ],
          securitySchemes: { apiKey: { apiKeySecurityScheme: { name: 'X-API-Key', location: 'header' } } },
          oauth: { client_secret: cardSecret, tokenUrl: 'https://idp.example/token' },
        });
        return;
      }
      if (path.startsWith('/message:send'))
        return answer(res, { task: { id: 'rest-1', status: { state: 'TASK_STATE_COMPLETED' } } });
      const call = JSON.parse(text) as { id: number; method: string };
      if (call.method !== 'SendStreamingMessage') {
        return answer(res, {
          jsonrpc: '2.0',
          id: call.id,
          result: { task: { id: 't-1', status: { state: 'TASK_STATE_WORKING' } } },
        });
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'x-stream-token': corpus.value('SSE head', 'x-stream-token'),
      });
      for (let i = 0; i < 3; i++) {
        const planted = plant(corpus, `event ${i}`, 'events.example');
        const result = {
          statusUpdate: { taskId: 't-1', status: { state: 'TASK_STATE_WORKING' }, metadata: planted.json },
        };
        res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, result })}\n\n`);
      }
      res.end();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      closers.push(() => new Promise((done) => server.close(() => done())));
      resolve({ url, cardSecret });
    });
  });
}

const MARK = /\[redacted hmac:([0-9a-f]{16})\]|%5Bredacted%20hmac%3A([0-9a-f]{16})%5D/g;

/** Every mark's hex in `text`. */
function marksIn(text: string): Set<string> {
  return new Set([...text.matchAll(MARK)].map((m) => (m[1] ?? m[2])!));
}

/** Sends `body` to `url` with planted headers; gives the answer's text. */
async function post(url: string, body: unknown, headers: Record<string, string>): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify(body),
  });
  return res.text();
}

/** `record` in front of the fake agent: the card, JSON-RPC, an SSE stream and HTTP+JSON, each planted. */
async function recordFakeAgent(corpus: Corpus, answers: string[]): Promise<{ out: string; cardSecret: string }> {
  const agent = await fakeAgent(corpus);
  const out = join(dir, 'agent.jsonl');
  const said: string[] = [];
  const recorder = await recordHere({ upstream: agent.url, out, traces: join(dir, 'traces') }, said);
  const first = plant(corpus, 'card request', 'client.example');
  const card = await fetch(`${recorder.url}/.well-known/agent-card.json?${first.query}`, { headers: first.headers });
  answers.push(await card.text());
  // The same header values twice, in two requests: their marks must be equal.
  const twice = plant(corpus, 'request', 'client.example');
  for (const [name, value] of Object.entries(twice.headers)) corpus.again('request again', name, value);
  for (const method of ['GetTask', 'SendStreamingMessage']) {
    const params = { id: 't-1', metadata: twice.json, message: { messageId: 'm-1', metadata: twice.json } };
    answers.push(
      await post(`${recorder.url}/?${twice.query}`, { jsonrpc: '2.0', id: 1, method, params }, twice.headers),
    );
  }
  const rest = plant(corpus, 'HTTP+JSON request', 'client.example');
  answers.push(
    await post(`${recorder.url}/message:send?${rest.query}`, { message: { metadata: rest.json } }, rest.headers),
  );
  expect((await recorder.close()).complete).toBe(true);
  expect(said.join('\n')).not.toMatch(/failed/);
  return { out, cardSecret: agent.cardSecret };
}

/** `record --key` in front of the reference peer: a pause resumed, one left behind, a gRPC call. */
async function recordPeer(corpus: Corpus, key: string, answers: string[]): Promise<string> {
  const peer = await startPeer({ deterministic: true });
  closers.push(() => peer.close());
  const out = join(dir, 'peer.jsonl');
  const recorder = await recordHere({ upstream: peer.url, out, key, traces: join(dir, 'traces') });
  const planted = plant(corpus, 'peer request', 'client.example');
  const headers = { ...planted.headers, authorization: `Bearer ${corpus.value('peer request', 'authorization')}` };
  let id = 1;
  const call = async <T>(method: string, params: unknown, path = '/'): Promise<T> => {
    const text = await post(`${recorder.url}${path}`, { jsonrpc: '2.0', id: id++, method, params }, headers);
    answers.push(text);
    return (JSON.parse(text) as { result: T }).result;
  };
  const start = (): Promise<{ task: { id: string } }> =>
    call('SendMessage', {
      message: { messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }], metadata: planted.json },
      configuration: { returnImmediately: true },
    });
  const a = await start();
  await call('AdvanceClock', { ms: 1000 }, '/control');
  const paused = await call<{ pause: { resumeToken: string } }>('PauseTask', { taskId: a.task.id, reason: 'review' });
  await call('AdvanceClock', { ms: 2000 }, '/control');
  await call('ResumeTask', { taskId: a.task.id, resumeToken: paused.pause.resumeToken });
  await call('AdvanceClock', { ms: 3000 }, '/control');
  const b = await start();
  await call('AdvanceClock', { ms: 1000 }, '/control');
  await call('PauseTask', { taskId: b.task.id, reason: 'left behind' });
  await grpcSend(new URL(recorder.url).host, corpus);
  expect((await recorder.close()).complete).toBe(true);
  return out;
}

/** One gRPC SendMessage through the recorder, its metadata planted. */
async function grpcSend(target: string, corpus: Corpus): Promise<void> {
  const client = new GrpcClient(target, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  for (const name of headerNames(corpus, 6)) metadata.set(name.toLowerCase(), corpus.value('gRPC metadata', name));
  metadata.set(
    'referer',
    `https://u-${corpus.value('gRPC referer', 'user')}@x.example/?code=${corpus.value('gRPC referer', 'code')}`,
  );
  const request: MessageInitShape<typeof SendMessageRequestSchema> = {
    message: { messageId: 'm-grpc', role: Role.USER, parts: [{ content: { case: 'text', value: 'work:1' } }] },
    // The deterministic peer's clock moves only when told: answer with the task at once.
    configuration: { returnImmediately: true },
  };
  try {
    await new Promise<void>((resolve, reject) =>
      client.makeUnaryRequest(
        '/lf.a2a.v1.A2AService/SendMessage',
        (value: typeof request) =>
          Buffer.from(toBinary(SendMessageRequestSchema, create(SendMessageRequestSchema, value))),
        (bytes: Buffer) => bytes,
        request,
        metadata,
        { deadline: Date.now() + 20_000 },
        (error) => (error ? reject(error) : resolve()),
      ),
    );
  } finally {
    client.close();
  }
}

it('keeps a generated corpus of credentials out of every file, marks them keyed, replays and mocks', async () => {
  const corpus = new Corpus(49);
  const key = join(dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'corpus' }).keyFile()), { mode: 0o600 });
  const answers: string[] = [];
  const agent = await recordFakeAgent(corpus, answers);
  const peer = await recordPeer(corpus, key, answers);
  expect(corpus.planted.length).toBeGreaterThan(300);

  // Every command that writes a file, over what was recorded.
  const log = join(dir, 'peer.receipts.jsonl');
  // `report` is its library calls: it prints the file's path and counts, nothing of the input.
  await reportHere([agent.out], join(dir, 'agent-report.html'));
  await reportHere([peer, log], join(dir, 'peer-report.html'), key);
  const outputs = [
    await runCli([
      'run',
      peer,
      '--key',
      key,
      '--html',
      join(dir, 'run.html'),
      '--junit',
      join(dir, 'junit.xml'),
      '--traces',
      join(dir, 'run-traces'),
    ]),
  ];
  const [run] = outputs;
  const lost = await lostVerdict([peer]);
  const lostLog = await lostVerdict([log], { keys: key });
  const audit = await auditVerdict([log], key);
  // Replay on the redacted recording: no drift (a mark stands for the live value).
  expect(run?.code, `${run?.stdout}\n${run?.stderr}`).toBe(0);
  expect(lost.code).toBe(1);
  expect(lostLog.code).toBe(1);
  expect(audit.code, audit.why ?? '').toBe(0);

  // The mock (`mock --report`, its library calls) serves the redacted recording to a client sending
  // the request with its real secrets.
  const mock = await startMockServer(
    [{ source: peer, recording: await readRecording(peer, { maxBodyDepth: REPLAY_MAX_BODY_DEPTH }) }],
    { host: '127.0.0.1', port: 0 },
  );
  closers.push(() => mock.close());
  const recorded = (await readRecording(peer)).entries.find(
    (e) => e.kind === 'request' && (e.body as { method?: string } | undefined)?.method === 'SendMessage',
  );
  expect(recorded).toBeDefined();
  const firstPlanted = corpus.planted.filter((p) => p.place === 'peer request JSON');
  const resent = structuredClone(recorded?.body) as { params: { message: { metadata: Record<string, unknown> } } };
  for (const p of firstPlanted) resent.params.message.metadata[p.name] = p.value;
  const mocked = await post(mock.url, resent, {});
  expect(JSON.parse(mocked)).toHaveProperty('result.task.id');
  answers.push(mocked);
  await mock.close();
  const mockReport = mock.report();
  await writeFile(join(dir, 'mock-report.json'), `${JSON.stringify(mockReport, null, 2)}\n`);
  // What `mock` prints at its stop.
  const mockSaid = describeMockReport(mockReport);

  // 0 planted values on disk, in any output, in any answer a client got back from the mock.
  const files = await filesUnder(dir);
  expect(files.length).toBeGreaterThan(10);
  let marks = new Set<string>();
  for (const file of files) {
    if (file === key) continue;
    const text = await readFile(file, 'utf8');
    expect(
      corpus.found(text).map((p) => `${p.place} ${p.name}`),
      file,
    ).toEqual([]);
    marks = new Set([...marks, ...marksIn(text)]);
  }
  for (const result of outputs) expect(corpus.found(`${result.stdout}\n${result.stderr}`)).toEqual([]);
  // What lost --json and audit --json print.
  for (const printed of [lost.json, lostLog.json, audit.rows])
    expect(corpus.found(JSON.stringify(printed))).toEqual([]);
  expect(corpus.found(mockSaid)).toEqual([]);
  expect(corpus.found(mocked)).toEqual([]);

  // No mark is the hash of a guess: SHA-256, or HMAC under an empty or a wrong key, of each value.
  expect(marks.size).toBeGreaterThan(200);
  for (const { value } of corpus.planted) {
    const guesses = [
      createHash('sha256').update(value).digest('hex'),
      createHmac('sha256', '').update(value).digest('hex'),
      createHmac('sha256', Buffer.alloc(32)).update(value).digest('hex'),
      createHmac('sha256', 'wrong-key').update(value).digest('hex'),
    ];
    for (const guess of guesses) {
      expect(marks.has(guess.slice(0, 16))).toBe(false);
      expect([...marks].some((m) => m.startsWith(guess.slice(0, 8)))).toBe(false);
    }
  }

  // Equal values inside one recording get equal marks: the same headers in two requests, the
  // card's secret in the header and in the card's answer.
  const entries = (await readRecording(agent.out)).entries.filter((e) => e.kind === 'request');
  const [getTask, stream] = entries.slice(1, 3);
  expect(getTask?.http.headers?.['x-otp']).toMatch(/^\[redacted hmac:[0-9a-f]{16}\]$/);
  expect(stream?.http.headers).toEqual(getTask?.http.headers);
  const agentText = await readFile(agent.out, 'utf8');
  const header = (await readRecording(agent.out)).header.agentCard as { oauth: { client_secret: string } };
  expect(header.oauth.client_secret).toMatch(/^\[redacted hmac:[0-9a-f]{16}\]$/);
  expect(agentText.split(header.oauth.client_secret).length - 1).toBe(2);
});

it('adjusts the rule with --redact, --keep-header, --redact-query, --keep-query and the JSON key flags', async () => {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { customerRef: 'CR-ans', webhookToken: 'WT-ans' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((done) => server.close(() => done())));
  const address = server.address();
  const upstream = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const out = join(dir, 'flags.jsonl');
  const flags = [
    ['--redact', 'X-Tenant'],
    ['--keep-header', 'X-Pin'],
    ['--redact-query', 'tenant'],
    ['--keep-query', 'state'],
    ['--redact-json-key', 'customer_ref'],
    ['--keep-json-key', 'webhook_token'],
  ];
  // The options those flags are (`--keep-json-key` is `keepJsonKey`).
  const optionOf = (flag: string): string => flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  const options = Object.fromEntries(flags.map(([flag, name]) => [optionOf(flag!), [name]]));
  const recorder = await recordHere({ upstream, out, ...options });
  const sent = await post(
    `${recorder.url}/?tenant=TQ-1&state=ST-1&code=CQ-1`,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'GetTask',
      params: { customerRef: 'CR-1', webhookToken: 'WT-1', api_key: 'AK-1' },
    },
    { 'x-tenant': 'TH-1', 'x-pin': 'PH-1', 'x-otp': 'OH-1' },
  );
  expect(JSON.parse(sent)).toHaveProperty('result.customerRef', 'CR-ans');
  expect((await recorder.close()).complete).toBe(true);
  const text = await readFile(out, 'utf8');
  // Kept in clear by a --keep-* flag, although the default rule names them.
  for (const kept of ['PH-1', 'ST-1', 'WT-1', 'WT-ans']) expect(text, kept).toContain(kept);
  // Redacted by a flag, although the default rule does not name them; and the defaults still are.
  for (const gone of ['TH-1', 'TQ-1', 'CR-1', 'CR-ans', 'OH-1', 'CQ-1', 'AK-1']) expect(text, gone).not.toContain(gone);
  const [request] = (await readRecording(out)).entries;
  expect(request?.http.headers?.['x-tenant']).toMatch(/^\[redacted hmac:[0-9a-f]{16}\]$/);

  // A name on both sides of a pair is a usage error naming both flags: what `record` makes of the
  // recorder's refusal (a `record` process says it for the first pair in record-secrets.test.ts).
  for (const [keep, add, name] of [
    ['--keep-header', '--redact', 'X-A'],
    ['--keep-query', '--redact-query', 'q'],
    ['--keep-json-key', '--redact-json-key', 'customer_ref'],
  ] as const) {
    const refused = await startRecorder({
      upstream,
      out: join(dir, 'x.jsonl'),
      [optionOf(keep)]: [name],
      [optionOf(add)]: [name],
    }).then(
      () => {
        throw new Error(`${keep} ${name} ${add} ${name} was not refused`);
      },
      (error: unknown) => {
        try {
          usageFailure(error);
        } catch (usage) {
          return usage as { exitCode: number; message: string };
        }
        throw new Error('not a usage error');
      },
    );
    expect(refused.exitCode).toBe(2);
    expect(refused.message).toContain(`${keep}: ${name} is also named by ${add}`);
  }
  const help = await runCli(['record', '--help']);
  for (const flag of flags.map(([f]) => f!)) expect(help.stdout).toContain(flag);
});
