/**
 * A small raw JSON-RPC + SSE client for testing the reference peer over real sockets, and the
 * per-test peer most peer tests start.
 */
import { afterEach, beforeEach } from 'vitest';
import { SseParser } from '../../src/intercept/sse-parser.js';
import { type PeerOptions, startPeer } from '../../src/peer/start-peer.js';
import type { JsonRpcErrorObject } from '../../src/protocol/errors.js';
import type { StreamResponse, Task } from '../../src/protocol/types.js';

export interface RpcReply<T = unknown> {
  status: number;
  result?: T;
  error?: JsonRpcErrorObject & { data?: { reason?: string; metadata?: Record<string, string> }[] };
  id?: unknown;
}

export interface SseFrame {
  id: unknown;
  result?: StreamResponse;
  error?: JsonRpcErrorObject;
}

const HEADERS = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };

let nextId = 1;

/** One open SSE stream; frames arrive in order. */
export class SseStream {
  readonly frames: SseFrame[] = [];
  closed = false;
  #waiters: (() => void)[] = [];
  #read = 0;
  readonly #abort: AbortController;

  constructor(response: Response, abort: AbortController) {
    this.#abort = abort;
    void this.#pump(response);
  }

  async #pump(response: Response): Promise<void> {
    const parser = new SseParser();
    try {
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        for (const { data } of parser.push(value)) {
          if (data) this.frames.push(JSON.parse(data) as SseFrame);
          this.#wake();
        }
      }
    } catch {
      // aborted
    }
    this.closed = true;
    this.#wake();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  /** The next frame not yet taken; rejects if the stream ends first. */
  async next(): Promise<StreamResponse> {
    while (this.#read >= this.frames.length) {
      if (this.closed) throw new Error(`stream ended after ${this.frames.length} frames`);
      await new Promise<void>((r) => this.#waiters.push(r));
    }
    const frame = this.frames[this.#read++]!;
    if (!frame.result) throw new Error(`error frame: ${JSON.stringify(frame.error)}`);
    return frame.result;
  }

  /** Waits until `count` frames have arrived in total. */
  async waitFor(count: number): Promise<void> {
    while (this.frames.length < count) {
      if (this.closed) throw new Error(`stream ended after ${this.frames.length} frames, wanted ${count}`);
      await new Promise<void>((r) => this.#waiters.push(r));
    }
  }

  /** Waits until some frame satisfies `test`; returns it. */
  async waitUntil(test: (ev: StreamResponse) => boolean): Promise<StreamResponse> {
    for (;;) {
      const hit = this.frames.find((f) => f.result !== undefined && test(f.result));
      if (hit?.result) return hit.result;
      if (this.closed) throw new Error(`stream ended after ${this.frames.length} frames without the awaited event`);
      await new Promise<void>((r) => this.#waiters.push(r));
    }
  }

  /** Waits for the server to end the stream; returns every result. */
  async untilClosed(): Promise<StreamResponse[]> {
    while (!this.closed) await new Promise<void>((r) => this.#waiters.push(r));
    return this.frames.map((f) => f.result!);
  }

  close(): void {
    this.#abort.abort();
  }
}

export class PeerClient {
  readonly streams: SseStream[] = [];

  constructor(readonly url: string) {}

  async post(
    path: string,
    body: string,
    headers: Record<string, string> = HEADERS,
  ): Promise<{ status: number; json: unknown }> {
    const res = await fetch(this.url + path, { method: 'POST', headers, body });
    const text = await res.text();
    return { status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined };
  }

  async call<T = unknown>(method: string, params?: unknown, path = '/'): Promise<RpcReply<T>> {
    const id = nextId++;
    const { status, json } = await this.post(path, JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return { status, ...(json as object) } as RpcReply<T>;
  }

  /** The result of a call; throws with the error when it fails. */
  async result<T>(method: string, params?: unknown, path = '/'): Promise<T> {
    const reply = await this.call<T>(method, params, path);
    if (reply.error) throw new Error(`${method} failed: ${JSON.stringify(reply.error)}`);
    return reply.result as T;
  }

  control<T>(method: string, params?: unknown): Promise<T> {
    return this.result<T>(method, params, '/control');
  }

  async advance(ms: number): Promise<string> {
    return (await this.control<{ now: string }>('AdvanceClock', { ms })).now;
  }

  async stream(method: string, params: unknown): Promise<SseStream> {
    const abort = new AbortController();
    const res = await fetch(this.url, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      signal: abort.signal,
    });
    if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      throw new Error(`${method} did not open a stream: ${await res.text()}`);
    }
    const stream = new SseStream(res, abort);
    this.streams.push(stream);
    return stream;
  }

  /** Sends a script with returnImmediately and returns the task. */
  async start(script: string, extra: Record<string, unknown> = {}): Promise<Task> {
    const result = await this.result<{ task: Task }>('SendMessage', {
      message: { messageId: `m-${nextId++}`, role: 'ROLE_USER', parts: [{ text: script }], ...extra },
      configuration: { returnImmediately: true },
    });
    return result.task;
  }

  async getTask(id: string): Promise<Task> {
    return this.result<Task>('GetTask', { id });
  }

  closeStreams(): void {
    for (const s of this.streams) s.close();
  }
}

/**
 * A fresh peer for every test of the calling file (deterministic unless `options` say otherwise):
 * started in `beforeEach`, where `use` receives the client to it, and closed in `afterEach`
 * after the client's streams.
 */
export function peerPerTest(use: (client: PeerClient) => void, options: PeerOptions = { deterministic: true }): void {
  let close = async (): Promise<void> => {};
  beforeEach(async () => {
    const peer = await startPeer(options);
    const client = new PeerClient(peer.url);
    close = async () => {
      client.closeStreams();
      await peer.close();
    };
    use(client);
  });
  afterEach(async () => {
    const closing = close;
    close = async () => {};
    await closing();
  });
}

export function message(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messageId: `m-${nextId++}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** The state a stream result reports, for compact order assertions. */
export function label(ev: StreamResponse): string {
  if ('task' in ev) return `task:${ev.task.status.state}`;
  if ('statusUpdate' in ev) return `status:${ev.statusUpdate.status.state}`;
  if ('artifactUpdate' in ev) return `artifact:${ev.artifactUpdate.artifact.artifactId}`;
  return 'message';
}
