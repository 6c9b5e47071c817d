/**
 * @module a2a-replay/peer
 * The reference peer: a complete A2A v1.0 JSON-RPC peer with the pause extension, a scripted
 * agent, a virtual clock and its own transition log (docs/design.md §4).
 */
export {
  type PeerOptions,
  type RunningPeer,
  startPeer,
  DETERMINISTIC_EPOCH,
  DEFAULT_MAX_TASKS,
  type HttpLimits,
  DEFAULT_HTTP_LIMITS,
  type PeerTransitions,
  type PeerTransitionLine,
  readPeerTransitions,
  parsePeerTransitions,
} from '../internal.js';
