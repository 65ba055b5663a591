/**
 * GET/POST/DELETE /settings/api-keys and POST /settings/api-keys/revoke-all: listings are masked;
 * the full key is returned once, at creation. A workspace holds at most `config.maxApiKeys` active
 * keys; each key records the key whose request made it (`createdBy`).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { API_KEY_NAME_MAX, createApiKey, deleteApiKey, listApiKeys, revokeAllApiKeys } from '@chs/core';
import { SuccessMessage, WorkspaceId, WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';

const ApiKeyListItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  key: Type.String({ description: 'Masked preview: sk-, the first 4 characters, …, the last 4' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  isActive: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  createdBy: Type.Union([Type.String(), Type.Null()], {
    description:
      'Engine extension: the id of the key whose request created this one, or `cli` (chs init, chs keys create); null for keys older than this record',
  }),
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
      {
        schema: {
          tags,
          operationId: 'listApiKeys',
          summary: 'List the workspace’s API keys (masked)',
          querystring: WorkspaceQuery,
          response: { 200: Type.Object({ apiKeys: Type.Array(ApiKeyListItem) }) },
        },
      },
      async (request) => {
        const keys = await listApiKeys(db, request.auth.workspaceId);
        return {
          apiKeys: keys.map((k) => {
            // The latest use may still be in memory, waiting for the tracker's next flush.
            const pending = deps.keyUsage?.pendingLastUsed(k.id);
            const lastUsedAt = pending !== undefined && (k.lastUsedAt === null || pending > k.lastUsedAt) ? pending : k.lastUsedAt;
            return { id: k.id, name: k.name, key: k.preview, lastUsedAt, isActive: k.isActive, createdAt: k.createdAt, createdBy: k.createdBy };
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
        const { workspaceId, userId, keyId } = request.auth;
        const key = await createApiKey(db, {
          workspaceId,
          userId,
          name: request.body.name,
          createdBy: keyId,
          ...(deps.config.maxApiKeys !== undefined ? { maxActive: deps.config.maxApiKeys } : {}),
        });
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
        const { workspaceId } = request.auth;
        await deleteApiKey(db, workspaceId, request.params.keyId);
        // Keys a key made outlive it: say so, since the usual reason to delete a key is that it leaked.
        const children = (await listApiKeys(db, workspaceId)).filter((k) => k.isActive && k.createdBy === request.params.keyId).map((k) => k.id);
        if (children.length === 0) return { success: true, message: 'API key deleted' };
        return {
          success: true,
          message: `API key deleted. Still active, made by it: ${children.join(', ')}; delete them too, or revoke every key with POST /settings/api-keys/revoke-all`,
        };
      },
    );

    app.post(
      '/settings/api-keys/revoke-all',
      {
        schema: {
          tags,
          operationId: 'revokeAllApiKeys',
          summary: 'Engine extension: revoke every active key of the workspace at once, the calling key included',
          description:
            'Every active key becomes inactive and is refused (401) on its next request, by every runner. The calling key is revoked too: ' +
            'the call is meant for a leaked key, and if the caller’s key survived, a holder of the leaked key could call this to lock everyone else out ' +
            'and keep the only working key. Make a new key afterwards with `chs keys create` on the server. Revoked keys stay listed (inactive).',
          querystring: WorkspaceQuery,
          response: {
            200: Type.Object({
              success: Type.Boolean(),
              message: Type.String(),
              revoked: Type.Array(Type.String(), { description: 'Ids of the keys revoked' }),
            }),
          },
        },
      },
      async (request) => {
        const revoked = await revokeAllApiKeys(db, request.auth.workspaceId);
        request.log.warn({ workspaceId: request.auth.workspaceId, by: request.auth.keyId, revoked: revoked.length }, 'every API key of the workspace revoked');
        return {
          success: true,
          message: `${revoked.length} API key${revoked.length === 1 ? '' : 's'} revoked, this one included; create a new key with: chs keys create --workspace ${request.auth.workspaceId} --name <name>`,
          revoked,
        };
      },
    );
  };
