/**
 * Every connector, in one map: provider → factory. The job runner builds a connector with
 * `createConnector(provider, { credentials, urls, onTokens, ... })` and drives `sync()`.
 */
import { createGoogleConnector } from './google/google-connector.js';
import { createHubSpotConnector, type HubSpotConnectorOptions } from './hubspot/hubspot-connector.js';
import { createIntercomConnector } from './intercom/intercom-connector.js';
import type { Connector, ConnectorBaseOptions, CredentialsByProvider, GoogleCredentials, Provider } from './types.js';

/** Base URLs; each undefined means the provider's public default. */
export interface ProviderUrlOverrides {
  googleApi?: string | undefined;
  googleToken?: string | undefined;
  hubspotApi?: string | undefined;
  intercomApi?: string | undefined;
}

export interface CreateConnectorOptions<P extends Provider> extends ConnectorBaseOptions {
  credentials: CredentialsByProvider[P];
  urls?: ProviderUrlOverrides;
  /** Google only: persist refreshed tokens. */
  onTokens?: (credentials: GoogleCredentials) => void | Promise<void>;
  /** HubSpot only: company property map (per-workspace configuration). */
  hubspotPropertyMap?: HubSpotConnectorOptions['propertyMap'];
}

type Factory<P extends Provider> = (options: CreateConnectorOptions<P>) => Connector;

export const connectorFactories: { readonly [P in Provider]: Factory<P> } = Object.freeze({
  google: (o: CreateConnectorOptions<'google'>) =>
    createGoogleConnector({ ...o, apiUrl: o.urls?.googleApi, tokenUrl: o.urls?.googleToken, onTokens: o.onTokens }),
  hubspot: (o: CreateConnectorOptions<'hubspot'>) => createHubSpotConnector({ ...o, apiUrl: o.urls?.hubspotApi, propertyMap: o.hubspotPropertyMap }),
  intercom: (o: CreateConnectorOptions<'intercom'>) => createIntercomConnector({ ...o, apiUrl: o.urls?.intercomApi }),
});

export function createConnector<P extends Provider>(provider: P, options: CreateConnectorOptions<P>): Connector {
  const factory = connectorFactories[provider] as Factory<P>;
  return factory(options);
}
