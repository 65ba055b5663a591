/**
 * Disconnecting a provider: revoke the grant at the provider where it has a revoke endpoint
 * (Google), then forget the credentials. The local forget happens whatever the revoke did: a
 * user who asks to disconnect must not keep a connection because Google was unreachable; the
 * answer says the revoke failed, so they can remove access in their Google account instead.
 */
import { isChsError } from '../errors.js';
import type { Provider } from '../connectors/types.js';
import type { Db } from '../store/database.js';
import { disconnectIntegration, getIntegrationCredentials, listIntegrationAccounts } from './repository.js';
import type { SecretKeyInput } from './secrets.js';

export interface DisconnectResult {
  provider: Provider;
  workspaceId: string;
  /** Whether there was a connection to forget. */
  disconnected: boolean;
  /**
   * `true` the provider confirmed the revoke (of every account disconnected); `false` one or more
   * revokes failed (see `revokeError`); `null`
   * nothing to revoke (no connection, or a provider without a revoke endpoint: HubSpot private-app
   * and Intercom tokens are removed in their own settings).
   */
  revoked: boolean | null;
  /** Why the revoke failed; the credentials were forgotten all the same. */
  revokeError: string | null;
}

export interface DisconnectOptions {
  /** One account only (a Google mailbox address). Default: every account of the provider. */
  account?: string | undefined;
  /** Google's revoke endpoint. Default `https://oauth2.googleapis.com/revoke`. */
  googleRevokeUrl?: string | undefined;
}

export async function disconnectAndRevoke(
  db: Db,
  key: SecretKeyInput,
  workspaceId: string,
  provider: Provider,
  opts: DisconnectOptions = {},
): Promise<DisconnectResult> {
  const accounts = (await listIntegrationAccounts(db, workspaceId, provider)).filter(
    (a) => opts.account === undefined || a.account === opts.account.toLowerCase(),
  );
  const failures: string[] = [];
  let revokedAny = false;
  if (provider === 'google') {
    for (const a of accounts) {
      const who = a.account === '' ? '' : `${a.account}: `;
      let token: string | undefined;
      try {
        const c = await getIntegrationCredentials(db, key, workspaceId, 'google', a.account);
        // Revoking the refresh token revokes the grant, its access tokens with it.
        token = c.refreshToken ?? c.accessToken;
      } catch (err) {
        failures.push(`${who}the stored credentials could not be read, so nothing was revoked (${isChsError(err) ? err.code : 'error'})`);
        continue;
      }
      const { revokeGoogleToken } = await import('../connectors/google/google-oauth.js');
      try {
        await revokeGoogleToken(token, { revokeUrl: opts.googleRevokeUrl });
        revokedAny = true;
      } catch (err) {
        failures.push(`${who}${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  const disconnected = await disconnectIntegration(db, workspaceId, provider, opts.account);
  const revoked = failures.length > 0 ? false : revokedAny ? true : null;
  return { provider, workspaceId, disconnected, revoked, revokeError: failures.length ? failures.join('; ') : null };
}
