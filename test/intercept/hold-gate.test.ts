/**
 * The hold gate's order and back-pressure (src/intercept/hold-gate.ts), on real streams: a held
 * write pauses the upstream side until it goes out, and the last write of an ended upstream side
 * pauses and resumes nothing.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { holdGate } from '../../src/intercept/hold-gate.js';

/** A flowing upstream side and the client side it goes to. */
function sides(): { from: PassThrough; to: PassThrough; written: string[] } {
  const from = new PassThrough();
  from.on('data', () => undefined);
  const to = new PassThrough();
  const written: string[] = [];
  to.on('data', (chunk: Buffer) => written.push(chunk.toString('utf8')));
  return { from, to, written };
}

/** A hold and the function that settles it. */
function hold(): { promise: Promise<void>; settle: () => void } {
  let settle: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (settle = resolve));
  return { promise, settle };
}

const turns = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

describe('holdGate', () => {
  it('writes at once what has no hold and nothing before it waiting', async () => {
    const { from, to, written } = sides();
    const gate = holdGate(from, to);
    gate.release(() => gate.write(Buffer.from('a')), undefined);
    await turns();
    expect(written).toEqual(['a']);
    expect(from.isPaused()).toBe(false);
  });

  it('pauses the upstream side while a held write waits, keeps the order, and resumes once it went out', async () => {
    const { from, to, written } = sides();
    const gate = holdGate(from, to);
    const first = hold();
    gate.release(() => gate.write(Buffer.from('a')), first.promise);
    gate.release(() => gate.write(Buffer.from('b')), undefined);
    await turns();
    expect(written).toEqual([]);
    expect(from.isPaused()).toBe(true);
    first.settle();
    await turns();
    expect(written).toEqual(['a', 'b']);
    expect(from.isPaused()).toBe(false);
  });

  it('neither pauses nor resumes an ended upstream side for its last write, which still waits its turn', async () => {
    const { from, to, written } = sides();
    const gate = holdGate(from, to);
    const first = hold();
    const last = hold();
    gate.release(() => gate.write(Buffer.from('a')), first.promise);
    from.resume();
    gate.release(() => gate.write(Buffer.from('end')), last.promise, true);
    expect(from.isPaused()).toBe(false);
    last.settle();
    await turns();
    expect(written).toEqual([]);
    first.settle();
    await turns();
    expect(written).toEqual(['a', 'end']);
    expect(from.isPaused()).toBe(false);
    let resumed = 0;
    from.on('resume', () => (resumed += 1));
    const alone = hold();
    gate.release(() => gate.write(Buffer.from('tail')), alone.promise, true);
    alone.settle();
    await turns();
    expect(written).toEqual(['a', 'end', 'tail']);
    expect(resumed).toBe(0);
  });
});
