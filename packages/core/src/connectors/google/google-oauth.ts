/**
 * Google's installed-app consent flow ("OAuth 2.0 for Mobile & Desktop Apps"): a loopback
 * redirect on 127.0.0.1 and PKCE (S256). The user opens the consent URL, Google redirects the
 * browser to `http://127.0.0.1:<port>/?code=…&state=…`, and we exchange the code (with the PKCE
 * verifier) for tokens, then read the mailbox's address from the Gmail profile.
 *
 * The consent and token endpoints are overridable (CHS_GOOGLE_AUTH_URL, CHS_GOOGLE_TOKEN_URL) so a
 * proxy or a local fake can stand in for Google. Scope: `gmail.readonly` only.
 */
import { CodeChallengeMethod, OAuth2Client } from 'google-auth-library';
import { ChsError, isChsError } from '../../errors.js';
import type { Logger } from '../../util/logger.js';
import { listenForRedirect } from '../loopback.js';
import { retryPolicy } from '../retry.js';
import type { GoogleCredentials, ServiceAccountKey } from '../types.js';
import { DEFAULT_GOOGLE_API_URL, DEFAULT_GOOGLE_TOKEN_URL, GoogleClient } from './google-client.js';

export const DEFAULT_GOOGLE_AUTH_URL = 'https://accounts.google.com/o/oauth2/v2/auth';
export const DEFAULT_GOOGLE_REVOKE_URL = 'https://oauth2.googleapis.com/revoke';
export const GMAIL_READONLY_SCOPE = 'https://www.googleapis.com/auth/gmail.readonly';

export interface LoopbackConsentOptions {
  clientId: string;
  clientSecret: string;
  /** Consent endpoint. Default DEFAULT_GOOGLE_AUTH_URL. */
  authUrl?: string | undefined;
  /** Token endpoint. Default `https://oauth2.googleapis.com/token`. */
  tokenUrl?: string | undefined;
  /** Gmail API root (to read the address). Default `https://gmail.googleapis.com/`. */
  apiUrl?: string | undefined;
  /** Loopback port; 0 (default) takes any free one. */
  port?: number | undefined;
  /** Default 5 minutes. */
  timeoutMs?: number | undefined;
  /** Called once with the consent URL, when the listener is up (print it, open a browser). */
  onUrl: (url: string) => void | Promise<void>;
  logger: Logger;
  now: () => Date;
  /** Stops waiting (Ctrl-C). */
  signal?: AbortSignal | undefined;
}

/**
 * Runs the whole flow and resolves to the credentials to store (access and refresh tokens, the
 * client id and secret that refresh them, the expiry, the granted scope and the mailbox address).
 * Rejects with `OAUTH_FAILED` on denied consent, a wrong `state`, a failed exchange or a timeout.
 */
export async function runLoopbackConsent(opts: LoopbackConsentOptions): Promise<GoogleCredentials> {
  const loop = await listenForRedirect({ provider: 'google', command: 'chs connect google', port: opts.port, timeoutMs: opts.timeoutMs, signal: opts.signal });
  try {
    const client = {
      clientId: opts.clientId,
      clientSecret: opts.clientSecret,
      redirectUri: loop.redirectUri,
      authUrl: opts.authUrl,
      tokenUrl: opts.tokenUrl,
    };
    const pkce = await newPkce();
    await opts.onUrl(googleConsentUrl(client, { state: loop.state, codeChallenge: pkce.codeChallenge }));
    const code = await loop.code;
    return await exchangeGoogleCode({ ...client, code, codeVerifier: pkce.codeVerifier, apiUrl: opts.apiUrl, logger: opts.logger, now: opts.now });
  } finally {
    await loop.close();
  }
}

/** An OAuth client of Google's: the app's id and secret and where the browser comes back. */
export interface GoogleOAuthClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Consent endpoint. Default DEFAULT_GOOGLE_AUTH_URL. */
  authUrl?: string | undefined;
  /** Token endpoint. Default `https://oauth2.googleapis.com/token`. */
  tokenUrl?: string | undefined;
}

