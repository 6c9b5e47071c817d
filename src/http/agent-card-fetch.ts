/**
 * @module http/agent-card-fetch
 * Fetches a peer's agent card (`/.well-known/agent-card.json`) with a short deadline: `record`
 * keeps the upstream's card in the recording header, `run` compares it with the live peer's
 * (docs/design.md §5, §8). An `https://` peer whose certificate a private CA issued is fetched
 * trusting that CA (`ca`). Never throws: a peer without a card, or one that does not answer in
 * time, gives `undefined`.
 */
import { request as httpsRequest } from 'node:https';
import type { JsonValue } from '../canonical/canonical-json.js';
import { AGENT_CARD_PATH } from '../protocol/types.js';

export interface AgentCardFetchOptions {
  /** Default 2000 ms. */
  timeoutMs?: number;
  /** PEM certificates of the CAs trusted for an `https://` peer, instead of the system's. */
  ca?: string | Buffer;
}

export async function fetchAgentCard(
  baseUrl: string,
  options: AgentCardFetchOptions = {},
): Promise<JsonValue | undefined> {
  const timeoutMs = options.timeoutMs ?? 2000;
  try {
    const base = new URL(baseUrl);
    const url = new URL(`${base.pathname.replace(/\/+$/, '')}${AGENT_CARD_PATH}`, base);
    url.username = '';
    url.password = '';
    const headers: Record<string, string> = { accept: 'application/json' };
    if (base.username || base.password) {
      const pair = `${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    }
    if (options.ca !== undefined && url.protocol === 'https:') {
      return await fetchTrusting(url, headers, options.ca, timeoutMs);
    }
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) {
      await res.body?.cancel();
      return undefined;
    }
    return (await res.json()) as JsonValue;
  } catch {
    return undefined;
  }
}

/** GET `url` over TLS trusting `ca`; the parsed body of a 2xx answer, else undefined. */
function fetchTrusting(
  url: URL,
  headers: Record<string, string>,
  ca: string | Buffer,
  timeoutMs: number,
): Promise<JsonValue | undefined> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { headers, ca, signal: AbortSignal.timeout(timeoutMs) }, (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) {
        res.resume();
        resolve(undefined);
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonValue);
        } catch {
          resolve(undefined);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
