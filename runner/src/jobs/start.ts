/**
 * Queuing jobs on behalf of the API and the CLI: which providers may run, one group per run,
 * and the one-active-job-per-(workspace, source) rule answered before anything is queued.
 */
import {
  ChsError, enqueueJob, findActiveJob, getIntegration, isChsError, listIntegrations, newId, transitionJob,
  type Db, type EnqueueInput, type Job, type Provider,
} from '@chs/core';

/** Providers whose integration is connected (not needs-reauth, not disconnected). */
export async function connectedProviders(db: Db, workspaceId: string): Promise<Provider[]> {
  return (await listIntegrations(db, workspaceId)).filter((i) => i.state === 'connected').map((i) => i.provider);
}

/** Throws INTEGRATION_NOT_CONNECTED (400) or INTEGRATION_NEEDS_REAUTH (409) unless `provider` can sync. */
export async function requireConnected(db: Db, workspaceId: string, provider: Provider): Promise<void> {
  const i = await getIntegration(db, workspaceId, provider);
  if (!i || i.state === 'disconnected') {
    throw new ChsError('INTEGRATION_NOT_CONNECTED', `${provider} is not connected for ${workspaceId}; connect it first (chs connect ${provider})`, { details: { provider } });
  }
  if (i.state === 'needs_reauth') {
    throw new ChsError('INTEGRATION_NEEDS_REAUTH', `${provider} needs to be connected again for ${workspaceId}${i.lastError ? ` (${i.lastError})` : ''}`, { details: { provider } });
  }
}

function conflict(active: Job): ChsError {
  return new ChsError('JOB_CONFLICT', `a ${active.kind} job of ${active.source} is already ${active.state} for ${active.workspaceId} (job ${active.groupId})`, {
    details: { jobId: active.groupId },
  });
}

/**
 * Queues one job per source, all in one group (the id the API reports). Every source is checked
 * first, so a conflict queues nothing; if another runner wins a race half-way, the jobs already
 * queued are cancelled and the conflict is reported.
 */
export async function enqueueGroup(db: Db, workspaceId: string, items: Array<Omit<EnqueueInput, 'workspaceId' | 'groupId'>>): Promise<{ groupId: string; jobs: Job[] }> {
  for (const item of items) {
    const active = await findActiveJob(db, workspaceId, item.source);
    if (active) throw conflict(active);
  }
  const groupId = newId('job');
  const jobs: Job[] = [];
  try {
    for (const item of items) jobs.push(await enqueueJob(db, { ...item, workspaceId, groupId }));
  } catch (err) {
    for (const j of jobs) await transitionJob(db, j.id, 'queued', 'cancelled', { event: { reason: 'another source of the run conflicted' } }).catch(() => null);
    if (isChsError(err, 'JOB_CONFLICT')) {
      const active = await findActiveJob(db, workspaceId, String((items[jobs.length] ?? items[0])?.source));
      if (active) throw conflict(active);
    }
    throw err;
  }
  return { groupId, jobs };
}
