/**
 * Large mailbox ingestion (Google only): POST /ingest/v2/start and GET /ingest/v2/status. A
 * session row (ingestion_sessions) carries the configuration and the stats the `ingest` job
 * writes in every batch's transaction; the job does the work. Status words: docs/jobs.md.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ChsError, FINAL_STATES, getJob, newId, type Db, type IngestionSessionStats, type Job } from '@chs/core';
import { estimateItemsInWindow, estimateJob, formatDuration, lastCompletedRun, secondsFor } from '../../jobs/estimates.js';
import { enqueueGroup, requireConnected } from '../../jobs/start.js';
import { WorkspaceId, WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';
import { jobOperations } from '../responses/jobs.js';

export const V2StartBody = Type.Object({
  workspaceId: WorkspaceId,
  sinceDays: Type.Integer({ minimum: 1, maximum: 365, description: 'Days back from now, 1-365' }),
  maxEmails: Type.Integer({ minimum: 1, maximum: 50_000, default: 10_000, description: 'Stop after this many messages, 1-50000 (default 10000)' }),
  batchSize: Type.Integer({ minimum: 1, maximum: 1000, default: 500, description: 'Messages per write transaction (one checkpoint each), 1-1000 (default 500)' }),
});

export interface SessionConfig {
  workspaceId: string;
  sinceDays: number;
  maxEmails: number;
  batchSize: number;
  startDate: string;
}

interface SessionRow {
  id: string;
  job_id: string | null;
  status: string;
  config_json: string;
  stats_json: string;
  errors_json: string;
  started_at: string;
  updated_at: string;
  completed_at: string | null;
}

interface StoredError { timestamp?: string; at?: string; message: string; recoverable?: boolean }

/** The session's status word, reconciled with its job: a job that ended ends the session. */
function sessionStatus(s: SessionRow, job: Job | null): 'initializing' | 'processing' | 'completed' | 'failed' {
  if (s.status === 'completed' || s.status === 'failed') return s.status;
  if (job?.state === 'completed') return 'completed';
  if (!job || job.state === 'failed' || job.state === 'cancelled') return 'failed';
  return s.status === 'processing' || job.state === 'running' ? 'processing' : 'initializing';
}

