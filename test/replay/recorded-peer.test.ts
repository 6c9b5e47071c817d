import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/canonical/canonical-json.js';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { recordedPeerSettings } from '../../src/replay/recorded-peer.js';

let peer: RunningPeer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

function cardResponse(body: unknown, path = '/.well-known/agent-card.json'): RecordingEntry {
  return {
    seq: 2,
    at: '2026-01-01T00:00:00.000Z',
    xid: 'x1',
    kind: 'response',
    http: { method: 'GET', path, status: 200 },
    body: body as JsonValue,
  };
}

describe('recordedPeerSettings', () => {
  it('reads the settings a recorded reference-peer card declares', async () => {
    peer = await startPeer({ deterministic: true, seed: 3, stepMs: 500, legacyPause: true });
    const card = (await (await fetch(`${peer.url}/.well-known/agent-card.json`)).json()) as unknown;
    expect(recordedPeerSettings([cardResponse(card)])).toEqual({
      deterministic: true,
      seed: 3,
      stepMs: 500,
      legacyPause: true,
      // The dialects it serves: both by default (docs/design.md §4 "Two dialects").
      a2aVersion: 'both',
    });
  });

  it('finds nothing in a recording without a reference-peer card', () => {
    expect(recordedPeerSettings([])).toBeUndefined();
    expect(
      recordedPeerSettings([cardResponse({ name: 'someone else', capabilities: { streaming: true } })]),
    ).toBeUndefined();
    expect(recordedPeerSettings([cardResponse({ capabilities: {} }, '/')])).toBeUndefined();
  });
});
