/**
 * JSON nested deeper than replay and mock walk is recorded as its text (docs/design.md §5): the
 * bytes as they came, its resume tokens written as placeholders, or, when a token cannot be
 * replaced in the text, a note with the text's sha256.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CounterIdSource } from '../../src/ids.js';
import { REPLAY_MAX_BODY_DEPTH, type RecordingEntry } from '../../src/recording/format.js';
import type { EntryDraft } from '../../src/recording/recording-writer.js';
import { ExchangeRecorder, type TokenPolicy } from '../../src/intercept/exchange-recorder.js';
import { tokenPlaceholder } from '../../src/recording/resume-token.js';

/** A recorder whose entries land in `drafts`. */
function recorder(tokens: TokenPolicy = 'placeholder'): { recorder: ExchangeRecorder; drafts: EntryDraft[] } {
  const drafts: EntryDraft[] = [];
  const writer = {
    append(draft: EntryDraft): RecordingEntry {
      drafts.push(draft);
      return { ...draft, seq: drafts.length, at: '' };
    },
  };
  return { recorder: new ExchangeRecorder({ writer, ids: new CounterIdSource(), tokens }), drafts };
}

/** A ResumeTask whose metadata nests `depth` levels, with `token` as its resume token's JSON text. */
function deepResume(depth: number, tokenJson: string): string {
  const deep = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  const params = `{"taskId":"t","resumeToken":${tokenJson},"metadata":{"x":${deep}}}`;
  return `{"jsonrpc":"2.0","id":1,"method":"ResumeTask","params":${params}}`;
}

function recordRequest(text: string, tokens?: TokenPolicy): EntryDraft {
  const { recorder: r, drafts } = recorder(tokens);
  r.request({ method: 'POST', path: '/', headers: {}, body: Buffer.from(text) });
  return drafts[0] as EntryDraft;
}

describe('bodies nested deeper than replay walks', () => {
  it('keeps a body just as deep as replay takes as a body', () => {
    const draft = recordRequest(deepResume(REPLAY_MAX_BODY_DEPTH - 5, '""'));
    expect(draft.body).toBeDefined();
    expect(draft.bodyText).toBeUndefined();
  });

  it('tells a body one level too deep by its nesting, also when its text is as short as can be', () => {
    // REPLAY_MAX_BODY_DEPTH + 1 nested arrays: the shortest text that nests too deep.
    const deepest = `${'['.repeat(REPLAY_MAX_BODY_DEPTH + 1)}${']'.repeat(REPLAY_MAX_BODY_DEPTH + 1)}`;
    const justDeepEnough = deepest.slice(1, -1);
    expect(recordRequest(deepest).bodyText).toBe(deepest);
    expect(recordRequest(justDeepEnough).body).toBeDefined();
  });

  it('records a deeper body as its text, byte for byte', () => {
    const text = deepResume(REPLAY_MAX_BODY_DEPTH + 1, '""');
    const draft = recordRequest(text);
    expect('body' in draft).toBe(false);
    expect(draft.bodyText).toBe(text);
  });

  it('writes the resume tokens of a deeper body as placeholders in its text', () => {
    const draft = recordRequest(deepResume(5000, '"secret-1"'));
    expect(draft.bodyText).toBe(deepResume(5000, JSON.stringify(tokenPlaceholder('secret-1'))));
    expect(draft.bodyText).not.toContain('secret-1');
  });

  it('records a note with the sha256 when a token is escaped so that it cannot be replaced in the text', () => {
    const text = deepResume(5000, '"secr\\u0065t-1"');
    const draft = recordRequest(text);
    const digest = createHash('sha256').update(text).digest('hex');
    expect(draft.bodyText).toBe(
      `[body not recorded: JSON nested deeper than ${REPLAY_MAX_BODY_DEPTH} levels holding a resume token ` +
        `that cannot be replaced in its text; sha256 of ${text.length} bytes:${digest}]`,
    );
  });

  it('keeps the text and its tokens as they are when tokens are kept (replay reading a live answer)', () => {
    const text = deepResume(5000, '"secret-1"');
    expect(recordRequest(text, 'keep').bodyText).toBe(text);
  });

  it('records a deeper SSE event as its text', () => {
    const { recorder: r, drafts } = recorder();
    const data = `{"result":${'['.repeat(3000)}${']'.repeat(3000)}}`;
    const exchange = r.request({ method: 'POST', path: '/', headers: {} });
    exchange.head(200, { 'content-type': 'text/event-stream' });
    exchange.data(Buffer.from(`data: ${data}\n\ndata: {"n":1}\n\n`));
    exchange.finish();
    const events = drafts.filter((d) => d.kind === 'event');
    expect(events.map((e) => e.bodyText)).toEqual([data, undefined]);
    expect(events[1]?.body).toEqual({ n: 1 });
  });
});
