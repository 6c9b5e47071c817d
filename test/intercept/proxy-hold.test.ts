/**
 * The proxy's half of "durable before acknowledged": bytes that carry an entry whose listener
 * returned a hold reach the client only once the hold settles — the last chunk of a unary answer,
 * the SSE chunk with the event — while traffic without a hold flows as before.
 */
import { createBrotliCompress, createDeflate, createGzip } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { CounterIdSource } from '../../src/ids.js';
import { ExchangeRecorder } from '../../src/intercept/exchange-recorder.js';
import { startRecordingProxy } from '../../src/intercept/recording-proxy.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { MemoryLineSink } from '../../src/recording/line-sink.js';
import { RecordingWriter } from '../../src/recording/recording-writer.js';
import { type Handler, START_MS, closeServer, listen } from './harness.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A proxy whose listener holds every entry that `holds` matches until `release()`. */
async function holdingProxy(handler: Handler, holds: (entry: RecordingEntry) => boolean) {
  const upstream = await listen(handler);
  const writer = new RecordingWriter({
    sink: new MemoryLineSink(),
    clock: new ManualClock(START_MS),
    ids: new CounterIdSource(1),
    target: upstream.url,
  });
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const heldEntries: RecordingEntry[] = [];
  const recorder = new ExchangeRecorder({
    writer,
    ids: new CounterIdSource(2),
    onEntry: (entry) => {
      if (!holds(entry)) return undefined;
      heldEntries.push(entry);
      return held;
    },
  });
  const proxy = await startRecordingProxy({ upstream: upstream.url, recorder });
  cleanups.push(async () => {
    release();
    await proxy.close({ graceMs: 0 });
    await closeServer(upstream.server);
  });
  return { url: proxy.url, release, heldEntries };
}

/** Resolves to 'settled' if `promise` settles within a few turns of the event loop, else 'pending'. */
async function stateOf(promise: Promise<unknown>): Promise<'settled' | 'pending'> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  // Generous: many macrotask turns, so that the bytes would have arrived if they were sent.
  for (let i = 0; i < 50; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  return settled ? 'settled' : 'pending';
}

describe('a held entry holds its bytes back', () => {
  it('keeps the last chunk of a unary answer until the hold settles, then delivers it whole', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      result: { state: 'TASK_STATE_PAUSED', pad: 'p'.repeat(70_000) },
    });
    const { url, release, heldEntries } = await holdingProxy(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        // Two writes: the first may reach the client, the answer is complete only with the second.
        res.write(body.slice(0, 40_000));
        setImmediate(() => res.end(body.slice(40_000)));
      },
      (entry) => entry.kind === 'response',
    );
    const answer = fetch(url, { method: 'POST', body: '{}' }).then((r) => r.text());
    // Wait (bounded) until the whole answer was recorded and held, however slow the machine.
    for (let i = 0; i < 10_000 && heldEntries.length === 0; i++) await new Promise((r) => setImmediate(r));
    expect(heldEntries.map((e) => e.kind)).toEqual(['response']);
    expect(await stateOf(answer)).toBe('pending');
    release();
    expect(await answer).toBe(body);
  });

  it('keeps an SSE event back until its hold settles, and the events after it in order', async () => {
    const events = ['{"n":1}', '{"n":2,"paused":true}', '{"n":3}'];
    const { url, release } = await holdingProxy(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${events[0]}\n\n`);
        setImmediate(() => {
          res.write(`data: ${events[1]}\n\n`);
          setImmediate(() => res.end(`data: ${events[2]}\n\n`));
        });
      },
      (entry) => entry.kind === 'event' && JSON.stringify(entry.body).includes('paused'),
    );
    const res = await fetch(url, { method: 'POST', body: '{}' });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    const readUntil = async (text: string): Promise<void> => {
      while (!seen.includes(text)) {
        const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
        if (done) return;
        seen += decoder.decode(value, { stream: true });
      }
    };
    await readUntil(events[0] as string);
    const second = readUntil(events[1] as string);
    expect(await stateOf(second)).toBe('pending');
    expect(seen).not.toContain(events[1]);
    release();
    await second;
    await readUntil(events[2] as string);
    expect(seen.indexOf(events[1] as string)).toBeLessThan(seen.indexOf(events[2] as string));
  });

  it.each([
    ['gzip', () => createGzip()],
    ['deflate', () => createDeflate()],
    ['br', () => createBrotliCompress()],
  ])('decodes a %s SSE stream on the side and keeps the chunk with a held event back', async (encoding, encoder) => {
    const events = ['{"n":1}', '{"n":2,"paused":true}', '{"n":3}'];
    const { url, release, heldEntries } = await holdingProxy(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': encoding });
        const out = encoder();
        out.pipe(res);
        // Each event compressed and flushed on its own, so each arrives as it is sent.
        const send = (i: number): void => {
          out.write(`data: ${events[i]}\n\n`);
          out.flush(() => {
            if (i + 1 < events.length) setImmediate(() => send(i + 1));
            else out.end();
          });
        };
        send(0);
      },
      (entry) => entry.kind === 'event' && JSON.stringify(entry.body).includes('paused'),
    );
    const res = await fetch(url, { method: 'POST', body: '{}' });
    expect(res.headers.get('content-encoding')).toBe(encoding);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    const readUntil = async (text: string): Promise<void> => {
      while (!seen.includes(text)) {
        const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
        if (done) return;
        seen += decoder.decode(value, { stream: true });
      }
    };
    await readUntil(events[0] as string);
    const second = readUntil(events[1] as string);
    for (let i = 0; i < 10_000 && heldEntries.length === 0; i++) await new Promise((r) => setImmediate(r));
    expect(heldEntries.map((e) => e.body)).toEqual([JSON.parse(events[1] as string)]);
    expect(await stateOf(second)).toBe('pending');
    release();
    await second;
    await readUntil(events[2] as string);
    expect(seen).toBe(events.map((e) => `data: ${e}\n\n`).join(''));
  });

  it('holds nothing when the listener returns no hold', async () => {
    const { url } = await holdingProxy(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      },
      () => false,
    );
    expect(await (await fetch(url, { method: 'POST', body: '{}' })).text()).toBe('{"ok":true}');
  });
});
