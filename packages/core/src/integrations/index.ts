export { encryptSecret, decryptSecret, parseSecretKey, loadOrCreateSecretKey, SECRET_KEY_FILE } from './secrets.js';
export {
  connectIntegration,
  getIntegration,
  listIntegrations,
  getIntegrationCredentials,
  updateIntegrationTokens,
  markNeedsReauth,
  markIntegrationSynced,
  recordIntegrationError,
  disconnectIntegration,
  integrationStatus,
  INTEGRATION_STATES,
  type Integration,
  type IntegrationState,
  type IntegrationStatus,
  type ConnectInput,
} from './repository.js';
