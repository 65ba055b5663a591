export {
  encryptSecret,
  decryptSecret,
  parseSecretKey,
  loadOrCreateSecretKey,
  replaceSecretKeyFile,
  generateSecretKeyText,
  sealedVersion,
  toSecretKey,
  SecretKey,
  SECRET_KEY_FILE,
  type SecretKeyInput,
  type SecretBinding,
  type UnreadableReason,
} from './secrets.js';
export {
  connectIntegration,
  getIntegration,
  listIntegrations,
  listIntegrationAccounts,
  getIntegrationCredentials,
  updateIntegrationTokens,
  markNeedsReauth,
  markIntegrationSynced,
  recordIntegrationError,
  disconnectIntegration,
  integrationStatus,
  rotateIntegrationSecrets,
  INTEGRATION_STATES,
  type Integration,
  type IntegrationState,
  type IntegrationStatus,
  type IntegrationAccountStatus,
  type ConnectInput,
  type SecretRotation,
} from './repository.js';
export {
  createOAuthState,
  consumeOAuthState,
  OAUTH_STATE_TTL_MS,
  type OAuthStateRefusal,
  type NewOAuthState,
  type ConsumedOAuthState,
  type OAuthCallbackQuery,
} from './oauth-states.js';
export { startGoogleSignIn, finishGoogleSignIn, type GoogleWebClient, type GoogleCallbackQuery } from './google-sign-in.js';
export { startHubSpotInstall, finishHubSpotInstall, type HubSpotAppClient } from './hubspot-install.js';
export { disconnectAndRevoke, type DisconnectResult, type DisconnectOptions } from './disconnect.js';
