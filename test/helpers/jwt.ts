/**
 * Unsigned JWTs for tests: the recorder and the peer name a Bearer JWT's principal by its `sub`
 * (they name, they do not authenticate), so a test only needs the payload to say who it is.
 */

/** A compact JWT with `alg: none` whose payload is `{sub}` (any string, lone surrogates included). */
export function unsignedJwt(sub: string): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
  return `${part({ alg: 'none' })}.${part({ sub })}.`;
}

/** The Authorization header value carrying {@link unsignedJwt}. */
export function bearer(sub: string): string {
  return `Bearer ${unsignedJwt(sub)}`;
}
