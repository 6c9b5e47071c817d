/**
 * @module a2a-replay/peer
 * The reference peer: a complete A2A v1.0 JSON-RPC peer with the pause extension, a scripted
 * agent, a virtual clock and its own transition log (docs/design.md §4); `callPeer`, one A2A call
 * to a peer or the recorder, as `a2a-replay client` makes it.
 */
export { type PeerOptions, type RunningPeer, startPeer } from '../peer/start-peer.js';
export { DETERMINISTIC_EPOCH } from '../peer/epoch.js';
export { DEFAULT_MAX_TASKS } from '../peer/task-store.js';
export { type HttpLimits, DEFAULT_HTTP_LIMITS } from '../http/limits.js';
export { type PeerTransitions, readPeerTransitions, parsePeerTransitions } from '../peer/read-transitions.js';
export type { PeerTransitionLine } from '../peer/transition-log.js';
export { A2A_VERSION_SETTINGS, type A2aVersionSetting } from '../peer/v03-dialect.js';
export { type PeerAnswer, type PeerCall, type PeerCallOptions, callPeer } from '../http/peer-call.js';