function oauthClient(c: GoogleOAuthClient): OAuth2Client {
  return new OAuth2Client({
    clientId: c.clientId,
    clientSecret: c.clientSecret,
    redirectUri: c.redirectUri,
    endpoints: { oauth2AuthBaseUrl: c.authUrl ?? DEFAULT_GOOGLE_AUTH_URL, oauth2TokenUrl: c.tokenUrl ?? DEFAULT_GOOGLE_TOKEN_URL },
  });
}

/** A PKCE pair (S256): the verifier stays with us, the challenge goes in the consent URL. */
export async function newPkce(): Promise<{ codeVerifier: string; codeChallenge: string }> {
  const pkce = await new OAuth2Client().generateCodeVerifierAsync();
  if (!pkce.codeChallenge) throw new ChsError('INTERNAL', 'no PKCE code challenge was made');
  return { codeVerifier: pkce.codeVerifier, codeChallenge: pkce.codeChallenge };
}

/** The consent URL: read-only mail, offline access (a refresh token), consent asked again, S256 challenge. */
export function googleConsentUrl(client: GoogleOAuthClient, p: { state: string; codeChallenge: string }): string {
  return oauthClient(client).generateAuthUrl({
    access_type: 'offline', // a refresh token, so the connection outlives the hour
    prompt: 'consent',
    scope: [GMAIL_READONLY_SCOPE],
    state: p.state,
    code_challenge: p.codeChallenge,
    code_challenge_method: CodeChallengeMethod.S256,
  });
}

export interface CodeExchange extends GoogleOAuthClient {
  code: string;
  codeVerifier: string;
  /** Gmail API root (to read the address). Default `https://gmail.googleapis.com/`. */
  apiUrl?: string | undefined;
  logger: Logger;
  now: () => Date;
}

/**
 * Exchanges an authorization code (with its PKCE verifier) for tokens and reads the mailbox's
 * address from the Gmail profile. OAUTH_FAILED when Google refuses the code (used, expired, a
 * verifier that does not match) or the answer lacks a token.
 */
export async function exchangeGoogleCode(x: CodeExchange): Promise<GoogleCredentials> {
  let tokens;
  try {
    ({ tokens } = await oauthClient(x).getToken({ code: x.code, codeVerifier: x.codeVerifier, redirect_uri: x.redirectUri }));
  } catch (err) {
    const data = (err as { response?: { data?: { error?: string; error_description?: string } } }).response?.data;
    throw new ChsError(
      'OAUTH_FAILED',
      `Google did not exchange the code for tokens: ${data?.error ?? (err as Error).message}${data?.error_description ? ` (${data.error_description})` : ''}`,
      {
        cause: err,
        details: { provider: 'google', reason: data?.error === 'invalid_grant' ? 'code' : 'exchange' },
      },
    );
  }
  if (!tokens.access_token)
    throw new ChsError('OAUTH_FAILED', 'Google answered the code exchange without an access token', { details: { provider: 'google', reason: 'exchange' } });
  const credentials: GoogleCredentials = {
    accessToken: tokens.access_token,
    clientId: x.clientId,
    clientSecret: x.clientSecret,
    ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
    ...(tokens.expiry_date ? { expiresAt: new Date(tokens.expiry_date).toISOString() } : {}),
    ...(tokens.scope ? { scope: tokens.scope } : {}),
  };
  const client = new GoogleClient({
    credentials,
    apiUrl: x.apiUrl ?? DEFAULT_GOOGLE_API_URL,
    tokenUrl: x.tokenUrl,
    policy: retryPolicy({ maxRetries: 2, maxDelayMs: 5_000 }),
    logger: x.logger,
    now: x.now,
  });
  const profile = await client.getProfile();
  if (!profile.emailAddress)
    throw new ChsError('OAUTH_FAILED', 'the Gmail profile did not say which mailbox this is', { details: { provider: 'google', reason: 'profile' } });
  return { ...client.credentials, email: profile.emailAddress.toLowerCase() };
}

/**
 * Revokes a token at Google's revoke endpoint (a refresh token takes its access tokens with it).
 * Resolves when Google confirms; rejects with PROVIDER_ERROR saying what Google answered. One
 * attempt: a disconnect forgets the tokens locally whatever happens here.
 */
