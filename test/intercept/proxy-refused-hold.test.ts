/**
 * A hold that settles to a refusal (its receipt could not be made durable: a full disk,
 * docs/design.md §5) refuses the answer it held: the client gets a 503 in the request's binding
 * naming why, never the bytes that were held — not even the chunks of a unary answer that came
 * before its last — and, on an event stream already started, an error event in place of the held
 * event, then the stream's end; a unary answer too large to keep back is cut before its end. The
 * upstream's answer is still recorded whole.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { CounterIdSource } from '../../src/ids.js';
import { ExchangeRecorder } from '../../src/intercept/exchange-recorder.js';
import { HELD_UNARY_BYTES } from '../../src/intercept/held-relay.js';
import { startRecordingProxy } from '../../src/intercept/recording-proxy.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { MemoryLineSink } from '../../src/recording/line-sink.js';
import { RecordingWriter } from '../../src/recording/recording-writer.js';
import { type Handler, START_MS, closeServer, listen } from './harness.js';

const WHY = 'the recorder could not make the receipt of this call durable (the disk is full)';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A proxy whose listener refuses (with {@link WHY}) every entry that `refuses` matches. */
async function refusingProxy(handler: Handler, refuses: (entry: RecordingEntry) => boolean) {
  const upstream = await listen(handler);
  const sink = new MemoryLineSink();
  const writer = new RecordingWriter({
    sink,
    clock: new ManualClock(START_MS),
    ids: new CounterIdSource(1),
    target: upstream.url,
  });
  const recorder = new ExchangeRecorder({
    writer,
    ids: new CounterIdSource(2),
    onEntry: (entry) => (refuses(entry) ? Promise.resolve(WHY) : undefined),
  });
  const proxy = await startRecordingProxy({ upstream: upstream.url, recorder });
  cleanups.push(async () => {
    await proxy.close({ graceMs: 0 });
    await closeServer(upstream.server);
  });
  return { url: proxy.url, writer, sink };
}

/** A PAUSED answer padded to `bytes`. */
const pausedAnswer = (bytes: number): string =>
  JSON.stringify({ jsonrpc: '2.0', id: 7, result: { state: 'TASK_STATE_PAUSED', pad: 'p'.repeat(bytes) } });

/** Answers with `answer` in two writes: the first could reach the client alone. */
const twoChunks =
  (answer: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(answer.slice(0, answer.length / 2));
    setImmediate(() => res.end(answer.slice(answer.length / 2)));
  };
const small = twoChunks(pausedAnswer(40_000));

describe('a refused hold refuses the answer', () => {
  it('answers a JSON-RPC call 503 with -32603 naming why, and sends none of the held answer', async () => {
    const { url, writer, sink } = await refusingProxy(small, (entry) => entry.kind === 'response');
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'PauseTask', params: { taskId: 't1' } }),
    });
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(text).not.toContain('ppp');
    expect(JSON.parse(text)).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: WHY } });
    // The peer's answer is recorded whole all the same.
    await writer.flush();
    expect(sink.text()).toContain('p'.repeat(40_000));
  });

  it('cuts a unary answer too large to keep back before its end', async () => {
    const answer = pausedAnswer(2 * HELD_UNARY_BYTES);
    const { url } = await refusingProxy(twoChunks(answer), (entry) => entry.kind === 'response');
    const read = fetch(url, { method: 'POST', body: '{}' }).then((res) => res.text());
    await expect(read).rejects.toThrow();
  });

  it('answers an HTTP+JSON call 503 in the HTTP+JSON error shape', async () => {
    const { url } = await refusingProxy(small, (entry) => entry.kind === 'response');
    const res = await fetch(new URL('/tasks/t1:pause', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { code: 503, status: 'INTERNAL', message: WHY } });
  });

  it('ends a started event stream with an error event in place of the held event', async () => {
    const events = ['{"n":1}', '{"n":2,"paused":true}', '{"n":3}'];
    const { url } = await refusingProxy(
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
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'SendStreamingMessage', params: {} }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const data = text
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => JSON.parse(frame.slice('data: '.length)) as unknown);
    expect(data).toEqual([
      { n: 1 },
      { jsonrpc: '2.0', id: 3, error: expect.objectContaining({ code: -32603, message: WHY }) as unknown },
    ]);
  });
});
