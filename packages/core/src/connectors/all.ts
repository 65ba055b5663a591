export * from './index.js';
export { createGoogleConnector, GOOGLE_CAPABILITIES, type GoogleConnectorOptions } from './google/google-connector.js';
export { DEFAULT_GOOGLE_API_URL, DEFAULT_GOOGLE_TOKEN_URL } from './google/google-client.js';
export { DEFAULT_CONSENT_TIMEOUT_MS } from './loopback.js';
export {
  DEFAULT_GOOGLE_AUTH_URL,
  DEFAULT_GOOGLE_REVOKE_URL,
  GMAIL_READONLY_SCOPE,
  runLoopbackConsent,
  exchangeGoogleCode,
  googleConsentUrl,
  newPkce,
  revokeGoogleToken,
  parseServiceAccountKey,
  connectServiceAccount,
  type LoopbackConsentOptions,
  type GoogleOAuthClient,
  type CodeExchange,
} from './google/google-oauth.js';
export { startFakeGmailServer, type FakeGmailServer, type FakeGmailOptions, type FakeGmailMessage, type FakeGmailStats } from './google/fake-gmail-server.js';
export { createHubSpotConnector, HUBSPOT_CAPABILITIES, SEARCH_RESULT_CAP, type HubSpotConnectorOptions } from './hubspot/hubspot-connector.js';
export { DEFAULT_HUBSPOT_API_URL } from './hubspot/hubspot-client.js';
export {
  HUBSPOT_OAUTH_SCOPES,
  DEFAULT_HUBSPOT_LOOPBACK_PORT,
  exchangeHubSpotCode,
  hubspotAuthorizeUrl,
  refreshHubSpotToken,
  runHubSpotLoopbackInstall,
  type HubSpotLoopbackOptions,
} from './hubspot/hubspot-oauth.js';
export {
  startFakeHubSpotServer,
  type FakeHubSpotServer,
  type FakeHubSpotOptions,
  type FakeHubSpotCompany,
  type FakeHubSpotStats,
} from './hubspot/fake-hubspot-server.js';
export { createIntercomConnector, INTERCOM_CAPABILITIES, type IntercomConnectorOptions } from './intercom/intercom-connector.js';
export { DEFAULT_INTERCOM_API_URL, INTERCOM_VERSION } from './intercom/intercom-client.js';
