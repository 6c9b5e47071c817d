/**
 * What a recorder with a key (`startRecorder`, in this process) makes of answers it cannot simply
 * read, in front of the reference peer (`startPeer`) or a small upstream:
 * - an SSE stream the upstream gzips: the events are decoded on the side (the client still gets
 *   the gzip bytes) and the pause they carry is receipted;
 * - a GetTask answer over `maxBodyBytes` showing a pause: the recording keeps its head, the
 *   observer reads it whole and the pause is receipted;
 * - a stream in an encoding the recorder does not decode, or corrupt gzip: said (its `warn`) at
 *   once, recorded as an `error` entry marked incomplete, and what `lost` lists of the recording
 *   (`lostPauses`) has it INCOMPLETE naming the line, seq and why, exit 1; likewise an answer or
 *   event over `maxObservedBytes`, recorded as its head with the whole body's length and hash.
 * What `verify`, `lost` and `run` conclude is the calls they make (test/helpers/verdicts.ts,
 * test/helpers/run-report.ts).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type IncomingMessage, type Server, createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { generateReceiptKey, loadKeyring } from '../../src/public/receipts.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { tokenPlaceholder } from '../../src/recording/resume-token.js';
import { type TestRecorder, startTestRecorder } from '../helpers/in-process.js';
import { replayReport } from '../helpers/run-report.js';
import { lostVerdict, verifyVerdict } from '../helpers/verdicts.js';

let dir = '';
const recorders: TestRecorder[] = [];
const peers: RunningPeer[] = [];
const servers: Server[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-unread-'));
});
afterEach(async () => {
  for (const s of servers) s.closeAllConnections();
  for (const r of recorders.splice(0)) await r.close();
  for (const p of peers.splice(0)) await p.close();
  for (const s of servers.splice(0)) await new Promise<void>((resolve) => s.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/**
 * A relay in front of `peer` that passes everything through, except that it gzips every SSE
 * stream, flushing the gzip data after each chunk so each event reaches the client as it comes.
 */
function gzipRelay(peer: string): Promise<string> {
  const target = new URL(peer);
  return listen(
    createServer((req, res) => {
      const body: Buffer[] = [];
      req.on('data', (chunk: Buffer) => body.push(chunk));
      req.on('end', () => {
        const upstream = httpRequest(
          { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
          (answer: IncomingMessage) => {
            if (!String(answer.headers['content-type']).startsWith('text/event-stream')) {
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              answer.pipe(res);
              return;
            }
            const { 'content-length': _length, ...headers } = answer.headers;
            res.writeHead(answer.statusCode ?? 502, { ...headers, 'content-encoding': 'gzip' });
            const gzip = createGzip();
            gzip.pipe(res);
            answer.on('data', (chunk: Buffer) => {
              gzip.write(chunk);
              gzip.flush();
            });
            answer.on('end', () => gzip.end());
          },
        );
        upstream.end(Buffer.concat(body));
      });
    }),
  );
}

/** A key file, the reference peer (behind `front` when given) and a recorder with the key in front. */
async function session(
  name: string,
  front: (peer: string) => Promise<string> = async (peer) => peer,
  options: { maxBodyBytes?: number } = {},
): Promise<{ keyFile: string; out: string; log: string; recorder: TestRecorder }> {
  const keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: name }).keyFile()), { mode: 0o600 });
  const peer = await startPeer({ deterministic: true });
  peers.push(peer);
  const out = join(dir, `${name}.jsonl`);
  const recorder = await startTestRecorder({ upstream: await front(peer.url), out, key: keyFile, ...options });
  recorders.push(recorder);
  return { keyFile, out, log: out.replace(/\.jsonl$/, '.receipts.jsonl'), recorder };
}

/** Closes `recorder` as `record` stops on SIGTERM; every line written (`record` exits 0). */
async function stopped(recorder: TestRecorder): Promise<void> {
  expect((await recorder.close()).complete, recorder.warnings.join('\n')).toBe(true);
}

