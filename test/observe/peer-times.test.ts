/**
 * The peer's times reach receipts in their canonical text (docs/design.md §6, "Peer times") in a
 * version-5 log, whatever text the peer wrote them in, and as written in a log derived in an
 * earlier version; a time that names no instant is refused where it is read, naming the field.
 */
import { describe, expect, it } from 'vitest';
import { Keyring } from '../../src/receipts/keys.js';
import { RECORDING_VERSION, type RecordingHeader } from '../../src/recording/format.js';
import { deriveReceiptLog } from '../../src/replay/derive-receipts.js';
import type { Fact } from '../../src/observe/fact.js';
import { withCanonicalTimes } from '../../src/observe/peer-times.js';
import { CREATED_AT, fixedKey } from '../receipts/fixtures.js';
import { Entries, TASK, TOKEN, clientPause, observeAll, pauseResult, resumeResult } from './entries.js';

const keyring = new Keyring([fixedKey('key-a')]);
const header: RecordingHeader = {
  type: 'recording',
  version: RECORDING_VERSION,
  id: 'rec-peer-times',
  createdAt: CREATED_AT,
  target: { url: 'http://127.0.0.1:1/' },
  tool: 'a2a-replay@test',
};

/** A pause and its resume whose times the peer wrote with offsets and odd fractions. */
function session(): Entries {
  const e = new Entries();
  e.request('p1', 'PauseTask', { taskId: TASK });
  e.result(
    'p1',
    pauseResult(
      clientPause({
        pausedAt: '2026-04-30T14:34:56+02:00',
        pausedUntil: '2026-05-01T12:34:56.5Z',
        conditions: { trigger: { at: '2026-04-30T12:40:00.000000Z' } },
      }),
    ),
  );
  e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
  e.result('r1', resumeResult('2026-04-30T12:35:00.123456000-00:00'));
  return e;
}

async function receipts(version?: 4 | 5): Promise<Array<Record<string, unknown>>> {
  const { lines } = await deriveReceiptLog({
    header,
    entries: session().list,
    keyring,
    tool: 'a2a-replay@test',
    ...(version !== undefined ? { version } : {}),
  });
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => String(l.type).endsWith('Receipt'));
}

describe("the peer's times in receipts", () => {
  it('are the canonical text of each instant in a version-5 log', async () => {
    const [suspension, resumption] = await receipts();
    expect(suspension).toMatchObject({
      pausedAt: '2026-04-30T12:34:56.000Z',
      pausedUntil: '2026-05-01T12:34:56.500Z',
      conditions: { trigger: { at: '2026-04-30T12:40:00.000Z' } },
    });
    expect(resumption).toMatchObject({ resumedAt: '2026-04-30T12:35:00.123456Z' });
  });

  it('keep the text the peer wrote in a log derived in version 4', async () => {
    const [suspension, resumption] = await receipts(4);
    expect(suspension).toMatchObject({
      pausedAt: '2026-04-30T14:34:56+02:00',
      pausedUntil: '2026-05-01T12:34:56.5Z',
      conditions: { trigger: { at: '2026-04-30T12:40:00.000000Z' } },
    });
    expect(resumption).toMatchObject({ resumedAt: '2026-04-30T12:35:00.123456000-00:00' });
  });

  it('refuse a pausedAt that names no instant, naming the entry and the field', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    const answer = e.result('p1', pauseResult(clientPause({ pausedAt: '2026-02-30T12:00:00Z' })));
    const out = observeAll(e.list);
    expect(out.filter((o) => o.type === 'suspension')).toEqual([]);
    const findings = out.flatMap((o) => (o.type === 'finding' ? [o.finding] : []));
    const refused = findings.find((f) => f.code === 'malformed-pause');
    expect(refused).toMatchObject({ seq: answer.seq, field: 'body.result.pause.pausedAt' });
    expect(refused?.message).toContain('RFC 3339');
  });

  it('reads each text alone: the same text again gives its canonical text, a refused one is refused each time', () => {
    const seen = (timestamp: string): Fact => ({
      type: 'StateSeen',
      entry: { seq: 1, at: '2026-05-01T00:00:00.000Z' },
      task: { taskId: TASK, contextId: null },
      state: 'TASK_STATE_WORKING',
      timestamp,
      origin: { kind: 'snapshot', xid: 'g1', multi: false },
      field: 'body.result',
    });
    const stamp = (timestamp: string): unknown =>
      (withCanonicalTimes(seen(timestamp)) as { timestamp: unknown }).timestamp;
    expect(stamp('2026-04-30T14:34:56+02:00')).toBe('2026-04-30T12:34:56.000Z');
    expect(stamp('2026-04-30T14:34:56+02:00')).toBe('2026-04-30T12:34:56.000Z');
    expect(() => stamp('2026-02-30T12:00:00Z')).toThrow(/status\.timestamp: expected an RFC 3339 time/);
    expect(() => stamp('2026-02-30T12:00:00Z')).toThrow(/status\.timestamp: expected an RFC 3339 time/);
    expect(stamp('2026-04-30T14:34:57+02:00')).toBe('2026-04-30T12:34:57.000Z');
    expect(stamp('2026-04-30T14:34:56+02:00')).toBe('2026-04-30T12:34:56.000Z');
  });
});
