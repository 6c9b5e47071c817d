/**
 * @module recording/principal
 * Who sent a request, taken from its headers before they are redacted (docs/design.md §5), so replay
 * attributes receipts exactly as recording did without keeping the secret.
 */
import { BoundedMap } from '../bounded-map.js';
import { A2aReplayError } from '../errors.js';
import { DEFAULT_REDACTED_HEADERS, isSecretHeader, sha256Prefix, shortSha256 } from './redaction.js';

/**
 * - `jwt-sub` (the default): a `Bearer` credential that is a JWT with a string `sub` gives
 *   `jwt:sub=<sub>` (payload decoded, signature NOT verified: this names, it does not
 *   authenticate); any other bearer gives `bearer:sha256:<8 hex>`; no bearer, no principal.
 * - `header`: the value of the named header: verbatim for a header that carries no secret (`x-user`
 *   gives `bob`); for a secret header (one that is redacted, see `isSecretHeader`) never the value
 *   but `header:NAME=sha256:<first 16 hex of sha256(value)>`.
 */
export type PrincipalSource = { kind: 'jwt-sub' } | { kind: 'header'; name: string };

export const DEFAULT_PRINCIPAL_SOURCE: PrincipalSource = { kind: 'jwt-sub' };

/** Parses the CLI form `jwt-sub` or `header:NAME`. */
export function parsePrincipalSource(text: string): PrincipalSource {
  if (text === 'jwt-sub') return { kind: 'jwt-sub' };
  if (text.startsWith('header:') && text.length > 'header:'.length) {
    return { kind: 'header', name: text.slice('header:'.length).toLowerCase() };
  }
  throw new A2aReplayError('INVALID_ARGUMENT', `principal source "${text}" is not "jwt-sub" or "header:NAME"`);
}

/** The `sub` of a compact JWS/JWT, or undefined when `token` is not one. */
export function jwtSubject(token: string): string | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const payload = parts[1];
  if (!payload || !/^[A-Za-z0-9_-]+$/.test(payload)) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    if (claims !== null && typeof claims === 'object' && !Array.isArray(claims)) {
      const sub = (claims as Record<string, unknown>).sub;
      if (typeof sub === 'string' && sub.length > 0) return sub;
    }
  } catch {
    // not JSON: an opaque token after all
  }
  return undefined;
}

/** The `jwt-sub` principal of an Authorization value, or undefined when it is not a bearer credential. */
function bearerPrincipal(auth: string): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
  if (!match?.[1]) return undefined;
  const sub = jwtSubject(match[1]);
  return sub !== undefined ? `jwt:sub=${sub}` : `bearer:sha256:${shortSha256(match[1])}`;
}

/**
 * The `jwt-sub` principals of the last Authorization values seen (null: none): a client sends the
 * same credential with every request. A pure function's memory, of short values only.
 */
const RECENT_BEARER_MAX_LENGTH = 4096;
const recentBearers = new BoundedMap<string, string | null>(64);

/**
 * The principal of a request from its (lower-case, unredacted) headers, or undefined. `redacted`
 * is the redaction list in force and `keep` the headers kept in clear: a `header:NAME` source
 * naming a header that is redacted ({@link isSecretHeader}) gives the hashed form.
 */
export function principalOf(
  headers: Readonly<Record<string, string>>,
  source: PrincipalSource = DEFAULT_PRINCIPAL_SOURCE,
  redacted: readonly string[] = DEFAULT_REDACTED_HEADERS,
  keep: readonly string[] = [],
): string | undefined {
  switch (source.kind) {
    case 'jwt-sub': {
      const auth = headers.authorization;
      if (auth === undefined) return undefined;
      let principal = recentBearers.get(auth);
      if (principal === undefined) {
        principal = bearerPrincipal(auth) ?? null;
        if (auth.length <= RECENT_BEARER_MAX_LENGTH) recentBearers.set(auth, principal);
      }
      return principal ?? undefined;
    }
    case 'header': {
      const value = headers[source.name];
      if (value === undefined || value === '') return undefined;
      return isSecretHeader(source.name, redacted, keep)
        ? `header:${source.name}=sha256:${sha256Prefix(value, 16)}`
        : value;
    }
    default: {
      const never: never = source;
      return never;
    }
  }
}
