/**
 * @module intercept/agent-card-rewrite
 * An agent card fetched through the proxy names the upstream in `supportedInterfaces[].url`
 * (A2A v1.0 §8; `url` and `additionalInterfaces[].url` in 0.3 cards). Clients that read the card
 * would then bypass the proxy, so the proxy rewrites those URLs to its own address. The
 * recording keeps the card exactly as the upstream sent it. URLs on another server (an agent's
 * public address, when the recorder sits in front of an internal one) the proxy cannot map and
 * leaves, and `record` says so; the mock moves them to itself too, so no client of it reaches a
 * real agent. A gRPC interface's `url` is a `HOST:PORT` target (what grpc-js dials, docs/design.md
 * §16); one on the upstream's host and port, or on the gRPC upstream the proxy forwards gRPC calls
 * to, is moved to the proxy's too, so a gRPC client following the card reaches the recorder, which
 * carries and records its calls. An interface of a binding the recorder does not carry (neither
 * JSONRPC, HTTP+JSON nor GRPC) is named by {@link uncarriedBindings}, so `record` can say so.
 */
import { isRecord } from '../protocol/read.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function sameServer(a: URL, b: URL): boolean {
  if (a.protocol !== b.protocol || a.port !== b.port) return false;
  return a.hostname === b.hostname || (LOOPBACK.has(a.hostname) && LOOPBACK.has(b.hostname));
}

/** A `HOST:PORT` gRPC target (a name, an IPv4 address or a bracketed IPv6 address), split. */
function grpcTarget(url: string): { host: string; port: string } | undefined {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/.exec(url);
  return m ? { host: (m[1] as string).toLowerCase(), port: String(Number(m[2])) } : undefined;
}

function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** `proxy` as a gRPC target. */
function targetOf(proxy: URL): string {
  return `${proxy.hostname}:${portOf(proxy)}`;
}

/** A gRPC server the proxy forwards to, as a `HOST:PORT` target's parts. */
export interface GrpcTargetParts {
  hostname: string;
  port: string;
}

function sameTarget(target: { host: string; port: string }, hostname: string, port: string): boolean {
  const host = hostname.toLowerCase();
  const sameHost = target.host === host || (LOOPBACK.has(target.host) && LOOPBACK.has(host));
  return sameHost && target.port === port;
}

/**
 * `url` moved from under `upstream` to under `proxy`, or undefined when it is elsewhere. A gRPC
 * target moves when it names the upstream's host and port or the gRPC upstream `grpc`.
 */