async function call(base: string, method: string, params: unknown, path = '/'): Promise<Record<string, unknown>> {
  const res = await fetch(new URL(path, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const answer = (await res.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (answer.result === undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

async function receiptsOf(log: string): Promise<Record<string, unknown>[]> {
  return (await readFile(log, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function entriesOf(out: string): Promise<RecordingEntry[]> {
  return (await readRecording(out)).entries;
}

/** Reads an SSE answer (fetch decodes the gzip) until `until` holds of the text so far. */
async function readUntil(stream: ReadableStream<Uint8Array>, until: (text: string) => boolean): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (value) text += decoder.decode(value, { stream: true });
    if (done || until(text)) break;
  }
  reader.releaseLock();
  return text;
}

it('receipts a pause carried by a gzip SSE stream, and the recording holds its events', async () => {
  const { keyFile, out, log, recorder } = await session('gzip-stream', gzipRelay);
  const res = await fetch(recorder.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'accept-encoding': 'gzip' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'await:approval' }] } },
    }),
  });
  expect(res.headers.get('content-encoding')).toBe('gzip');
  const body = res.body as ReadableStream<Uint8Array>;
  await readUntil(body, (text) => text.includes('TASK_STATE_PAUSED'));
  await call(recorder.url, 'FireEvent', { name: 'approval' }, '/control');
  expect(await readUntil(body, () => false)).toContain('TASK_STATE_COMPLETED');
  await stopped(recorder);

  const receipts = await receiptsOf(log);
  expect(receipts.filter((r) => r.type === 'SuspensionReceipt')).toHaveLength(1);
  expect(receipts.find((r) => r.type === 'ResumptionReceipt')).toMatchObject({
    cause: 'condition_fired',
    outcome: 'resumed',
  });
  const entries = await entriesOf(out);
  const stream = entries.filter((e) => e.http.method === 'POST' && e.http.path === '/' && e.kind !== 'request');
  expect(stream[0]).toMatchObject({ kind: 'response', http: { headers: { 'content-encoding': 'gzip' } } });
  expect(stream.slice(1, -1).every((e) => e.kind === 'event' && e.body !== undefined)).toBe(true);
  expect(stream.at(-1)?.kind).toBe('end');
  expect(recorder.warnings.join('\n')).not.toContain('incomplete');
  const lost = await lostVerdict([out]);
  expect(lost.found.lost).toEqual([]);
  expect(lost.code).toBe(0);
  const verdict = await verifyVerdict([log], [keyFile], { checks: { recording: out } });
  expect(verdict.stdout).toContain('complete: the recorder read every answer whole');
  expect(verdict.code).toBe(0);
});

it('receipts a pause shown by a GetTask answer over maxBodyBytes, recorded as its head', async () => {
  const { keyFile, out, log, recorder } = await session('over-cap', undefined, { maxBodyBytes: 4096 });
  // Twenty artifacts and a long message part: the task's answers run over 4 KiB, its request not.
  const sent = (await call(recorder.url, 'SendMessage', {
    message: {
      messageId: 'm-1',
      role: 'ROLE_USER',
      parts: [{ text: 'work:20 await:approval' }, { text: 'x'.repeat(3000) }],
    },
    configuration: { returnImmediately: true },
  })) as { task: { id: string } };
  await call(recorder.url, 'AdvanceClock', { ms: 3_600_000 }, '/control');
  const paused = (await call(recorder.url, 'GetTask', { id: sent.task.id })) as {
    status: { state: string; pause: { resumeToken: string } };
  };
  expect(paused.status.state).toBe('TASK_STATE_PAUSED');
  const token = paused.status.pause.resumeToken;
  await call(recorder.url, 'FireEvent', { name: 'approval' }, '/control');
  await stopped(recorder);

  const receipts = await receiptsOf(log);
  expect(receipts.find((r) => r.type === 'SuspensionReceipt')).toMatchObject({
    taskId: sent.task.id,
    via: 'statusUpdate',
  });
  expect(receipts.find((r) => r.type === 'ResumptionReceipt')).toMatchObject({
    taskId: sent.task.id,
    cause: 'condition_fired',
  });
  const answer = (await entriesOf(out)).find((e) => e.kind === 'response' && e.bodyText?.includes('PAUSED'));
  // The head is the first 4096 bytes, the resume token it shows written as its placeholder.
  const placeholder = tokenPlaceholder(token);
  expect(answer?.bodyText).toContain(`"resumeToken":"${placeholder}"`);
  expect(answer?.bodyText).not.toContain(token);
  expect(answer?.bodyText).toHaveLength(4096 - token.length + placeholder.length);
  expect(answer?.cut).toMatchObject({ sha256: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as unknown });
  expect(answer?.cut?.bytes).toBeGreaterThan(4096);
  expect(answer?.body).toBeUndefined();

  // The recording alone cannot show what the head leaves out: lost says so; the log is complete.
  const lost = await lostVerdict([out]);
  expect(lost.found.gaps?.incomplete.count).toBeGreaterThan(0);
  expect(lost.found.gaps?.incomplete.listed).toContainEqual(
    expect.objectContaining({
      seq: answer?.seq,
      why: expect.stringMatching(/^the recording keeps the first part of its/) as unknown,
    }),
  );
  expect(lost.code).toBe(1);
  const fromLog = await lostVerdict([log], { keys: [keyFile] });
  expect(fromLog.found.lost).toEqual([]);
  expect((await verifyVerdict([log], [keyFile], { checks: { recording: out } })).code).toBe(0);
  // Replay compares the cut answers by status and derives the same receipts from the live ones.
  const { keyring } = await loadKeyring({ keys: [keyFile], env: {} });
  const replay = await replayReport([out], { keyring, strict: true });
  expect(replay.stdout).toMatch(/^PASS/);
  expect(replay.code).toBe(0);
});

