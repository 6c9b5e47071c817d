/**
 * @module intercept/card-answer
 * The one answer the recording proxy changes in flight: an agent card, fetched from a well-known
 * card path or returned by `GetExtendedAgentCard`, gets its interface URLs moved to the proxy's
 * address (src/intercept/agent-card-rewrite.ts) so clients that read it stay behind the proxy.
 * The recording keeps the card exactly as the upstream sent it; only the client's copy changes.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { BoundedMap } from '../bounded-map.js';
import { type GrpcTargetParts, rewriteAgentCard } from './agent-card-rewrite.js';
import type { Exchange } from './exchange-recorder.js';
import { endToEndRawHeaders, mediaType } from './http-headers.js';

/** Which card answer a response is: the card itself (`card`) or a JSON-RPC result holding it (`call`). */
export type CardAnswer = 'card' | 'call';

const CARD_METHOD = 'GetExtendedAgentCard';
/** {@link CARD_METHOD} as bytes, made once: `includes` with a string encodes it on every call. */
const CARD_METHOD_BYTES = Buffer.from(CARD_METHOD, 'utf8');

function jsonRpcMethodOf(body: Buffer): string | undefined {
  if (body.byteLength === 0 || body.byteLength > 64 * 1024) return undefined;
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    const method = (value as Record<string, unknown> | null)?.method;
    return typeof method === 'string' ? method : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the answer to `method target` (request body `body`) with `status` and `headers` carries
 * an agent card to rewrite: a 200 `application/json` answer without content encoding, to a GET of
 * a well-known card path or to a `GetExtendedAgentCard` call.
 */
export function cardAnswerOf(
  method: string,
  target: string,
  body: Buffer,
  status: number,
  headers: IncomingHttpHeaders,
): CardAnswer | undefined {
  const encoded = (headers['content-encoding'] ?? 'identity') !== 'identity';
  const json = status === 200 && mediaType(headers['content-type']) === 'application/json' && !encoded;
  if (!json) return undefined;
  const path = (target.split('?')[0] ?? '').replace(/\/+$/, '');
  if (method === 'GET' && /\/\.well-known\/agent(-card)?\.json$/.test(path)) return 'card';
  // Only a body that names the method is parsed again: most exchanges skip the second JSON.parse.
  const isCall = method === 'POST' && body.includes(CARD_METHOD_BYTES) && jsonRpcMethodOf(body) === CARD_METHOD;
  return isCall ? 'call' : undefined;
}

/** Where a card's URLs move from (the upstream, the gRPC upstream) and to (the proxy's base). */
export interface CardRewrite {
  upstream: URL;
  proxyBase: () => URL;
  /**
   * What `proxyBase` depends on besides the proxy itself (the request's `Host`, '' when it names
   * none): cards rewritten for the same one are the same ({@link CardRewrites}).
   */
  baseKey: string;
  grpc?: GrpcTargetParts;
}

/** How many rewritten cards a proxy remembers (by kind of answer and `Host`). */
const REMEMBERED_CARDS = 8;
/** Cards larger than this are rewritten each time, not remembered. */
const REMEMBERED_CARD_MAX_BYTES = 256 * 1024;

/**
 * The cards a proxy rewrote last, each with the bytes it was rewritten from: a peer answers the
 * same card bytes again and again (every client that starts fetches it), and a rewrite is a
 * function of those bytes and of `baseKey` alone, so the same bytes get the same answer without
 * being parsed and written again. Bounded in count and in card size.
 */
export class CardRewrites {
  readonly #cards = new BoundedMap<string, { from: Buffer; to: Buffer }>(REMEMBERED_CARDS);

  /** The bytes the client gets of a card answer (see {@link rewrittenCard}). */
  rewritten(kind: CardAnswer, bytes: Buffer, rewrite: CardRewrite): Buffer {
    const key = `${kind} ${rewrite.baseKey}`;
    const known = this.#cards.peek(key);
    if (known !== undefined && known.from.equals(bytes)) return known.to;
    const to = rewrittenCard(kind, bytes, rewrite);
    if (bytes.byteLength <= REMEMBERED_CARD_MAX_BYTES) this.#cards.set(key, { from: bytes, to });
    return to;
  }
}

/** The bytes the client gets of a card answer: the card's URLs moved under `proxyBase`, else `bytes` as they came. */
function rewrittenCard(kind: CardAnswer, bytes: Buffer, rewrite: CardRewrite): Buffer {
  const { upstream, proxyBase } = rewrite;
  const options = rewrite.grpc === undefined ? {} : { grpc: rewrite.grpc };
  try {
    const base = proxyBase();
    const parsed = JSON.parse(bytes.toString('utf8')) as unknown;
    if (kind === 'call') {
      const result = (parsed as { result?: unknown } | null)?.result;
      const card = rewriteAgentCard(result, upstream, base, options);
      if (card !== undefined) return Buffer.from(JSON.stringify({ ...(parsed as object), result: card }));
    } else {
      const card = rewriteAgentCard(parsed, upstream, base, options);
      if (card !== undefined) return Buffer.from(JSON.stringify(card));
    }
  } catch {
    // not a card after all: pass the bytes through
  }
  return bytes;
}

/**
 * Passes a card answer on: records its bytes as they come, and once it is whole, answers the
 * client with the rewritten card (remembered in `cards`) and its own `Content-Length`; `settle`
 * runs once it is written.
 */
export function passCardAnswer(
  kind: CardAnswer,
  from: IncomingMessage,
  to: ServerResponse,
  exchange: Exchange,
  rewrite: CardRewrite,
  settle: () => void,
  cards: CardRewrites,
): void {
  const chunks: Buffer[] = [];
  from.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    exchange.data(chunk);
  });
  from.on('end', () => {
    exchange.finish();
    const out = cards.rewritten(kind, Buffer.concat(chunks), rewrite);
    const kept = endToEndRawHeaders(from.rawHeaders, ['content-length']);
    to.writeHead(from.statusCode ?? 502, from.statusMessage, [...kept, 'Content-Length', String(out.byteLength)]);
    to.end(out, settle);
  });
}
