/**
 * The Ingestion table's job endpoints: POST /ingest/run, GET /ingest/status, GET /ingest/history,
 * POST /ingest/backfill, and the extension POST /ingest/jobs/{jobId}/cancel. Status words and
 * estimates are described in docs/jobs.md.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { DAY_MS, ChsError, FINAL_STATES, cancelRun, enqueueRun, findRun, listJobs, type Job, type JobState, type Provider } from '@chs/core';
import { WorkspaceId, WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';
import { estimateItemsInWindow, estimateJob, formatDuration, lastCompletedRun, secondsFor } from '../../jobs/estimates.js';
import { DATA_TYPES, currentJobView, groupJobs, historyRecord, recentJobView } from '../../jobs/present.js';
import { connectedProviders, requireConnected } from '../../jobs/start.js';
import { jobOperations } from '../responses/jobs.js';

const ProviderName = Type.Union([Type.Literal('google'), Type.Literal('hubspot'), Type.Literal('intercom')], { description: 'google, hubspot or intercom' });

const RunBody = Type.Object(
  {
    workspaceId: Type.Optional(WorkspaceId),
    syncType: Type.Union([Type.Literal('quick'), Type.Literal('full')], {
      default: 'quick',
      description: 'quick (incremental from the saved cursor, default) or full (windowed resync)',
    }),
    sources: Type.Optional(Type.Array(ProviderName, { minItems: 1, maxItems: 3, uniqueItems: true, description: 'Default: every connected integration' })),
  },
  { additionalProperties: false },
);

const StatusQuery = Type.Object({
  ...WorkspaceQuery.properties,
  jobId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'A run id (from POST /ingest/run) or a job id' })),
});

const HistoryQuery = Type.Object({
  ...WorkspaceQuery.properties,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Records per page, 1-100 (default 20)' }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'Records to skip (default 0); the spec reports it in pagination' }),
  source: Type.Optional(ProviderName),
  status: Type.Optional(
    Type.Union([Type.Literal('completed'), Type.Literal('failed'), Type.Literal('running')], {
      description: 'running also matches queued and parked jobs (not finished yet)',
    }),
  ),
});

const BackfillBody = Type.Object(
  {
    workspaceId: Type.Optional(WorkspaceId),
    source: ProviderName,
    fromDate: Type.String({ format: 'date-time', description: 'ISO 8601 date-time, start of the window' }),
    toDate: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601 date-time; default now' })),
    dataTypes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 40 }), {
        minItems: 1,
        maxItems: 10,
        uniqueItems: true,
        description:
          'google: emails; hubspot: companies, contacts, emails, meetings, calls, notes; intercom: contacts, companies, conversations. Default: all of the provider’s',
      }),
    ),
  },
  { additionalProperties: false },
);

const CancelParams = Type.Object({ jobId: Type.String({ minLength: 1, maxLength: 100 }) });

/** History's `running` means "not finished": a queued or parked job is on its way, not done. */
const HISTORY_STATES: Record<'completed' | 'failed' | 'running', JobState[]> = {
  completed: ['completed'],
  failed: ['failed'],
  running: ['queued', 'running', 'parked'],
};

