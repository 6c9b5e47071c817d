/**
 * @module scripts/golden/a2a-client
 * A minimal A2A client for driving golden scenarios in any of the three bindings: JSON-RPC on
 * `/` or HTTP+JSON under `/rest` over plain `fetch` (the same calls through the binding's routes,
 * its answers read back into JSON-RPC terms, so scenarios are written once), or gRPC on the same
 * port (scripts/golden/grpc-calls.ts, answers read back the same way). It speaks v1.0 (every call
 * carries `A2A-Version: 1.0`) or, over JSON-RPC and HTTP+JSON, v0.3 as a v0.3 client does: no
 * `A2A-Version`, v0.3's method names and shapes, HTTP+JSON under `/rest/v1/` (scripts/golden/v03-wire.ts),
 * its answers read back into v1.0's shapes. Control calls go to `/control` (JSON-RPC) and the
 * agent card is fetched over HTTP whatever the binding; streams are read event by event.
 */
import { type Binding, readRestError, restRequestOf } from '../../src/protocol/rest-binding.js';
import { SseParser } from '../../src/intercept/sse-parser.js';
import { v03Result } from '../../src/observe/v03-dialect.js';
import { V03_REST_PREFIX } from '../../src/protocol/rest-binding-v03.js';
import { GrpcCalls } from './grpc-calls.js';
import { v03MethodName, v03ParamsOf, v03RestError } from './v03-wire.js';

/** Where the reference peer serves HTTP+JSON. */
const REST_PATH = '/rest';

/** The binding a scenario's client speaks: one of the JSON bindings, or gRPC (docs/design.md §16). */
export type ClientBinding = Binding | 'GRPC';

/** The A2A version a scenario's client speaks (docs/design.md §14.10). */
export type ClientDialect = '1.0' | '0.3';

export interface RpcReply {
  result?: unknown;
  error?: { code: number; message: string };
}

/** An unsigned JWT naming `sub`: enough for the recorder to attribute requests (`jwt:sub=...`). */
export function bearerFor(sub: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `Bearer ${part({ alg: 'none', typ: 'JWT' })}.${part({ sub })}.`;
}

export class A2aTestClient {
  #nextId = 1;
  readonly #headers: Record<string, string>;
  /** The gRPC channel, opened at the first gRPC call. */
  #grpc: GrpcCalls | undefined;
  /** The clients `as` made, closed with this one. */
  readonly #others: A2aTestClient[] = [];

  /** `principal` becomes the `sub` of a bearer token on every A2A call (not on /control). */
  constructor(
    readonly baseUrl: string,
    readonly principal?: string,
    readonly binding: ClientBinding = 'JSONRPC',
    readonly dialect: ClientDialect = '1.0',
  ) {
    if (dialect === '0.3' && binding === 'GRPC') throw new Error('the golden client speaks v0.3 over JSON only');
    this.#headers = { 'content-type': 'application/json', ...(dialect === '1.0' ? { 'a2a-version': '1.0' } : {}) };
    if (principal !== undefined) this.#headers.authorization = bearerFor(principal);
  }

  /** A client of the same peer acting for someone else. */
  as(principal: string): A2aTestClient {
    const other = new A2aTestClient(this.baseUrl, principal, this.binding, this.dialect);
    this.#others.push(other);
    return other;
  }

  /** A client of the same peer, for the same principal, speaking `dialect`. */
  speaking(dialect: ClientDialect): A2aTestClient {
    const other = new A2aTestClient(this.baseUrl, this.principal, this.binding, dialect);
    this.#others.push(other);
    return other;
  }

