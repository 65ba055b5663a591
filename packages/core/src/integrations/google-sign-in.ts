/**
 * Google sign-in started over HTTP (the dashboard's "Connect Google"): the web-server flow with
 * PKCE. `startGoogleSignIn` stores a single-use state bound to the workspace (oauth-states.ts)
 * and answers the consent URL; Google sends the browser back to the callback, where
 * `finishGoogleSignIn` consumes the state, exchanges the code with the PKCE verifier, reads the
 * mailbox's address and stores the tokens encrypted (repository.ts).
 *
 * The Google module (and google-auth-library) loads on first use, as the connectors do.
 */
import type { Db } from '../store/database.js';
import type { Logger } from '../util/logger.js';
import { createOAuthState, redeemOAuthCallback, type OAuthCallbackQuery } from './oauth-states.js';
import { connectIntegration, type Integration } from './repository.js';
import type { SecretKeyInput } from './secrets.js';

/** The OAuth client (a "Web application" client in Google's console) and Google's endpoints. */
export interface GoogleWebClient {
  clientId: string;
  clientSecret: string;
  /** Where Google sends the browser back: the public URL of the callback, registered with the client. */
  redirectUri: string;
  /** Default `https://accounts.google.com/o/oauth2/v2/auth`. */
  authUrl?: string | undefined;
  /** Default `https://oauth2.googleapis.com/token`. */
  tokenUrl?: string | undefined;
  /** Gmail API root. Default `https://gmail.googleapis.com/`. */
  apiUrl?: string | undefined;
}

export async function startGoogleSignIn(
  db: Db,
  key: SecretKeyInput,
  input: { workspaceId: string; userId?: string | undefined; client: GoogleWebClient; now: Date },
): Promise<{ url: string; expiresAt: string }> {
  const { googleConsentUrl, newPkce } = await import('../connectors/google/google-oauth.js');
  const pkce = await newPkce();
  const { state, expiresAt } = await createOAuthState(db, key, {
    workspaceId: input.workspaceId,
    provider: 'google',
    codeVerifier: pkce.codeVerifier,
    redirectUri: input.client.redirectUri,
    userId: input.userId,
    now: input.now,
  });
  return { url: googleConsentUrl(input.client, { state, codeChallenge: pkce.codeChallenge }), expiresAt };
}

/** The query Google's redirect carries (each may be absent on a forged or truncated request). */
export type GoogleCallbackQuery = OAuthCallbackQuery;

/**
 * Completes a sign-in from Google's redirect. OAUTH_FAILED (with `details.reason`) when the state is
 * unknown, expired or used, the user denied consent, or Google refused the code.
 */
export async function finishGoogleSignIn(
  db: Db,
  key: SecretKeyInput,
  input: { query: GoogleCallbackQuery; client: Omit<GoogleWebClient, 'redirectUri'>; logger: Logger; now: () => Date },
): Promise<{ workspaceId: string; integration: Integration }> {
  const bound = await redeemOAuthCallback(db, key, { provider: 'google', query: input.query, now: input.now() });
  const { exchangeGoogleCode } = await import('../connectors/google/google-oauth.js');
  const credentials = await exchangeGoogleCode({
    ...input.client,
    redirectUri: bound.redirectUri,
    code: bound.code,
    codeVerifier: bound.codeVerifier,
    logger: input.logger,
    now: input.now,
  });
  const integration = await connectIntegration(db, key, {
    workspaceId: bound.workspaceId,
    provider: 'google',
    credentials,
    accountEmail: credentials.email,
    scope: credentials.scope,
    expiresAt: credentials.expiresAt,
  });
  return { workspaceId: bound.workspaceId, integration };
}
