import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { A2aReplayError, parsePrincipalSource, principalOf, redactHeaders, redactValue } from '../../src/internal.js';

const jwt = (claims: object): string =>
  `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.` +
  `${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;

describe('redaction', () => {
  it('replaces a secret by the first 8 hex of its SHA-256', () => {
    const hex = createHash('sha256').update('Bearer abc').digest('hex').slice(0, 8);
    expect(redactValue('Bearer abc')).toBe(`[redacted sha256:${hex}]`);
  });

  it('redacts the default secret headers and any configured one, and nothing else', () => {
    const headers = {
      authorization: 'Bearer t',
      cookie: 'c',
      'set-cookie': 's',
      'x-api-key': 'k',
      'api-key': 'k2',
      'proxy-authorization': 'p',
      'x-tenant-secret': 'ts',
      'content-type': 'application/json',
    };
    const out = redactHeaders(headers, [...Object.keys(headers).slice(0, 6), 'X-Tenant-Secret']);
    for (const name of Object.keys(headers).slice(0, 7))
      expect(out[name]).toBe(redactValue(headers[name as keyof typeof headers]));
    expect(out['content-type']).toBe('application/json');
    expect(redactHeaders(headers)['x-tenant-secret']).toBe('ts');
  });
});

describe('principal', () => {
  it('names a bearer JWT by its sub claim without verifying it', () => {
    expect(principalOf({ authorization: `Bearer ${jwt({ sub: 'alice', iss: 'x' })}` })).toBe('jwt:sub=alice');
  });

  it('names an opaque bearer by a hash, never by the token', () => {
    const token = 'opaque-token-123';
    const hex = createHash('sha256').update(token).digest('hex').slice(0, 8);
    expect(principalOf({ authorization: `Bearer ${token}` })).toBe(`bearer:sha256:${hex}`);
    expect(principalOf({ authorization: `Bearer ${jwt({ iss: 'no-sub' })}` })).toMatch(/^bearer:sha256:[0-9a-f]{8}$/);
  });

  it('takes a configured header verbatim and has no principal without credentials', () => {
    expect(principalOf({ 'x-user': 'bob' }, parsePrincipalSource('header:X-User'))).toBe('bob');
    expect(principalOf({}, parsePrincipalSource('header:x-user'))).toBeUndefined();
    expect(principalOf({ authorization: 'Basic Zm9vOmJhcg==' })).toBeUndefined();
    expect(principalOf({})).toBeUndefined();
  });

  it('rejects an unknown principal source with INVALID_ARGUMENT', () => {
    expect(() => parsePrincipalSource('cookie')).toThrow(A2aReplayError);
    expect(() => parsePrincipalSource('header:')).toThrow(/header:NAME/);
  });
});
