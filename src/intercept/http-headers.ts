/**
 * @module intercept/http-headers
 * Which headers travel and which are recorded. Hop-by-hop headers (RFC 9110 §7.6.1: Connection
 * and every header it names, Keep-Alive, Proxy-Connection, TE, Trailer, Transfer-Encoding,
 * Upgrade, Proxy-Authenticate, Proxy-Authorization) are never forwarded. Recorded headers are
 * the end-to-end ones minus those the HTTP stack writes by itself (Host, Content-Length, Date,
 * `Sec-Fetch-*`), so the proxy, the fetch wrapper and the middleware record the same headers
 * for the same exchange.
 */

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
]);

const NO_NAMES: readonly string[] = [];

/** Headers every HTTP stack sets on its own: not part of what an exchange says. */
const TRANSPORT_WRITTEN = new Set(['host', 'content-length', 'date']);

/**
 * Header names (lower-case) that must not be forwarded, given the message's Connection value.
 * Without extra names the shared set itself comes back (read-only), so no set is built per call.
 */
export function hopByHopNames(connection: string | undefined): ReadonlySet<string> {
  const extra = connectionNames(connection);
  if (extra.length === 0) return HOP_BY_HOP;
  const names = new Set(HOP_BY_HOP);
  for (const name of extra) names.add(name);
  return names;
}

/** The names a Connection value lists (lower-case), other than the ones always dropped. */
function connectionNames(connection: string | undefined): readonly string[] {
  // What clients send nearly always: only names that are dropped anyway.
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return NO_NAMES;
  const names: string[] = [];
  for (const token of connection.split(',')) {
    const name = token.trim().toLowerCase();
    if (name !== '' && !HOP_BY_HOP.has(name)) names.push(name);
  }
  return names;
}

/** Node's `rawHeaders` (name, value, name, value...) without hop-by-hop headers, casing kept. */
export function endToEndRawHeaders(raw: readonly string[], extraDrop: readonly string[] = []): string[] {
  // Each name lower-cased once: the Connection header is found in the same pass.
  const lower: string[] = [];
  let connection: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    lower.push(name);
    if (name === 'connection') {
      connection = connection === undefined ? (raw[i + 1] as string) : `${connection}, ${raw[i + 1] as string}`;
    }
  }
  const named = connectionNames(connection);
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = lower[i >> 1] as string;
    if (HOP_BY_HOP.has(name) || extraDrop.includes(name) || named.includes(name)) continue;
    out.push(raw[i] as string, raw[i + 1] as string);
  }
  return out;
}

/** A header bag in any of the shapes Node and fetch use. */
export type HeaderInput =
  | Headers
  | Iterable<readonly [string, string]>
  | Readonly<Record<string, string | number | readonly string[] | undefined>>;

/**
 * Lower-cased end-to-end headers as recorded: one string per name (repeated values joined with
 * ", "), hop-by-hop and transport-written headers (see module doc) left out.
 */
export function recordedHeaders(input: HeaderInput): Record<string, string> {
  if (!(typeof Headers !== 'undefined' && input instanceof Headers) && !(Symbol.iterator in input)) {
    const direct = recordedLowerCase(input as Readonly<Record<string, unknown>>);
    if (direct !== undefined) return direct;
  }
  const merged = new Map<string, string>();
  const add = (name: string, value: string): void => {
    const key = name.toLowerCase();
    const prev = merged.get(key);
    merged.set(key, prev === undefined ? value : `${prev}, ${value}`);
  };
  if (typeof Headers !== 'undefined' && input instanceof Headers) {
    input.forEach((value, name) => add(name, value));
  } else if (Symbol.iterator in input) {
    for (const [name, value] of input as Iterable<readonly [string, string]>) add(name, value);
  } else {
    const record = input as Record<string, string | number | readonly string[] | undefined>;
    for (const name of Object.keys(record)) {
      const value = record[name];
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value as readonly string[]) add(name, v);
      else add(name, typeof value === 'string' ? value : String(value as number));
    }
  }
  const named = connectionNames(merged.get('connection'));
  const out: Record<string, string> = {};
  for (const [name, value] of merged) {
    if (HOP_BY_HOP.has(name) || TRANSPORT_WRITTEN.has(name) || name.startsWith('sec-fetch-')) continue;
    if (named.length > 0 && named.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * {@link recordedHeaders} of a record whose names are all lower-case and whose values are all
 * strings (what `node:http` hands a server: `req.headers`), in one pass and without the merge
 * (no two lower-case names of one record are equal), or undefined for any other record.
 */
function recordedLowerCase(record: Readonly<Record<string, unknown>>): Record<string, string> | undefined {
  const connection = record.connection;
  if (connection !== undefined && typeof connection !== 'string') return undefined;
  const named = connectionNames(connection);
  const out: Record<string, string> = {};
  for (const name of Object.keys(record)) {
    const value = record[name];
    if (typeof value !== 'string' || name.toLowerCase() !== name) return undefined;
    if (HOP_BY_HOP.has(name) || TRANSPORT_WRITTEN.has(name) || name.startsWith('sec-fetch-')) continue;
    if (named.length > 0 && named.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

/** The media type of a Content-Type value, lower-case, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
