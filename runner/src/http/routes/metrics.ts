/**
 * GET /metrics/*. Bounds the API contract leaves open are ours (docs/health-model.md): windowDays 1-365
 * for trends, deltas and e-mail stats; minDelta 0-100. Beyond a bound is 400, never clamped.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  DEFAULT_BACKTEST_DAYS,
  emailEngagement,
  getSummary,
  healthTrend,
  interactionMix,
  runBacktest,
  scoreDeltas,
  sentimentTrendSeries,
  TREND_INTERVALS,
} from '@chs/core';
import { WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';
import { Coalescer } from '../coalesce.js';
import {
  BacktestSchema,
  DeltasSchema,
  EmailEngagementSchema,
  HealthTrendSchema,
  InteractionMixSchema,
  SentimentTrendSchema,
  SummarySchema,
} from '../responses/metrics.js';

const windowDays = (def: number, max: number) => Type.Integer({ minimum: 1, maximum: max, default: def, description: `Days, 1-${max} (default ${def})` });

const SummaryQuery = Type.Object({
  ...WorkspaceQuery.properties,
  windowDays: windowDays(7, 90),
  riskThreshold: Type.Optional(
    Type.Number({ minimum: 0, maximum: 100, description: 'Score below which a client is at risk, 0-100 (default: the workspace setting, else 40)' }),
  ),
});
const HealthTrendQuery = Type.Object({
  ...WorkspaceQuery.properties,
  windowDays: windowDays(30, 365),
  interval: Type.Union(
    TREND_INTERVALS.map((i) => Type.Literal(i)),
    { default: 'daily', description: 'daily (default), weekly (ISO weeks), monthly' },
  ),
});
const WindowQuery30 = Type.Object({ ...WorkspaceQuery.properties, windowDays: windowDays(30, 365) });
const DeltasQuery = Type.Object({
  ...WorkspaceQuery.properties,
  windowDays: windowDays(7, 365),
  minDelta: Type.Number({ minimum: 0, maximum: 100, default: 10, description: 'Smallest |score change| listed, 0-100 (default 10)' }),
});

const BacktestQuery = Type.Object({
  ...WorkspaceQuery.properties,
  days: Type.Integer({
    minimum: 1,
    maximum: 365,
    default: DEFAULT_BACKTEST_DAYS,
    description: `Days before each outcome its score is read, 1-365 (default ${DEFAULT_BACKTEST_DAYS})`,
  }),
});

export const metricsRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.engine.store.db;
    const tags = ['metrics'];
    const now = () => deps.engine.clock();
    // Identical dashboard reads arriving together are computed once (see coalesce.ts).
    const shared = new Coalescer();

    app.get(
      '/metrics/backtest',
      {
        schema: {
          tags: [...tags, 'extension'],
          operationId: 'getMetricsBacktest',
          summary: 'Extension: how well the score foresaw the recorded renewal outcomes (AUC, precision, recall, lead time, calibration)',
          description:
            'Not in the spec (extension). For each outcome recorded (chs outcomes import, POST /clients/{clientId}/outcomes), the score the client had `days` ' +
            'before it, read from the stored daily history only; 30, 60 and 90 days too under `horizons`.',
          querystring: BacktestQuery,
          response: { 200: BacktestSchema },
        },
      },
      async (request) => shared.forRequest(request, () => runBacktest(db, request.auth.workspaceId, { days: request.query.days })),
    );

    app.get(
      '/metrics/summary',
      {
        schema: {
          tags,
          operationId: 'getMetricsSummary',
          summary: 'Portfolio summary (excluded clients left out)',
          querystring: SummaryQuery,
          response: { 200: SummarySchema },
        },
      },
      async (request) =>
        shared.forRequest(request, () =>
          getSummary(db, request.auth.workspaceId, {
            windowDays: request.query.windowDays,
            ...(request.query.riskThreshold !== undefined ? { riskThreshold: request.query.riskThreshold } : {}),
            now: now(),
          }),
        ),
    );

    app.get(
      '/metrics/trends/health',
      {
        schema: {
          tags,
          operationId: 'getHealthTrend',
          summary: 'Average health score per day, ISO week or month',
          querystring: HealthTrendQuery,
          response: { 200: HealthTrendSchema },
        },
      },
      async (request) =>
        shared.forRequest(request, () =>
          healthTrend(db, request.auth.workspaceId, { windowDays: request.query.windowDays, interval: request.query.interval, now: now() }),
        ),
    );

    app.get(
      '/metrics/trends/sentiment',
      {
        schema: {
          tags,
          operationId: 'getSentimentTrend',
          summary: 'Sentiment per day; avgSentiment in [0, 1], 0.5 neutral',
          querystring: WindowQuery30,
          response: { 200: SentimentTrendSchema },
        },
      },
      async (request) =>
        shared.forRequest(request, () => sentimentTrendSeries(db, request.auth.workspaceId, { windowDays: request.query.windowDays, now: now() })),
    );

    app.get(
      '/metrics/trends/interactions',
      {
        schema: {
          tags,
          operationId: 'getInteractionMix',
          summary: 'Interaction mix by type; percentages sum to 100',
          querystring: WindowQuery30,
          response: { 200: InteractionMixSchema },
        },
      },
      async (request) => shared.forRequest(request, () => interactionMix(db, request.auth.workspaceId, { windowDays: request.query.windowDays, now: now() })),
    );

    app.get(
      '/metrics/deltas',
      {
        schema: {
          tags,
          operationId: 'getScoreDeltas',
          summary: 'Score changes over the window grouped by reason',
          querystring: DeltasQuery,
          response: { 200: DeltasSchema },
        },
      },
      async (request) =>
        shared.forRequest(request, () =>
          scoreDeltas(db, request.auth.workspaceId, { windowDays: request.query.windowDays, minDelta: request.query.minDelta, now: now() }),
        ),
    );

    app.get(
      '/metrics/email-stats',
      {
        schema: {
          tags,
          operationId: 'getEmailEngagement',
          summary: 'E-mail engagement: open rate (where tracked) and response rate from threads',
          querystring: WindowQuery30,
          response: { 200: EmailEngagementSchema },
        },
      },
      async (request) => shared.forRequest(request, () => emailEngagement(db, request.auth.workspaceId, { windowDays: request.query.windowDays, now: now() })),
    );
  };
