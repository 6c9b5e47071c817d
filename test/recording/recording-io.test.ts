import fs from 'node:fs';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { ManualClock } from '../../src/clock.js';
import { A2aReplayError } from '../../src/errors.js';
import { CounterIdSource } from '../../src/ids.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { type LineSink, MemoryLineSink, fileLineSink } from '../../src/recording/line-sink.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { RecordingWriter } from '../../src/recording/recording-writer.js';
import { TOOL_NAME } from '../../src/version.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'recording-io-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function writerTo(sink: LineSink, onError?: (e: unknown) => void): { writer: RecordingWriter; clock: ManualClock } {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const writer = new RecordingWriter({
    sink,
    clock,
    ids: new CounterIdSource(3),
    target: 'http://peer',
    ...(onError ? { onError } : {}),
  });
  return { writer, clock };
}

const draft = (xid: string, kind: RecordingEntry['kind'] = 'request') => ({
  xid,
  kind,
  http: { method: 'POST', path: '/' },
  body: { b: 1, a: [2] },
});

describe('RecordingWriter', () => {
  it('writes the header first, then canonical entries with 1-based seq and the clock time', async () => {
    const sink = new MemoryLineSink();
    const { writer, clock } = writerTo(sink);
    const first = writer.append(draft('x1'));
    clock.advance(1500);
    writer.append(draft('x1', 'response'));
    await writer.close();
    const lines = sink.lines();
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      type: 'recording',
      version: 1,
      id: expect.stringMatching(/^rec-[0-9a-f]{8}-0001$/) as unknown,
      createdAt: '2026-01-01T00:00:00.000Z',
      target: { url: 'http://peer' },
      tool: TOOL_NAME,
    });
    expect(first).toMatchObject({ seq: 1, at: '2026-01-01T00:00:00.000Z' });
    expect(lines[1]).toBe(canonicalJson(first));
    expect(JSON.parse(lines[2] ?? '')).toMatchObject({ seq: 2, at: '2026-01-01T00:00:01.500Z', kind: 'response' });
    expect(sink.closed).toBe(true);
  });

  it('reports a failing sink once and keeps stamping entries', async () => {
    const errors: unknown[] = [];
    const failing: LineSink = {
      write: () => Promise.reject(new Error('disk full')),
      close: () => Promise.resolve(),
    };
    const { writer } = writerTo(failing, (e) => errors.push(e));
    for (let i = 0; i < 5; i++) writer.append(draft(`x${i}`));
    await writer.flush();
    expect(writer.append(draft('x9')).seq).toBe(6);
    await writer.close();
    expect(errors).toHaveLength(1);
    expect(writer.failed).toBe(true);
    // The header and all six entries were lost, and each is counted for the shutdown report.
    expect(writer.dropped).toBe(7);
  });

  it('keeps a lone surrogate a client sent as an escape, so the line parses back to the same body', async () => {
    const sink = new MemoryLineSink();
    const { writer } = writerTo(sink);
    writer.append({
      xid: 'x',
      kind: 'request',
      http: { method: 'POST', path: '/' },
      body: JSON.parse('{"t":"\\ud800"}') as { t: string },
    });
    await writer.close();
    const line = sink.lines()[1] ?? '';
    expect(line).toContain('"body":{"t":"\\ud800"}');
    expect(JSON.parse(line)).toMatchObject({ body: { t: '\ud800' } });
  });
});

/** A sink whose writes and syncs wait until released, counting what it was asked. */
class GatedSink implements LineSink {
  readonly written: string[] = [];
  syncs: { linesAtStart: number; release: () => void }[] = [];
  #writeGate: Promise<void> | undefined;
  #openWrites: (() => void) | undefined;

  holdWrites(): void {
    this.#writeGate = new Promise((resolve) => (this.#openWrites = resolve));
  }

  releaseWrites(): void {
    this.#writeGate = undefined;
    this.#openWrites?.();
  }

