import { describe, expect, it } from 'vitest';
import { hashCanonical } from '../../src/canonical/canonical-json.js';
import {
  RECEIPT_CONDITIONS_MAX_BYTES,
  RECEIPT_TEXT_MAX,
  buildResumptionDraft,
  buildSuspensionDraft,
  cutText,
} from '../../src/receipts/drafts.js';
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

  it('lists the reason as repaired when the pause call was read from bytes that are not UTF-8', () => {
    const facts = {
      taskId: 't1',
      initiatedBy: 'PAUSE_INITIATOR_CLIENT' as const,
      via: 'PauseTask' as const,
      reason: 'a\ufffdb',
      pausedAt: '2026-01-01T00:00:00.000Z',
      observedAt: '2026-01-01T00:00:00.000Z',
      entries: [1, 2],
      span,
    };
    expect(buildSuspensionDraft({ ...facts, callBodyRepaired: true })).toMatchObject({
      reason: 'a\ufffdb',
      repaired: ['reason'],
    });
    // A U+FFFD the client sent as such is no repair; nor is a repaired call whose reason is intact.
    expect(buildSuspensionDraft(facts).repaired).toEqual([]);
    expect(buildSuspensionDraft({ ...facts, reason: 'ab', callBodyRepaired: true }).repaired).toEqual([]);
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

  it('cuts a text over the bound the same way in every receipt, never half a surrogate pair, and lists it', () => {
    const long = `${'x'.repeat(255)}\u{1F600}${'y'.repeat(RECEIPT_TEXT_MAX)}`;
    const cut = cutText(long);
    expect(cut.startsWith(`${'x'.repeat(255)}…[cut: ${long.length} UTF-16 code units, sha256:`)).toBe(true);
    expect(cut.isWellFormed()).toBe(true);
    const facts = { observedAt: '2026-01-01T00:00:00.000Z', entries: [1], span };
    const suspension = buildSuspensionDraft({
      ...facts,
      taskId: long,
      initiatedBy: 'PAUSE_INITIATOR_CLIENT',
      principal: `jwt:sub=${'p'.repeat(RECEIPT_TEXT_MAX)}`,
      via: 'PauseTask',
      reason: 'r'.repeat(RECEIPT_TEXT_MAX),
      pausedAt: '2026-01-01T00:00:00.000Z',
    });
    const resumption = buildResumptionDraft({
      ...facts,
      taskId: long,
      cause: 'explicit_resume',
      outcome: 'resumed',
      links: { suspension: span },
    });
    expect(suspension.taskId).toBe(cut);
    expect(resumption.taskId).toBe(cut);
    expect(suspension.reason).toBe('r'.repeat(RECEIPT_TEXT_MAX));
    expect(suspension.repaired).toEqual(['principal', 'taskId']);
    expect(resumption.repaired).toEqual(['taskId']);
  });

  it('leaves out conditions over the bound and keeps the hash of what was sent', () => {
    const facts = {
      taskId: 't1',
      initiatedBy: 'PAUSE_INITIATOR_AGENT' as const,
      via: 'AwaitTaskResumption' as const,
      pausedAt: '2026-01-01T00:00:00.000Z',
      observedAt: '2026-01-01T00:00:00.000Z',
      entries: [1],
      span,
    };
    // Exactly at the bound (canonical bytes) is kept; one byte more is left out.
    const at = { onEvent: 'e'.repeat(RECEIPT_CONDITIONS_MAX_BYTES - '{"onEvent":""}'.length) };
    const over = { onEvent: `${at.onEvent}e` };
    expect(buildSuspensionDraft({ ...facts, conditions: at })).toMatchObject({ conditions: at, repaired: [] });
    expect(buildSuspensionDraft({ ...facts, conditions: over })).toMatchObject({
      conditions: null,
      conditionsHash: hashCanonical(over),
      repaired: ['conditions'],
    });
  });
});
