/**
 * @module http/json-body
 * Reads a request's JSON body within the HTTP limits (src/http/limits.ts): the size limit first,
 * then JSON, then a nesting bound (deeper values could not be serialised back). Each outcome is a
 * case of its own, so every adapter answers it in its binding's terms.
 */
import type { IncomingMessage } from 'node:http';
import { nestsDeeperThan } from '../canonical/depth.js';
import { type DrainLimits, readLimitedBody } from './limits.js';

/** Largest JSON nesting accepted (a call-stack bound). */
export const MAX_JSON_DEPTH = 128;

export type JsonBody =
  | { kind: 'ok'; value: unknown }
  /** No body at all (zero bytes). */
  | { kind: 'empty' }
  | { kind: 'too-large'; limitBytes: number; drained: Promise<void> }
  | { kind: 'not-json'; why: string }
  | { kind: 'too-deep'; value: unknown }
  /** The client left before the body arrived. */
  | { kind: 'aborted' };

/** Reads and parses the body of `req`. */
export async function readJsonBody(req: IncomingMessage, limitBytes: number, drain: DrainLimits): Promise<JsonBody> {
  const body = await readLimitedBody(req, limitBytes, drain);
  if (body.kind === 'aborted') return body;
  if (body.kind === 'too-large') return { kind: 'too-large', limitBytes, drained: body.drained };
  if (body.bytes.length === 0) return { kind: 'empty' };
  let value: unknown;
  try {
    value = JSON.parse(body.bytes.toString('utf8')) as unknown;
  } catch (error) {
    return { kind: 'not-json', why: error instanceof Error ? error.message : 'not valid JSON' };
  }
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) return { kind: 'too-deep', value };
  return { kind: 'ok', value };
}
