/**
 * `kill -9` of `a2a-replay record` in the middle of a busy session: the recording reads back up
 * to its last complete line, a torn last line is reported as such (and skipped on request), and
 * the receipt log verifies up to what was written.
 */
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Keyring, type TornTail, canonicalJson, generateReceiptKey, readRecording, verifyReceiptLog } from '../../src/index.js';
import { closeServer, listen } from '../intercept/harness.js';
import { type RecordProcess, startRecordProcess } from '../intercept/record-process.js';

let dir = '';
let recorder: RecordProcess | undefined;
let upstream: Awaited<ReturnType<typeof listen>> | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-crash-'));
});
afterEach(async () => {
  if (recorder && recorder.child.exitCode === null) recorder.child.kill('SIGKILL');
  recorder = undefined;
  if (upstream) await closeServer(upstream.server);
  upstream = undefined;
  await rm(dir, { recursive: true, force: true });
});

const PADDING = 'x'.repeat(64 * 1024);

it('reads a recording cut by kill -9 up to its last complete line', async () => {
  upstream = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; method: string };
      if (call.method === 'SendStreamingMessage') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i < 5; i++) res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { n: i, pad: PADDING } })}\n\n`);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { pad: PADDING } }));
    });
  });
  const out = join(dir, 'busy.jsonl');
  const keyFile = join(dir, 'key.json');
  const key = generateReceiptKey({ kid: 'crash' });
  await writeFile(keyFile, canonicalJson(key.keyFile()));
  recorder = await startRecordProcess(['--upstream', upstream.url, '--out', out, '--key', keyFile]);
  const url = recorder.url;

  // Eight clients keep the recorder busy; the kill comes after 150 answered exchanges, mid-flow.
  let answered = 0;
  let killed = false;
  let onAnswered: (() => void) | undefined;
  const enough = new Promise<void>((resolve) => (onAnswered = resolve));
  const clients = Array.from({ length: 8 }, async (_, c) => {
    for (let i = 0; !killed; i++) {
      const method = i % 3 === 0 ? 'SendStreamingMessage' : 'GetTask';
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: c * 100000 + i, method, params: { id: 't' } }),
        });
        await res.text();
        if (++answered === 150) onAnswered?.();
      } catch {
        return;
      }
    }
  });
  await enough;
  recorder.child.kill('SIGKILL');
  killed = true;
  await recorder.exited;
  await Promise.all(clients);

  let tail: TornTail | undefined;
  const recording = await readRecording(out, { allowTornTail: true, onTornTail: (t) => (tail = t) });
  expect(recording.entries.length).toBeGreaterThan(0);
  expect(recording.entries.map((e) => e.seq)).toEqual(recording.entries.map((_, i) => i + 1));
  if (tail !== undefined) {
    // The crash tore the last line: it is named and skipped, and strict reading refuses it.
    expect(tail.line).toBe(recording.entries.length + 2);
    await expect(readRecording(out)).rejects.toMatchObject({ code: 'RECORDING_TORN' });
  } else {
    // The crash fell between lines: a strict read accepts the same prefix.
    expect((await readRecording(out)).entries).toHaveLength(recording.entries.length);
  }

  // The receipt log (a header: this session pauses nothing) verifies up to what was written.
  const verified = await verifyReceiptLog(join(dir, 'busy.receipts.jsonl'), { keyring: new Keyring([key]), allowTornTail: true });
  expect(verified).toMatchObject({ ok: true });

  // Whatever the kill left, tearing the last line by hand is reported with its line number.
  const text = await readFile(out, 'utf8');
  const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
  const lastLineStart = complete.slice(0, -1).lastIndexOf('\n') + 1;
  await truncate(out, Buffer.byteLength(complete.slice(0, lastLineStart)) + 20);
  const torn = await readRecording(out, { allowTornTail: true });
  expect(torn.tornTail?.line).toBe(complete.slice(0, lastLineStart).split('\n').length);
  expect(torn.entries.length).toBe(complete.slice(0, lastLineStart).split('\n').length - 2);
});
