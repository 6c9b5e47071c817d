import { describe, expect, it } from 'vitest';
import { hashCanonical } from '../../src/canonical/canonical-json.js';
import {
  TOKEN_PLACEHOLDER_PREFIX,
  isTokenPlaceholder,
  replaceResumeTokens,
  tokenHashOf,
  tokenPlaceholder,
} from '../../src/recording/resume-token.js';

describe('resume token placeholders', () => {
  it('stands in for a token with the hash a receipt keeps, so both hash the same', () => {
    const token = 'suspend-019abf6b-0001';
    const placeholder = tokenPlaceholder(token);
    expect(placeholder).toBe(`${TOKEN_PLACEHOLDER_PREFIX}${hashCanonical(token)}`);
    expect(placeholder).not.toContain(token);
    expect(isTokenPlaceholder(placeholder)).toBe(true);
    expect(tokenHashOf(placeholder)).toBe(hashCanonical(token));
    expect(tokenHashOf(token)).toBe(hashCanonical(token));
  });

  it('keeps a placeholder as it is instead of hashing it again', () => {
    const once = tokenPlaceholder('t');
    expect(tokenPlaceholder(once)).toBe(once);
  });

  it('hashes a token holding a lone surrogate as if it were U+FFFD, without throwing', () => {
    expect(tokenHashOf('a\ud800')).toBe(hashCanonical('a\ufffd'));
    expect(isTokenPlaceholder(tokenPlaceholder('a\ud800'))).toBe(true);
  });

  it('does not take look-alikes for placeholders', () => {
    expect(isTokenPlaceholder(`${TOKEN_PLACEHOLDER_PREFIX}sha256:abc`)).toBe(false);
    expect(isTokenPlaceholder(`x${tokenPlaceholder('t')}`)).toBe(false);
  });
});

describe('replaceResumeTokens', () => {
  it('replaces every token by its placeholder but an empty one, which is no capability', () => {
    const text =
      '{"params":{"resumeToken":"","x":{"resumeToken":"secret-1"}},"metadata":{"harn":{"pause":{"handle":""}}}}';
    const body = replaceResumeTokens(JSON.parse(text) as unknown, text);
    expect(body).toEqual({
      params: { resumeToken: '', x: { resumeToken: tokenPlaceholder('secret-1') } },
      metadata: { harn: { pause: { handle: '' } } },
    });
    expect(tokenHashOf('')).toBe(hashCanonical(''));
  });
});
