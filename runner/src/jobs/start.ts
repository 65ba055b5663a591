/**
 * Which providers may run, answered before a run is queued (the queuing itself, one id per run:
 * `enqueueRun` in @chs/core).
 */
import { ChsError, getIntegration, listIntegrations, type Db, type Provider } from '@chs/core';

/** Providers whose integration is connected (not needs-reauth, not disconnected). */
export async function connectedProviders(db: Db, workspaceId: string): Promise<Provider[]> {
  return (await listIntegrations(db, workspaceId)).filter((i) => i.state === 'connected').map((i) => i.provider);
}

/** Throws INTEGRATION_NOT_CONNECTED (400) or INTEGRATION_NEEDS_REAUTH (409) unless `provider` can sync. */
export async function requireConnected(db: Db, workspaceId: string, provider: Provider): Promise<void> {
  const i = await getIntegration(db, workspaceId, provider);
  if (!i || i.state === 'disconnected') {
    throw new ChsError('INTEGRATION_NOT_CONNECTED', `${provider} is not connected for ${workspaceId}; connect it first (chs connect ${provider})`, {
      details: { provider },
    });
  }
  if (i.state === 'needs_reauth') {
    throw new ChsError('INTEGRATION_NEEDS_REAUTH', `${provider} needs to be connected again for ${workspaceId}${i.lastError ? ` (${i.lastError})` : ''}`, {
      details: { provider },
    });
  }
}
