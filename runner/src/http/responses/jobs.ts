/**
 * Operation ids and success responses of the job endpoints: POST /ingest/run, GET /ingest/status,
 * GET /ingest/history, POST /ingest/backfill, POST /ingest/jobs/{jobId}/cancel,
 * POST /integrations/{provider}/sync and /backfill, POST /ingest/v2/start, GET /ingest/v2/status.
 * Each route spreads its entry of `jobOperations` into its schema. The presenters' types
 * (jobs/present.ts) are tied to these schemas below; the handlers' own object literals are checked
 * by Fastify's TypeBox type provider against `response[200]`. Status words: docs/jobs.md.
 */
import { Type, type Static } from '@sinclair/typebox';
import { JOB_STATES, PROVIDERS } from '@chs/core';
import type { CurrentJobView, HistoryRecord, RecentJobView } from '../../jobs/present.js';
import type { IngestionSessionConfig as SessionConfig } from '@chs/core';
import { assertSame, Count, Nullable, PaginationSchema, Timestamp } from './common.js';

const JobStateSchema = Type.Union(
  JOB_STATES.map((s) => Type.Literal(s)),
  { description: 'queued, running, parked, completed, failed or cancelled' },
);
const ProviderSchema = Type.Union(PROVIDERS.map((p) => Type.Literal(p)));
const Duration = Type.String({ description: 'e.g. `45s`, `3m 20s`, `1h 5m`, or `unknown`' });

const WaitingSchema = Type.Object(
  {
    reason: Type.String({ description: "In words: the provider's limit or error the job waits on" }),
    until: Nullable(Timestamp),
  },
  { description: 'Extension: present while the job waits on a provider (parked on a quota, or sleeping out a Retry-After); `until` is when it resumes' },
);
const Rate = Type.Number({ minimum: 0, description: 'Extension: items read per second, measured over this attempt of the job' });
const PhaseSchema = Type.Union([Type.Literal('reading'), Type.Literal('rebuilding')], {
  description: 'Extension: `reading` the source, or `rebuilding` the health history of the clients it touched (the last step)',
});

const SourceViewSchema = Type.Object(
  {
    status: JobStateSchema,
    itemsProcessed: Type.Integer({ minimum: 0, description: 'Items stored (exact, committed with the data; cumulative over every attempt of the job)' }),
    itemsRead: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'Extension: items read from the source so far, stored or not yet (updated every second or so while the job reads)',
      }),
    ),
    lastSyncAt: Type.Optional(Timestamp),
    totalItems: Type.Optional(
      Type.Integer({ minimum: 0, description: "The source's own count of what this job reads (an estimate); absent when the source cannot say" }),
    ),
    progress: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Percent read of totalItems (an estimate); absent without a total' })),
    rate: Type.Optional(Rate),
    estimatedCompletion: Type.Optional(Timestamp),
    phase: Type.Optional(PhaseSchema),
    waiting: Type.Optional(WaitingSchema),
  },
  { description: 'Which members are present depends on what the job knows yet' },
);

const CurrentJobSchema = Type.Object({
  jobId: Type.String({ description: 'The run id (one per POST /ingest/run)' }),
  status: JobStateSchema,
  progress: Type.Number({
    minimum: 0,
    maximum: 100,
    description: "Percent done (an estimate): the mean of the sources' progress; 0 while no source knows its total",
  }),
  startedAt: Nullable(Timestamp),
  estimatedCompletion: Nullable(Timestamp),
  sources: Type.Record(Type.String(), SourceViewSchema),
  itemsRead: Type.Optional(Type.Integer({ minimum: 0, description: 'Extension: items read, over every source' })),
  itemsProcessed: Type.Optional(Type.Integer({ minimum: 0, description: 'Extension: items stored, over every source' })),
  totalItems: Type.Optional(Type.Integer({ minimum: 0, description: 'Extension: the sum of the totals, when every source has one' })),
  rate: Type.Optional(Rate),
  waiting: Type.Optional(WaitingSchema),
});

const RecentJobSchema = Type.Object({
  jobId: Type.String(),
  status: JobStateSchema,
  completedAt: Nullable(Timestamp),
  duration: Duration,
  itemsProcessed: Count,
});

const HistoryRecordSchema = Type.Object({
  jobId: Type.String({ description: 'The run id: the id the start endpoint gave (jobId, syncId, backfillId, sessionId)' }),
  sourceJobId: Type.String({ description: "Extension: this source's own job id (the run id itself for a run of one source)" }),
  source: Type.String(),
  status: JobStateSchema,
  startedAt: Nullable(Timestamp),
  completedAt: Nullable(Timestamp),
  duration: Duration,
  itemsProcessed: Count,
  itemsAdded: Count,
  itemsUpdated: Count,
  itemsSkipped: Count,
  errors: Type.Array(Type.Object({ message: Type.String(), count: Type.Integer({ minimum: 1 }), severity: Type.String() })),
});

