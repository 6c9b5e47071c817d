/**
 * @module http/json-answer
 * A whole JSON answer on a `node:http` response, shared by the reference peer and the recording
 * proxy: one `writeHead` with `Content-Type` and `Content-Length`, then the body.
 */
import type { ServerResponse } from 'node:http';
import { jsonRpcError } from '../protocol/errors.js';
import { errorResponse } from '../protocol/json-rpc.js';

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

/**
 * The JSON-RPC error body of an answer the HTTP limits send (408, 413, 431, 400, 503): id null,
 * -32603 for 503 (the server is busy), -32600 for the rest, the HTTP status in `data`.
 */
export function limitAnswerBody(status: number, message: string): string {
  const name = status === 503 ? 'INTERNAL' : 'INVALID_REQUEST';
  return JSON.stringify(errorResponse(null, jsonRpcError(name, message, { httpStatus: String(status) })));
}
