/**
 * Large mailbox ingestion (Google only): POST /ingest/v2/start and GET /ingest/v2/status. A
 * session (@chs/core jobs/sessions.ts) carries the configuration and the stats the `ingest` job
 * writes in every batch's transaction; the job does the work. The session id is the run id
 * (docs/jobs.md#ids). Status words: docs/jobs.md.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  DAY_MS,
  ChsError,
  FINAL_STATES,
  getJob,
  latestIngestionSession,
  startIngestionSession,
  type IngestionSession,
  type IngestionSessionConfig,
  type IngestionSessionStatus,
  type Job,
} from '@chs/core';
import { estimateItemsInWindow, estimateJob, formatDuration, itemsRead, lastCompletedRun, rebuildCost, secondsFor, waitingOn } from '../../jobs/estimates.js';
import { requireConnected } from '../../jobs/start.js';
import { WorkspaceId, WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';
import { jobOperations } from '../responses/jobs.js';

const V2StartBody = Type.Object({
  workspaceId: WorkspaceId,
  sinceDays: Type.Integer({ minimum: 1, maximum: 365, description: 'Days back from now, 1-365' }),
  maxEmails: Type.Integer({ minimum: 1, maximum: 50_000, default: 10_000, description: 'Stop after this many messages, 1-50000 (default 10000)' }),
  batchSize: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 500,
    description: 'Messages per write transaction (one checkpoint each), 1-1000 (default 500)',
  }),
});

/** The session's status word, reconciled with its job: a job that ended ends the session. */
function sessionStatus(s: IngestionSession, job: Job | null): IngestionSessionStatus {
  if (s.status === 'completed' || s.status === 'failed') return s.status;
  if (job?.state === 'completed') return 'completed';
  if (!job || job.state === 'failed' || job.state === 'cancelled') return 'failed';
  return s.status === 'processing' || job.state === 'running' ? 'processing' : 'initializing';
}

export const ingestV2Routes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.engine.store.db;
    const tags = ['ingestion'];

    const estimate = async (ws: string, cfg: IngestionSessionConfig, job: Job | null): Promise<string> => {
      const past = await lastCompletedRun(db, ws, 'google');
      if (job && job.totalItems !== null)
        return formatDuration(estimateJob({ ...job, totalItems: Math.min(job.totalItems, cfg.maxEmails) }, new Date(), past).remainingSeconds);
      const inWindow = await estimateItemsInWindow(db, ws, 'google', cfg.sinceDays);
      return formatDuration(secondsFor(inWindow === undefined ? undefined : Math.min(inWindow, cfg.maxEmails), past) ?? null);
    };

    app.post(
      '/ingest/v2/start',
      {
        schema: {
          ...jobOperations.startLargeIngestion,
          tags,
          summary: 'Start a large Gmail ingestion in batches (a second start while one runs returns the running session)',
          body: V2StartBody,
        },
      },
      async (request) => {
        const ws = request.auth.workspaceId;
        const b = request.body;
        const running = await latestIngestionSession(db, ws);
        if (running) {
          const job = running.jobId ? await getJob(db, running.jobId) : null;
          const status = sessionStatus(running, job);
          if ((status === 'initializing' || status === 'processing') && job && !FINAL_STATES.includes(job.state)) {
            return {
              success: true,
              message: 'an ingestion is already running for this workspace; this is its session',
              sessionId: running.id,
              config: running.config,
              status,
              estimatedDuration: await estimate(ws, running.config, job),
            };
          }
        }
        await requireConnected(db, ws, 'google');
        const config: IngestionSessionConfig = {
          workspaceId: ws,
          sinceDays: b.sinceDays,
          maxEmails: b.maxEmails,
          batchSize: b.batchSize,
          startDate: new Date(deps.engine.clock().getTime() - b.sinceDays * DAY_MS).toISOString(),
        };
        const { session, job } = await startIngestionSession(db, config);
        deps.jobs?.nudge();
        return {
          success: true,
          message: `ingestion of up to ${b.maxEmails} message(s) from the last ${b.sinceDays} day(s) started in batches of ${b.batchSize}`,
          sessionId: session.id,
          config,
          status: 'initializing',
          estimatedDuration: await estimate(ws, config, job),
        };
      },
    );

    app.get(
      '/ingest/v2/status',
      {
        schema: { ...jobOperations.getLargeIngestionStatus, tags, summary: 'The latest large ingestion of the workspace', querystring: WorkspaceQuery },
      },
      async (request) => {
        const ws = request.auth.workspaceId;
        const s = await latestIngestionSession(db, ws);
        if (!s) throw new ChsError('NOT_FOUND', `no large ingestion has been started for ${ws}`);
        const job = s.jobId ? await getJob(db, s.jobId) : null;
        const { config: cfg, stats } = s;
        const status = sessionStatus(s, job);
        const now = new Date();
        const processed = stats.emailsProcessed;
        // Read from Gmail, stored or not yet: the live counter moves between the stored batches.
        const read = Math.max(processed, job ? itemsRead(job, now) : 0);
        // The provider's count (capped by maxEmails) once the job learned it; before that, unknown.
        const known = job?.totalItems ?? null;
        // Finished: what there was to read is what was read (the cap is not a count).
        const total = status === 'completed' ? processed : known !== null ? Math.min(Math.max(known, read), cfg.maxEmails) : null;
        const ended = status === 'completed' || status === 'failed';
        const endedAt = s.completedAt ?? (ended ? (job?.completedAt ?? null) : null);
        let completionAt: string | null = null;
        if (status === 'completed') completionAt = endedAt;
        else if (!ended && job && total !== null) {
          completionAt = estimateJob(
            { ...job, totalItems: total, itemsProcessed: Math.max(job.itemsProcessed, processed), itemsRead: read },
            now,
            await lastCompletedRun(db, ws, 'google'),
            await rebuildCost(db, ws),
          ).completionAt;
        }
        const errors = [...s.errors, ...(job?.errors ?? []).map((e) => ({ timestamp: e.at, message: e.message, recoverable: e.recoverable }))];
        const lastUpdate =
          [s.updatedAt, job?.updatedAt]
            .filter((x): x is string => !!x)
            .sort()
            .at(-1) ?? s.updatedAt;
        const waiting = job && !ended ? waitingOn(job, now) : undefined;
        return {
          sessionId: s.id,
          status,
          progress: {
            emailsProcessed: processed,
            emailsRead: read,
            totalEmails: total,
            // An estimate: 100 only once the session completed.
            percentComplete: status === 'completed' ? 100 : total ? Math.min(99.9, Math.floor((read / total) * 1000) / 10) : 0,
            batchesCompleted: stats.batchesCompleted,
            totalBatches: total === null ? null : Math.ceil(total / cfg.batchSize),
          },
          ...(waiting ? { waiting } : {}),
          timing: {
            startedAt: s.startedAt,
            lastUpdateAt: lastUpdate,
            estimatedCompletionAt: completionAt,
            elapsedSeconds: Math.max(0, Math.round(((endedAt ? Date.parse(endedAt) : now.getTime()) - Date.parse(s.startedAt)) / 1000)),
          },
          stats: {
            clientsIdentified: stats.clientsIdentified,
            contactsCreated: stats.contactsCreated,
            interactionsCreated: stats.interactionsCreated,
            errorsCount: Math.max(stats.errorsCount, job?.errorsCount ?? 0),
          },
          errors,
        };
      },
    );
  };
