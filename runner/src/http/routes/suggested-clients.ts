/**
 * Extension: suggested clients. GET /clients/suggested, POST /clients/suggested/{domain}/accept,
 * POST /clients/suggested/{domain}/ignore.
 *
 * Mail makes a domain a scored client only through a real conversation (the workspace's
 * `clientDiscovery`); every other external domain it names is kept as a suggestion, unscored and
 * out of every metric, until the team accepts it (a scored client over its whole stored history)
 * or ignores it. `/clients/suggested` is a static path, so Fastify's router prefers it to
 * `/clients/:clientId`.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { acceptAndScoreSuggestion, ignoreSuggestedClient, listSuggestedClients, readClientDetails } from '@chs/core';
import { WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';
import { AcceptedSuggestionSchema, IgnoredSuggestionSchema, SuggestedClientListSchema } from '../responses/suggestions.js';

const SuggestionParams = Type.Object({
  domain: Type.String({ minLength: 1, maxLength: 200, description: 'The suggested domain (or its client id)' }),
});

const SuggestionsQuery = Type.Object({
  ...WorkspaceQuery.properties,
  status: Type.Union([Type.Literal('suggested'), Type.Literal('ignored')], {
    default: 'suggested',
    description: 'suggested (default): waiting for a decision; ignored: set aside',
  }),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1-200 (default 50)' }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'Items to skip (default 0)' }),
});

export const suggestedClientRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.engine.store.db;
    const tags = ['clients', 'extension'];

    app.get(
      '/clients/suggested',
      {
        schema: {
          tags,
          operationId: 'listSuggestedClients',
          summary: 'Extension: domains our mail names that are not scored clients, with why',
          description:
            'Not in the spec (extension). Suggested clients are unscored and absent from GET /clients and every metric until accepted; ' +
            'those whose people wrote the most first, then the most mail.',
          querystring: SuggestionsQuery,
          response: { 200: SuggestedClientListSchema },
        },
      },
      async (request) => {
        const { status, limit, offset } = request.query;
        return listSuggestedClients(db, request.auth.workspaceId, { status, limit, offset });
      },
    );

    app.post(
      '/clients/suggested/:domain/accept',
      {
        schema: {
          tags,
          operationId: 'acceptSuggestedClient',
          summary: 'Extension: make a suggested (or ignored) domain a scored client',
          description:
            'Not in the spec (extension). The client is scored over its whole stored mail before the answer. 404 NOT_FOUND when the domain is no suggestion.',
          params: SuggestionParams,
          querystring: WorkspaceQuery,
          response: { 200: AcceptedSuggestionSchema },
        },
      },
      async (request) => {
        const { workspaceId } = request.auth;
        const now = deps.engine.clock();
        const clientId = await acceptAndScoreSuggestion(db, workspaceId, request.params.domain, now);
        const read = await readClientDetails(db, workspaceId, clientId, now);
        return { client: read.details.client };
      },
    );

    app.post(
      '/clients/suggested/:domain/ignore',
      {
        schema: {
          tags,
          operationId: 'ignoreSuggestedClient',
          summary: 'Extension: set a suggested domain aside',
          description:
            'Not in the spec (extension). It leaves the suggestions (GET /clients/suggested?status=ignored lists it); its mail stays stored and later mail ' +
            'never makes it a client. 404 NOT_FOUND when the domain is no suggestion.',
          params: SuggestionParams,
          querystring: WorkspaceQuery,
          response: { 200: IgnoredSuggestionSchema },
        },
      },
      async (request) => {
        const { workspaceId } = request.auth;
        const { clientId, domain } = await ignoreSuggestedClient(db, workspaceId, request.params.domain, deps.engine.clock());
        return { suggestion: { clientId, domain, status: 'ignored' as const } };
      },
    );
  };
