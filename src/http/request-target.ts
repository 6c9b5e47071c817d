/**
 * @module http/request-target
 * Where a request target goes (docs/design.md §5, §8). The recorder forwards a client's target to
 * its upstream and replay sends a recorded target to the live peer by one rule: to that server's
 * own host and port, under its base path, with the target taken as path text whatever it looks
 * like. A target is never resolved as a URL reference, which would let `//host/x` or
 * `http://host/x` name another server.
 */

/** The path of a server URL without trailing slashes (`http://h/a2a/` → `/a2a`): what targets go under. */
export function basePathOf(url: URL): string {
  return url.pathname.replace(/\/+$/, '');
}

/** `target` under `basePath`, as path text: `/a2a` and `/x?q` give `/a2a/x?q`, `//h/x` gives `/a2a//h/x`. */
export function underBase(basePath: string, target: string): string {
  return `${basePath}${target.startsWith('/') ? target : `/${target}`}`;
}

/** An absolute URL `scheme://…` (RFC 3986 §3.1). */
const ABSOLUTE = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The origin form (`/path?query`) of a request target in absolute form (`http://host/path?query`,
 * RFC 9112 §3.2.2, which a client sends to what it takes for a forward proxy and a server must
 * accept); any other target as it is.
 */
export function originForm(target: string): string {
  if (!ABSOLUTE.test(target)) return target;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return target;
  }
}

/** `node:http` request options for `url`'s host, port and credentials (no path). */
export function serverOptions(url: URL): { protocol: string; hostname: string; port: string; auth?: string } {
  const out: { protocol: string; hostname: string; port: string; auth?: string } = {
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port,
  };
  if (url.username || url.password)
    out.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return out;
}
