import { describe, expect, it } from 'vitest';
import { hashCanonical } from '../../src/canonical/canonical-json.js';
import { buildResumptionDraft, buildSuspensionDraft } from '../../src/receipts/drafts.js';
import { tokenPlaceholder } from '../../src/recording/resume-token.js';

const span = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };

describe('receipt drafts', () => {
  it('repairs lone surrogates in a pause, lists the members, and keeps the receipt', () => {
    const draft = buildSuspensionDraft({
      taskId: 't1',
      initiatedBy: 'PAUSE_INITIATOR_CLIENT',
      principal: 'jwt:sub=\ud800',
      via: 'PauseTask',
      reason: 'why \udc00',
      conditions: { onEvent: 'ev\ud800' },
      resumeToken: 'tok\ud800',
      pausedAt: '2026-01-01T00:00:00.000Z',
      observedAt: '2026-01-01T00:00:00.000Z',
      entries: [3, 1, 3],
      span,
    });
    expect(draft.reason).toBe('why \ufffd');
    expect(draft.principal).toBe('jwt:sub=\ufffd');
    expect(draft.conditions).toEqual({ onEvent: 'ev\ufffd' });
    expect(draft.conditionsHash).toBe(hashCanonical({ onEvent: 'ev\ufffd' }));
    expect(draft.resumeTokenHash).toBe(hashCanonical('tok\ufffd'));
    expect(draft.repaired).toEqual(['conditions', 'principal', 'reason', 'resumeTokenHash']);
    expect(draft.entries).toEqual([1, 3]);
    expect(draft.binding).toBe('JSONRPC');
  });

  it('derives the same token hash from a recording placeholder as from the token', () => {
    const facts = {
      taskId: 't1',
      initiatedBy: 'PAUSE_INITIATOR_AGENT' as const,
      via: 'statusUpdate' as const,
      pausedAt: '2026-01-01T00:00:00.000Z',
      observedAt: '2026-01-01T00:00:00.000Z',
      entries: [1],
      span,
    };
    const clear = buildSuspensionDraft({ ...facts, resumeToken: 'suspend-1' });
    const placeholder = buildSuspensionDraft({ ...facts, resumeToken: tokenPlaceholder('suspend-1') });
    expect(placeholder).toEqual(clear);
    expect(clear.repaired).toEqual([]);
  });

  it('hashes resume input with a lone surrogate as repaired and marks it', () => {
    const draft = buildResumptionDraft({
      taskId: 't1',
      cause: 'explicit_resume',
      outcome: 'resumed',
      input: { note: ['\ud800'] },
      observedAt: '2026-01-01T00:00:00.000Z',
      entries: [2],
      span,
      links: { suspension: span },
    });
    expect(draft.inputHash).toBe(hashCanonical({ note: ['\ufffd'] }));
    expect(draft.hadResumeInput).toBe(true);
    expect(draft.inferred).toBe(false);
    expect(draft.repaired).toEqual(['inputHash']);
  });
});
