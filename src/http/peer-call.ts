/**
 * @module http/peer-call
 * {@link callPeer}: one A2A call to a peer or the recorder, as `a2a-replay client` makes it
 * (docs/design.md §9): over JSON-RPC (`POST url`), over HTTP+JSON (`url` the interface URL), or a
 * control method on `/control` at the URL's origin. The answer is the result, or the error the
 * peer answered with; a peer that cannot be reached is `PEER_UNREACHABLE`, an answer that is not
 * A2A `PROTOCOL_INVALID`.
 */
import { A2aReplayError, describeError } from '../errors.js';
import { readRestError, restRequestOf } from '../protocol/rest-binding.js';

/** A call to make: an A2A method with its params, or a control method (JSON-RPC on /control). */
export interface PeerCall {
  method: string;
  params: Record<string, unknown>;
  control: boolean;
}

/** What came back: a result, or an error the peer answered with. */
export type PeerAnswer =
  { ok: true; result: unknown } | { ok: false; code: number | undefined; reason?: string; message: string };

export interface PeerCallOptions {
  /** How A2A methods go (control methods are JSON-RPC always); default `jsonrpc`. */
  binding?: 'jsonrpc' | 'rest';
  /** The request headers (default JSON content, `A2A-Version: 1.0`). */
  headers?: Record<string, string>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function notA2a(message: string): A2aReplayError {
  return new A2aReplayError('PROTOCOL_INVALID', message);
}

async function fetchJson(url: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new A2aReplayError('PEER_UNREACHABLE', `${url}: cannot reach it (${describeError(error)})`);
  }
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    throw notA2a(`${url}: HTTP ${response.status} answered something that is not JSON (${text.length} bytes)`);
  }
}

async function callJsonRpc(url: string, call: PeerCall, headers: Record<string, string>): Promise<PeerAnswer> {
  const id = 1;
  const { status, body } = await fetchJson(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method: call.method, params: call.params }),
  });
  if (!isRecord(body) || body.jsonrpc !== '2.0')
    throw notA2a(`${url}: HTTP ${status} answered JSON that is not a JSON-RPC response`);
  if (isRecord(body.error)) {
    const error = body.error;
    let reason: string | undefined;
    if (Array.isArray(error.data))
      for (const d of error.data as unknown[]) if (isRecord(d) && typeof d.reason === 'string') reason = d.reason;
    return {
      ok: false,
      code: typeof error.code === 'number' ? error.code : undefined,
      ...(reason === undefined ? {} : { reason }),
      message: typeof error.message === 'string' ? error.message : '',
    };
  }
  if (!('result' in body)) throw notA2a(`${url}: HTTP ${status} answered a JSON-RPC response without a result`);
  return { ok: true, result: body.result };
}

async function callRest(base: string, call: PeerCall, headers: Record<string, string>): Promise<PeerAnswer> {
  const request = restRequestOf(call.method, call.params);
  if (request === undefined) throw new A2aReplayError('INVALID_ARGUMENT', `${call.method} has no HTTP+JSON route`);
  const url = `${base.replace(/\/$/, '')}${request.path}`;
  const { status, body } = await fetchJson(url, {
    method: request.verb,
    headers,
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  });
  if (status >= 200 && status < 300) return { ok: true, result: body };
  const error = readRestError(body);
  if (error === undefined) throw notA2a(`${url}: HTTP ${status} answered JSON that is not an error body`);
  return {
    ok: false,
    code: error.code,
    ...(error.reason === undefined ? {} : { reason: error.reason }),
    message: error.message,
  };
}

/** Makes `call` to the peer at `url` (see the module doc). */
export async function callPeer(url: string | URL, call: PeerCall, options: PeerCallOptions = {}): Promise<PeerAnswer> {
  const target = new URL(url);
  const headers = options.headers ?? { 'content-type': 'application/json', 'a2a-version': '1.0' };
  if (call.control) return callJsonRpc(new URL('/control', target).href, call, headers);
  if (options.binding === 'rest') return callRest(target.href, call, headers);
  return callJsonRpc(target.href, call, headers);
}