const SessionConfigSchema = Type.Object({
  workspaceId: Type.String(),
  sinceDays: Type.Integer({ minimum: 1 }),
  maxEmails: Type.Integer({ minimum: 1 }),
  batchSize: Type.Integer({ minimum: 1 }),
  startDate: Timestamp,
});

/**
 * A status word: documented and checked as a closed list, typed `string` so that the handlers'
 * object literals (whose `status: 'queued'` TypeScript widens to string) need no cast.
 */
const word = (...values: string[]) => Type.Unsafe<string>({ type: 'string', enum: values });

/** Spread into each job route's `schema`. */
export const jobOperations = {
  startIngestRun: {
    operationId: 'startIngestRun',
    response: {
      200: Type.Object({
        success: Type.Boolean(),
        jobId: Type.String({ description: 'The run id: one per request, whatever the number of sources' }),
        status: word('started'),
        estimatedDuration: Duration,
        sources: Type.Array(ProviderSchema),
      }),
    },
  },
  getIngestStatus: {
    operationId: 'getIngestStatus',
    response: { 200: Type.Object({ currentJob: Nullable(CurrentJobSchema), recentJobs: Type.Array(RecentJobSchema, { maxItems: 10 }) }) },
  },
  listIngestHistory: {
    operationId: 'listIngestHistory',
    response: { 200: Type.Object({ syncHistory: Type.Array(HistoryRecordSchema), pagination: PaginationSchema }) },
  },
  startIngestBackfill: {
    operationId: 'startIngestBackfill',
    response: {
      200: Type.Object({
        success: Type.Boolean(),
        backfillId: Type.String(),
        estimatedItems: Nullable(Count),
        estimatedDuration: Duration,
        status: word('queued'),
        source: ProviderSchema,
        dateRange: Type.Object({ from: Timestamp, to: Timestamp }),
        dataTypes: Type.Array(Type.String()),
      }),
    },
  },
  cancelIngestJob: {
    operationId: 'cancelIngestJob',
    response: { 200: Type.Object({ success: Type.Boolean(), message: Type.String(), jobId: Type.String(), status: word('cancelled') }) },
  },
  syncIntegration: {
    operationId: 'syncIntegration',
    response: {
      200: Type.Object({
        success: Type.Boolean(),
        message: Type.String(),
        syncId: Type.String(),
        startedAt: Timestamp,
        estimatedDuration: Nullable(Type.Integer({ minimum: 0, description: 'Seconds; null when unknown' })),
      }),
    },
  },
  backfillIntegration: {
    operationId: 'backfillIntegration',
    response: {
      200: Type.Object({
        success: Type.Boolean(),
        message: Type.String(),
        jobId: Type.String(),
        startDate: Timestamp,
        endDate: Timestamp,
        estimatedRecords: Nullable(Count),
        status: word('processing'),
      }),
    },
  },
  startLargeIngestion: {
    operationId: 'startLargeIngestion',
    response: {
      200: Type.Object({
        success: Type.Boolean(),
        message: Type.String(),
        sessionId: Type.String(),
        config: SessionConfigSchema,
        status: word('initializing', 'processing'),
        estimatedDuration: Duration,
      }),
    },
  },
  getLargeIngestionStatus: {
    operationId: 'getLargeIngestionStatus',
    response: {
      200: Type.Object({
        sessionId: Type.String(),
        status: word('initializing', 'processing', 'completed', 'failed'),
        progress: Type.Object({
          emailsProcessed: Type.Integer({ minimum: 0, description: 'Messages stored (exact; moves with each committed batch)' }),
          emailsRead: Type.Optional(
            Type.Integer({ minimum: 0, description: 'Extension: messages read from Gmail so far, stored or not yet (updated every second or so)' }),
          ),
          totalEmails: Nullable(Count),
          percentComplete: Type.Number({ minimum: 0, maximum: 100, description: 'Percent read of totalEmails (an estimate); 0 without a total' }),
          batchesCompleted: Count,
          totalBatches: Nullable(Count),
        }),
        waiting: Type.Optional(WaitingSchema),
        timing: Type.Object({ startedAt: Timestamp, lastUpdateAt: Timestamp, estimatedCompletionAt: Nullable(Timestamp), elapsedSeconds: Count }),
        stats: Type.Object({ clientsIdentified: Count, contactsCreated: Count, interactionsCreated: Count, errorsCount: Count }),
        errors: Type.Array(Type.Object({ timestamp: Timestamp, message: Type.String(), recoverable: Type.Boolean() })),
      }),
    },
  },
};

assertSame<CurrentJobView, Static<typeof CurrentJobSchema>>(true);
assertSame<RecentJobView, Static<typeof RecentJobSchema>>(true);
assertSame<HistoryRecord, Static<typeof HistoryRecordSchema>>(true);
assertSame<SessionConfig, Static<typeof SessionConfigSchema>>(true);
