/** GET /integrations/{provider}/status: the integration status object (docs/api.md). */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { integrationStatus } from '@chs/core';
import { WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';

export const IntegrationParams = Type.Object({
  provider: Type.Union([Type.Literal('google'), Type.Literal('hubspot'), Type.Literal('intercom')], { description: 'google, hubspot or intercom' }),
});

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const IntegrationStatusSchema = Type.Object({
  connected: Type.Boolean(),
  provider: Type.String(),
  workspaceId: Type.String(),
  email: Nullable(Type.String({ description: 'connected account address' })),
  expiresAt: Nullable(Type.String({ description: 'ISO 8601' })),
  hasRefresh: Type.Boolean(),
  lastSyncAt: Nullable(Type.String({ description: 'ISO 8601' })),
  scope: Nullable(Type.String({ description: 'space-separated scopes' })),
  state: Type.String({ description: 'extension: connected, needs_reauth, disconnected or not_connected' }),
  accounts: Type.Array(
    Type.Object({
      account: Type.String({ description: 'the mailbox address (Google); empty for HubSpot and Intercom' }),
      email: Nullable(Type.String()),
      state: Type.String({ description: 'connected, needs_reauth or disconnected' }),
      lastSyncAt: Nullable(Type.String({ description: 'ISO 8601' })),
      lastError: Nullable(Type.String({ description: 'the last sync problem of this account; null when the last sync was clean' })),
      expiresAt: Nullable(Type.String({ description: 'ISO 8601' })),
      hasRefresh: Type.Boolean(),
      connectedAt: Type.String({ description: 'ISO 8601' }),
    }),
    {
      description:
        'extension: every connected account (each CSM’s Google mailbox syncs on its own). The spec’s fields describe the workspace: connected when any account is; ' +
        'email, expiresAt, hasRefresh and scope of the first connected account; lastSyncAt the oldest of the connected accounts’ (every one was synced since)',
    },
  ),
});

export const integrationStatusRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/integrations/:provider/status',
      {
        schema: {
          tags: ['integrations'],
          operationId: 'getIntegrationStatus',
          summary: 'Connection status of a provider for the workspace',
          params: IntegrationParams,
          querystring: WorkspaceQuery,
          response: { 200: IntegrationStatusSchema },
        },
      },
      async (request) => integrationStatus(deps.engine.store.db, request.auth.workspaceId, request.params.provider),
    );
  };
