/**
 * Disconnecting a provider: revoke the grant at the provider where it has a revoke endpoint
 * (Google), then forget the credentials. The local forget happens whatever the revoke did: a
 * user who asks to disconnect must not keep a connection because Google was unreachable; the
 * answer says the revoke failed, so they can remove access in their Google account instead.
 */
import { isChsError } from '../errors.js';
import type { Provider } from '../connectors/types.js';
import type { Db } from '../store/database.js';
import { disconnectIntegration, getIntegrationCredentials } from './repository.js';
import type { SecretKeyInput } from './secrets.js';

export interface DisconnectResult {
  provider: Provider;
  workspaceId: string;
  /** Whether there was a connection to forget. */
  disconnected: boolean;
  /**
   * `true` the provider confirmed the revoke; `false` it did not (see `revokeError`); `null`
   * nothing to revoke (no connection, or a provider without a revoke endpoint: HubSpot private-app
   * and Intercom tokens are removed in their own settings).
   */
  revoked: boolean | null;
  /** Why the revoke failed; the credentials were forgotten all the same. */
  revokeError: string | null;
}

export interface DisconnectOptions {
  /** Google's revoke endpoint. Default `https://oauth2.googleapis.com/revoke`. */
  googleRevokeUrl?: string | undefined;
}

export async function disconnectAndRevoke(db: Db, key: SecretKeyInput, workspaceId: string, provider: Provider, opts: DisconnectOptions = {}): Promise<DisconnectResult> {
  let revoked: boolean | null = null;
  let revokeError: string | null = null;
  if (provider === 'google') {
    let token: string | undefined;
    try {
      const c = await getIntegrationCredentials(db, key, workspaceId, 'google');
      // Revoking the refresh token revokes the grant, its access tokens with it.
      token = c.refreshToken ?? c.accessToken;
    } catch (err) {
      if (!isChsError(err, 'INTEGRATION_NOT_CONNECTED')) {
        revoked = false;
        revokeError = `the stored credentials could not be read, so nothing was revoked (${isChsError(err) ? err.code : 'error'})`;
      }
    }
    if (token !== undefined) {
      const { revokeGoogleToken } = await import('../connectors/google/google-oauth.js');
      try {
        await revokeGoogleToken(token, { revokeUrl: opts.googleRevokeUrl });
        revoked = true;
      } catch (err) {
        revoked = false;
        revokeError = err instanceof Error ? err.message : String(err);
      }
    }
  }
  const disconnected = await disconnectIntegration(db, workspaceId, provider);
  return { provider, workspaceId, disconnected, revoked, revokeError };
}
