/**
 * The webhook routes of issue 26 (/api/settings/webhooks…), typed in the shape openapi-typescript
 * generates, until they are in the runner's OpenAPI document and so in
 * runner/src/http/openapi-types.ts. Then this file goes: `webhooksApi` becomes the ApiClient itself
 * and the types come from `Answer<…>`, as for every other call.
 */
import type { Client } from 'openapi-fetch';
import type { ApiClient } from './api.js';

type Json<T> = { headers: { [name: string]: unknown }; content: { 'application/json': T } };
type Failure = Json<{ error: string; code: string; status: number }>;
type Responses<S extends number, T> = { [K in S]: Json<T> } & { '4XX': Failure; '5XX': Failure };
type WorkspaceQuery = { workspaceId: string };
type Params<Q, P = never> = [P] extends [never]
  ? { query: Q; header?: never; path?: never; cookie?: never }
  : { query: Q; header?: never; path: P; cookie?: never };
type Body<B> = { content: { 'application/json': B } };
type NoMethods = { parameters: { query?: never; header?: never; path?: never; cookie?: never }; options?: never; head?: never; trace?: never };

export type WebhookEventType =
  | 'client.risk_entered'
  | 'client.risk_cleared'
  | 'client.score_changed'
  | 'client.churn_intent'
  | 'client.escalation'
  | 'client.suggested'
  | 'job.completed'
  | 'job.failed'
  | 'integration.needs_reauth';

export interface Webhook {
  id: string;
  url: string;
  events: WebhookEventType[];
  kind: 'standard' | 'slack';
  enabled: boolean;
  disabledReason: 'user' | 'gone' | 'failing' | null;
  description: string | null;
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookDelivery {
  id: string;
  eventId: string;
  /** A subscribed type, or `webhook.test` for "send test event". */
  eventType: string;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
  history: { at: string; status: number | null; error: string | null; durationMs: number }[];
}

type WebhookId = { webhookId: string };

export interface WebhookPaths {
  '/api/settings/webhooks': NoMethods & {
    get: { parameters: Params<WorkspaceQuery>; requestBody?: never; responses: Responses<200, { webhooks: Webhook[] }> };
    post: {
      parameters: Params<WorkspaceQuery>;
      requestBody: Body<{ url: string; events: WebhookEventType[]; kind?: Webhook['kind']; description?: string }>;
      responses: Responses<201, { webhook: Webhook & { secret: string } }>;
    };
    put?: never;
    patch?: never;
    delete?: never;
  };
  '/api/settings/webhooks/event-types': NoMethods & {
    get: {
      parameters: Params<WorkspaceQuery>;
      requestBody?: never;
      responses: Responses<200, { eventTypes: { type: WebhookEventType; description: string; schema: unknown }[] }>;
    };
    post?: never;
    put?: never;
    patch?: never;
    delete?: never;
  };
  '/api/settings/webhooks/{webhookId}': NoMethods & {
    patch: {
      parameters: Params<WorkspaceQuery, WebhookId>;
      requestBody: Body<{ url?: string; events?: WebhookEventType[]; description?: string; enabled?: boolean }>;
      responses: Responses<200, { webhook: Webhook }>;
    };
    delete: { parameters: Params<WorkspaceQuery, WebhookId>; requestBody?: never; responses: Responses<200 | 204, unknown> };
    get?: never;
    post?: never;
    put?: never;
  };
  '/api/settings/webhooks/{webhookId}/test': NoMethods & {
    post: { parameters: Params<WorkspaceQuery, WebhookId>; requestBody?: never; responses: Responses<202, { eventId: string; deliveryId: string }> };
    get?: never;
    put?: never;
    patch?: never;
    delete?: never;
  };
  '/api/settings/webhooks/{webhookId}/rotate-secret': NoMethods & {
    post: {
      parameters: Params<WorkspaceQuery, WebhookId>;
      requestBody?: never;
      responses: Responses<200, { webhook: Webhook; secret: string; previousSecretValidUntil: string }>;
    };
    get?: never;
    put?: never;
    patch?: never;
    delete?: never;
  };
  '/api/settings/webhooks/{webhookId}/deliveries': NoMethods & {
    get: {
      parameters: Params<WorkspaceQuery & { state?: WebhookDelivery['state']; limit?: number; offset?: number }, WebhookId>;
      requestBody?: never;
      responses: Responses<200, { deliveries: WebhookDelivery[]; total: number }>;
    };
    post?: never;
    put?: never;
    patch?: never;
    delete?: never;
  };
  '/api/settings/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver': NoMethods & {
    post: {
      parameters: Params<WorkspaceQuery, WebhookId & { deliveryId: string }>;
      requestBody?: never;
      responses: Responses<202, { delivery: WebhookDelivery }>;
    };
    get?: never;
    put?: never;
    patch?: never;
    delete?: never;
  };
}

/** The same client (its base URL and key), typed with the webhook routes. */
export function webhooksApi(api: ApiClient): Client<WebhookPaths> {
  return api as unknown as Client<WebhookPaths>;
}
