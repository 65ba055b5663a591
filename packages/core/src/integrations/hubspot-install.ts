/**
 * A HubSpot public app installed over HTTP (the dashboard's "Connect HubSpot"): the OAuth
 * authorization-code flow. `startHubSpotInstall` stores a single-use state bound to the workspace
 * and to `hubspot` (oauth-states.ts) and answers the install URL; HubSpot sends the browser back
 * to the callback, where `finishHubSpotInstall` consumes the state, exchanges the code at
 * HubSpot's token endpoint and stores the app's tokens encrypted (repository.ts). HubSpot has no
 * PKCE: the state's sealed verifier is left empty.
 *
 * The HubSpot module (and @hubspot/api-client) loads on first use, as the connectors do.
 */
import type { Db } from '../store/database.js';
import { createOAuthState, redeemOAuthCallback, type OAuthCallbackQuery } from './oauth-states.js';
import { connectIntegration, type Integration } from './repository.js';
import type { SecretKeyInput } from './secrets.js';

/** A public app's OAuth client (its Auth settings in HubSpot) and HubSpot's endpoints. */
export interface HubSpotAppClient {
  clientId: string;
  clientSecret: string;
  /** The install screen. Default `https://app.hubspot.com/oauth/authorize`. */
  authUrl?: string | undefined;
  /** API root that serves `/oauth/v1/token`. Default `https://api.hubapi.com`. */
  apiUrl?: string | undefined;
}

export async function startHubSpotInstall(
  db: Db,
  key: SecretKeyInput,
  input: { workspaceId: string; userId?: string | undefined; client: HubSpotAppClient; redirectUri: string; now: Date },
): Promise<{ url: string; expiresAt: string }> {
  const { hubspotAuthorizeUrl } = await import('../connectors/hubspot/hubspot-oauth.js');
  const { state, expiresAt } = await createOAuthState(db, key, {
    workspaceId: input.workspaceId,
    provider: 'hubspot',
    codeVerifier: '',
    redirectUri: input.redirectUri,
    userId: input.userId,
    now: input.now,
  });
  return { url: hubspotAuthorizeUrl({ clientId: input.client.clientId, redirectUri: input.redirectUri, state, authUrl: input.client.authUrl }), expiresAt };
}

/**
 * Completes an install from HubSpot's redirect. OAUTH_FAILED (with `details.reason`) when the
 * state is unknown (another provider's included), expired or used, the user denied consent, or
 * HubSpot refused the code; PROVIDER_ERROR when HubSpot's token endpoint failed.
 */
export async function finishHubSpotInstall(
  db: Db,
  key: SecretKeyInput,
  input: { query: OAuthCallbackQuery; client: HubSpotAppClient; now: () => Date },
): Promise<{ workspaceId: string; integration: Integration }> {
  const bound = await redeemOAuthCallback(db, key, { provider: 'hubspot', query: input.query, now: input.now() });
  const { exchangeHubSpotCode, HUBSPOT_OAUTH_SCOPES } = await import('../connectors/hubspot/hubspot-oauth.js');
  const credentials = await exchangeHubSpotCode(input.client, { code: bound.code, redirectUri: bound.redirectUri, now: input.now() });
  const integration = await connectIntegration(db, key, {
    workspaceId: bound.workspaceId,
    provider: 'hubspot',
    credentials,
    // HubSpot's token answer does not list them: the install granted the scopes its URL required.
    scope: HUBSPOT_OAUTH_SCOPES.join(' '),
    expiresAt: credentials.expiresAt,
  });
  return { workspaceId: bound.workspaceId, integration };
}
