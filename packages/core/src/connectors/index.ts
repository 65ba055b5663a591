// The providers' own modules load their client libraries; they are exported from
// `@chs/core/connectors` (all.ts), not from the engine's root, so importing the engine stays light.
export * from './types.js';
export { createConnector, connectorFactories, type CreateConnectorOptions, type ProviderUrlOverrides } from './registry.js';
export { DEFAULT_RETRY_POLICY, retryPolicy, withRetry, parseRetryAfter, type RetryPolicy, type Verdict } from './retry.js';
export { DEFAULT_PROPERTY_MAP as DEFAULT_HUBSPOT_PROPERTY_MAP, type HubSpotPropertyMap } from './hubspot/hubspot-mapping.js';
