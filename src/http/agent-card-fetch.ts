/**
 * @module http/agent-card-fetch
 * Fetches a peer's agent card (`/.well-known/agent-card.json`) with a short deadline: `record`
 * keeps the upstream's card in the recording header, `run` compares it with the live peer's
 * (docs/design.md §5, §8). An `https://` peer whose certificate a private CA issued is fetched
 * trusting that CA (`ca`). Never throws: a peer without a card, or one that does not answer in
 * time, gives `undefined`.
 *
 * The GET goes through `node:http`/`node:https`, not `fetch`: loading `fetch` (undici) cost every
 * `record` and `run` process more CPU at start-up than the rest of this call (design §2,
 * "Start-up"). It behaves as `fetch` did here: redirects are followed (at most
 * {@link MAX_REDIRECTS}; credentials are not sent to another origin), a body a server compressed
 * unasked is decoded, a non-2xx answer or a body that is not JSON is no card, and the deadline
 * covers the whole exchange.
 */
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { JsonValue } from '../canonical/canonical-json.js';
import { AGENT_CARD_PATH } from '../protocol/types.js';

export interface AgentCardFetchOptions {
  /** Default 2000 ms. */
  timeoutMs?: number;
  /** PEM certificates of the CAs trusted for an `https://` peer, instead of the system's. */
  ca?: string | Buffer;
}

/** As many redirects as `fetch` follows. */
export const MAX_REDIRECTS = 20;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function fetchAgentCard(
  baseUrl: string,
  options: AgentCardFetchOptions = {},
): Promise<JsonValue | undefined> {
  const signal = AbortSignal.timeout(options.timeoutMs ?? 2000);
  try {
    const base = new URL(baseUrl);
    let url = new URL(`${base.pathname.replace(/\/+$/, '')}${AGENT_CARD_PATH}`, base);
    url.username = '';
    url.password = '';
    const headers: Record<string, string> = { accept: 'application/json' };
    if (base.username || base.password) {
      const pair = `${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    }
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const res = await get(url, headers, options.ca, signal);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECTS.has(status) && location !== undefined) {
        res.resume();
        const next = new URL(location, url);
        if (next.protocol !== 'http:' && next.protocol !== 'https:') return undefined;
        if (next.origin !== url.origin) delete headers.authorization;
        url = next;
        continue;
      }
      if (status < 200 || status > 299) {
        res.resume();
        return undefined;
      }
      return JSON.parse(decoded(await body(res), res.headers['content-encoding'])) as JsonValue;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/** The head of a GET of `url`; `ca`, when given, is trusted instead of the system's CAs. */
function get(
  url: URL,
  headers: Record<string, string>,
  ca: string | Buffer | undefined,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req =
      url.protocol === 'https:'
        ? httpsRequest(url, { headers, signal, ...(ca === undefined ? {} : { ca }) }, resolve)
        : httpRequest(url, { headers, signal }, resolve);
    req.on('error', reject);
    req.end();
  });
}

function body(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
    res.on('close', () => {
      if (!res.complete) reject(new Error('the agent card was cut short'));
    });
  });
}

/**
 * The body's text under its `Content-Encoding`. None is asked for, but a server may compress
 * anyway, and `fetch` read such a card: gzip, deflate and br are decoded; another coding throws.
 */
function decoded(bytes: Buffer, encoding: string | undefined): string {
  const coding = (encoding ?? 'identity').trim().toLowerCase();
  if (coding === 'identity' || coding === '') return bytes.toString('utf8');
  if (coding === 'gzip' || coding === 'x-gzip') return gunzipSync(bytes).toString('utf8');
  if (coding === 'deflate') return inflateSync(bytes).toString('utf8');
  if (coding === 'br') return brotliDecompressSync(bytes).toString('utf8');
  throw new Error(`the agent card is in an encoding not read: ${coding}`);
}
