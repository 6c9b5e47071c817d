/**
 * Clients that leave: one pause or resume call over a raw socket (HTTP/1.1 for JSON-RPC and
 * HTTP+JSON, HTTP/2 for gRPC) whose client stays, closes right after sending, resets while it
 * waits, half-closes (as `nc -N` does), or, over gRPC, sends a deadline (`grpc-timeout`) that
 * passes while it waits; and a JSON-RPC event stream whose client closes it at a chosen event.
 */
import { type IncomingHttpHeaders, connect as connectH2, constants as h2 } from 'node:http2';
import { connect } from 'node:net';
import { type JsonValue, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import { GRPC_METHODS } from '../../src/grpc/methods.js';

type Json = Record<string, unknown>;

/** How a client of one call behaves. */
export type Leave =
  | 'stays'
  | 'closes after sending'
  | 'resets while waiting'
  | 'half-closes'
  /** gRPC: a `grpc-timeout` of 1 s, which passes while the call waits. */
  | 'deadline passes'
  /** gRPC: `grpc-timeout: 1n`, past before anything could answer. */
  | 'deadline 1n';

export type Binding = 'JSON-RPC' | 'HTTP+JSON' | 'gRPC';

/** One call of a client that may leave; `answer` is what it read (empty when it left first). */
export interface LeavingCall {
  answer: Promise<string>;
  /** Resets the connection (HTTP/1.1) or the stream (RST_STREAM CANCEL) now. */
  reset(): void;
}

/** `method` (PauseTask, ResumeTask) on `taskId` through `url` over `binding`, its client behaving as `leave` says. */
export function leavingCall(
  url: string,
  binding: Binding,
  method: 'PauseTask' | 'ResumeTask',
  taskId: string,
  params: Json,
  leave: Leave,
): LeavingCall {
  if (binding === 'gRPC') return grpcCall(url, method, { taskId, ...params }, leave);
  const { hostname, port } = new URL(url);
  const restPath = method === 'PauseTask' ? `/rest/tasks/${taskId}:pause` : `/rest/tasks/${taskId}:resume`;
  const path = binding === 'JSON-RPC' ? '/' : restPath;
  const body = JSON.stringify(
    binding === 'JSON-RPC' ? { jsonrpc: '2.0', id: 1, method, params: { taskId, ...params } } : params,
  );
  const head =
    `POST ${path} HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n` +
    `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  const socket = connect(Number(port), hostname);
  let text = '';
  socket.setEncoding('utf8').on('data', (d: string) => (text += d));
  socket.on('error', () => undefined);
  const answer = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
  if (leave === 'half-closes') socket.end(head + body);
  else if (leave === 'closes after sending') socket.end(head + body, () => socket.destroy());
  else socket.write(head + body);
  return { answer, reset: () => socket.resetAndDestroy() };
}

/**
 * A unary gRPC call over its own HTTP/2 session; `answer` is `grpc-status <n> <message>` then the
 * answer's ProtoJSON when one came.
 */
function grpcCall(url: string, name: 'PauseTask' | 'ResumeTask', params: Json, leave: Leave): LeavingCall {
  const method = GRPC_METHODS[name];
  const message = Buffer.from(toBinary(method.request, fromJson(method.request, params as JsonValue)));
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  const session = connectH2(url);
  session.on('error', () => undefined);
  const headers: Record<string, string> = {
    ':method': 'POST',
    ':path': `/${method.service}/${name}`,
    'content-type': 'application/grpc',
    te: 'trailers',
    'a2a-version': '1.0',
  };
  if (leave === 'deadline passes') headers['grpc-timeout'] = '1S';
  if (leave === 'deadline 1n') headers['grpc-timeout'] = '1n';
  const stream = session.request(headers);
  stream.on('error', () => undefined);
  const chunks: Buffer[] = [];
  let status: IncomingHttpHeaders | undefined;
  stream.on('response', (h: IncomingHttpHeaders) => {
    if (h['grpc-status'] !== undefined) status = h;
  });
  stream.on('trailers', (h: IncomingHttpHeaders) => (status = h));
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const answer = new Promise<string>((resolve) =>
    stream.once('close', () => {
      session.close();
      if (status === undefined) return resolve('');
      const body = Buffer.concat(chunks);
      const json =
        body.length > 5 ? JSON.stringify(toJson(method.response, fromBinary(method.response, body.subarray(5)))) : '';
      resolve(
        `grpc-status ${String(status['grpc-status'])} ${decodeURIComponent(String(status['grpc-message']))} ${json}`,
      );
    }),
  );
  stream.end(frame);
  const reset = (): void => {
    if (!stream.closed) stream.close(h2.NGHTTP2_CANCEL);
  };
  if (leave === 'closes after sending') stream.once('finish', () => setImmediate(reset));
  return { answer, reset };
}

/** What a client read of an event stream before it closed it; `closed` resolves then. */
export interface LeavingStream {
  /** The `data:` lines it read, in order. */
  events: string[];
  closed: Promise<void>;
}

/**
 * A JSON-RPC `SendStreamingMessage` whose client closes its connection once it has read
 * `readEvents` events (0: right after its request).
 */
export function leavingStream(url: string, text: string, readEvents: number): LeavingStream {
  const { hostname, port } = new URL(url);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendStreamingMessage',
    params: { message: { messageId: `s-${text}`, role: 'ROLE_USER', parts: [{ text }] } },
  });
  const head =
    `POST / HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n` +
    `Accept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  const socket = connect(Number(port), hostname);
  const events: string[] = [];
  let text_ = '';
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.setEncoding('utf8').on('data', (d: string) => {
    text_ += d;
    events.splice(0, events.length, ...[...text_.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1] as string));
    if (events.length >= readEvents) socket.destroy();
  });
  if (readEvents === 0) socket.end(head + body, () => socket.destroy());
  else socket.write(head + body);
  return { events, closed };
}

/**
 * A gRPC `SendStreamingMessage` whose client cancels the call (RST_STREAM) once it has read
 * `readMessages` messages (0: right after its request).
 */
export function leavingGrpcStream(url: string, text: string, readMessages: number): LeavingStream {
  const method = GRPC_METHODS.SendStreamingMessage;
  const params = { message: { messageId: `g-${text}`, role: 'ROLE_USER', parts: [{ text }] } };
  const message = Buffer.from(toBinary(method.request, fromJson(method.request, params as JsonValue)));
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  const session = connectH2(url);
  session.on('error', () => undefined);
  const stream = session.request({
    ':method': 'POST',
    ':path': `/${method.service}/SendStreamingMessage`,
    'content-type': 'application/grpc',
    te: 'trailers',
    'a2a-version': '1.0',
  });
  stream.on('error', () => undefined);
  const events: string[] = [];
  let buffered = Buffer.alloc(0);
  const cancel = (): void => {
    if (!stream.closed) stream.close(h2.NGHTTP2_CANCEL);
  };
  stream.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 5 && buffered.length >= 5 + buffered.readUInt32BE(1)) {
      const length = buffered.readUInt32BE(1);
      const body = buffered.subarray(5, 5 + length);
      buffered = buffered.subarray(5 + length);
      events.push(JSON.stringify(toJson(method.response, fromBinary(method.response, body))));
    }
    if (events.length >= readMessages) cancel();
  });
  const closed = new Promise<void>((resolve) =>
    stream.once('close', () => {
      session.close();
      resolve();
    }),
  );
  stream.end(frame);
  if (readMessages === 0) stream.once('finish', () => setImmediate(cancel));
  return { events, closed };
}
