/**
 * The observer on real traffic: a deterministic reference peer on 127.0.0.1, driven with fetch,
 * every exchange recorded into RecordingEntry objects by a tiny in-test recorder.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/canonical/canonical-json.js';
import { SseParser } from '../../src/intercept/sse-parser.js';
import { PauseObserver } from '../../src/observe/pause-observer.js';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { findings, lost, resumptions, suspensions } from './entries.js';

const AT0 = Date.parse('2026-06-01T00:00:00.000Z');

interface StreamEvent {
  result?: {
    statusUpdate?: {
      taskId: string;
      status: { state: string; pause?: { resumeToken: string } };
      metadata?: Record<string, unknown>;
    };
    task?: { id: string };
  };
}

/** Records fetch exchanges as entries; `at` is a counter, never the wall clock. */
class MiniRecorder {
  readonly entries: RecordingEntry[] = [];
  readonly #open: Array<Promise<void>> = [];
  #xid = 0;

  constructor(private readonly base: string) {}

  #push(entry: Omit<RecordingEntry, 'seq' | 'at'>): void {
    const seq = this.entries.length + 1;
    this.entries.push({ seq, at: new Date(AT0 + seq).toISOString(), ...entry } as RecordingEntry);
  }

  async call(
    path: string,
    method: string,
    params: JsonValue,
    principal?: string,
  ): Promise<{ result?: unknown; error?: { code: number }; stream?: Stream }> {
    const xid = `x${++this.#xid}`;
    const body = { jsonrpc: '2.0', id: this.#xid, method, params };
    const http = { method: 'POST', path };
    const request: Omit<RecordingEntry, 'seq' | 'at'> = {
      xid,
      kind: 'request',
      http: { ...http, headers: { 'a2a-version': '1.0' } },
      body: body as JsonValue,
    };
    if (principal !== undefined) request.principal = principal;
    this.#push(request);
    const res = await fetch(`${this.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify(body),
    });
    if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      this.#push({ xid, kind: 'response', http: { ...http, status: res.status } });
      const stream = new Stream();
      this.#open.push(this.#pump(xid, res, stream));
      return { stream };
    }
    const json = (await res.json()) as { result?: unknown; error?: { code: number } };
    this.#push({ xid, kind: 'response', http: { ...http, status: res.status }, body: json as JsonValue });
    this.#push({ xid, kind: 'end', http });
    return json;
  }

  async #pump(xid: string, res: Response, stream: Stream): Promise<void> {
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const parser = new SseParser();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const { data } of parser.push(value)) {
        if (data === '') continue;
        const parsed = JSON.parse(data) as StreamEvent;
        this.#push({ xid, kind: 'event', http: { method: 'POST', path: '/' }, body: parsed as JsonValue });
        stream.deliver(parsed);
      }
    }
    this.#push({ xid, kind: 'end', http: { method: 'POST', path: '/' } });
    stream.close();
  }

  /** Waits for every stream to end. */
  async drained(): Promise<void> {
    await Promise.all(this.#open);
  }
}

/** Events of one SSE response, awaitable by predicate. */
class Stream {
  readonly events: StreamEvent[] = [];
  #waiters: Array<{ match: (e: StreamEvent) => boolean; resolve: (e: StreamEvent) => void; from: number }> = [];
  #closed = false;

  deliver(event: StreamEvent): void {
    this.events.push(event);
    this.#waiters = this.#waiters.filter((w) => {
      if (!w.match(event)) return true;
      w.resolve(event);
      return false;
    });
  }

  close(): void {
    this.#closed = true;
  }

  /** The next event (after `from` events) that matches. */
  next(match: (e: StreamEvent) => boolean, from = 0): Promise<StreamEvent> {
    const seen = this.events.slice(from).find(match);
    if (seen) return Promise.resolve(seen);
    if (this.#closed) return Promise.reject(new Error('stream closed before the awaited event'));
    return new Promise((resolve) => this.#waiters.push({ match, resolve, from }));
  }
}

const stateIs = (state: string) => (e: StreamEvent) => e.result?.statusUpdate?.status.state === state;
const resumedEvent = (e: StreamEvent) =>
  e.result?.statusUpdate?.metadata?.previousState === 'TASK_STATE_PAUSED' ||
  (e.result?.statusUpdate?.metadata as { harn?: { pause?: { state?: string } } } | undefined)?.harn?.pause?.state ===
    'resumed';
const legacyPausedEvent = (e: StreamEvent) =>
  (e.result?.statusUpdate?.metadata as { harn?: { pause?: { state?: string } } } | undefined)?.harn?.pause?.state ===
  'paused';

async function session(peer: RunningPeer, legacy: boolean): Promise<RecordingEntry[]> {
  const rec = new MiniRecorder(peer.url);
  const pausedOn = (e: StreamEvent) => (legacy ? legacyPausedEvent(e) : stateIs('TASK_STATE_PAUSED')(e));
  const message = (text: string) => ({ message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } });

  // Task A parks itself and resumes when the control channel fires its event.
  const a = (await rec.call('/', 'SendStreamingMessage', message('await:ci.done:30:fail work:1'), 'jwt:sub=alice'))
    .stream as Stream;
  await a.next(pausedOn);
  await rec.call('/control', 'FireEvent', { name: 'ci.done' }, 'ops:ci');
  await a.next(resumedEvent);
  await rec.call('/control', 'AdvanceClock', { ms: 1000 });
  await a.next(stateIs('TASK_STATE_COMPLETED'));

  // Task B is paused by a caller, refused a wrong token, then resumed.
  const b = (await rec.call('/', 'SendStreamingMessage', message('work:4'), 'jwt:sub=alice')).stream as Stream;
  const first = await b.next((e) => e.result?.task !== undefined);
  const taskId = first.result?.task?.id as string;
  await rec.call('/control', 'AdvanceClock', { ms: 1000 });
  const paused = (await rec.call('/', 'PauseTask', { taskId, reason: 'operator review' }, 'jwt:sub=bob')) as {
    result: Record<string, unknown>;
  };
  await b.next(pausedOn);
  const token = legacy
    ? (paused.result.metadata as { harn: { pause: { handle: string } } }).harn.pause.handle
    : (paused.result.pause as { resumeToken: string }).resumeToken;
  const wrong = await rec.call('/', 'ResumeTask', { taskId, resumeToken: 'not-the-token' }, 'jwt:sub=eve');
  expect(wrong.error?.code).toBe(-32011);
  await rec.call('/', 'ResumeTask', { taskId, resumeToken: token, input: { approved: true } }, 'jwt:sub=carol');
  await b.next(resumedEvent);
  await rec.call('/control', 'AdvanceClock', { ms: 10_000 });
  await b.next(stateIs('TASK_STATE_COMPLETED'));
  await rec.drained();
  return rec.entries;
}

function observe(entries: readonly RecordingEntry[]) {
  const observer = new PauseObserver({ recordingId: 'rec-peer' });
  const out = entries.flatMap((e) => observer.observe(e));
  out.push(...observer.finish(new Date(AT0 + entries.length + 1).toISOString()));
  return out;
}

describe('PauseObserver on the reference peer', () => {
  let peer: RunningPeer | undefined;

  afterEach(async () => {
    await peer?.close();
    peer = undefined;
  });

  it('derives the receipts of a self-park, a caller pause, a rejected and an accepted resume', async () => {
    peer = await startPeer({ deterministic: true });
    const entries = await session(peer, false);
    const out = observe(entries);
    expect(findings(out)).toEqual([]);
    expect(lost(out)).toEqual([]);
    expect(suspensions(out).map((s) => [s.via, s.initiatedBy, s.principal, s.mode, s.conditions])).toEqual([
      [
        'statusUpdate',
        'PAUSE_INITIATOR_AGENT',
        null,
        null,
        { onEvent: 'ci.done', timeout: { durationMinutes: 30, onTimeout: 'fail' } },
      ],
      ['PauseTask', 'PAUSE_INITIATOR_CLIENT', 'jwt:sub=bob', 'finish_step', null],
    ]);
    expect(resumptions(out).map((r) => [r.cause, r.outcome, r.principal, r.errorCode, r.hadResumeInput])).toEqual([
      ['condition_fired', 'resumed', 'ops:ci', null, false],
      ['explicit_resume', 'rejected', 'jwt:sub=eve', -32011, false],
      ['explicit_resume', 'resumed', 'jwt:sub=carol', null, true],
    ]);
    expect(observe(entries)).toEqual(out);
  });

  it('derives the same receipts from a legacy-pause peer, except via', async () => {
    peer = await startPeer({ deterministic: true });
    const native = observe(await session(peer, false));
    await peer.close();
    peer = await startPeer({ deterministic: true, legacyPause: true });
    const legacy = observe(await session(peer, true));
    expect(findings(legacy)).toEqual([]);
    // Entry seqs and observedAt depend on which socket the recorder read first, and so do the span
    // ids, derived from the seq of the entry that opened the pause; the facts do not.
    const facts = (d: Record<string, unknown>) => {
      const { via: _via, entries: _entries, observedAt: _observedAt, span: _span, links: _links, ...rest } = d;
      return rest;
    };
    expect(suspensions(legacy).map((s) => s.via)).toEqual(['legacy-metadata', 'legacy-metadata']);
    expect(suspensions(legacy).map(facts)).toEqual(suspensions(native).map(facts));
    expect(resumptions(legacy).map(facts)).toEqual(resumptions(native).map(facts));
  });
});
