/**
 * @module replay/recorded-peer
 * How the recorded peer was set up, when it was the reference peer: its agent card declares its
 * settings (REFERENCE_PEER_EXTENSION_URI), and a recording that fetched the card carries them.
 * The embedded peer of `a2a-replay run` starts with the same settings, so a recording made with
 * `--legacy-pause`, another seed or another step length replays without extra flags.
 */
import { AGENT_CARD_PATH } from '../protocol/types.js';
import { type ReferencePeerSettings, referencePeerSettingsOf } from '../peer/agent-card.js';
import type { RecordingEntry } from '../recording/format.js';

/** The settings declared by the first agent card answered in the recording, if any. */
export function recordedPeerSettings(entries: readonly RecordingEntry[]): ReferencePeerSettings | undefined {
  for (const entry of entries) {
    if (entry.kind !== 'response' || entry.http.path.split('?')[0] !== AGENT_CARD_PATH) continue;
    const settings = referencePeerSettingsOf(entry.body);
    if (settings) return settings;
  }
  return undefined;
}
