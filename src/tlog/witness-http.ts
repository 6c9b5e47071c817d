/**
 * @module tlog/witness-http
 * The HTTP exchange of a witness client (docs/design.md §6, "Witnesses"): a POST with the
 * platform's `fetch` (keep-alive, as tlog-witness asks), bounded by a timeout.
 */
import type { WitnessAnswer, WitnessPost } from './witness-client.js';

/** A {@link WitnessPost} over `fetch`; a request taking over `timeoutMs` counts as unreachable. */
export function httpWitnessPost(timeoutMs = 10_000): WitnessPost {
  return async (url: string, body: string): Promise<WitnessAnswer> => {
    const response = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: response.status, contentType: response.headers.get('content-type'), body: await response.text() };
  };
}
