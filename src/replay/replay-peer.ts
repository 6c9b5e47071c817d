/**
 * @module replay/replay-peer
 * {@link replayPeerOpener}: the peer each replay runs against (docs/design.md §8): a running one
 * (`peer`, probed first), one spawned per recording (`peerCmd`, with `PORT` set), or by default
 * the embedded reference peer on a free loopback port, a fresh one per recording, set up as the
 * recording's agent card says the recorded one ran; `seed`, `stepMs`, `legacyPause` override that.
 * The reference peer is loaded only when it is the one asked for.
 */
import { ManualClock } from '../clock.js';
import { DETERMINISTIC_EPOCH } from '../peer/epoch.js';
import type { RecordingEntry, RecordingHeader } from '../recording/format.js';
import { probePeer, startPeerProcess } from './peer-process.js';
import { recordedPeerSetup } from './recorded-peer.js';
import type { LivePeer } from './run-recording.js';

/** Which peer the replays run against, and how the embedded one is set up. */
export interface ReplayPeerOptions {
  /** A running peer's URL: probed first, never stopped. */
  peer?: string;
  /** A command that starts a peer per recording (`PORT` is set); stopped after each. */
  peerCmd?: string;
  /** How long a `peerCmd` peer gets to answer its agent card (default 15000 ms). */
  readyTimeoutMs?: number;
  /** Embedded peer: the seed of its deterministic ids (default: as recorded, else 0). */
  seed?: number;
  /** Embedded peer: virtual ms per work step (default: as recorded, else 1000). */
  stepMs?: number;
  /** Embedded peer: report pauses the Harn way (default: as recorded). */
  legacyPause?: boolean;
}

/** The `openPeer` of {@link runRecording}, {@link runCorpus} and {@link runMerged} for these options. */
export function replayPeerOpener(
  options: ReplayPeerOptions,
): (entries: readonly RecordingEntry[], header: RecordingHeader) => Promise<LivePeer> {
  if (options.peer !== undefined) {
    const url = options.peer;
    return async () => {
      await probePeer(url);
      return { url, close: async () => {} };
    };
  }
  if (options.peerCmd !== undefined) {
    const command = options.peerCmd;
    const readyTimeoutMs = options.readyTimeoutMs ?? 15_000;
    return async () => {
      const peer = await startPeerProcess(command, { readyTimeoutMs });
      return { url: peer.url, failure: () => peer.failure(), close: () => peer.stop() };
    };
  }
  // The embedded peer: set up like the recorded reference peer (its header's card says how),
  // deterministic when nothing says; the options override what was recorded. A real-time one runs
  // on a virtual clock the replay moves to each request's recorded instant (docs/design.md §8).
  return async (entries, header) => {
    const { startPeer } = await import('../peer/start-peer.js');
    const recorded = recordedPeerSetup(entries, header);
    const deterministic = recorded?.deterministic ?? true;
    const origin = recorded?.clockOriginMs ?? Date.parse(DETERMINISTIC_EPOCH);
    const peer = await startPeer({
      deterministic,
      virtualTime: true,
      // A real-time session may hold /control calls (FireEvent) made to a peer run with --control.
      control: true,
      clock: new ManualClock(origin),
      seed: options.seed ?? recorded?.seed ?? 0,
      stepMs: options.stepMs ?? recorded?.stepMs ?? 1000,
      legacyPause: options.legacyPause ?? recorded?.legacyPause ?? false,
      // A recording of the variant that walks past an ask: gate replays on that variant.
      ...(recorded?.bypassAskAfterMs === undefined ? {} : { bypassAskAfterMs: recorded.bypassAskAfterMs }),
      // A recorded reference peer's card names the dialects it served (none: v1.0 only); a
      // session without its card gets both.
      a2aVersion: recorded === undefined ? 'both' : (recorded.a2aVersion ?? '1.0'),
      port: 0,
    });
    return {
      url: peer.url,
      close: () => peer.close(),
      embedded: true,
      // The deterministic peer's clock moves only as the recording's AdvanceClock calls move it.
      ...(!deterministic && peer.virtualClock ? { peerClock: peer.virtualClock } : {}),
    };
  };
}
