/**
 * The `state` of a provider sign-in started over HTTP, over the `oauth_states` table (its only
 * writer). A state is 32 random bytes (base64url) handed to the provider's consent screen; only
 * its SHA-256 is stored, with the workspace it is bound to, the PKCE verifier sealed with the
 * secret key, the redirect URI and an expiry (10 minutes by default). The callback consumes it
 * once: a second use, an expired or an unknown state is refused with OAUTH_FAILED and a
 * `details.reason` of `used`, `expired` or `unknown`.
 */
import { randomBytes } from 'node:crypto';
import { consentRefused, oauthFlowName } from '../connectors/loopback.js';
import { ChsError } from '../errors.js';
import type { Db } from '../store/database.js';
import { sha256Hex } from '../util/ids.js';
import { decryptSecret, encryptSecret, type SecretKeyInput } from './secrets.js';

/** How long a started sign-in waits for its callback. */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;
/** Consumed or expired states are kept this long after they expire (to tell a replay from a forgery), then purged. */
const KEEP_AFTER_EXPIRY_MS = 24 * 3600_000;
/** A state is 32 random bytes, base64url: 43 characters. Anything much longer is not ours. */
const MAX_STATE_LENGTH = 200;

export type OAuthStateRefusal = 'unknown' | 'expired' | 'used';

export interface NewOAuthState {
  workspaceId: string;
  provider: string;
  codeVerifier: string;
  redirectUri: string;
  /** The user whose key started the sign-in. */
  userId?: string | undefined;
  now: Date;
  /** Default OAUTH_STATE_TTL_MS. */
  ttlMs?: number | undefined;
}

export interface ConsumedOAuthState {
  workspaceId: string;
  provider: string;
  codeVerifier: string;
  redirectUri: string;
  userId: string | null;
}

/** The sealed verifier is bound to its workspace and to this use, so it cannot stand in for credentials. */
const binding = (workspaceId: string, provider: string) => ({ workspaceId, provider: `${provider}:oauth-state` });

/** Stores a new state; resolves to the state to send (never stored) and when it expires. Purges long-dead states. */
export async function createOAuthState(db: Db, key: SecretKeyInput, input: NewOAuthState): Promise<{ state: string; expiresAt: string }> {
  const state = randomBytes(32).toString('base64url');
  const expiresAt = new Date(input.now.getTime() + (input.ttlMs ?? OAUTH_STATE_TTL_MS)).toISOString();
  const verifier_enc = await encryptSecret(key, input.codeVerifier, binding(input.workspaceId, input.provider));
  await db
    .deleteFrom('oauth_states')
    .where('expires_at', '<', new Date(input.now.getTime() - KEEP_AFTER_EXPIRY_MS).toISOString())
    .execute();
  await db
    .insertInto('oauth_states')
    .values({
      state_hash: sha256Hex(state),
      workspace_id: input.workspaceId,
      provider: input.provider,
      verifier_enc,
      redirect_uri: input.redirectUri,
      created_by: input.userId ?? null,
      created_at: input.now.toISOString(),
      expires_at: expiresAt,
      used_at: null,
    })
    .execute();
  return { state, expiresAt };
}

function refused(reason: OAuthStateRefusal, provider: string): ChsError {
  const message = {
    unknown: 'this sign-in is not one the service started (unknown state): start again from the dashboard',
    expired: 'this sign-in expired (it must be completed within 10 minutes): start again from the dashboard',
    used: 'this sign-in was already completed (its state is single-use): start again from the dashboard to connect another account',
  }[reason];
  return new ChsError('OAUTH_FAILED', `${provider} sign-in refused: ${message}`, { details: { provider, reason } });
}

/**
 * Consumes a state once: marks it used (a conditional update, so two callbacks racing with the
 * same state cannot both win) and resolves to what it was bound to. OAUTH_FAILED otherwise.
 */
export async function consumeOAuthState(db: Db, key: SecretKeyInput, input: { state: string; provider: string; now: Date }): Promise<ConsumedOAuthState> {
  const { provider, now } = input;
  if (input.state === '' || input.state.length > MAX_STATE_LENGTH) throw refused('unknown', provider);
  const hash = sha256Hex(input.state);
  const row = await db.selectFrom('oauth_states').selectAll().where('state_hash', '=', hash).where('provider', '=', provider).executeTakeFirst();
  if (!row) throw refused('unknown', provider);
  if (row.used_at !== null) throw refused('used', provider);
  if (row.expires_at <= now.toISOString()) throw refused('expired', provider);
  const r = await db
    .updateTable('oauth_states')
    .set({ used_at: now.toISOString() })
    .where('state_hash', '=', hash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) throw refused('used', provider);
  return {
    workspaceId: row.workspace_id,
    provider: row.provider,
    codeVerifier: await decryptSecret(key, row.verifier_enc, binding(row.workspace_id, row.provider)),
    redirectUri: row.redirect_uri,
    userId: row.created_by,
  };
}

/** The query a provider's redirect to an HTTP callback carries (each may be absent on a forged or truncated request). */
export interface OAuthCallbackQuery {
  state?: string | undefined;
  code?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
}

/**
 * The first step of every HTTP callback: consumes the state (for this provider only: a state
 * another provider's sign-in drew is `unknown` here), then reads the redirect: denied consent or
 * no code is OAUTH_FAILED. The state goes first: a request without ours is refused whatever else
 * it says, and a used state is spent even when the user denied consent.
 */
export async function redeemOAuthCallback(
  db: Db,
  key: SecretKeyInput,
  input: { provider: string; query: OAuthCallbackQuery; now: Date },
): Promise<ConsumedOAuthState & { code: string }> {
  const { provider, query: q } = input;
  const bound = await consumeOAuthState(db, key, { state: q.state ?? '', provider, now: input.now });
  if (q.error) throw consentRefused(provider, q.error.slice(0, 100), q.error_description?.slice(0, 300));
  if (!q.code)
    throw new ChsError('OAUTH_FAILED', `${oauthFlowName(provider)} failed: the redirect carried no code`, { details: { provider, reason: 'provider' } });
  return { ...bound, code: q.code };
}
