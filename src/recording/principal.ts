/**
 * @module recording/principal
 * Who sent a request, taken from its headers before they are redacted (docs/design.md §5), so replay
 * attributes receipts exactly as recording did without keeping the secret.
 */
import { BoundedMap } from '../bounded-map.js';
import { A2aReplayError } from '../errors.js';
import { sha256Hex } from '../digest.js';
import type { RedactionMarks } from './redaction-mark.js';
import { isSecretHeader } from './redaction.js';

/**
 * - `jwt-sub` (the default): a `Bearer` credential that is a JWT with a string `sub` gives
 *   `jwt:sub=<sub>` (payload decoded, signature NOT verified: this names, it does not
 *   authenticate); any other bearer gives `bearer:hmac:<16 hex>` under the recording's mark key
 *   (src/recording/redaction-mark.ts); no bearer, no principal.
 * - `header`: the value of the named header: verbatim for a header that carries no secret (`x-user`
 *   gives `bob`); for a secret header (one that is redacted) never the value but
 *   `header:NAME=hmac:<16 hex>` under the mark key.
 *
 * Without a mark key (the reference peer naming its callers in its own transition log) the digests
 * are unkeyed: `bearer:sha256:<8 hex>`, `header:NAME=sha256:<16 hex>`.
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
function bearerPrincipal(auth: string, marks: RedactionMarks | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
  if (!match?.[1]) return undefined;
  const sub = jwtSubject(match[1]);
  if (sub !== undefined) return `jwt:sub=${sub}`;
  return marks === undefined
    ? `bearer:sha256:${sha256Hex(match[1]).slice(0, 8)}`
    : `bearer:hmac:${marks.digest(match[1], 16)}`;
}

/**
 * The `jwt-sub` principals of the last Authorization values seen (null: none): a client sends the
 * same credential with every request. A pure function's memory, of short values only.
 */
const RECENT_BEARER_MAX_LENGTH = 4096;
const recentBearers = new BoundedMap<string, string | null>(64);

/** How a recorder names principals: whether a header is secret, and the recording's marks. */
export interface PrincipalNaming {
  isSecretHeader(name: string): boolean;
  readonly marks: RedactionMarks;
}

/**
 * The principal of a request from its (lower-case, unredacted) headers, or undefined. `naming`
 * (a recorder's `Redactor`) says which headers are secret, whose values give the keyed form;
 * without it the default rule decides and the digests are unkeyed (the peer's own log).
 */
export function principalOf(
  headers: Readonly<Record<string, string>>,
  source: PrincipalSource = DEFAULT_PRINCIPAL_SOURCE,
  naming?: PrincipalNaming,
): string | undefined {
  switch (source.kind) {
    case 'jwt-sub': {
      const auth = headers.authorization;
      if (auth === undefined) return undefined;
      if (naming !== undefined) return bearerPrincipal(auth, naming.marks);
      let principal = recentBearers.get(auth);
      if (principal === undefined) {
        principal = bearerPrincipal(auth, undefined) ?? null;
        if (auth.length <= RECENT_BEARER_MAX_LENGTH) recentBearers.set(auth, principal);
      }
      return principal ?? undefined;
    }
    case 'header': {
      const value = headers[source.name];
      if (value === undefined || value === '') return undefined;
      if (!(naming?.isSecretHeader(source.name) ?? isSecretHeader(source.name))) return value;
      return naming === undefined
        ? `header:${source.name}=sha256:${sha256Hex(value).slice(0, 16)}`
        : `header:${source.name}=hmac:${naming.marks.digest(value, 16)}`;
    }
    default: {
      const never: never = source;
      return never;
    }
  }
}
