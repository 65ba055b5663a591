/**
 * The extensions POST /clients/{clientId}/outcomes and GET /clients/{clientId}/outcomes: how a
 * client's renewal ended (renewed, churned, downgraded), one per client and day, recorded through
 * the API (clients/outcomes.ts in the core is the only writer). Not read through the ReadCache.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { listClientOutcomes, recordOutcome } from '@chs/core';
import { ClientParams, WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';
import { OutcomeKindSchema, OutcomeListSchema, OutcomeSchema } from '../responses/outcomes.js';

const Mrr = (description: string) => Type.Union([Type.Number({ minimum: 0, maximum: 1e12 }), Type.Null()], { description });

const OutcomeBody = Type.Object(
  {
    date: Type.String({ format: 'date', description: 'The day the renewal was decided, YYYY-MM-DD; not after today (UTC)' }),
    outcome: OutcomeKindSchema,
    mrrBefore: Type.Optional(Mrr('MRR before the renewal: required for `downgraded`')),
    mrrAfter: Type.Optional(Mrr('MRR after the renewal: required for `downgraded`, and below mrrBefore there')),
  },
  { additionalProperties: false, 'x-extension': true, description: 'Extension (not in the spec): how the renewal of a client ended' },
);

export const outcomeRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.engine.store.db;
    const tags = ['clients', 'extension'];

    app.post(
      '/clients/:clientId/outcomes',
      {
        schema: {
          tags,
          operationId: 'recordClientOutcome',
          summary: 'Extension: record how the renewal of a client ended (renewed, churned, downgraded)',
          description:
            'Extension (not in the spec). One outcome per client and day: 201 when the client had none that day, 200 when it replaced the outcome of that day. ' +
            'A date after today, or a downgrade without both mrrBefore and mrrAfter (mrrAfter below mrrBefore), is 400 INVALID_INPUT; ' +
            'a client not in the workspace is 404 CLIENT_NOT_FOUND.',
          params: ClientParams,
          querystring: WorkspaceQuery,
          body: OutcomeBody,
          response: { 200: OutcomeSchema, 201: OutcomeSchema },
        },
      },
      async (request, reply) => {
        const b = request.body;
        const { outcome, created } = await recordOutcome(
          db,
          request.auth.workspaceId,
          request.params.clientId,
          {
            date: b.date,
            outcome: b.outcome,
            ...(b.mrrBefore !== undefined ? { mrrBefore: b.mrrBefore } : {}),
            ...(b.mrrAfter !== undefined ? { mrrAfter: b.mrrAfter } : {}),
          },
          'api',
          deps.engine.clock(),
        );
        return reply.code(created ? 201 : 200).send(outcome);
      },
    );

    app.get(
      '/clients/:clientId/outcomes',
      {
        schema: {
          tags,
          operationId: 'listClientOutcomes',
          summary: 'Extension: how the renewals of a client ended, oldest first',
          description: 'Extension (not in the spec). Every outcome recorded for the client (by CSV, the API or a CRM), oldest first.',
          params: ClientParams,
          querystring: WorkspaceQuery,
          response: { 200: OutcomeListSchema },
        },
      },
      async (request) => ({ outcomes: await listClientOutcomes(db, request.auth.workspaceId, request.params.clientId) }),
    );
  };
