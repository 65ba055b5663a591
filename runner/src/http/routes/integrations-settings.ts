/**
 * The extensions GET and PATCH /integrations/hubspot/settings: the HubSpot integration's settings,
 * kept with its connection (core `getHubSpotSettings` / `updateHubSpotSettings`). Today one: the
 * renewal pipeline whose closed deals become renewal outcomes (docs/connectors.md, HubSpot).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { getHubSpotSettings, updateHubSpotSettings, type HubSpotSettings } from '@chs/core';
import { WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';

const PipelineId = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[A-Za-z0-9_.:-]+$',
  description: 'A HubSpot deal pipeline id: `default`, or the number HubSpot shows in the pipeline’s settings',
});

const HubSpotSettingsSchema = Type.Object(
  {
    provider: Type.Literal('hubspot'),
    workspaceId: Type.String(),
    renewalPipelineId: Type.Union([PipelineId, Type.Null()], {
      description:
        'The deal pipeline whose closed deals are renewal outcomes (closed won: renewed; closed lost: churned; dated by the deal’s close date); null: none, no deal is read',
    }),
  },
  { 'x-extension': true, description: 'Extension (not in the spec): the HubSpot integration’s settings' },
);

const HubSpotSettingsPatch = Type.Object(
  {
    renewalPipelineId: Type.Optional(
      Type.Union([PipelineId, Type.Null()], { description: 'Map the renewal pipeline (its id), or unmap it (null). Absent: unchanged' }),
    ),
  },
  { additionalProperties: false, 'x-extension': true },
);

export const integrationSettingsRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.engine.store.db;
    const tags = ['integrations', 'extension'];
    const view = (workspaceId: string, s: HubSpotSettings) => ({ provider: 'hubspot' as const, workspaceId, renewalPipelineId: s.renewalPipelineId });

    app.get(
      '/integrations/hubspot/settings',
      {
        schema: {
          tags,
          operationId: 'getHubSpotSettings',
          summary: 'Extension: the HubSpot integration’s settings (its renewal pipeline)',
          description: 'Extension (not in the spec). 400 INTEGRATION_NOT_CONNECTED when HubSpot is not connected.',
          querystring: WorkspaceQuery,
          response: { 200: HubSpotSettingsSchema },
        },
      },
      async (request) => view(request.auth.workspaceId, await getHubSpotSettings(db, request.auth.workspaceId)),
    );

    app.patch(
      '/integrations/hubspot/settings',
      {
        schema: {
          tags,
          operationId: 'updateHubSpotSettings',
          summary: 'Extension: map (or unmap) the HubSpot renewal pipeline',
          description:
            'Extension (not in the spec). With a renewal pipeline mapped, each HubSpot sync reads that pipeline’s deals: a deal closed won records `renewed`, closed lost `churned`, ' +
            'on the client of its primary company, dated by its close date (source `hubspot`); open deals are ignored. A newly mapped pipeline is read from the start on the next sync; ' +
            'unmapping keeps the outcomes already recorded. 400 INTEGRATION_NOT_CONNECTED when HubSpot is not connected (the settings live with the connection).',
          querystring: WorkspaceQuery,
          body: HubSpotSettingsPatch,
          response: { 200: HubSpotSettingsSchema },
        },
      },
      async (request) => {
        const b = request.body;
        const s = await updateHubSpotSettings(db, request.auth.workspaceId, {
          ...(b.renewalPipelineId !== undefined ? { renewalPipelineId: b.renewalPipelineId } : {}),
        });
        return view(request.auth.workspaceId, s);
      },
    );
  };
