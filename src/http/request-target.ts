/**
 * @module http/request-target
 * How a request target is read and where it goes (docs/design.md §5, §8, §15).
 *
 * The reading ({@link readTarget}): one normalization of a target's path (RFC 3986 §6.2.2: unreserved
 * escapes decoded, dot segments removed, no fragment, a backslash read as `/`) that the peer routes
 * on, the recorder checks, and the observer, replay and the mock read, so no two parts of the
 * project read one target two ways; and what in a target servers read differently, which the
 * recorder refuses instead of forwarding (and the peer and the mock refuse too).
 *
 * Where it goes: the recorder forwards a client's target to its upstream and replay sends a
 * recorded target to the live peer by one rule: to that server's own host and port, under its base
 * path, with the target taken as path text whatever it looks like. A target is never resolved as a
 * URL reference, which would let `//host/x` or `http://host/x` name another server.
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

/**
 * A request target as the project reads it (docs/design.md §5 "The reading of a target"): the one
 * reading the peer routes on, the recorder checks, the observer, replay and the mock read.
 */
export interface TargetReading {
  /**
   * The path, normalized as RFC 3986 §6.2.2 does: a backslash read as `/` (as WHATWG URL parsers
   * do), percent-escapes of unreserved characters decoded and every other escape's hex in upper
   * case, dot segments removed (§5.2.4, `%2E` counting as `.`), the fragment dropped. Empty
   * segments stay (`//x` is a path, never an authority).
   */
  path: string;
  /** The query after `?`, as sent (`''` for none). */
  query: string;
  /** The target as sent in origin form: an absolute form's scheme and authority dropped, nothing else changed. */
  sent: string;
  /**
   * What in the target servers read differently, in words (`a dot segment ...`), or undefined: a
   * dot segment (`.`, `..`, also as `%2E`), an encoded `/` (`%2F`) or `\` (`%5C`), a raw `\`, a
   * `;` (a path parameter, which servlet containers strip before routing: `/tasks/t:pause;x`), a
   * `%` not followed by two hex digits, a fragment (`#`). The recorder refuses such a target
   * rather than forward it, and the reference peer and the mock refuse it too.
   */
  ambiguity: string | undefined;
}

/** The scheme and authority of an absolute-form target (the authority ends where a path, query or fragment begins). */
const SCHEME_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\\]*/i;

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** `path` with its escapes normalized (RFC 3986 §6.2.2.1-2): unreserved characters decoded, other hex upper case. */
function normalizeEscapes(path: string): string {
  return path.replace(/%([0-9a-fA-F]{2})/g, (_escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/** RFC 3986 §5.2.4 on a path that starts with `/`: `/a/./b/../c` → `/a/c`, `/a/..` → `/`. */
function removeDotSegments(path: string): string {
  const segments = path.split('/');
  const out: string[] = [];
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i] as string;
    const last = i === segments.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..') out.pop();
      if (last) out.push('');
      continue;
    }
    out.push(segment);
  }
  return `/${out.join('/')}`;
}

/** The first thing in a target's parts that servers read differently, or undefined. */
function ambiguityOf(rawPath: string, fragment: boolean): string | undefined {
  if (rawPath.includes('\\')) return 'its path holds a backslash (\\), which some servers read as /';
  if (rawPath.includes(';')) return 'its path holds a ; (a path parameter), which some servers strip before routing';
  if (/%(?![0-9a-fA-F]{2})/.test(rawPath)) return 'its path holds a % not followed by two hex digits';
  if (/%2f/i.test(rawPath)) return 'its path holds an encoded slash (%2F), which some servers decode before routing';
  if (/%5c/i.test(rawPath))
    return 'its path holds an encoded backslash (%5C), which some servers decode before routing';
  const decoded = normalizeEscapes(rawPath);
  if (decoded.split('/').some((s) => s === '.' || s === '..')) {
    return 'its path holds a dot segment (. or .., also written %2E), which servers resolve differently';
  }
  if (fragment) return 'it holds a fragment (#), which a client never sends and servers drop or keep';
  return undefined;
}

/**
 * An origin-form path with nothing to normalize or refuse: segments of unreserved characters and
 * sub-delimiters other than `;` (no `.`, `%`, `\\`, `;`, `?` or `#`). Such a target reads as
 * itself, which is what nearly every A2A call sends (`/`, `/tasks/ID:pause`).
 */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9\-_~!$&'()*+,=:@]*)+$/;

/**
 * Reads a request target (origin or absolute form, as a client sent it) the one way every part of
 * the project reads it (docs/design.md §5): see {@link TargetReading}.
 */
export function readTarget(target: string): TargetReading {
  // The same reading as below, without its passes over a target they would leave as it is.
  if (PLAIN_PATH.test(target)) return { path: target, query: '', sent: target, ambiguity: undefined };
  const authority = SCHEME_AUTHORITY.exec(target);
  const sent = authority ? target.slice(authority[0].length) : target;
  const hash = sent.indexOf('#');
  const beforeFragment = hash < 0 ? sent : sent.slice(0, hash);
  const q = beforeFragment.indexOf('?');
  const rawPath = q < 0 ? beforeFragment : beforeFragment.slice(0, q);
  const query = q < 0 ? '' : beforeFragment.slice(q + 1);
  const slashed = rawPath.replace(/\\/g, '/');
  const rooted = slashed.startsWith('/') ? slashed : `/${slashed}`;
  return {
    path: removeDotSegments(normalizeEscapes(rooted)),
    query,
    sent,
    ambiguity: ambiguityOf(rawPath, hash >= 0),
  };
}

/** The error message of a target refused for its {@link TargetReading.ambiguity}. */
export function refusedTargetMessage(ambiguity: string): string {
  return `the request target is refused: ${ambiguity}`;
}