export function rewriteUrl(url: string, upstream: URL, proxy: URL, grpc?: GrpcTargetParts): string | undefined {
  const target = grpcTarget(url);
  if (target !== undefined) {
    const ours =
      sameTarget(target, upstream.hostname, portOf(upstream)) ||
      (grpc !== undefined && sameTarget(target, grpc.hostname, grpc.port));
    return ours ? targetOf(proxy) : undefined;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (!sameServer(parsed, upstream)) return undefined;
  const base = upstream.pathname.replace(/\/+$/, '');
  if (base !== '' && parsed.pathname !== base && !parsed.pathname.startsWith(`${base}/`)) return undefined;
  const rest = parsed.pathname.slice(base.length) || '/';
  return `${proxy.origin}${rest}${parsed.search}${parsed.hash}`;
}

/**
 * Rewrites the interface URLs of `card` that point at `upstream` so they point at `proxy`.
 * Returns the rewritten copy, or undefined when nothing needed rewriting.
 */
export function rewriteAgentCard(
  card: unknown,
  upstream: URL,
  proxy: URL,
  options: { everyUrl?: boolean; grpc?: GrpcTargetParts } = {},
): Record<string, unknown> | undefined {
  if (!isRecord(card)) return undefined;
  let changed = false;
  const out: Record<string, unknown> = { ...card };
  const move = (url: string): string | undefined =>
    rewriteUrl(url, upstream, proxy, options.grpc) ?? (options.everyUrl ? moveHere(url, proxy) : undefined);
  const rewriteList = (key: 'supportedInterfaces' | 'additionalInterfaces'): void => {
    const list = card[key];
    if (!Array.isArray(list)) return;
    out[key] = list.map((item: unknown) => {
      if (!isRecord(item) || typeof item.url !== 'string') return item;
      const url = move(item.url);
      if (url === undefined) return item;
      changed = true;
      return { ...item, url };
    });
  };
  rewriteList('supportedInterfaces');
  rewriteList('additionalInterfaces');
  if (typeof card.url === 'string') {
    const url = move(card.url);
    if (url !== undefined) {
      out.url = url;
      changed = true;
    }
  }
  return changed ? out : undefined;
}

/** `url` parsed when it is an absolute http or https URL. */
function httpUrl(url: string): URL | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An http(s) `url` on another server, moved to `proxy` with its path, or a gRPC target moved to
 * the proxy's (the mock: nothing may leave it).
 */
function moveHere(url: string, proxy: URL): string | undefined {
  if (grpcTarget(url) !== undefined) return targetOf(proxy);
  const parsed = httpUrl(url);
  return parsed && `${proxy.origin}${parsed.pathname}${parsed.search}${parsed.hash}`;
}

/**
 * The interface URLs of `card` that are not under `upstream` (that the proxy would not rewrite):
 * a client following them talks to that server directly, past the recorder, and nothing of it is
 * recorded.
 */
export function foreignInterfaceUrls(card: unknown, upstream: URL, grpc?: GrpcTargetParts): string[] {
  if (!isRecord(card)) return [];
  const urls: string[] = [];
  for (const key of ['supportedInterfaces', 'additionalInterfaces'] as const) {
    const list = card[key];
    if (Array.isArray(list))
      for (const item of list) if (isRecord(item) && typeof item.url === 'string') urls.push(item.url);
  }
  if (typeof card.url === 'string') urls.push(card.url);
  const anyProxy = new URL('http://127.0.0.1:1');
  return [...new Set(urls)].filter(
    (url) =>
      (httpUrl(url) !== undefined || grpcTarget(url) !== undefined) &&
      rewriteUrl(url, upstream, anyProxy, grpc) === undefined,
  );
}

/** The bindings the recorder carries (docs/design.md §5, §15, §16). */
const CARRIED_BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

/** The interfaces of `card` of another binding, as `BINDING URL`: the recorder cannot carry them. */
export function uncarriedBindings(card: unknown): string[] {
  if (!isRecord(card)) return [];
  const out: string[] = [];
  for (const key of ['supportedInterfaces', 'additionalInterfaces'] as const) {
    const list = card[key];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (!isRecord(item)) continue;
      const binding = item.protocolBinding ?? item.transport;
      if (typeof binding !== 'string' || CARRIED_BINDINGS.includes(binding.toUpperCase())) continue;
      out.push(`${binding} ${typeof item.url === 'string' ? item.url : '(no url)'}`);
    }
  }
  return [...new Set(out)];
}

/**
 * The `HOST:PORT` of the card's first GRPC interface that names one, if any (a v0.3 card's own
 * `url` when its `preferredTransport` is GRPC).
 */
export function cardGrpcTarget(card: unknown): string | undefined {
  if (!isRecord(card)) return undefined;
  if (card.preferredTransport === 'GRPC' && typeof card.url === 'string' && grpcTarget(card.url) !== undefined)
    return card.url;
  for (const key of ['supportedInterfaces', 'additionalInterfaces'] as const) {
    const list = card[key];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (!isRecord(item) || typeof item.url !== 'string') continue;
      const binding = item.protocolBinding ?? item.transport;
      if (typeof binding === 'string' && binding.toUpperCase() === 'GRPC' && grpcTarget(item.url) !== undefined)
        return item.url;
    }
  }
  return undefined;
}