export async function revokeGoogleToken(token: string, opts: { revokeUrl?: string | undefined } = {}): Promise<void> {
  const oauth = new OAuth2Client({ endpoints: { oauth2RevokeUrl: opts.revokeUrl ?? DEFAULT_GOOGLE_REVOKE_URL } });
  // The library retries the revoke call on its own; one attempt is what a disconnect wants.
  oauth.transporter.interceptors.request.add({
    resolved: async (config) => {
      config.retry = false;
      config.retryConfig = { ...config.retryConfig, retry: 0 };
      config.timeout = 15_000;
      return config;
    },
  });
  try {
    await oauth.revokeToken(token);
  } catch (err) {
    const e = err as { message?: unknown; response?: { status?: number; data?: unknown } };
    const data = e.response?.data as { error?: unknown; error_description?: unknown } | undefined;
    const status = e.response?.status;
    const said =
      status === undefined
        ? `could not reach the revoke endpoint (${(typeof e.message === 'string' ? e.message : String(err)).split(token).join('[token]').split(encodeURIComponent(token)).join('[token]')})`
        : `HTTP ${status}${typeof data?.error === 'string' ? ` ${data.error}` : ''}${typeof data?.error_description === 'string' ? ` (${data.error_description})` : ''}`;
    // No `cause`: the library's error carries the request URL, and the token is in its query.
    throw new ChsError('PROVIDER_ERROR', `Google did not revoke the token: ${said}`, {
      details: { provider: 'google', ...(status !== undefined ? { status } : {}) },
    });
  }
}

/**
 * The parts of a service account's JSON key (as downloaded from Google Cloud's console) the JWT
 * grant needs. INVALID_INPUT when the text is not such a key; nothing of the key is echoed.
 */
export function parseServiceAccountKey(text: string): ServiceAccountKey {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ChsError('INVALID_INPUT', "the service account key is not JSON (download it as JSON from the service account's Keys tab)");
  }
  const k = json as { type?: unknown; client_email?: unknown; private_key?: unknown; private_key_id?: unknown };
  if (
    typeof json !== 'object' ||
    json === null ||
    k.type !== 'service_account' ||
    typeof k.client_email !== 'string' ||
    typeof k.private_key !== 'string' ||
    !k.private_key.includes('PRIVATE KEY')
  ) {
    throw new ChsError('INVALID_INPUT', 'the file is not a service account key: it needs "type": "service_account", "client_email" and "private_key"');
  }
  return { clientEmail: k.client_email, privateKey: k.private_key, ...(typeof k.private_key_id === 'string' ? { privateKeyId: k.private_key_id } : {}) };
}

/**
 * Connects a mailbox through a service account with domain-wide delegation (Google Workspace
 * admins; no consent screen): a first access token is minted for `subject` (JWT bearer grant,
 * `gmail.readonly`) and the Gmail profile read, so a key without the delegation, or a mailbox
 * outside the domain, is refused now (OAUTH_FAILED) rather than at the first sync.
 */
export async function connectServiceAccount(x: {
  key: ServiceAccountKey;
  subject: string;
  tokenUrl?: string | undefined;
  apiUrl?: string | undefined;
  logger: Logger;
  now: () => Date;
}): Promise<GoogleCredentials> {
  const subject = x.subject.trim().toLowerCase();
  const client = new GoogleClient({
    credentials: { accessToken: '', expiresAt: new Date(0).toISOString(), email: subject, serviceAccount: x.key },
    apiUrl: x.apiUrl ?? DEFAULT_GOOGLE_API_URL,
    tokenUrl: x.tokenUrl,
    policy: retryPolicy({ maxRetries: 2, maxDelayMs: 5_000 }),
    logger: x.logger,
    now: x.now,
  });
  let profile;
  try {
    profile = await client.getProfile();
  } catch (err) {
    if (!isChsError(err, 'INTEGRATION_NEEDS_REAUTH')) throw err;
    throw new ChsError(
      'OAUTH_FAILED',
      `Google refused the service account ${x.key.clientEmail} for ${subject}: ${err.message.replace(/; reconnect the account$/, '')}. ` +
        'Check that domain-wide delegation grants it https://www.googleapis.com/auth/gmail.readonly and that the mailbox is a user of the domain',
      { details: { provider: 'google', reason: 'service_account' } },
    );
  }
  const email = profile.emailAddress?.toLowerCase() ?? subject;
  return { ...client.credentials, email, scope: GMAIL_READONLY_SCOPE };
}
