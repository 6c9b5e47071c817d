/**
 * @module http/json-answer
 * A whole JSON answer on a `node:http` response, shared by the reference peer and the recording
 * proxy: one `writeHead` with `Content-Type` and `Content-Length`, then the body.
 */
import type { ServerResponse } from 'node:http';

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
