/**
 * Makes gRPC recordings from real traffic for tests: a grpc-js client calls a gRPC peer (the
 * reference peer, the mock) and every call is written as the recording format's gRPC entries
 * (docs/design.md §5, §16; `EntryGrpc` in src/recording/format.ts), the format `record` writes
 * for gRPC: `http.path` the call's path, `http.headers` the metadata sent, `body` the message as
 * ProtoJSON; a unary call is a `request` and a `response` (the message with status 0, or no body
 * and the status, message and decoded `grpc-status-details-bin` on an error); a server stream is
 * a `request`, one `event` per message and an `end` with the status.
 */
import { writeFile } from 'node:fs/promises';
import { fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import {
  Client,
  status as GrpcStatus,
  Metadata,
  type ServiceError,
  type StatusObject,
  credentials,
} from '@grpc/grpc-js';
import type { JsonValue } from '../../src/canonical/canonical-json.js';
import { GRPC_METHODS } from '../../src/grpc/methods.js';
import { statusDetailsJson } from '../../src/grpc/grpc-wire.js';
import type { CoreMethod, PauseMethod } from '../../src/protocol/methods.js';
import type { EntryGrpc, RecordingEntry, RecordingHeader } from '../../src/recording/format.js';
import { serializeLine } from '../../src/recording/recording-writer.js';

type Method = CoreMethod | PauseMethod;

/** What a unary call answered: the message's ProtoJSON, or the error's status fields. */
export type GrpcAnswer = { ok: true; body: JsonValue } | { ok: false; grpc: EntryGrpc };

const START = Date.parse('2026-01-01T00:00:00.000Z');

function pathOf(name: Method): string {
  return `/${GRPC_METHODS[name].service}/${name}`;
}

function statusFields(code: number, details: string, trailers: Metadata | undefined): EntryGrpc {
  const grpc: EntryGrpc = { status: code };
  if (details !== '') grpc.message = details;
  const bin = trailers?.get('grpc-status-details-bin')[0];
  if (bin instanceof Buffer) grpc.details = statusDetailsJson(bin);
  return grpc;
}

/** A gRPC client that writes what it sends and gets as a recording. */
export class GrpcSessionWriter {
  readonly #client: Client;
  readonly #entries: RecordingEntry[] = [];
  #xid = 0;

  constructor(readonly target: string) {
    this.#client = new Client(target, credentials.createInsecure());
  }

  get entries(): readonly RecordingEntry[] {
    return this.#entries;
  }

  #append(entry: Omit<RecordingEntry, 'seq' | 'at'>): void {
    const seq = this.#entries.length + 1;
    this.#entries.push({ seq, at: new Date(START + seq * 1000).toISOString(), ...entry } as RecordingEntry);
  }

  #request(name: Method, body: JsonValue, headers: Record<string, string>): { xid: string; bytes: Buffer } {
    const method = GRPC_METHODS[name];
    const bytes = Buffer.from(toBinary(method.request, fromJson(method.request, body)));
    const xid = `x-${++this.#xid}`;
    const recorded = toJson(method.request, fromBinary(method.request, bytes)) as JsonValue;
    this.#append({
      xid,
      kind: 'request',
      http: { method: 'POST', path: pathOf(name), headers },
      body: recorded,
      grpc: {},
    });
    return { xid, bytes };
  }

  /** Metadata with `a2a-version: 1.0` and `extra`; `recorded` is what the recording shows of it. */
  static metadata(extra: Record<string, string> = {}): Record<string, string> {
    return { 'a2a-version': '1.0', ...extra };
  }

  /** One unary call, recorded; `recordedHeaders` default to the metadata sent. */
  unary(
    name: Method,
    body: JsonValue,
    sent: Record<string, string> = GrpcSessionWriter.metadata(),
    recordedHeaders: Record<string, string> = sent,
  ): Promise<GrpcAnswer> {
    const method = GRPC_METHODS[name];
    const { xid, bytes } = this.#request(name, body, recordedHeaders);
    const http = { method: 'POST', path: pathOf(name), status: 200 };
    const raw = (b: Buffer): Buffer => b;
    return new Promise((resolve) => {
      let message: Buffer | undefined;
      const call = this.#client.makeUnaryRequest(
        pathOf(name),
        raw,
        raw,
        bytes,
        metadataOf(sent),
        (error: ServiceError | null, answer?: Buffer) => {
          if (!error) message = answer ?? Buffer.alloc(0);
        },
      );
      // The status (and so grpc-message and the details) comes after the message, as recorded.
      call.on('status', (status: StatusObject) => {
        const grpc = statusFields(status.code, status.details, status.metadata);
        if (status.code !== GrpcStatus.OK || message === undefined) {
          this.#append({ xid, kind: 'response', http, grpc });
          resolve({ ok: false, grpc });
          return;
        }
        const answer = toJson(method.response, fromBinary(method.response, message)) as JsonValue;
        this.#append({ xid, kind: 'response', http, body: answer, grpc });
        resolve({ ok: true, body: answer });
      });
    });
  }

  /**
   * A server-streaming call, recorded to its end; `onEvent` sees each message as it comes (and
   * may make other calls meanwhile). Resolves with the messages and the final status.
   */
  stream(
    name: Method,
    body: JsonValue,
    onEvent: (event: JsonValue) => void = () => {},
    sent: Record<string, string> = GrpcSessionWriter.metadata(),
  ): Promise<{ events: JsonValue[]; grpc: EntryGrpc }> {
    const method = GRPC_METHODS[name];
    const { xid, bytes } = this.#request(name, body, sent);
    const http = { method: 'POST', path: pathOf(name) };
    const raw = (b: Buffer): Buffer => b;
    const events: JsonValue[] = [];
    return new Promise((resolve) => {
      const call = this.#client.makeServerStreamRequest(pathOf(name), raw, raw, bytes, metadataOf(sent));
      call.on('data', (message: Buffer) => {
        const event = toJson(method.response, fromBinary(method.response, message)) as JsonValue;
        events.push(event);
        this.#append({ xid, kind: 'event', http, body: event, grpc: {} });
        onEvent(event);
      });
      call.on('error', () => {});
      call.on('status', (status: StatusObject) => {
        const grpc = statusFields(status.code, status.details, status.metadata);
        this.#append({ xid, kind: 'end', http, grpc });
        resolve({ events, grpc });
      });
    });
  }

  /**
   * A JSON-RPC call to the peer's `/control` (the reference peer's clock), recorded as the JSON
   * binding's entries: a recording of a gRPC session moves the peer's virtual clock over HTTP.
   */
  async control(baseUrl: string, method: string, params: JsonValue): Promise<JsonValue> {
    const xid = `x-${++this.#xid}`;
    const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };
    const body = { jsonrpc: '2.0', id: this.#xid, method, params };
    this.#append({ xid, kind: 'request', http: { method: 'POST', path: '/control', headers }, body });
    const res = await fetch(new URL('/control', baseUrl), { method: 'POST', headers, body: JSON.stringify(body) });
    const answer = (await res.json()) as JsonValue;
    this.#append({
      xid,
      kind: 'response',
      http: { method: 'POST', path: '/control', status: res.status, headers: { 'content-type': 'application/json' } },
      body: answer,
    });
    return answer;
  }

  /** Writes the recording (header with `agentCard`, then the entries) to `file`. */
  async write(file: string, agentCard: JsonValue | undefined, id = 'rec-grpc'): Promise<void> {
    const header: RecordingHeader = {
      type: 'recording',
      version: 1,
      id,
      createdAt: new Date(START).toISOString(),
      target: { url: `http://${this.target}` },
      tool: 'a2a-replay test',
      ...(agentCard !== undefined ? { agentCard } : {}),
    };
    await writeFile(file, [header, ...this.#entries].map((line) => serializeLine(line)).join(''), { mode: 0o600 });
  }

  close(): void {
    this.#client.close();
  }
}

function metadataOf(headers: Record<string, string>): Metadata {
  const metadata = new Metadata();
  for (const [name, value] of Object.entries(headers)) metadata.set(name, value);
  return metadata;
}