/** An upstream that answers every call with an SSE stream of `bytes`, sent as `encoding`. */
function encodedStream(encoding: string, bytes: Buffer): Promise<string> {
  return listen(
    createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': encoding });
      res.end(bytes);
    }),
  );
}

/** POSTs `body` and resolves with the answer's body bytes as they came (nothing decoded). */
function postBytes(url: string, body: string): Promise<Buffer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, method: 'POST', path: '/', agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(Buffer.concat(chunks)));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setHeader('content-type', 'application/json');
    req.end(body);
  });
}

const PAUSED_EVENT =
  'data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t-1","contextId":"c-1","status":' +
  '{"state":"TASK_STATE_PAUSED","pause":{"initiatedBy":"PAUSE_INITIATOR_AGENT","resumeToken":"r-1"}}}}}\n\n';

it.each([
  ['zstd', Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x01]), /content-encoding zstd is not one the recorder decodes/],
  [
    'gzip',
    Buffer.concat([gzipSync(PAUSED_EVENT).subarray(0, 12), Buffer.from('not gzip at all')]),
    /the gzip stream is not valid gzip data after 0 decoded bytes/,
  ],
])(
  'says at once that a %s stream it cannot read is incomplete, and lost finds it (exit 1) naming it',
  async (encoding, bytes, why) => {
    const upstream = await encodedStream(encoding, bytes);
    const out = join(dir, `${encoding}.jsonl`);
    const keyFile = join(dir, 'key.json');
    await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'k' }).keyFile()), { mode: 0o600 });
    const recorder = await startTestRecorder({ upstream, out, key: keyFile });
    recorders.push(recorder);
    const got = await postBytes(
      recorder.url,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: 't-1' } }),
    );
    // The client gets the bytes as the upstream sent them.
    expect(got.equals(bytes)).toBe(true);
    // Said while the recorder still runs.
    await expect.poll(() => recorder.warnings.join('\n')).toMatch(why);
    expect(recorder.warnings.join('\n')).toMatch(/seq 3 \(error of POST \/\) is incomplete: /);
    await stopped(recorder);

    const entries = await entriesOf(out);
    const error = entries.find((e) => e.kind === 'error');
    expect(error).toMatchObject({ seq: 3, incomplete: expect.stringMatching(why) as unknown });
    const lost = await lostVerdict([out]);
    expect(lost.found.gaps?.incomplete).toMatchObject({
      count: 1,
      listed: [{ line: 4, seq: 3, why: expect.stringMatching(/^the recorder could not read it: /) as unknown }],
    });
    expect(lost.code).toBe(1);
    const log = out.replace(/\.jsonl$/, '.receipts.jsonl');
    const verdict = await verifyVerdict([log], [keyFile], { checks: { recording: out } });
    expect(verdict.stdout).toContain(': ok: 0 receipts');
    expect(verdict.stdout).toContain('INCOMPLETE: the recorder could not read 1 entry in full');
    expect(verdict.stdout).toMatch(new RegExp(`${encoding}\\.jsonl:4: seq 3: the recorder could not read it: `));
    expect(verdict.code).toBe(1);
  },
);

it('records an answer and an event over maxObservedBytes as their head, whole hash and incomplete', async () => {
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { pad: 'p'.repeat(10_000) } });
  const upstream = await listen(
    createServer((req, res) => {
      req.resume();
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${big}\n\n`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      // In pieces, so the whole is hashed as it passes.
      for (let at = 0; at < big.length; at += 3000) res.write(big.slice(at, at + 3000));
      res.end();
    }),
  );
  const out = join(dir, 'observed-cap.jsonl');
  const recorder = await startTestRecorder({ upstream, out, maxBodyBytes: 1024, maxObservedBytes: 4096 });
  recorders.push(recorder);
  for (const path of ['/unary', '/stream']) {
    const res = await fetch(new URL(path, recorder.url), { method: 'POST', body: '{}' });
    expect(await res.text()).toContain(big);
  }
  await expect.poll(() => recorder.warnings.join('\n')).toMatch(/seq 5 \(event of POST \/stream\) is incomplete: /);
  expect(recorder.warnings.join('\n')).toMatch(
    /seq 2 \(response of POST \/unary\) is incomplete: its body of 10\d{3} bytes is over the 4096-byte observation cap/,
  );
  await stopped(recorder);
  const entries = await entriesOf(out);
  expect(entries[1]).toMatchObject({
    kind: 'response',
    bodyText: big.slice(0, 1024),
    cut: { bytes: big.length, sha256: `sha256:${createHash('sha256').update(big).digest('hex')}` },
  });
  expect(entries[4]).toMatchObject({
    kind: 'event',
    bodyText: big.slice(0, 1024),
    incomplete: expect.stringContaining('over the 4096-character observation cap') as unknown,
  });
  const lost = await lostVerdict([out]);
  expect(lost.found.gaps?.incomplete.count).toBe(2);
  expect(lost.code).toBe(1);
});
