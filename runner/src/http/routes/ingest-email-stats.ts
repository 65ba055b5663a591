/** GET /ingest/email-stats: e-mail ingestion statistics over the window, with processing errors. */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ingestEmailStats } from '@chs/core';
import { WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';
import { IngestEmailStatsSchema } from '../responses/metrics.js';

const IngestEmailStatsQuery = Type.Object({
  ...WorkspaceQuery.properties,
  windowDays: Type.Integer({ minimum: 1, maximum: 90, default: 30, description: 'Days, 1-90 (default 30)' }),
});

export const ingestEmailStatsRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/ingest/email-stats',
      {
        schema: {
          tags: ['ingestion'],
          operationId: 'getIngestEmailStats',
          summary: 'E-mail ingestion statistics and processing errors',
          querystring: IngestEmailStatsQuery,
          response: { 200: IngestEmailStatsSchema },
        },
      },
      async (request) => ingestEmailStats(deps.engine.store.db, request.auth.workspaceId, { windowDays: request.query.windowDays, now: deps.engine.clock() }),
    );
  };