  async write(text: string): Promise<void> {
    await this.#writeGate;
    this.written.push(text);
  }

  sync(): Promise<void> {
    const linesAtStart = this.written.join('').split('\n').length - 1;
    return new Promise((resolve) => this.syncs.push({ linesAtStart, release: resolve }));
  }

  async close(): Promise<void> {}
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('RecordingWriter.durable', () => {
  it('waits for the lines appended before the call only, however many are appended meanwhile', async () => {
    const sink = new GatedSink();
    const { writer } = writerTo(sink);
    writer.append(draft('x1'));
    let durable = false;
    void writer.durable(false).then(() => (durable = true));
    await until(() => sink.written.length === 1);
    sink.holdWrites();
    writer.append(draft('x2'));
    await until(() => durable);
    // x2's write is still held: durable(false) did not wait for it.
    expect(sink.written.join('')).not.toContain('"x2"');
    sink.releaseWrites();
    await writer.flush();
    expect(sink.written.join('')).toContain('"x2"');
  });

  it('lets callers arriving during a sync share the next one; one the running sync covers joins it', async () => {
    const sink = new GatedSink();
    const { writer } = writerTo(sink);
    writer.append(draft('x1'));
    const settled: string[] = [];
    const first = writer.durable(true).then(() => settled.push('first'));
    await until(() => sink.syncs.length === 1);
    // Covered by the running sync (nothing new was appended): joins it.
    const joined = writer.durable(true).then(() => settled.push('joined'));
    writer.append(draft('x2'));
    writer.append(draft('x3'));
    const a = writer.durable(true).then(() => settled.push('a'));
    const b = writer.durable(true).then(() => settled.push('b'));
    await writer.flush();
    expect(sink.syncs).toHaveLength(1);
    sink.syncs[0]!.release();
    await Promise.all([first, joined]);
    await until(() => sink.syncs.length === 2);
    expect(settled.sort()).toEqual(['first', 'joined']);
    // One sync for both late callers, started after their lines were written.
    expect(sink.syncs[1]!.linesAtStart).toBe(4);
    sink.syncs[1]!.release();
    await Promise.all([a, b]);
    expect(sink.syncs).toHaveLength(2);
    expect(settled.sort()).toEqual(['a', 'b', 'first', 'joined']);
  });
});

describe('RecordingWriter.whenDurable', () => {
  it('calls back once, when the sync that covers the lines has returned', async () => {
    const sink = new GatedSink();
    const { writer } = writerTo(sink);
    writer.append(draft('x1'));
    let calls = 0;
    writer.whenDurable(true, () => (calls += 1));
    await until(() => sink.syncs.length === 1);
    expect(calls).toBe(0);
    sink.syncs[0]!.release();
    await until(() => calls > 0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(1);
    // Nothing left to write or sync: at once.
    writer.whenDurable(true, () => (calls += 1));
    expect(calls).toBe(2);
  });

  it('syncs a file through one fs.fdatasync callback request per group commit', async () => {
    const fdatasync = vi.spyOn(fs, 'fdatasync');
    try {
      const { writer } = writerTo(fileLineSink(join(dir, 'synced.jsonl')));
      writer.append(draft('x1'));
      const first = writer.durable(true);
      writer.append(draft('x2'));
      const second = writer.durable(true);
      await Promise.all([first, second]);
      expect(fdatasync).toHaveBeenCalledTimes(1);
      await writer.close();
    } finally {
      fdatasync.mockRestore();
    }
  });
});

/** Lets every microtask queued so far run, and those they queue, without ending the turn. */
async function microtasks(rounds = 50): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

describe('RecordingWriter.durable within one turn', () => {
  it('makes the callers of one event-loop turn share one sync', async () => {
    const sink = new GatedSink();
    const { writer } = writerTo(sink);
    await writer.flush();
    writer.append(draft('x1'));
    const first = writer.durable(true);
    // Another connection's answer read later in the same turn, once the first caller's
    // microtasks (its write) have run.
    await microtasks();
    writer.append(draft('x2'));
    const second = writer.durable(true);
    await until(() => sink.syncs.length === 1);
    // One sync, started after both callers' lines were written: header, x1, x2.
    expect(sink.syncs[0]!.linesAtStart).toBe(3);
    sink.syncs[0]!.release();
    await Promise.all([first, second]);
    expect(sink.syncs).toHaveLength(1);
  });

  it('syncs a caller of the turn in which close begins before the sink closes', async () => {
    const sink = new GatedSink();
    const { writer } = writerTo(sink);
    writer.append(draft('x1'));
    let durable = false;
    const waited = writer.durable(true).then(() => (durable = true));
    await microtasks();
    const closed = writer.close();
    await until(() => sink.syncs.length === 1);
    expect(durable).toBe(false);
    sink.syncs[0]!.release();
    await Promise.all([waited, closed]);
    expect(durable).toBe(true);
  });
});

describe('RecordingWriter with a sink that writes at once', () => {
  /** Counts which way each batch went; `writeNow` refuses until `ready` (a file not yet open). */
  class CountingSink implements LineSink {
    readonly now: string[] = [];
    readonly later: string[] = [];
    ready = false;
    async write(text: string): Promise<void> {
      this.later.push(text);
    }
    writeNow(text: string): boolean {
      if (!this.ready) return false;
      this.now.push(text);
      return true;
    }
    async close(): Promise<void> {}
  }

  it('writes every batch synchronously once the sink can, a batch somebody waits for at once', async () => {
    const sink = new CountingSink();
    const { writer } = writerTo(sink);
    await writer.flush(); // the header: writeNow refused, so it went through write
    expect(sink.later).toHaveLength(1);
    sink.ready = true;
    writer.append(draft('x1'));
    expect(sink.now.join('')).not.toContain('"x1"'); // a batch nobody waits for waits for the next
    await new Promise((resolve) => setTimeout(resolve, 20)); // the delayed batch
    expect(sink.now.join('')).toContain('"x1"');
    writer.append(draft('x2'));
    const waited = writer.durable(false);
    // Written before durable() returned, not on a later turn.
    expect(sink.now.join('')).toContain('"x2"');
    await waited;
    expect(sink.later).toHaveLength(1);
  });

  it('has the lines on disk when durable() resolves; a stalled write is told once, lost at close', async () => {
    const path = join(dir, 'now.jsonl');
    const { writer } = writerTo(fileLineSink(path));
    await writer.flush();
    writer.append(draft('x1'));
    await writer.durable(true);
    expect((await readFile(path, 'utf8')).split('\n')[1]).toContain('"xid":"x1"');
    await writer.close();

    const errors: unknown[] = [];
    const failing = new CountingSink();
    failing.ready = true;
    failing.writeNow = () => {
      throw new Error('EIO');
    };
    const { writer: w } = writerTo(failing, (e) => errors.push(e));
    w.append(draft('x1'));
    expect(await w.durable(false)).toBeInstanceOf(Error);
    w.append(draft('x2'));
    expect(await w.durable(false)).toBeInstanceOf(Error);
    expect(errors).toHaveLength(1);
    expect(w.stalled).toBeInstanceOf(Error);
    expect(w.failed).toBe(false);
    expect(w.dropped).toBe(0);
    await w.close();
    expect(w.failed).toBe(true);
    expect(w.dropped).toBe(3);
    expect(errors).toHaveLength(1);
  });
});

describe('readRecording', () => {
  async function writeFileRecording(n: number): Promise<string> {
    const path = join(dir, 'r.jsonl');
    const { writer } = writerTo(fileLineSink(path, { replace: true }));
    for (let i = 0; i < n; i++) writer.append(draft(`x${i}`));
    await writer.close();
    return path;
  }

  it('reads back what the writer wrote', async () => {
    const path = await writeFileRecording(4);
    const recording = await readRecording(path);
    expect(recording.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(recording.tornTail).toBeUndefined();
  });

  it('reports a torn last line with its line number, and skips it only when allowed', async () => {
    const path = await writeFileRecording(4);
    const size = (await readFile(path)).byteLength;
    await truncate(path, size - 10);
    await expect(readRecording(path)).rejects.toMatchObject({
      code: 'RECORDING_TORN',
      message: expect.stringContaining(':5: torn last line') as unknown,
    });
    const recording = await readRecording(path, { allowTornTail: true });
    expect(recording.entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(recording.tornTail).toMatchObject({ line: 5 });
  });

  it('names the line of a malformed entry in the middle', async () => {
    const path = await writeFileRecording(3);
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[2] = '{"seq":2,"oops"';
    await writeFile(path, lines.join('\n'));
    await expect(readRecording(path, { allowTornTail: true })).rejects.toThrow(/r\.jsonl:3: not valid JSON/);
    lines[2] = JSON.stringify({ seq: 5, at: 'x', xid: 'x', kind: 'request', http: { method: 'GET', path: '/' } });
    await writeFile(path, lines.join('\n'));
    await expect(readRecording(path)).rejects.toThrow(/:3: entry "seq" is 5, expected 2/);
    lines[2] = JSON.stringify({ seq: 2, at: 'x', xid: 'x', kind: 'poke', http: { method: 'GET', path: '/' } });
    await writeFile(path, lines.join('\n'));
    await expect(readRecording(path)).rejects.toBeInstanceOf(A2aReplayError);
  });

  it('refuses, naming line and field, a method, target or header no HTTP message can carry as recorded', async () => {
    const path = await writeFileRecording(3);
    const lines = (await readFile(path, 'utf8')).split('\n');
    const entry = JSON.parse(lines[2] as string) as { http: Record<string, unknown> };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ method: 'PO ST' }, /:3: entry field "http\.method" "PO ST" is not an HTTP method/],
      [{ path: '' }, /:3: entry field "http\.path" "" is not a request target/],
      [{ path: '/a b' }, /:3: entry field "http\.path" "\/a b" is not a request target/],
      [{ path: '/a\r\nx: y' }, /:3: entry field "http\.path" .* is not a request target/],
      [{ path: '/\u0101' }, /:3: entry field "http\.path" .* above U\+00FF/],
      [{ headers: { 'x-note': 'a\u0001b' } }, /:3: entry field "http\.headers" holds "x-note"/],
      [{ headers: { 'x note': 'ok' } }, /:3: entry field "http\.headers" holds "x note"/],
      [{ headers: { 'x-note': 'a\u2028b' } }, /:3: entry field "http\.headers" holds "x-note"/],
    ];
    for (const [http, message] of cases) {
      lines[2] = JSON.stringify({ ...entry, http: { ...entry.http, ...http } });
      await writeFile(path, lines.join('\n'));
      await expect(readRecording(path), JSON.stringify(http)).rejects.toMatchObject({
        code: 'RECORDING_MALFORMED',
        message: expect.stringMatching(message) as unknown,
      });
    }
    // What the recorder may write: Latin-1 text of the raw bytes, tabs and obs-text in values.
    lines[2] = JSON.stringify({
      ...entry,
      http: { ...entry.http, path: '/caf\u00c3\u00a9?q=%20', headers: { 'x-note': 'a\tb \u00ff' } },
    });
    await writeFile(path, lines.join('\n'));
    expect((await readRecording(path)).entries[1]?.http.path).toBe('/caf\u00c3\u00a9?q=%20');
  });

  it('accepts a complete last line that lacks its newline', async () => {
    const path = await writeFileRecording(2);
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.trimEnd());
    expect((await readRecording(path)).entries).toHaveLength(2);
  });
});
