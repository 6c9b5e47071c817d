import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { A2aReplayError } from '../../src/errors.js';
import { parsePrincipalSource, principalOf } from '../../src/recording/principal.js';
import { RedactionMarks } from '../../src/recording/redaction-mark.js';
import {
  DEFAULT_REDACTED_HEADERS,
  PLAIN_MARK,
  Redactor,
  SECRET_HEADER_WORDS,
  isSecretHeader,
  redactPath,
  redactUrl,
} from '../../src/recording/redaction.js';
import { adjustSecretRules } from '../../src/recording/secret-rules.js';

const KEY = Buffer.alloc(32, 0x33);
const marks = new RedactionMarks(KEY);
const redactValue = (value: string): string => marks.mark(value);
/** The headers as a recorder with `names` redacted and `keep` kept writes them. */
const redactHeaders = (
  headers: Record<string, string>,
  names: readonly string[] = [],
  keep: readonly string[] = [],
): Record<string, string> =>
  new Redactor(marks, adjustSecretRules({ redact: names, keepHeaders: keep })).headers(headers);
/** A recorder's path redaction with `names` redacted too. */
const recordedPath = (path: string, names: readonly string[] = []): string =>
  new Redactor(marks, adjustSecretRules({ redactQuery: names })).path(path);
const naming = (names: readonly string[] = [], keep: readonly string[] = []): Redactor =>
  new Redactor(marks, adjustSecretRules({ redact: names, keepHeaders: keep }));
const hmac16 = (v: string): string => createHmac('sha256', KEY).update(v).digest('hex').slice(0, 16);

