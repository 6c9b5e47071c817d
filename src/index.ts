/**
 * @module a2a-replay
 * The package root: what a library user needs to record, replay, verify and audit. Each layer a
 * user may reach further has its own subpath (`a2a-replay/receipts`, `/intercept`, `/replay`,
 * `/tracing`, `/peer`, `/protocol`); docs/api.md describes them. `cli/` uses `src/internal.ts`.
 */
export { A2aReplayError, type A2aReplayErrorCode } from './errors.js';
export { type Clock, ManualClock, systemClock } from './clock.js';
export { CounterIdSource, type IdSource, randomIdSource } from './ids.js';
export { VERSION } from './version.js';
export { canonicalJson, hashCanonical } from './canonical/canonical-json.js';
