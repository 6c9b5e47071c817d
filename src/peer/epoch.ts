/**
 * @module peer/epoch
 * Where the deterministic peer's virtual clock starts (docs/design.md §4): apart from the peer's
 * server, so a replay names it without loading the peer.
 */

/** Where the deterministic peer's virtual clock starts. */
export const DETERMINISTIC_EPOCH = '2026-01-01T00:00:00.000Z';
