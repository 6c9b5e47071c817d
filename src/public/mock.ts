/**
 * @module a2a-replay/mock
 * The peer side of recordings, for testing the client side (docs/design.md §13): a server that
 * answers as the recorded peer did (`startMockServer`), and the same in process as a `fetch` that
 * the `@a2a-js/sdk` client accepts (`createMockFetch`).
 */
export { createMockFetch, type MockFetch, type MockFetchOptions, DEFAULT_MOCK_URL } from '../mock/mock-fetch.js';
export { startMockServer, type MockServerOptions, type RunningMock } from '../mock/mock-server.js';
export {
  type MockOptions,
  type MockSource,
  type MockReport,
  type ExchangeRef,
  type UnmatchedRequest,
  NO_RECORDED_EXCHANGE,
  MOCK_ERROR_DOMAIN,
} from '../mock/mock-engine.js';
export { REPLAY_MAX_BODY_DEPTH } from '../recording/format.js';