async function latestSession(db: Db, workspaceId: string): Promise<SessionRow | undefined> {
  return db.selectFrom('ingestion_sessions').selectAll().where('workspace_id', '=', workspaceId)
    .orderBy('started_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export const ingestV2Routes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.engine.store.db;
    const tags = ['ingestion'];

    const estimate = async (ws: string, cfg: SessionConfig, job: Job | null): Promise<string> => {
      const past = await lastCompletedRun(db, ws, 'google');
      if (job && job.totalItems !== null) return formatDuration(estimateJob({ ...job, totalItems: Math.min(job.totalItems, cfg.maxEmails) }, new Date(), past).remainingSeconds);
      const inWindow = await estimateItemsInWindow(db, ws, 'google', cfg.sinceDays);
      return formatDuration(secondsFor(inWindow === undefined ? undefined : Math.min(inWindow, cfg.maxEmails), past) ?? null);
    };

    app.post('/ingest/v2/start', {
      schema: { ...jobOperations.startLargeIngestion, tags, summary: 'Start a large Gmail ingestion in batches (a second start while one runs returns the running session)', body: V2StartBody },
    }, async (request) => {
      const ws = request.auth.workspaceId;
      const b = request.body;
      const running = await latestSession(db, ws);
      if (running) {
        const job = running.job_id ? await getJob(db, running.job_id) : null;
        const status = sessionStatus(running, job);
        if ((status === 'initializing' || status === 'processing') && job && !FINAL_STATES.includes(job.state)) {
          const cfg = JSON.parse(running.config_json) as SessionConfig;
          return {
            success: true, message: 'an ingestion is already running for this workspace; this is its session',
            sessionId: running.id, config: cfg, status, estimatedDuration: await estimate(ws, cfg, job),
          };
        }
      }
      await requireConnected(db, ws, 'google');
      const now = new Date();
      const config: SessionConfig = {
        workspaceId: ws, sinceDays: b.sinceDays, maxEmails: b.maxEmails, batchSize: b.batchSize,
        startDate: new Date(deps.engine.clock().getTime() - b.sinceDays * 86_400_000).toISOString(),
      };
      const sessionId = newId('ing');
      const stats: IngestionSessionStats = {
        emailsProcessed: 0, totalEmails: 0, batchesCompleted: 0, totalBatches: 0, clientsIdentified: 0, contactsCreated: 0, interactionsCreated: 0, errorsCount: 0,
      };
      // The session exists before its job, so a worker that claims the job at once finds it.
      await db.insertInto('ingestion_sessions').values({
        id: sessionId, workspace_id: ws, job_id: null, status: 'initializing', config_json: JSON.stringify(config),
        stats_json: JSON.stringify(stats), errors_json: '[]', started_at: now.toISOString(), updated_at: now.toISOString(), completed_at: null,
      }).execute();
      let job: Job;
      try {
        const r = await enqueueGroup(db, ws, [{ kind: 'ingest', source: 'google', params: { sessionId, sinceDays: b.sinceDays, maxEmails: b.maxEmails, batchSize: b.batchSize } }]);
        job = r.jobs[0]!;
      } catch (err) {
        await db.deleteFrom('ingestion_sessions').where('id', '=', sessionId).execute();
        throw err;
      }
      await db.updateTable('ingestion_sessions').set({ job_id: job.id }).where('id', '=', sessionId).execute();
      deps.jobs?.nudge();
      return {
        success: true, message: `ingestion of up to ${b.maxEmails} message(s) from the last ${b.sinceDays} day(s) started in batches of ${b.batchSize}`,
        sessionId, config, status: 'initializing', estimatedDuration: await estimate(ws, config, job),
      };
    });

    app.get('/ingest/v2/status', {
      schema: { ...jobOperations.getLargeIngestionStatus, tags, summary: 'The latest large ingestion of the workspace', querystring: WorkspaceQuery },
    }, async (request) => {
      const ws = request.auth.workspaceId;
      const s = await latestSession(db, ws);
      if (!s) throw new ChsError('NOT_FOUND', `no large ingestion has been started for ${ws}`);
      const job = s.job_id ? await getJob(db, s.job_id) : null;
      const cfg = JSON.parse(s.config_json) as SessionConfig;
      const stats = JSON.parse(s.stats_json) as Partial<IngestionSessionStats>;
      const status = sessionStatus(s, job);
      const now = new Date();
      const processed = stats.emailsProcessed ?? 0;
      // The provider's count (capped by maxEmails) once the job learned it; before that, unknown.
      const known = job?.totalItems ?? null;
      // Finished: what there was to read is what was read (the cap is not a count).
      const total = status === 'completed' ? processed : known !== null ? Math.min(Math.max(known, processed), cfg.maxEmails) : null;
      const ended = status === 'completed' || status === 'failed';
      const endedAt = s.completed_at ?? (ended ? job?.completedAt ?? null : null);
      let completionAt: string | null = null;
      if (status === 'completed') completionAt = endedAt;
      else if (!ended && job && total !== null) {
        completionAt = estimateJob({ ...job, totalItems: total, itemsProcessed: Math.max(job.itemsProcessed, processed) }, now, await lastCompletedRun(db, ws, 'google')).completionAt;
      }
      const storedErrors = JSON.parse(s.errors_json) as StoredError[];
      const errors = [
        ...storedErrors.map((e) => ({ timestamp: e.timestamp ?? e.at ?? s.updated_at, message: e.message, recoverable: e.recoverable ?? false })),
        ...(job?.errors ?? []).map((e) => ({ timestamp: e.at, message: e.message, recoverable: e.recoverable })),
      ];
      const lastUpdate = [s.updated_at, job?.updatedAt].filter((x): x is string => !!x).sort().at(-1) ?? s.updated_at;
      return {
        sessionId: s.id,
        status,
        progress: {
          emailsProcessed: processed,
          totalEmails: total,
          percentComplete: status === 'completed' ? 100 : total ? Math.min(100, Math.round((processed / total) * 1000) / 10) : 0,
          batchesCompleted: stats.batchesCompleted ?? 0,
          totalBatches: total === null ? null : Math.ceil(total / cfg.batchSize),
        },
        timing: {
          startedAt: s.started_at,
          lastUpdateAt: lastUpdate,
          estimatedCompletionAt: completionAt,
          elapsedSeconds: Math.max(0, Math.round(((endedAt ? Date.parse(endedAt) : now.getTime()) - Date.parse(s.started_at)) / 1000)),
        },
        stats: {
          clientsIdentified: stats.clientsIdentified ?? 0,
          contactsCreated: stats.contactsCreated ?? 0,
          interactionsCreated: stats.interactionsCreated ?? 0,
          errorsCount: Math.max(stats.errorsCount ?? 0, job?.errorsCount ?? 0),
        },
        errors,
      };
    });
  };
