import { describe, expect, it } from 'vitest';
import { hashCanonical } from '../../src/canonical/canonical-json.js';
import {
  CUT_TOKEN_TEXT,
  SEEN_TOKENS,
  SeenTokens,
  TOKEN_PLACEHOLDER_PREFIX,
  isTokenPlaceholder,
  redactOverCapText,
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

describe('redactOverCapText', () => {
  const seenOf = (...tokens: string[]): SeenTokens => {
    const seen = new SeenTokens();
    for (const token of tokens) seen.add(token);
    return seen;
  };

  it('replaces a resumeToken member, its name decoded, and leaves an empty one', () => {
    const text = '{"a":"resumeToken","resume\\u0054oken" : "tok-1\\/x","b":{"resumeToken":""},"pad":"xx';
    expect(redactOverCapText(text, seenOf())).toBe(
      `{"a":"resumeToken","resume\\u0054oken" : "${tokenPlaceholder('tok-1/x')}","b":{"resumeToken":""},"pad":"xx`,
    );
  });

  it('writes a member value the cap cut as a note naming no part of it', () => {
    expect(redactOverCapText('{"x":1,"resumeToken":"tok-abc', seenOf())).toBe(
      `{"x":1,"resumeToken":"${CUT_TOKEN_TEXT}`,
    );
  });

  it('replaces the tokens the session has seen, as written or JSON-escaped, and one cut at the end', () => {
    const seen = seenOf('live/tok"1', 'other-tok-2', 'third-tok-3');
    const text = `say live/tok"1 and live/tok\\"1 then other-tok-2, cut: third-t`;
    expect(redactOverCapText(text, seen)).toBe(
      `say ${tokenPlaceholder('live/tok"1')} and ${tokenPlaceholder('live/tok"1')} then ` +
        `${tokenPlaceholder('other-tok-2')}, cut: ${CUT_TOKEN_TEXT}`,
    );
  });

  it('looks for a cut token only at the end of a text that was cut', () => {
    const seen = seenOf('suspend-0001');
    expect(redactOverCapText('state: suspend', seen, false)).toBe('state: suspend');
    expect(redactOverCapText('state: suspend', seen)).toBe(`state: ${CUT_TOKEN_TEXT}`);
  });

  it('keeps text holding no token as it is, and forgets the oldest of too many tokens', () => {
    expect(redactOverCapText('plain text', seenOf('tok-zz'))).toBe('plain text');
    const seen = seenOf('first-token-0');
    for (let i = 1; i <= SEEN_TOKENS; i++) seen.add(`later-token-${i}`);
    expect(redactOverCapText('first-token-0', seen)).toBe('first-token-0');
  });
});

describe('replaceResumeTokens under escaped names', () => {
  it('replaces a token under a member name written with escapes and tells the session', () => {
    const text = '{"params":{"resume\\u0054oken":"tok-9"}}';
    const seen = new SeenTokens();
    const body = replaceResumeTokens(JSON.parse(text) as object, text, seen);
    expect(body).toEqual({ params: { resumeToken: tokenPlaceholder('tok-9') } });
    expect([...seen.values()]).toEqual(['tok-9']);
  });
});
