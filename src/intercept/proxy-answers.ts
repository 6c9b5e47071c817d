/**
 * @module intercept/proxy-answers
 * The recording proxy's own answers (a refusal, a failure, a limit) in the binding of the request
 * they answer (docs/design.md §5): HTTP+JSON when the request's path names a route of that
 * binding, else JSON-RPC. Also what the proxy forwards and records of a request's target.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type OwnAnswer, limitAnswerBody, ownAnswerBody, sendJson } from '../http/json-answer.js';
import { originForm, readTarget } from '../http/request-target.js';
import { type Binding, matchRestTail } from '../protocol/rest-binding.js';

/** The JSON-RPC id of a request body, or null when it has none (or is not JSON-RPC). */
export function jsonRpcIdOf(body: Buffer): string | number | null {
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const id = (value as Record<string, unknown>).id;
      if (typeof id === 'string' || typeof id === 'number') return id;
    }
  } catch {
    // not JSON-RPC: answer with id null
  }
  return null;
}

/**
 * The binding the recorder answers a request in (docs/design.md §5): HTTP+JSON when the path of
 * its target, read the one way (src/http/request-target.ts), names a route of the binding
 * (src/protocol/rest-binding.ts, matched by its tail since the upstream's interface path is not
 * known), else JSON-RPC; JSON-RPC too for a request whose head never arrived.
 */
export function bindingOfRequest(req: Pick<IncomingMessage, 'method' | 'url'> | undefined): Binding {
  if (req === undefined) return 'JSONRPC';
  // Path parameters (`;x`, refused) are read as the servers that strip them read the route.
  const path = readTarget(req.url ?? '/').path.replace(/;[^/]*/g, '');
  return matchRestTail(req.method ?? 'GET', path).kind === 'none' ? 'JSONRPC' : 'HTTP+JSON';
}

/**
 * The recorder's own answer (a refusal or a failure) in the request's binding, whole, or, when
 * the response has already started, the connection cut.
 */
export function answerOwn(req: IncomingMessage, res: ServerResponse, answer: OwnAnswer): void {
  if (!sendJson(res, answer.status, ownAnswerBody(bindingOfRequest(req), answer))) res.destroy();
}

/** The body of an answer of the HTTP limits (408, 413, 503, ...) in the request's binding. */
export function limitBody(status: number, message: string, req: IncomingMessage | undefined): string {
  return limitAnswerBody(status, message, bindingOfRequest(req));
}

/**
 * What the proxy forwards and records of a request's target: the target as sent, or, for one in
 * absolute form (a client that takes the recorder for a forward proxy), its path and query.
 */
export function targetOf(req: IncomingMessage): string {
  return originForm(req.url ?? '/');
}
