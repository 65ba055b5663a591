/**
 * `@chs/core/testing`: what tests and benchmarks build on, not part of the engine's API — fresh
 * databases on every dialect (store/testing.ts), a fake Gmail and Google token server, a fake
 * HubSpot (install screen, token endpoint, CRM search, associations, owners) and a fake Intercom
 * (contacts and conversations search, conversations, companies), each on a real socket.
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
  type FakeHubSpotContact,
  type FakeHubSpotEngagement,
  type FakeHubSpotEngagementType,
  type FakeHubSpotOwner,
  type FakeHubSpotPipeline,
  type FakeHubSpotStage,
  type FakeHubSpotDeal,
  type FakeHubSpotStats,
} from './connectors/hubspot/fake-hubspot-server.js';
export {
  startFakeIntercomServer,
  type FakeIntercomServer,
  type FakeIntercomOptions,
  type FakeIntercomCompany,
  type FakeIntercomContact,
  type FakeIntercomConversation,
  type FakeIntercomPart,
  type FakeIntercomStats,
} from './connectors/intercom/fake-intercom-server.js';
export { readSnapshots, type TestSnapshot } from './health/test-fixtures.js';
export { storeSnapshots } from './health/write.js';
export type { SnapshotRow } from './health/score-client.js';
export { judgeProgress, type ProgressSample, type ProgressJudgement } from './test-support/progress.js';
