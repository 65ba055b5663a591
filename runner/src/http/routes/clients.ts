/**
 * GET /clients, GET /clients/last-interactions, GET /clients/{clientId},
 * GET /clients/{clientId}/interactions, and the extensions PATCH /clients/{clientId} and
 * GET /clients/{clientId}/health-history.
 * `/clients/last-interactions` is a static path, so Fastify's router prefers it to `:clientId`.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  getClientHealthHistory,
  lastInteractions,
  listClientInteractions,
  listClients,
  readClientDetails,
  toClientView,
  updateClientAttributes,
} from '@chs/core';
import { ClientParams, WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';
import { JSON_CONTENT_TYPE, ReadCache } from '../read-cache.js';
import {
  ClientDetailsSchema,
  ClientHealthHistorySchema,
  ClientListSchema,
  ClientSchema,
  InteractionsPageSchema,
  LastInteractionsSchema,
} from '../responses/clients.js';

const InteractionsQuery = Type.Object({
  ...WorkspaceQuery.properties,
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1-200 (default 50)' }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'Items to skip (default 0)' }),
});

const HealthHistoryQuery = Type.Object({
  ...WorkspaceQuery.properties,
  windowDays: Type.Integer({ minimum: 1, maximum: 365, default: 90, description: 'Days of history up to today, 1-365 (default 90)' }),
});

const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Number>>(t: T) => Type.Union([t, Type.Null()]);

const ClientPatch = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    mrr: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1e12 }))),
    renewalDate: Type.Optional(Nullable(Type.String({ format: 'date' }))),
    csmOwner: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
    isExcluded: Type.Optional(Type.Boolean()),
    domains: Type.Optional(Type.Array(Type.String({ minLength: 3, maxLength: 253 }), { maxItems: 50, description: 'Extra domains to attach' })),
  },
  { additionalProperties: false, minProperties: 1, 'x-extension': true, description: 'Extension (not in the spec): client attributes mail cannot give' },
);

export const clientRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.engine.store.db;
    const tags = ['clients'];
    // Answers kept while exactly right, computed once for identical requests (see read-cache.ts).
    const cache = new ReadCache({ dataVersion: () => deps.engine.store.dataVersion(), clock: deps.engine.clock });
    const json = (reply: FastifyReply, text: string): FastifyReply => reply.type(JSON_CONTENT_TYPE).send(text);

    app.get(
      '/clients',
      {
        schema: {
          tags,
          operationId: 'listClients',
          summary: 'Every client, excluded ones too (a bare array)',
          querystring: WorkspaceQuery,
          response: { 200: ClientListSchema },
        },
      },
      async (request, reply) => json(reply, await cache.forRequest(request, async () => ({ value: await listClients(db, request.auth.workspaceId) }))),
    );

    app.get(
      '/clients/last-interactions',
      {
        schema: {
          tags,
          operationId: 'getLastInteractions',
          summary: 'Client id → last interaction timestamp (null when none)',
          querystring: WorkspaceQuery,
          response: { 200: LastInteractionsSchema },
        },
      },
      async (request, reply) => json(reply, await cache.forRequest(request, async () => ({ value: await lastInteractions(db, request.auth.workspaceId) }))),
    );

    app.get(
      '/clients/:clientId',
      {
        schema: {
          tags,
          operationId: 'getClient',
          summary: 'A client with its metrics (avgResponseTime in hours) and contacts',
          params: ClientParams,
          querystring: WorkspaceQuery,
          response: { 200: ClientDetailsSchema },
        },
      },
      async (request, reply) =>
        json(
          reply,
          await cache.forRequest(request, async () => {
            const read = await readClientDetails(db, request.auth.workspaceId, request.params.clientId, deps.engine.clock());
            return { value: read.details, validUntil: read.validUntil };
          }),
        ),
    );

    app.get(
      '/clients/:clientId/interactions',
      {
        schema: {
          tags,
          operationId: 'listClientInteractions',
          summary: 'Interactions of a client, newest first',
          params: ClientParams,
          querystring: InteractionsQuery,
          response: { 200: InteractionsPageSchema },
        },
      },
      async (request, reply) =>
        json(
          reply,
          await cache.forRequest(request, async () => ({
            value: await listClientInteractions(db, request.auth.workspaceId, request.params.clientId, {
              limit: request.query.limit,
              offset: request.query.offset,
            }),
          })),
        ),
    );

    app.get(
      '/clients/:clientId/health-history',
      {
        schema: {
          tags: [...tags, 'extension'],
          operationId: 'getClientHealthHistory',
          summary: 'Extension: the score history with the reason of each move, the components and the evidence',
          description: 'Not in the spec (extension). One point per day from the daily snapshots; what the dashboard charts.',
          params: ClientParams,
          querystring: HealthHistoryQuery,
          response: { 200: ClientHealthHistorySchema },
        },
      },
      async (request, reply) =>
        json(
          reply,
          await cache.forRequest(request, async () => {
            const now = deps.engine.clock();
            // The window moves at midnight UTC: the answer is kept until then at most.
            const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
            return {
              value: await getClientHealthHistory(db, request.auth.workspaceId, request.params.clientId, { windowDays: request.query.windowDays, now }),
              validUntil: midnight,
            };
          }),
        ),
    );

    app.patch(
      '/clients/:clientId',
      {
        schema: {
          tags: [...tags, 'extension'],
          operationId: 'updateClient',
          summary: 'Extension: set mrr, renewalDate, csmOwner, isExcluded, name, extra domains',
          description: 'Not in the spec (extension). Fields absent are unchanged; null clears mrr, renewalDate and csmOwner.',
          params: ClientParams,
          querystring: WorkspaceQuery,
          body: ClientPatch,
          response: { 200: ClientSchema },
        },
      },
      async (request) => {
        const b = request.body;
        const row = await updateClientAttributes(
          db,
          request.auth.workspaceId,
          request.params.clientId,
          {
            ...(b.name !== undefined ? { name: b.name } : {}),
            ...(b.mrr !== undefined ? { mrr: b.mrr } : {}),
            ...(b.renewalDate !== undefined ? { renewalDate: b.renewalDate } : {}),
            ...(b.csmOwner !== undefined ? { csmOwner: b.csmOwner } : {}),
            ...(b.isExcluded !== undefined ? { isExcluded: b.isExcluded } : {}),
            ...(b.domains !== undefined ? { domains: b.domains } : {}),
          },
          new Date(),
        );
        return toClientView(row);
      },
    );
  };
