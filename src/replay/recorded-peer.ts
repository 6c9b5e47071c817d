/**
 * @module replay/recorded-peer
 * How the recorded peer was set up, when it was the reference peer: its agent card declares its
 * settings (REFERENCE_PEER_EXTENSION_URI); `record` keeps the upstream's card in the header, and a
 * recording whose client fetched the card carries it too. The embedded peer of `a2a-replay run`
 * starts with the same settings — real-time or deterministic, seed, step length, legacy pause
 * reporting, and where its clock starts — so such a recording replays without extra flags.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { DETERMINISTIC_EPOCH } from '../peer/epoch.js';
import { AGENT_CARD_PATH } from '../protocol/types.js';
import { type ReferencePeerSettings, referencePeerSettingsOf } from '../peer/agent-card.js';
import type { RecordingEntry, RecordingHeader } from '../recording/format.js';

/** How to start a reference peer like the recorded one. */
export interface RecordedPeerSetup extends ReferencePeerSettings {
  /**
   * Where the peer's clock starts (ms since the epoch): the deterministic peer's virtual epoch; for
   * a real-time peer, when the recording began (the header's `createdAt`), so times a session
   * names (`sleep-until:TIME`) lie as far ahead of the replay as they lay ahead of the recording.
   */
  clockOriginMs: number;
}

/** The agent card the recorded peer served: the header's, else the first one answered in the session. */
export function recordedAgentCard(
  entries: readonly RecordingEntry[],
  header?: Pick<RecordingHeader, 'agentCard'>,
): JsonValue | undefined {
  if (header?.agentCard !== undefined) return header.agentCard;
  for (const entry of entries) {
    if (entry.kind === 'response' && entry.http.path.split('?')[0] === AGENT_CARD_PATH && entry.http.status === 200)
      return entry.body;
  }
  return undefined;
}

/**
 * The reference-peer setup the recording shows: from the header's card, else from the first card
 * answered in the session that declares the settings; undefined when the recorded peer was not
 * the reference peer (or no card says).
 */
export function recordedPeerSetup(
  entries: readonly RecordingEntry[],
  header?: Pick<RecordingHeader, 'agentCard' | 'createdAt'>,
): RecordedPeerSetup | undefined {
  const settings =
    (header?.agentCard !== undefined ? referencePeerSettingsOf(header.agentCard) : undefined) ??
    recordedPeerSettings(entries);
  if (!settings) return undefined;
  const createdAt = header === undefined ? Number.NaN : Date.parse(header.createdAt);
  const clockOriginMs =
    settings.deterministic || !Number.isFinite(createdAt) ? Date.parse(DETERMINISTIC_EPOCH) : createdAt;
  return { ...settings, clockOriginMs };
}

/** The settings declared by the first agent card answered in the recording, if any. */
export function recordedPeerSettings(entries: readonly RecordingEntry[]): ReferencePeerSettings | undefined {
  for (const entry of entries) {
    if (entry.kind !== 'response' || entry.http.path.split('?')[0] !== AGENT_CARD_PATH) continue;
    const settings = referencePeerSettingsOf(entry.body);
    if (settings) return settings;
  }
  return undefined;
}
