/**
 * POST /integrations/{provider}/sync and POST /integrations/{provider}/backfill: queue a job for
 * one provider. Status words and estimates: docs/jobs.md.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { DAY_MS, enqueueRun } from '@chs/core';
import { DATA_TYPES } from '../../jobs/present.js';
import { estimateItemsInWindow, estimateJob, lastCompletedRun } from '../../jobs/estimates.js';
import { requireConnected } from '../../jobs/start.js';
import { WorkspaceId } from '../schemas.js';
import type { AppDeps } from '../types.js';
import { IntegrationParams } from './integrations-status.js';
import { jobOperations } from '../responses/jobs.js';

const SyncBody = Type.Object({ workspaceId: WorkspaceId });
const BackfillBody = Type.Object({
  workspaceId: WorkspaceId,
  sinceDays: Type.Integer({ minimum: 1, maximum: 365, description: 'Days back from now to read, 1-365' }),
});

export const integrationSyncRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.engine.store.db;
    const tags = ['integrations'];

    app.post(
      '/integrations/:provider/sync',
      {
        schema: {
          ...jobOperations.syncIntegration,
          tags,
          summary: 'Queue an incremental (quick) sync of one provider',
          params: IntegrationParams,
          body: SyncBody,
        },
      },
      async (request) => {
        const ws = request.auth.workspaceId;
        const provider = request.params.provider;
        await requireConnected(db, ws, provider);
        const { runId, jobs } = await enqueueRun(db, ws, [{ kind: 'sync', source: provider, params: { mode: 'quick' } }]);
        deps.jobs?.nudge();
        const job = jobs[0]!;
        const e = estimateJob(job, new Date(), await lastCompletedRun(db, ws, provider, 'sync'));
        return {
          success: true,
          message: `${provider} sync queued`,
          syncId: runId,
          startedAt: job.createdAt,
          estimatedDuration: e.remainingSeconds === null ? null : Math.round(e.remainingSeconds),
        };
      },
    );

    app.post(
      '/integrations/:provider/backfill',
      {
        schema: {
          ...jobOperations.backfillIntegration,
          tags,
          summary: 'Queue a read of the last sinceDays days of one provider',
          params: IntegrationParams,
          body: BackfillBody,
        },
      },
      async (request) => {
        const ws = request.auth.workspaceId;
        const provider = request.params.provider;
        await requireConnected(db, ws, provider);
        const end = deps.engine.clock();
        const start = new Date(end.getTime() - request.body.sinceDays * DAY_MS);
        const { runId } = await enqueueRun(db, ws, [
          {
            kind: 'backfill',
            source: provider,
            params: { since: start.toISOString(), until: end.toISOString(), dataTypes: [...DATA_TYPES[provider]] },
          },
        ]);
        deps.jobs?.nudge();
        const records = await estimateItemsInWindow(db, ws, provider, request.body.sinceDays);
        return {
          success: true,
          message: `${provider} backfill of ${request.body.sinceDays} day(s) queued`,
          jobId: runId,
          startDate: start.toISOString(),
          endDate: end.toISOString(),
          estimatedRecords: records ?? null,
          status: 'processing',
        };
      },
    );
  };