export const ingestRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.engine.store.db;
    const tags = ['ingestion'];

    app.post(
      '/ingest/run',
      {
        // Every body member is optional, so no body at all is the defaults.
        preValidation: async (request) => {
          if (request.body === undefined) (request as { body: unknown }).body = {};
        },
        schema: {
          ...jobOperations.startIngestRun,
          tags,
          summary: 'Start a sync of the given (default: every connected) integration; one job per source, one run id',
          querystring: WorkspaceQuery,
          body: RunBody,
        },
      },
      async (request) => {
        const ws = request.auth.workspaceId;
        const body: Static<typeof RunBody> = request.body;
        const mode = body.syncType;
        let sources: Provider[];
        if (body.sources) {
          for (const p of body.sources) await requireConnected(db, ws, p);
          sources = body.sources;
        } else {
          sources = await connectedProviders(db, ws);
          if (!sources.length)
            throw new ChsError('INTEGRATION_NOT_CONNECTED', `no integration is connected for ${ws}; connect google, hubspot or intercom first`);
        }
        const { runId, jobs } = await enqueueRun(
          db,
          ws,
          sources.map((source) => ({ kind: 'sync' as const, source, params: { mode } })),
        );
        deps.jobs?.nudge();
        const now = new Date();
        let longest: number | null = 0;
        for (const j of jobs) {
          const e = estimateJob(j, now, await lastCompletedRun(db, ws, j.source, 'sync'));
          longest = longest === null || e.remainingSeconds === null ? null : Math.max(longest, e.remainingSeconds);
        }
        return { success: true, jobId: runId, status: 'started', estimatedDuration: formatDuration(longest), sources };
      },
    );

    app.get(
      '/ingest/status',
      {
        schema: {
          ...jobOperations.getIngestStatus,
          tags,
          summary: 'The current (or the given) run with its per-source progress, and recent runs',
          querystring: StatusQuery,
        },
      },
      async (request) => {
        const ws = request.auth.workspaceId;
        const now = new Date();
        const recent = groupJobs((await listJobs(db, { workspaceId: ws, limit: 100, offset: 0 })).jobs);
        let current: Job[] | undefined;
        if (request.query.jobId) {
          current = await findRun(db, ws, request.query.jobId);
        } else {
          // The newest run still in progress, else the newest run.
          current = recent.find((g) => g.some((j) => !FINAL_STATES.includes(j.state))) ?? recent[0];
        }
        return {
          currentJob: current ? await currentJobView(db, current, now) : null,
          recentJobs: recent.slice(0, 10).map((g) => recentJobView(g, now)),
        };
      },
    );

    app.get(
      '/ingest/history',
      {
        schema: { ...jobOperations.listIngestHistory, tags, summary: 'One record per job, newest first', querystring: HistoryQuery },
      },
      async (request) => {
        const q = request.query;
        const now = new Date();
        const { jobs, total } = await listJobs(db, {
          workspaceId: request.auth.workspaceId,
          ...(q.source ? { source: q.source } : {}),
          ...(q.status ? { states: HISTORY_STATES[q.status] } : {}),
          limit: q.limit,
          offset: q.offset,
        });
        return {
          syncHistory: jobs.map((j) => historyRecord(j, now)),
          pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + jobs.length < total },
        };
      },
    );

    app.post(
      '/ingest/backfill',
      {
        schema: {
          ...jobOperations.startIngestBackfill,
          tags,
          summary: 'Queue a windowed read of a provider between fromDate and toDate (runs in the background)',
          querystring: WorkspaceQuery,
          body: BackfillBody,
        },
      },
      async (request) => {
        const ws = request.auth.workspaceId;
        const b = request.body;
        const allowed: readonly string[] = DATA_TYPES[b.source];
        const wrong = (b.dataTypes ?? []).filter((t) => !allowed.includes(t));
        if (wrong.length)
          throw new ChsError('INVALID_INPUT', `body.dataTypes: ${wrong.join(', ')} do not apply to ${b.source}; allowed: ${allowed.join(', ')}`);
        const from = new Date(b.fromDate);
        const to = b.toDate ? new Date(b.toDate) : deps.engine.clock();
        if (from.getTime() >= to.getTime())
          throw new ChsError('INVALID_INPUT', `body.fromDate must be before ${b.toDate ? 'body.toDate' : `now (${to.toISOString()})`}`);
        await requireConnected(db, ws, b.source);
        const dataTypes = b.dataTypes ?? [...allowed];
        const { runId } = await enqueueRun(db, ws, [
          { kind: 'backfill', source: b.source, params: { since: from.toISOString(), until: to.toISOString(), dataTypes } },
        ]);
        deps.jobs?.nudge();
        const days = (to.getTime() - from.getTime()) / DAY_MS;
        const items = await estimateItemsInWindow(db, ws, b.source, days);
        const seconds = secondsFor(items, await lastCompletedRun(db, ws, b.source));
        return {
          success: true,
          backfillId: runId,
          estimatedItems: items ?? null,
          estimatedDuration: formatDuration(seconds ?? null),
          status: 'queued',
          source: b.source,
          dateRange: { from: from.toISOString(), to: to.toISOString() },
          dataTypes,
        };
      },
    );

    app.post(
      '/ingest/jobs/:jobId/cancel',
      {
        schema: {
          ...jobOperations.cancelIngestJob,
          tags,
          summary: 'Extension: cancel a queued, parked or running job (or every job of a run)',
          params: CancelParams,
          querystring: WorkspaceQuery,
        },
      },
      async (request) => {
        const ws = request.auth.workspaceId;
        const cancelled = await cancelRun(db, ws, request.params.jobId);
        return { success: true, message: `cancelled ${cancelled} job(s)`, jobId: request.params.jobId, status: 'cancelled' };
      },
    );
  };