const jwt = (claims: object): string =>
  `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.` +
  `${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;

describe('redaction', () => {
  it('replaces a secret by the first 16 hex of its HMAC-SHA256 under the mark key', () => {
    expect(redactValue('Bearer abc')).toBe(`[redacted hmac:${hmac16('Bearer abc')}]`);
    expect(new RedactionMarks(Buffer.alloc(32, 1)).mark('Bearer abc')).not.toBe(redactValue('Bearer abc'));
  });

  it('redacts the default secret headers and any configured one, and nothing else', () => {
    const headers = {
      authorization: 'Bearer t',
      cookie: 'c',
      'set-cookie': 's',
      'x-api-key': 'k',
      'api-key': 'k2',
      'proxy-authorization': 'p',
      'x-tenant-id': 'tid',
      'content-type': 'application/json',
    };
    const out = redactHeaders(headers, [...Object.keys(headers).slice(0, 6), 'X-Tenant-Id']);
    for (const name of Object.keys(headers).slice(0, 7))
      expect(out[name]).toBe(redactValue(headers[name as keyof typeof headers]));
    expect(out['content-type']).toBe('application/json');
    expect(redactHeaders(headers)['x-tenant-id']).toBe('tid');
  });

  it('redacts every secret-looking header by default, even with an empty list', () => {
    const secretLooking = {
      'x-auth-token': 'a',
      'x-tenant-secret': 'b',
      'x-db-password': 'c',
      'x-passwd': 'd',
      'x-my-apikey': 'e',
      'x-session-id': 'f',
      'x-csrf-cookie': 'g',
      'x-credentials': 'h',
      'x-request-signature': 'i',
      'x-goog-api-key': 'j',
      'x-amz-security-token': 'k',
    };
    const plain = {
      'a2a-version': '1.0',
      accept: 'text/event-stream',
      'content-type': 'application/json',
      'user-agent': 'node',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      'x-user': 'bob',
    };
    for (const list of [undefined, []]) {
      const out = redactHeaders({ ...secretLooking, ...plain }, list);
      for (const [name, value] of Object.entries(secretLooking)) expect(out[name]).toBe(redactValue(value));
      for (const [name, value] of Object.entries(plain)) expect(out[name]).toBe(value);
    }
    for (const word of SECRET_HEADER_WORDS) expect(isSecretHeader(`X-${word.toUpperCase()}-Y`, [])).toBe(true);
    expect(isSecretHeader('X-User', ['x-user'])).toBe(true);
    expect(isSecretHeader('x-user')).toBe(false);
  });

  it('redacts the gateway and identity-proxy credentials by the name rule, unless a keep list names them', () => {
    const gateways = [
      'x-functions-key',
      'ocp-apim-subscription-key',
      'cf-access-jwt-assertion',
      'x-goog-iap-jwt-assertion',
      'x-amzn-oidc-data',
      'x-amzn-oidc-identity',
      'x-access-key',
      'x-private-key',
      'x-apikey-id',
    ];
    for (const name of gateways) expect(isSecretHeader(name, []), name).toBe(true);
    const kept = redactHeaders({ 'x-functions-key': 'fk', 'x-access-key': 'ak' }, [], ['X-Functions-Key']);
    expect(kept).toEqual({ 'x-functions-key': 'fk', 'x-access-key': redactValue('ak') });
    expect(isSecretHeader('authorization', DEFAULT_REDACTED_HEADERS, ['authorization'])).toBe(false);
    const source = parsePrincipalSource('header:x-functions-key');
    expect(principalOf({ 'x-functions-key': 'fk' }, source, naming([], ['x-functions-key']))).toBe('fk');
    expect(principalOf({ 'x-functions-key': 'fk' }, source, naming())).toBe(
      `header:x-functions-key=hmac:${hmac16('fk')}`,
    );
  });
});

describe('Redactor.path', () => {
  const r = (v: string): string => encodeURIComponent(redactValue(v));

  it('redacts the value of every secret-looking query parameter and keeps the rest byte for byte', () => {
    expect(recordedPath('/.well-known/agent-card.json?api_key=QS-1&x=a%20b&flag')).toBe(
      `/.well-known/agent-card.json?api_key=${r('QS-1')}&x=a%20b&flag`,
    );
    expect(r('QS-1')).toMatch(/^%5Bredacted%20hmac%3A[0-9a-f]{16}%5D$/);
    for (const name of [
      'key',
      'Access_Token',
      'client_secret',
      'password',
      'passwd',
      'sig',
      'X-Amz-Signature',
      'auth',
      'credentials',
      'sessionid',
      'SAS-KEY',
    ]) {
      expect(recordedPath(`/p?${name}=v1`)).toBe(`/p?${name}=${r('v1')}`);
    }
    // encoded names and values are read decoded: the hash is the decoded value's
    expect(recordedPath('/p?api%5Fkey=a%2Bb+c')).toBe(`/p?api%5Fkey=${r('a+b c')}`);
    expect(recordedPath('/p?token=%E0%A4%A')).toBe(`/p?token=${r('%E0%A4%A')}`);
  });

  it('leaves paths without secrets, and other parameters, exactly as given', () => {
    for (const path of ['/', '/?', '/p?lang=abc&status=1&page=2', '/p?a=1&&b', '/p#token=x', '/p?=v']) {
      expect(recordedPath(path)).toBe(path);
    }
  });

  it('redacts OAuth codes and passwords by their whole names, and the name rule inside longer ones', () => {
    const path = '/cb?code=C0DE&PWD=p1&pw=p2&pass=p3&jwt=J&accessToken=A&zip_code=75001&passage=x';
    expect(recordedPath(path)).toBe(
      `/cb?code=${r('C0DE')}&PWD=${r('p1')}&pw=${r('p2')}&pass=${r('p3')}&jwt=${r('J')}&accessToken=${r('A')}` +
        '&zip_code=75001&passage=x',
    );
  });

  it('redacts the names it is given, case-insensitively', () => {
    expect(recordedPath('/p?Tenant=t1&user=u', ['tenant'])).toBe(`/p?Tenant=${r('t1')}&user=u`);
    expect(recordedPath('/p?tenant=t1')).toBe('/p?tenant=t1');
    // printed without a recording's key: the plain mark
    expect(redactPath('/p?Tenant=t1&x=1', ['tenant'])).toBe(`/p?Tenant=${encodeURIComponent(PLAIN_MARK)}&x=1`);
  });
});

describe('redactUrl', () => {
  it('drops user-info and keeps everything else as given', () => {
    expect(redactUrl('http://admin:pw@127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(redactUrl('http://admin:pw@127.0.0.1:8080/')).toBe('http://127.0.0.1:8080/');
    expect(redactUrl('https://admin@peer.example/a2a?x=1')).toBe('https://peer.example/a2a?x=1');
    expect(redactUrl('http://:pw@[::1]:9/')).toBe('http://[::1]:9/');
    expect(redactUrl(new URL('http://u:p@h:1/p'))).toBe('http://h:1/p');
    // no user-info: exactly as given
    expect(redactUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(redactUrl('http://h/path@x')).toBe('http://h/path@x');
    // not a URL at all: what stands where user-info would goes anyway
    expect(redactUrl('http://admin:pw@host:99999')).toBe('http://host:99999');
    // secret query parameters too
    expect(redactUrl('http://u:p@h:1/a?token=t&x=1')).toBe(`http://h:1/a?token=${encodeURIComponent(PLAIN_MARK)}&x=1`);
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

  it('names a secret header by a hash of its value, never by the value', () => {
    const hex16 = (v: string): string => createHash('sha256').update(v).digest('hex').slice(0, 16);
    const key = 'AK-live-1234567890';
    expect(principalOf({ 'x-api-key': key }, parsePrincipalSource('header:X-Api-Key'))).toBe(
      `header:x-api-key=sha256:${hex16(key)}`,
    );
    expect(principalOf({ 'x-auth-token': 'tok' }, parsePrincipalSource('header:x-auth-token'))).toBe(
      `header:x-auth-token=sha256:${hex16('tok')}`,
    );
    // a header the redaction list names is secret too, and so hashed
    expect(principalOf({ 'x-user': 'bob' }, parsePrincipalSource('header:x-user'), naming(['x-user']))).toBe(
      `header:x-user=hmac:${hmac16('bob')}`,
    );
    expect(principalOf({ 'x-user': 'bob' }, parsePrincipalSource('header:x-user'), naming())).toBe('bob');
    // a recorder names it keyed: no guess hashes to it without the key
    expect(principalOf({ 'x-api-key': key }, parsePrincipalSource('header:X-Api-Key'), naming())).toBe(
      `header:x-api-key=hmac:${hmac16(key)}`,
    );
    expect(principalOf({ authorization: 'Bearer opaque-1' }, undefined, naming())).toBe(
      `bearer:hmac:${hmac16('opaque-1')}`,
    );
  });

  it('names every credential right however many distinct ones came before, each asked again', () => {
    // More credentials than the remembered ones, JWTs, opaque bearers and non-bearers mixed.
    const auths = Array.from({ length: 200 }, (_, i) =>
      i % 3 === 0 ? `Bearer ${jwt({ sub: `user-${i}` })}` : i % 3 === 1 ? `Bearer opaque-${i}` : `Basic b-${i}`,
    );
    const expected = (auth: string, i: number): string | undefined =>
      i % 3 === 0
        ? `jwt:sub=user-${i}`
        : i % 3 === 1
          ? `bearer:sha256:${createHash('sha256').update(auth.slice('Bearer '.length)).digest('hex').slice(0, 8)}`
          : undefined;
    for (let round = 0; round < 2; round++) {
      auths.forEach((auth, i) => {
        expect(principalOf({ authorization: auth })).toBe(expected(auth, i));
        expect(redactValue(auth)).toBe(`[redacted hmac:${hmac16(auth)}]`);
      });
    }
  });

  it('rejects an unknown principal source with INVALID_ARGUMENT', () => {
    expect(() => parsePrincipalSource('cookie')).toThrow(A2aReplayError);
    expect(() => parsePrincipalSource('header:')).toThrow(/header:NAME/);
  });
});
