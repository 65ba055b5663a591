/**
 * Google sign-in started over HTTP (the dashboard's "Connect Google"): the web-server flow with
 * PKCE. `startGoogleSignIn` stores a single-use state bound to the workspace (oauth-states.ts)
 * and answers the consent URL; Google sends the browser back to the callback, where
 * `finishGoogleSignIn` consumes the state, exchanges the code with the PKCE verifier, reads the
 * mailbox's address and stores the tokens encrypted (repository.ts).
 *
 * The Google module (and google-auth-library) loads on first use, as the connectors do.
 */
import { ChsError } from '../errors.js';
import type { Db } from '../store/database.js';
import type { Logger } from '../util/logger.js';
import { consumeOAuthState, createOAuthState } from './oauth-states.js';
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
export interface GoogleCallbackQuery {
  state?: string | undefined;
  code?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
}

/**
 * Completes a sign-in from Google's redirect. OAUTH_FAILED (with `details.reason`) when the state is
 * unknown, expired or used, the user denied consent, or Google refused the code.
 */
export async function finishGoogleSignIn(
  db: Db,
  key: SecretKeyInput,
  input: { query: GoogleCallbackQuery; client: Omit<GoogleWebClient, 'redirectUri'>; logger: Logger; now: () => Date },
): Promise<{ workspaceId: string; integration: Integration }> {
  const q = input.query;
  // The state first: a request without ours is refused whatever else it says, and a used state
  // is spent even when the user denied consent.
  const bound = await consumeOAuthState(db, key, { state: q.state ?? '', provider: 'google', now: input.now() });
  const { consentRefused, exchangeGoogleCode } = await import('../connectors/google/google-oauth.js');
  if (q.error) throw consentRefused(q.error.slice(0, 100), q.error_description?.slice(0, 300));
  if (!q.code)
    throw new ChsError('OAUTH_FAILED', 'Google sign-in failed: the redirect carried no code', { details: { provider: 'google', reason: 'provider' } });
  const credentials = await exchangeGoogleCode({
    ...input.client,
    redirectUri: bound.redirectUri,
    code: q.code,
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
