/**
 * Every connector, in one map: provider → factory. The job runner builds a connector with
 * `createConnector(provider, { credentials, urls, onTokens, ... })` and drives `sync()`.
 */
import type { HubSpotConnectorOptions } from './hubspot/hubspot-connector.js';
import type { RateLimiters } from './retry.js';
import type { Connector, ConnectorBaseOptions, CredentialsByProvider, Provider } from './types.js';

/** Base URLs; each undefined means the provider's public default. */
export interface ProviderUrlOverrides {
  googleApi?: string | undefined;
  googleToken?: string | undefined;
  hubspotApi?: string | undefined;
  intercomApi?: string | undefined;
  /** Gmail's per-user quota in units per minute for the client-side limiter; 0 turns it off. Default 15,000. */
  googleQuotaPerMinute?: number | undefined;
}

export interface CreateConnectorOptions<P extends Provider> extends ConnectorBaseOptions {
  credentials: CredentialsByProvider[P];
  urls?: ProviderUrlOverrides;
  /** Google, and HubSpot OAuth apps: persist refreshed tokens. */
  onTokens?: (credentials: CredentialsByProvider[P]) => void | Promise<void>;
  /** Client-side quota buckets shared by the connectors built with them (Google). Default: each connector its own. */
  limiters?: RateLimiters;
  /** HubSpot only: company property map (per-workspace configuration). */
  hubspotPropertyMap?: HubSpotConnectorOptions['propertyMap'];
  /** HubSpot only: the renewal pipeline whose closed deals are outcomes (HubSpotSettings). Default none: no deal is read. */
  hubspotRenewalPipelineId?: string | undefined;
}

type Factory<P extends Provider> = (options: CreateConnectorOptions<P>) => Promise<Connector>;

// Each provider's module (and its client library: googleapis, @hubspot/api-client) is loaded on
// first use, so importing the engine — and every `chs` command — does not pay for them.
export const connectorFactories: { readonly [P in Provider]: Factory<P> } = Object.freeze({
  google: async (o: CreateConnectorOptions<'google'>) => {
    const { createGoogleConnector } = await import('./google/google-connector.js');
    const perMinute = o.urls?.googleQuotaPerMinute;
    const quota = perMinute === undefined ? undefined : perMinute > 0 ? { units: perMinute, windowMs: 60_000 } : (false as const);
    return createGoogleConnector({
      ...o,
      apiUrl: o.urls?.googleApi,
      tokenUrl: o.urls?.googleToken,
      onTokens: o.onTokens,
      ...(quota !== undefined ? { quota } : {}),
    });
  },
  hubspot: async (o: CreateConnectorOptions<'hubspot'>) => {
    const { createHubSpotConnector } = await import('./hubspot/hubspot-connector.js');
    return createHubSpotConnector({
      ...o,
      apiUrl: o.urls?.hubspotApi,
      propertyMap: o.hubspotPropertyMap,
      renewalPipelineId: o.hubspotRenewalPipelineId,
      onTokens: o.onTokens,
    });
  },
  intercom: async (o: CreateConnectorOptions<'intercom'>) => {
    const { createIntercomConnector } = await import('./intercom/intercom-connector.js');
    return createIntercomConnector({ ...o, apiUrl: o.urls?.intercomApi });
  },
});

export function createConnector<P extends Provider>(provider: P, options: CreateConnectorOptions<P>): Promise<Connector> {
  const factory = connectorFactories[provider] as Factory<P>;
  return factory(options);
}
