/**
 * `@chs/core/testing`: what tests and benchmarks build on, not part of the engine's API — fresh
 * databases on every dialect (store/testing.ts), a fake Gmail and Google token server and a fake
 * HubSpot (install screen, token endpoint, company search), each on a real socket.
 */
export * from './store/testing.js';
export {
  startFakeGmailServer,
  type FakeGmailServer,
  type FakeGmailOptions,
  type FakeGmailMessage,
  type FakeGmailStats,
} from './connectors/google/fake-gmail-server.js';
export {
  startFakeHubSpotServer,
  type FakeHubSpotServer,
  type FakeHubSpotOptions,
  type FakeHubSpotCompany,
  type FakeHubSpotStats,
} from './connectors/hubspot/fake-hubspot-server.js';
export { judgeProgress, type ProgressSample, type ProgressJudgement } from './test-support/progress.js';
