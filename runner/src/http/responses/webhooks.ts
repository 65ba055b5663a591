/**
 * Response schemas of the webhook endpoints (routes/webhooks.ts), and the presenters that shape the
 * core's endpoints and deliveries into them. The presenters' types are tied to the schemas below
 * (assertSame), so a field added on one side only fails the build.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DELIVERY_STATES, DISABLED_REASONS, ENDPOINT_KINDS, EVENT_DATA, EVENT_TYPES, type Delivery, type EventType, type WebhookEndpoint } from '@chs/core';
import { assertSame, Count, Nullable, Timestamp } from './common.js';

export const EndpointKindSchema = Type.Union(
  ENDPOINT_KINDS.map((k) => Type.Literal(k)),
  { description: '`standard`: signed Standard Webhooks deliveries of the event as JSON; `slack`: a Slack incoming webhook, sent readable Block Kit messages' },
);

/** A type an endpoint may choose (every type but `webhook.test`, which only “send test event” sends). */
export const SubscribableTypeSchema = Type.Union(
  EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'An event type (GET /settings/webhooks/event-types)' },
);

export const DeliveryStateSchema = Type.Union(
  DELIVERY_STATES.map((s) => Type.Literal(s)),
  { description: '`pending` (due, or waiting for its next retry), `succeeded` (a 2xx answer), `failed` (given up: retries spent, or 410)' },
);

export const WebhookSchema = Type.Object({
  id: Type.String({ description: 'The endpoint id (`wh_…`)' }),
  url: Type.String({ description: 'Where deliveries are POSTed' }),
  events: Type.Array(SubscribableTypeSchema, { description: 'The event types it receives' }),
  kind: EndpointKindSchema,
  enabled: Type.Boolean(),
  disabledReason: Nullable(
    Type.Union(
      DISABLED_REASONS.map((r) => Type.Literal(r)),
      {
        description:
          'Why it is disabled: `user` (by a PATCH or `chs webhooks update --disable`), `gone` (the receiver answered 410), `failing` (no success for days; the admins were e-mailed); null while enabled',
      },
    ),
  ),
  description: Nullable(Type.String()),
  failingSince: Type.Union([Timestamp, Type.Null()], { description: 'The first failed delivery since the last success; null while deliveries succeed' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WebhookView = Static<typeof WebhookSchema>;

export const Secret = Type.String({
  pattern: '^whsec_',
  description: 'The signing secret (`whsec_` + base64), shown in this answer only: verify deliveries with it (Standard Webhooks)',
});

export const CreatedWebhookSchema = Type.Object({ ...WebhookSchema.properties, secret: Secret });

const AttemptSchema = Type.Object({
  at: Timestamp,
  status: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The receiver’s HTTP status; null when none came (refused, timed out, address not allowed)',
  }),
  error: Nullable(Type.String()),
  durationMs: Count,
});

export const DeliverySchema = Type.Object({
  id: Type.String({ description: 'The delivery id (`dlv_…`)' }),
  eventId: Type.String({ description: 'The event id (`evt_…`), sent as `webhook-id`: the same on every attempt and redelivery' }),
  eventType: Type.Union(
    (Object.keys(EVENT_DATA) as EventType[]).map((t) => Type.Literal(t)),
    { description: 'The event’s type (`webhook.test` for a test event)' },
  ),
  state: DeliveryStateSchema,
  attempts: Count,
  nextAttemptAt: Type.Union([Timestamp, Type.Null()], { description: 'When it is tried next (pending only)' }),
  lastStatus: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  lastAttemptAt: Nullable(Timestamp),
  deliveredAt: Nullable(Timestamp),
  createdAt: Timestamp,
  history: Type.Array(AttemptSchema, { description: 'The attempts, oldest first (the latest 20)' }),
});
export type DeliveryView = Static<typeof DeliverySchema>;

export function webhookView(e: WebhookEndpoint): WebhookView {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    kind: e.kind,
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    description: e.description,
    failingSince: e.failingSince,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

export function deliveryView(d: Delivery): DeliveryView {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    state: d.state,
    attempts: d.attempts,
    nextAttemptAt: d.nextAttemptAt,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    lastAttemptAt: d.lastAttemptAt,
    deliveredAt: d.deliveredAt,
    createdAt: d.createdAt,
    history: d.history.map((a) => ({ at: a.at, status: a.status, error: a.error, durationMs: a.durationMs })),
  };
}

assertSame<Omit<WebhookEndpoint, 'workspaceId'>, WebhookView>(true);
assertSame<Omit<Delivery, 'endpointId'>, DeliveryView>(true);
