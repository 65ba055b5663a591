/**
 * HubSpot public-app OAuth, through `@hubspot/api-client` (its `oauth` discovery): the install
 * URL, the authorization-code exchange and the refresh of the access token, which lives 30
 * minutes (`expires_in: 1800`). A private-app token needs none of this: it does not expire.
 *
 *   GET  https://app.hubspot.com/oauth/authorize?client_id&redirect_uri&scope&state   (the install screen)
 *   POST {api}/oauth/v1/token  grant_type=authorization_code|refresh_token, client_id, client_secret, …
 *        → 200 {token_type: "bearer", access_token, refresh_token, expires_in}
 *        → 400 {status: "BAD_AUTH_CODE" | "BAD_REFRESH_TOKEN" | "BAD_CLIENT_ID" | …, message}
 */
import { Client } from '@hubspot/api-client';
import { ChsError } from '../../errors.js';
import { listenForRedirect } from '../loopback.js';
import type { HubSpotCredentials } from '../types.js';
/** Kept here (not imported from hubspot-client.ts, which imports this module). */
const DEFAULT_HUBSPOT_API_URL = 'https://api.hubapi.com';

/** The scopes the HubSpot connector reads with (companies, contacts, owners and engagements). */
export const HUBSPOT_OAUTH_SCOPES = Object.freeze(['crm.objects.companies.read', 'crm.objects.contacts.read', 'crm.objects.owners.read', 'sales-email-read']);
/** Refresh this long before the access token expires (HubSpot's live 30 minutes). */
const HUBSPOT_REFRESH_MARGIN_MS = 5 * 60_000;

export interface HubSpotOAuthClient {
  clientId: string;
  clientSecret: string;
  /** API root that serves `/oauth/v1/token`. Default `https://api.hubapi.com`. */
  apiUrl?: string | undefined;
}

function sdk(apiUrl: string | undefined): Client {
  return new Client({ basePath: (apiUrl ?? DEFAULT_HUBSPOT_API_URL).replace(/\/+$/, '') });
}

/**
 * The install (consent) URL of a public app: HubSpot's install screen (the SDK's), or `authUrl`
 * (CHS_HUBSPOT_AUTH_URL: a proxy, a local fake) with the same query.
 */
export function hubspotAuthorizeUrl(p: {
  clientId: string;
  redirectUri: string;
  state: string;
  scopes?: readonly string[];
  authUrl?: string | undefined;
}): string {
  const url = sdk(undefined).oauth.getAuthorizationUrl(p.clientId, p.redirectUri, (p.scopes ?? HUBSPOT_OAUTH_SCOPES).join(' '), undefined, p.state);
  return p.authUrl ? `${p.authUrl}${new URL(url).search}` : url;
}

