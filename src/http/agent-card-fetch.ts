/**
 * @module http/agent-card-fetch
 * Fetches a peer's agent card (`/.well-known/agent-card.json`) with a short deadline: `record`
 * keeps the upstream's card in the recording header, `run` compares it with the live peer's
 * (docs/design.md §5, §8). Never throws: a peer without a card, or one that does not answer in
 * time, gives `undefined`.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { AGENT_CARD_PATH } from '../protocol/types.js';

export async function fetchAgentCard(baseUrl: string, timeoutMs = 2000): Promise<JsonValue | undefined> {
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
