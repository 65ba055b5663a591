/** GET/POST/DELETE /settings/api-keys: listings are masked; the full key is returned once, at creation. */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { API_KEY_NAME_MAX, createApiKey, deleteApiKey, listApiKeys } from '@chs/core';
import { SuccessMessage, WorkspaceId, WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';

const ApiKeyListItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  key: Type.String({ description: 'Masked preview: sk-, the first 4 characters, …, the last 4' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  isActive: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});

const CreatedKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  key: Type.String({ description: 'The full key; shown only in this response' }),
  isActive: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});

export const apiKeyRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.engine.store.db;
    const tags = ['settings'];

    app.get(
      '/settings/api-keys',
      { schema: { tags, operationId: 'listApiKeys', summary: 'List the workspace’s API keys (masked)', querystring: WorkspaceQuery, response: { 200: Type.Object({ apiKeys: Type.Array(ApiKeyListItem) }) } } },
      async (request) => {
        const keys = await listApiKeys(db, request.auth.workspaceId);
        return {
          apiKeys: keys.map((k) => {
            // The latest use may still be in memory, waiting for the tracker's next flush.
            const pending = deps.keyUsage?.pendingLastUsed(k.id);
            const lastUsedAt = pending !== undefined && (k.lastUsedAt === null || pending > k.lastUsedAt) ? pending : k.lastUsedAt;
            return { id: k.id, name: k.name, key: k.preview, lastUsedAt, isActive: k.isActive, createdAt: k.createdAt };
          }),
        };
      },
    );

    app.post(
      '/settings/api-keys',
      {
        schema: {
          tags,
          operationId: 'createApiKey',
          summary: 'Create an API key; the full key is in this response only',
          querystring: WorkspaceQuery,
          body: Type.Object(
            { name: Type.String({ minLength: 1, maxLength: API_KEY_NAME_MAX }), workspaceId: Type.Optional(WorkspaceId) },
            { additionalProperties: false },
          ),
          response: { 200: Type.Object({ success: Type.Boolean(), message: Type.String(), apiKey: CreatedKey }) },
        },
      },
      async (request) => {
        const key = await createApiKey(db, { workspaceId: request.auth.workspaceId, userId: request.auth.userId, name: request.body.name });
        return {
          success: true,
          message: 'API key created. Copy it now: it cannot be shown again.',
          apiKey: { id: key.id, name: key.name, key: key.key, isActive: key.isActive, createdAt: key.createdAt },
        };
      },
    );

    app.delete(
      '/settings/api-keys/:keyId',
      {
        schema: {
          tags,
          operationId: 'deleteApiKey',
          summary: 'Delete an API key for good; requests with it get 401 at once',
          params: Type.Object({ keyId: Type.String({ minLength: 1, maxLength: 200 }) }),
          querystring: WorkspaceQuery,
          response: { 200: SuccessMessage },
        },
      },
      async (request) => {
        await deleteApiKey(db, request.auth.workspaceId, request.params.keyId);
        return { success: true, message: 'API key deleted' };
      },
    );
  };
