/**
 * `@chs/core/testing`: what tests and benchmarks build on, not part of the engine's API — fresh
 * databases on every dialect (store/testing.ts) and a fake Gmail and Google token server on a real
 * socket (connectors/google/fake-gmail-server.ts).
 */
export * from './store/testing.js';
export {
  startFakeGmailServer,
  type FakeGmailServer,
  type FakeGmailOptions,
  type FakeGmailMessage,
  type FakeGmailStats,
} from './connectors/google/fake-gmail-server.js';
