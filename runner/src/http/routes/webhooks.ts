/**
 * The workspace's webhook endpoints (docs/events.md): create, list, read, update (disable, enable),
 * delete, send a test event, rotate the secret, list deliveries, redeliver one; and the event
 * catalogue. The `whsec_` secret is in the answers of POST /settings/webhooks and
 * POST …/rotate-secret only. A target URL must be https to a public address unless the operator
 * allows http (CHS_WEBHOOKS_ALLOW_HTTP) or private targets (CHS_WEBHOOKS_ALLOW_PRIVATE): otherwise
 * 400 INVALID_INPUT saying why. Endpoints of another workspace are 404 NOT_FOUND, like unknown ones.
 * Neither a URL (a Slack incoming-webhook URL is a secret) nor a secret is ever logged.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  ChsError,
  createEndpoint,
  deleteEndpoint,
  EVENT_DATA,
  EVENT_TYPES,
  eventSchema,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  loadOrCreateSecretKey,
  MAX_ENDPOINTS,
  redeliver,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
  type Db,
  type SecretKey,
  type TargetPolicy,
  type WebhookEndpoint,
} from '@chs/core';
import { DEFAULT_WEBHOOKS_CONFIG } from '../../config.js';
import {
  CreatedWebhookSchema,
  DeliverySchema,
  DeliveryStateSchema,
  deliveryView,
  EndpointKindSchema,
  Secret,
  SubscribableTypeSchema,
  WebhookSchema,
  webhookView,
} from '../responses/webhooks.js';
import { SuccessMessage, WorkspaceId, WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';

const strict = { additionalProperties: false } as const;

const WebhookParams = Type.Object({ webhookId: Type.String({ minLength: 1, maxLength: 200, description: 'The endpoint id (`wh_…`)' }) });
const DeliveryParams = Type.Object({
  ...WebhookParams.properties,
  deliveryId: Type.String({ minLength: 1, maxLength: 200, description: 'The delivery id (`dlv_…`)' }),
});

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'https URL the deliveries are POSTed to (a Slack incoming-webhook URL for kind `slack`). Its host must resolve to public addresses only, ' +
    'unless the operator allows private targets (CHS_WEBHOOKS_ALLOW_PRIVATE); http only when allowed (CHS_WEBHOOKS_ALLOW_HTTP). Checked again at every delivery.',
});
// Plain strings, so an unknown type is answered with the list of known ones (400 INVALID_INPUT).
const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 50,
  description: `Event types to receive, at least one: ${EVENT_TYPES.join(', ')} (GET /settings/webhooks/event-types)`,
});
const Description = Type.Union([Type.String({ maxLength: 500 }), Type.Null()], { description: 'What the endpoint is for (at most 500 characters)' });

const CreateBody = Type.Object(
  {
    url: Url,
    events: EventTypes,
    kind: Type.Optional(EndpointKindSchema),
    description: Type.Optional(Description),
    workspaceId: Type.Optional(WorkspaceId),
  },
  strict,
);

const UpdateBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    enabled: Type.Optional(
      Type.Boolean({
        description: '`false` disables it (disabledReason `user`); `true` enables it again and clears its failure streak: its pending deliveries go out',
      }),
    ),
  },
  { ...strict, minProperties: 1 },
);

const DeliveriesQuery = Type.Object({
  ...WorkspaceQuery.properties,
  state: Type.Optional(DeliveryStateSchema),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1-200 (default 50)' }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'Items to skip (default 0)' }),
});

const WebhookAnswer = Type.Object({ webhook: WebhookSchema });

const EventTypeInfo = Type.Object({
  type: SubscribableTypeSchema,
  description: Type.String(),
  schema: Type.Object({}, { additionalProperties: true, description: 'The JSON Schema of a whole payload of this type (envelope and `data`)' }),
});

function notFound(id: string): ChsError {
  return new ChsError('NOT_FOUND', `webhook endpoint ${id} not found`);
}

async function requireEndpoint(db: Db, workspaceId: string, id: string): Promise<WebhookEndpoint> {
  const found = await getEndpoint(db, workspaceId, id);
  if (!found) throw notFound(id);
  return found;
}

export const webhookRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.engine.store.db;
    const tags = ['webhooks'];
    const wc = deps.config.webhooks ?? DEFAULT_WEBHOOKS_CONFIG;
    const policy: TargetPolicy = { allowPrivate: wc.allowPrivate, allowHttp: wc.allowHttp };
    // The key that seals provider credentials; read (or generated) when a secret is first sealed.
    let key: SecretKey | undefined;
    const secretKey = (): SecretKey => (key ??= loadOrCreateSecretKey(deps.config.dataDir, deps.config.secretKey));

    app.get(
      '/settings/webhooks/event-types',
      {
        schema: {
          tags,
          operationId: 'listWebhookEventTypes',
          summary: 'The event types an endpoint may choose, each with its JSON Schema (docs/events.md)',
          querystring: WorkspaceQuery,
          response: { 200: Type.Object({ eventTypes: Type.Array(EventTypeInfo) }) },
        },
      },
      async () => ({
        eventTypes: EVENT_TYPES.map((type) => ({
          type,
          description: EVENT_DATA[type].description ?? '',
          schema: eventSchema(type),
        })),
      }),
    );

    app.get(
      '/settings/webhooks',
      {
        schema: {
          tags,
          operationId: 'listWebhooks',
          summary: 'The workspace’s webhook endpoints (without their secrets)',
          querystring: WorkspaceQuery,
          response: { 200: Type.Object({ webhooks: Type.Array(WebhookSchema) }) },
        },
      },
      async (request) => ({ webhooks: (await listEndpoints(db, request.auth.workspaceId)).map(webhookView) }),
    );

    app.post(
      '/settings/webhooks',
      {
        schema: {
          tags,
          operationId: 'createWebhook',
          summary: 'Create a webhook endpoint; its signing secret is in this answer only',
          description:
            `At most ${MAX_ENDPOINTS} endpoints per workspace (409 CONFLICT beyond). A URL that is not https, or whose host is (or resolves to) a loopback, private, ` +
            'link-local or metadata address, is 400 INVALID_INPUT unless the operator allows it (CHS_WEBHOOKS_ALLOW_HTTP, CHS_WEBHOOKS_ALLOW_PRIVATE); ' +
            'an unknown event type is 400 INVALID_INPUT naming the known ones.',
          querystring: WorkspaceQuery,
          body: CreateBody,
          response: { 201: Type.Object({ webhook: CreatedWebhookSchema }) },
        },
      },
      async (request, reply) => {
        const { workspaceId } = request.auth;
        const { url, events, kind, description } = request.body;
        const { endpoint, secret } = await createEndpoint(
          db,
          secretKey(),
          { workspaceId, url, events, ...(kind !== undefined ? { kind } : {}), ...(description !== undefined ? { description } : {}) },
          policy,
        );
        request.log.info({ workspaceId, webhookId: endpoint.id, kind: endpoint.kind, events: endpoint.events.length }, 'webhook endpoint created');
        return reply.code(201).send({ webhook: { ...webhookView(endpoint), secret } });
      },
    );

    app.get(
      '/settings/webhooks/:webhookId',
      {
        schema: {
          tags,
          operationId: 'getWebhook',
          summary: 'One webhook endpoint (without its secret)',
          params: WebhookParams,
          querystring: WorkspaceQuery,
          response: { 200: WebhookAnswer },
        },
      },
      async (request) => ({ webhook: webhookView(await requireEndpoint(db, request.auth.workspaceId, request.params.webhookId)) }),
    );

    app.patch(
      '/settings/webhooks/:webhookId',
      {
        schema: {
          tags,
          operationId: 'updateWebhook',
          summary: 'Change an endpoint’s URL, event types or description, or disable and enable it',
          params: WebhookParams,
          querystring: WorkspaceQuery,
          body: UpdateBody,
          response: { 200: WebhookAnswer },
        },
      },
      async (request) => {
        const { workspaceId } = request.auth;
        const { url, events, description, enabled } = request.body;
        const endpoint = await updateEndpoint(
          db,
          workspaceId,
          request.params.webhookId,
          {
            ...(url !== undefined ? { url } : {}),
            ...(events !== undefined ? { events } : {}),
            ...(description !== undefined ? { description } : {}),
            ...(enabled !== undefined ? { enabled } : {}),
          },
          policy,
        );
        // Enabled again: its pending deliveries are due.
        if (enabled === true) deps.webhooks?.nudge();
        request.log.info({ workspaceId, webhookId: endpoint.id, enabled: endpoint.enabled }, 'webhook endpoint updated');
        return { webhook: webhookView(endpoint) };
      },
    );

    app.delete(
      '/settings/webhooks/:webhookId',
      {
        schema: {
          tags,
          operationId: 'deleteWebhook',
          summary: 'Delete an endpoint and its deliveries for good',
          params: WebhookParams,
          querystring: WorkspaceQuery,
          response: { 200: SuccessMessage },
        },
      },
      async (request) => {
        const { workspaceId } = request.auth;
        if (!(await deleteEndpoint(db, workspaceId, request.params.webhookId))) throw notFound(request.params.webhookId);
        request.log.info({ workspaceId, webhookId: request.params.webhookId }, 'webhook endpoint deleted');
        return { success: true, message: 'Webhook endpoint deleted, with its deliveries' };
      },
    );

    app.post(
      '/settings/webhooks/:webhookId/test',
      {
        schema: {
          tags,
          operationId: 'testWebhook',
          summary: 'Queue a `webhook.test` event for this endpoint only',
          description:
            'The event is delivered like any other (signed, retried): watch it in GET …/deliveries. A disabled endpoint gets it too: it is how one checks a receiver before enabling it again.',
          params: WebhookParams,
          querystring: WorkspaceQuery,
          response: {
            202: Type.Object({
              eventId: Type.String({ description: 'The test event’s id: its deliveries carry it as `webhook-id`' }),
              deliveryId: Type.String(),
            }),
          },
        },
      },
      async (request, reply) => {
        const queued = await sendTestEvent(db, request.auth.workspaceId, request.params.webhookId);
        deps.webhooks?.nudge();
        return reply.code(202).send(queued);
      },
    );

    app.post(
      '/settings/webhooks/:webhookId/rotate-secret',
      {
        schema: {
          tags,
          operationId: 'rotateWebhookSecret',
          summary: 'A new signing secret, in this answer only; the previous one still signs (beside it) until previousSecretValidUntil',
          params: WebhookParams,
          querystring: WorkspaceQuery,
          response: {
            200: Type.Object({
              webhook: WebhookSchema,
              secret: Secret,
              previousSecretValidUntil: Type.String({
                format: 'date-time',
                description: 'Until then every delivery carries two signatures, one per secret, so a receiver can switch at its own pace',
              }),
            }),
          },
        },
      },
      async (request) => {
        const { workspaceId } = request.auth;
        const r = await rotateEndpointSecret(db, secretKey(), workspaceId, request.params.webhookId);
        request.log.info({ workspaceId, webhookId: r.endpoint.id, previousValidUntil: r.previousValidUntil }, 'webhook secret rotated');
        return { webhook: webhookView(r.endpoint), secret: r.secret, previousSecretValidUntil: r.previousValidUntil };
      },
    );

    app.get(
      '/settings/webhooks/:webhookId/deliveries',
      {
        schema: {
          tags,
          operationId: 'listWebhookDeliveries',
          summary: 'An endpoint’s deliveries, newest first, with their attempts',
          params: WebhookParams,
          querystring: DeliveriesQuery,
          response: {
            200: Type.Object({ deliveries: Type.Array(DeliverySchema), total: Type.Integer({ minimum: 0, description: 'Deliveries matching (all pages)' }) }),
          },
        },
      },
      async (request) => {
        const { workspaceId } = request.auth;
        const endpoint = await requireEndpoint(db, workspaceId, request.params.webhookId);
        const { state, limit, offset } = request.query;
        const page = await listDeliveries(db, { workspaceId, endpointId: endpoint.id, limit, offset, ...(state !== undefined ? { state } : {}) });
        return { deliveries: page.deliveries.map(deliveryView), total: page.total };
      },
    );

    app.post(
      '/settings/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
      {
        schema: {
          tags,
          operationId: 'redeliverWebhook',
          summary: 'Send a delivery again, now, with the same event id (`webhook-id`)',
          params: DeliveryParams,
          querystring: WorkspaceQuery,
          response: { 202: Type.Object({ delivery: DeliverySchema }) },
        },
      },
      async (request, reply) => {
        const { workspaceId } = request.auth;
        const { webhookId, deliveryId } = request.params;
        await requireEndpoint(db, workspaceId, webhookId);
        const delivery = await redeliver(db, workspaceId, webhookId, deliveryId);
        if (!delivery) throw new ChsError('NOT_FOUND', `delivery ${deliveryId} of webhook endpoint ${webhookId} not found`);
        deps.webhooks?.nudge();
        return reply.code(202).send({ delivery: deliveryView(delivery) });
      },
    );
  };