interface TokenAnswer {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

async function token(
  c: HubSpotOAuthClient,
  grant: { grantType: 'authorization_code'; code: string; redirectUri: string } | { grantType: 'refresh_token'; refreshToken: string },
  now: Date,
): Promise<HubSpotCredentials> {
  let answer: TokenAnswer;
  try {
    answer =
      grant.grantType === 'authorization_code'
        ? await sdk(c.apiUrl).oauth.tokensApi.create('authorization_code', grant.code, grant.redirectUri, c.clientId, c.clientSecret)
        : await sdk(c.apiUrl).oauth.tokensApi.create('refresh_token', undefined, undefined, c.clientId, c.clientSecret, grant.refreshToken);
  } catch (err) {
    const e = err as { code?: unknown; body?: unknown };
    const body = (e.body && typeof e.body === 'object' ? e.body : {}) as { status?: unknown; message?: unknown };
    const said = `${typeof body.status === 'string' ? body.status : `HTTP ${typeof e.code === 'number' ? e.code : 'error'}`}${typeof body.message === 'string' ? ` (${body.message})` : ''}`;
    if (typeof e.code !== 'number')
      throw new ChsError('PROVIDER_ERROR', `HubSpot's token endpoint could not be reached: ${err instanceof Error ? err.message : String(err)}`, {
        details: { provider: 'hubspot', stage: 'token' },
      });
    if (e.code >= 500 || e.code === 429)
      throw new ChsError('PROVIDER_ERROR', `HubSpot's token endpoint failed: ${said}`, { details: { provider: 'hubspot', status: e.code, stage: 'token' } });
    if (grant.grantType === 'refresh_token') {
      throw new ChsError('INTEGRATION_NEEDS_REAUTH', `HubSpot refused the refresh token (${said}); install the app again`, {
        details: { provider: 'hubspot', status: e.code },
      });
    }
    throw new ChsError('OAUTH_FAILED', `HubSpot did not exchange the code for tokens: ${said}`, {
      details: { provider: 'hubspot', reason: body.status === 'BAD_AUTH_CODE' ? 'code' : 'exchange' },
    });
  }
  if (!answer.accessToken || !answer.refreshToken)
    throw new ChsError('OAUTH_FAILED', 'HubSpot answered without an access or refresh token', { details: { provider: 'hubspot', reason: 'exchange' } });
  return {
    accessToken: answer.accessToken,
    refreshToken: answer.refreshToken,
    clientId: c.clientId,
    clientSecret: c.clientSecret,
    expiresAt: new Date(now.getTime() + answer.expiresIn * 1000).toISOString(),
  };
}

/** Exchanges the install's authorization code for tokens. OAUTH_FAILED when HubSpot refuses it. */
export function exchangeHubSpotCode(c: HubSpotOAuthClient, p: { code: string; redirectUri: string; now: Date }): Promise<HubSpotCredentials> {
  return token(c, { grantType: 'authorization_code', code: p.code, redirectUri: p.redirectUri }, p.now);
}

/** A new access token (30 minutes) for a refresh token. INTEGRATION_NEEDS_REAUTH when HubSpot refuses it. */
export function refreshHubSpotToken(c: HubSpotOAuthClient, p: { refreshToken: string; now: Date }): Promise<HubSpotCredentials> {
  return token(c, { grantType: 'refresh_token', refreshToken: p.refreshToken }, p.now);
}

/** Whether stored credentials can (and should, `now`) be refreshed: an OAuth app's token near its expiry. */
export function hubspotNeedsRefresh(c: HubSpotCredentials, now: Date): boolean {
  if (!c.refreshToken || !c.clientId || !c.clientSecret) return false;
  return c.expiresAt === undefined || Date.parse(c.expiresAt) - now.getTime() <= HUBSPOT_REFRESH_MARGIN_MS;
}

export interface HubSpotLoopbackOptions extends HubSpotOAuthClient {
  /** The install screen. Default HubSpot's (`https://app.hubspot.com/oauth/authorize`). */
  authUrl?: string | undefined;
  /**
   * The loopback port: the redirect URI is `http://localhost:<port>`, which must be one of the
   * app's redirect URLs (HubSpot allows plain http for `localhost` only). Default
   * DEFAULT_HUBSPOT_LOOPBACK_PORT.
   */
  port?: number | undefined;
  /** Default 5 minutes. */
  timeoutMs?: number | undefined;
  /** Called once with the install URL, when the listener is up (print it, open a browser). */
  onUrl: (url: string) => void | Promise<void>;
  now: () => Date;
  /** Stops waiting (Ctrl-C). */
  signal?: AbortSignal | undefined;
}

/** The loopback port of `chs connect hubspot`'s install when --port is not given (register `http://localhost:8976`). */
export const DEFAULT_HUBSPOT_LOOPBACK_PORT = 8976;

/**
 * A public app installed from the command line: the install URL (the connector's scopes) with a
 * loopback redirect, then the code exchanged for tokens. Rejects with OAUTH_FAILED on denied
 * consent, a wrong state, a code HubSpot refuses or no answer in time.
 */
export async function runHubSpotLoopbackInstall(opts: HubSpotLoopbackOptions): Promise<HubSpotCredentials> {
  const loop = await listenForRedirect({
    provider: 'hubspot',
    command: 'chs connect hubspot',
    port: opts.port ?? DEFAULT_HUBSPOT_LOOPBACK_PORT,
    redirectHost: 'localhost',
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
  });
  try {
    await opts.onUrl(hubspotAuthorizeUrl({ clientId: opts.clientId, redirectUri: loop.redirectUri, state: loop.state, authUrl: opts.authUrl }));
    const code = await loop.code;
    return await exchangeHubSpotCode(opts, { code, redirectUri: loop.redirectUri, now: opts.now() });
  } finally {
    await loop.close();
  }
}
