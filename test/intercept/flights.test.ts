/**
 * The exchanges a recording proxy has in flight (src/intercept/flights.ts): a linked list that
 * closing the proxy waits on and then cuts, and that a finished exchange leaves without a trace.
 */
import { describe, expect, it } from 'vitest';
import { Flights } from '../../src/intercept/flights.js';
import { closeServer, listen, memoryRecorder } from './harness.js';
import { startRecordingProxy } from '../../src/intercept/recording-proxy.js';

describe('Flights', () => {
  it('counts exchanges as they start and end, in any order, a second end of one changing nothing', () => {
    const flights = new Flights();
    const a = flights.add(() => undefined);
    const b = flights.add(() => undefined);
    const c = flights.add(() => undefined);
    expect(flights.size).toBe(3);
    flights.delete(b);
    flights.delete(b);
    expect(flights.size).toBe(2);
    flights.delete(c);
    flights.delete(a);
    expect(flights.size).toBe(0);
    expect([a, b, c].map((f) => [f.prev, f.next, f.linked])).toEqual([
      [undefined, undefined, false],
      [undefined, undefined, false],
      [undefined, undefined, false],
    ]);
    const d = flights.add(() => undefined);
    expect(flights.size).toBe(1);
    flights.delete(d);
    expect(flights.size).toBe(0);
  });

  it('aborts every exchange still open, each once, also when an abort ends its own flight', () => {
    const flights = new Flights();
    const aborted: string[] = [];
    const ended = new Set<string>();
    const names = ['a', 'b', 'c', 'd'];
    const byName = new Map(
      names.map((name) => {
        const flight = flights.add((reason) => {
          aborted.push(`${name}: ${reason}`);
          flights.delete(flight);
          ended.add(name);
        });
        return [name, flight] as const;
      }),
    );
    flights.delete(byName.get('b')!);
    flights.abortAll('closing');
    expect(aborted).toEqual(['a: closing', 'c: closing', 'd: closing']);
    expect([...ended].sort()).toEqual(['a', 'c', 'd']);
    expect(flights.size).toBe(0);
  });

  it('settles when the last exchange ends, or after the grace period', async () => {
    const flights = new Flights();
    await flights.settled(10_000);
    const a = flights.add(() => undefined);
    const b = flights.add(() => undefined);
    let settled = false;
    const waiting = flights.settled(60_000).then(() => (settled = true));
    flights.delete(a);
    await Promise.resolve();
    expect(settled).toBe(false);
    flights.delete(b);
    await waiting;
    expect(settled).toBe(true);
    flights.add(() => undefined);
    await flights.settled(1);
    expect(flights.size).toBe(1);
  });
});

describe('Flights.settled', () => {
  it('waits for an answer still awaited up to the drain bound, for open streams only the grace period', async () => {
    const flights = new Flights();
    const awaited = flights.add(() => undefined);
    const stream = flights.add(() => undefined);
    flights.streaming(stream);
    expect(flights.streams).toBe(1);
    let settled = false;
    const waiting = flights.settled(0, 600_000).then(() => (settled = true));
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
    // Past the grace period an answer is still awaited: the stop waits for it.
    expect(settled).toBe(false);
    flights.delete(awaited);
    await waiting;
    // Only the open stream is left: the stop goes on and cuts it.
    expect(flights.size).toBe(1);
  });
});

describe('closing the recording proxy', () => {
  it('cuts the exchanges still in flight after the grace period and records each as an error', async () => {
    const waiting: (() => void)[] = [];
    let allArrived: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (allArrived = resolve));
    // An upstream that takes the requests and never answers them.
    const upstream = await listen((req) => {
      waiting.push(() => req.socket.destroy());
      if (waiting.length === 3) allArrived();
    });
    const rec = memoryRecorder(upstream.url);
    const proxy = await startRecordingProxy({ upstream: upstream.url, recorder: rec.recorder });
    const call = (id: number): Promise<string> =>
      fetch(proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'GetTask', params: { id: `t-${id}` } }),
      }).then(
        () => 'answered',
        () => 'cut',
      );
    const calls = [call(1), call(2), call(3)];
    await arrived;
    expect(proxy.inFlight).toBe(3);
    await proxy.close({ graceMs: 0, drainMs: 0 });
    expect(await Promise.all(calls)).toEqual(['cut', 'cut', 'cut']);
    const entries = await rec.settled();
    expect(entries.filter((e) => e.kind === 'request')).toHaveLength(3);
    const errors = entries.filter((e) => e.kind === 'error');
    expect(errors.map((e) => e.error)).toEqual(Array(3).fill('the recorder stopped while the exchange was open'));
    // The peer had each request and its answer was never read: said, for lost and verify to report.
    for (const e of errors) expect(e.incomplete).toMatch(/^the recorder did not read the peer's answer to its end/);
    expect(new Set(errors.map((e) => e.xid)).size).toBe(3);
    for (const cut of waiting) cut();
    await closeServer(upstream.server);
  });
});
