export * from './index.js';
export { createGoogleConnector, type GoogleConnectorOptions } from './google/google-connector.js';
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
export { createHubSpotConnector, SEARCH_RESULT_CAP, type HubSpotConnectorOptions } from './hubspot/hubspot-connector.js';
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
export { createIntercomConnector, type IntercomConnectorOptions } from './intercom/intercom-connector.js';
export { DEFAULT_INTERCOM_API_URL, INTERCOM_VERSION } from './intercom/intercom-client.js';
