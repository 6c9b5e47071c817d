/**
 * @module http/json-answer
 * A whole JSON answer on a `node:http` response, shared by the reference peer and the recording
 * proxy: one `writeHead` with `Content-Type` and `Content-Length`, then the body; and the body of
 * an answer a server writes itself (a refusal or a failure), in the binding of the request.
 */
import type { ServerResponse } from 'node:http';
import { type JsonRpcErrorName, jsonRpcError } from '../protocol/errors.js';
import { type JsonRpcId, errorResponse } from '../protocol/json-rpc.js';
import { type Binding, restError } from '../protocol/rest-binding.js';

/**
 * Sends `value` as JSON with `status`. Returns false (and sends nothing) when the response has
 * already started or the connection is gone: the caller decides what that means.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): boolean {
  if (res.headersSent || res.destroyed) return false;
  const text = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
  return true;
}

/** An answer a server writes itself: its HTTP status, the error of the table it carries, and its words. */
export interface OwnAnswer {
  status: number;
  name: JsonRpcErrorName;
  message: string;
  /** The JSON-RPC id of the request when it could be read (JSON-RPC only; default null). */
  id?: JsonRpcId | null;
  /** The ErrorInfo's metadata (JSON-RPC `data`, HTTP+JSON `details`). */
  metadata?: Record<string, string>;
}

/**
 * The body of an answer a server writes itself, in the request's binding (docs/design.md §5,
 * §15): JSON-RPC `{jsonrpc, id, error: {code, message, data: [ErrorInfo]}}`, or HTTP+JSON
 * `{error: {code, status, message, details: [ErrorInfo]}}` whose `code` is the HTTP status the
 * answer travels with (as a 405's is), whatever status the error has in the binding's table.
 */
export function ownAnswerBody(binding: Binding, answer: OwnAnswer): unknown {
  switch (binding) {
    case 'JSONRPC':
      return errorResponse(answer.id ?? null, jsonRpcError(answer.name, answer.message, answer.metadata));
    case 'HTTP+JSON': {
      const { body } = restError(answer.name, answer.message, answer.metadata);
      body.error.code = answer.status;
      return body;
    }
    default: {
      const never: never = binding;
      return never;
    }
  }
}

/**
 * The body of an answer the HTTP limits send (408, 413, 431, 400, 503), in `binding` (default
 * JSON-RPC): id null, -32603 (INTERNAL) for 503 (the server is busy), -32600 (INVALID_REQUEST)
 * for the rest, the HTTP status in the ErrorInfo's metadata as `httpStatus`.
 */
export function limitAnswerBody(status: number, message: string, binding: Binding = 'JSONRPC'): string {
  const name = status === 503 ? 'INTERNAL' : 'INVALID_REQUEST';
  return JSON.stringify(ownAnswerBody(binding, { status, name, message, metadata: { httpStatus: String(status) } }));
}