  /** A v1.0 answer of `method` read from what this client's dialect sent back. */
  #read(method: string, result: unknown): unknown {
    if (this.dialect === '1.0') return result;
    return v03Result(method, result, this.binding === 'HTTP+JSON' ? 'proto' : 'rpc');
  }

  /** Closes the gRPC channels this client and those `as` made opened (no-op for the JSON bindings). */
  close(): void {
    this.#grpc?.close();
    this.#grpc = undefined;
    for (const other of this.#others.splice(0)) other.close();
  }

  /** The gRPC calls of this client, when it speaks gRPC and `path` is the A2A one. */
  #overGrpc(path: string): GrpcCalls | undefined {
    if (this.binding !== 'GRPC' || path !== '/') return undefined;
    this.#grpc ??= new GrpcCalls(this.baseUrl, this.#headers.authorization);
    return this.#grpc;
  }

  /** The HTTP+JSON request of an A2A call, when this client speaks HTTP+JSON and `path` is the A2A one. */
  #rest(method: string, params: unknown, path: string): { url: URL; init: RequestInit } | undefined {
    if (this.binding !== 'HTTP+JSON' || path !== '/') return undefined;
    const v03 = this.dialect === '0.3';
    const request = restRequestOf(method, v03 ? v03ParamsOf(method, params, 'proto') : params);
    if (!request) throw new Error(`${method} has no HTTP+JSON route`);
    return {
      url: new URL(`${REST_PATH}${v03 ? V03_REST_PREFIX : ''}${request.path}`, this.baseUrl),
      init: {
        method: request.verb,
        headers: this.#headers,
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      },
    };
  }

  async call(method: string, params: unknown, path = '/'): Promise<RpcReply> {
    const grpc = this.#overGrpc(path);
    if (grpc) return grpc.call(method, params);
    const rest = this.#rest(method, params, path);
    if (rest) {
      const response = await fetch(rest.url, rest.init);
      const body = (await response.json()) as unknown;
      const error =
        this.dialect === '1.0'
          ? readRestError(body)
          : response.ok
            ? undefined
            : (v03RestError(body) ?? { code: undefined, message: `HTTP ${response.status}` });
      if (error) return { error: { code: error.code ?? -32603, message: error.message } };
      return { result: this.#read(method, body) };
    }
    const v03 = this.dialect === '0.3' && path === '/';
    const response = await fetch(new URL(path, this.baseUrl), {
      method: 'POST',
      headers: path === '/' ? this.#headers : { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: this.#nextId++,
        method: v03 ? v03MethodName(method) : method,
        params: v03 ? v03ParamsOf(method, params, 'rpc') : params,
      }),
    });
    const reply = (await response.json()) as RpcReply;
    return v03 && reply.result !== undefined ? { ...reply, result: this.#read(method, reply.result) } : reply;
  }

  /** Calls and returns `result`, failing loudly on a JSON-RPC error. */
  async ok<T = Record<string, unknown>>(method: string, params: unknown, path = '/'): Promise<T> {
    const reply = await this.call(method, params, path);
    if (reply.error) throw new Error(`${method} failed: ${reply.error.code} ${reply.error.message}`);
    return reply.result as T;
  }

  /** Calls and returns the error code, failing loudly if the call succeeded. */
  async fails(method: string, params: unknown): Promise<number> {
    const reply = await this.call(method, params);
    if (!reply.error) throw new Error(`${method} was expected to fail but succeeded`);
    return reply.error.code;
  }

  control<T = Record<string, unknown>>(method: string, params: unknown): Promise<T> {
    return this.ok<T>(method, params, '/control');
  }

  async agentCard(): Promise<unknown> {
    const response = await fetch(new URL('/.well-known/agent-card.json', this.baseUrl));
    return response.json();
  }

  /** Starts a streaming call; events arrive on `events`, `done` settles when the stream closes. */
  stream(method: string, params: unknown): TestStream {
    const events = new EventLog();
    const grpc = this.#overGrpc('/');
    if (grpc) {
      const call = grpc.stream(method, params, (event) => events.push(event));
      return { events: events.seen, done: call.done, abort: () => call.abort(), next: (test) => events.next(test) };
    }
    const controller = new AbortController();
    const rest = this.#rest(method, params, '/');
    const done = (async () => {
      const response = rest
        ? await fetch(rest.url, {
            ...rest.init,
            headers: { ...this.#headers, accept: 'text/event-stream' },
            signal: controller.signal,
          })
        : await fetch(new URL('/', this.baseUrl), {
            method: 'POST',
            headers: { ...this.#headers, accept: 'text/event-stream' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: this.#nextId++,
              method: this.dialect === '0.3' ? v03MethodName(method) : method,
              params: this.dialect === '0.3' ? v03ParamsOf(method, params, 'rpc') : params,
            }),
            signal: controller.signal,
          });
      if (!response.body) throw new Error(`${method}: no stream body`);
      const parser = new SseParser();
      try {
        for await (const chunk of response.body) {
          for (const { data } of parser.push(chunk as Uint8Array)) {
            if (!data) continue;
            const frame = JSON.parse(data) as Record<string, unknown>;
            const event = rest ? frame : ((frame as { result?: Record<string, unknown> }).result ?? {});
            events.push(this.#read(method, event) as Record<string, unknown>);
          }
        }
      } catch (error) {
        if (!controller.signal.aborted) throw error;
      }
    })();
    return { events: events.seen, done, abort: () => controller.abort(), next: (test) => events.next(test) };
  }
}

/** A stream's events so far, and the waiters for one still to come. */
class EventLog {
  readonly seen: Record<string, unknown>[] = [];
  readonly #waiters: {
    test: (e: Record<string, unknown>) => boolean;
    resolve: (e: Record<string, unknown>) => void;
  }[] = [];

  push(event: Record<string, unknown>): void {
    this.seen.push(event);
    for (const w of this.#waiters.splice(0)) {
      if (w.test(event)) w.resolve(event);
      else this.#waiters.push(w);
    }
  }

  next(test: (event: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      const seen = this.seen.find(test);
      if (seen) resolve(seen);
      else this.#waiters.push({ test, resolve });
    });
  }
}

export interface TestStream {
  events: Record<string, unknown>[];
  done: Promise<void>;
  abort(): void;
  /** The first event (already seen or still to come) that passes `test`. */
  next(test: (event: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

/** A user message whose first text part is a scripted-agent script (docs/design.md §4). */
export function userMessage(
  script: string,
  messageId: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { message: { messageId, role: 'ROLE_USER', parts: [{ text: script }], ...extra } };
}

export function stateOf(event: Record<string, unknown>): string | undefined {
  const e = event as {
    task?: { status?: { state?: string } };
    statusUpdate?: { status?: { state?: string } };
  };
  return e.task?.status?.state ?? e.statusUpdate?.status?.state;
}

/** The task a stream event is about: its task's id, or its status update's. */
export function taskIdOf(event: Record<string, unknown>): string | undefined {
  return (
    (event.task as { id?: string } | undefined)?.id ?? (event.statusUpdate as { taskId?: string } | undefined)?.taskId
  );
}

/** Whether a stream event shows its task WORKING again after an explicit resume. */
export function resumedEvent(event: Record<string, unknown>): boolean {
  return stateOf(event) === 'TASK_STATE_WORKING' && JSON.stringify(event).includes('explicit_resume');
}
