/**
 * The event catalogue (docs/events.md): one TypeBox schema per event type, which is at once the
 * JSON Schema the docs and the OpenAPI document publish, the TypeScript type embedders listen with,
 * and what the tests validate every delivered payload against. Version 1: a field may be added
 * within a version; renaming or removing one makes version 2.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** The envelope's version: the `version` of every payload. */
export const EVENT_VERSION = 1;

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

const ClientRef = Type.Object(
  {
    id: Type.String({ description: 'The client id (`cl_…`)' }),
    name: Type.String(),
    domain: Type.String({ description: 'The client’s primary domain' }),
    mrr: Nullable(Type.Number({ description: 'Monthly recurring revenue, in the workspace’s currency' })),
    renewalDate: Nullable(Type.String({ description: 'YYYY-MM-DD' })),
    csmOwner: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

const Standing = {
  client: ClientRef,
  score: Type.Number({ minimum: 0, maximum: 100, description: 'The client’s health score now' }),
  previousScore: Nullable(Type.Number({ minimum: 0, maximum: 100, description: 'Its score before this change; null when it had none' })),
  threshold: Type.Number({ description: 'The workspace’s risk threshold (settings.riskThreshold)' }),
  reason: Type.String({ description: 'Reason code, as in the client’s health history' }),
  reasonText: Type.String({ description: 'The reason, in one sentence' }),
};

const RiskSignal = {
  client: ClientRef,
  score: Nullable(Type.Number({ minimum: 0, maximum: 100 })),
  text: Type.String({ description: 'What the client said (the churn sentence), or what the escalation is' }),
  interactionIds: Type.Array(Type.String(), { description: 'The messages that show it, oldest first' }),
  lastMessageAt: Type.String({ description: 'ISO 8601: when the newest of them was sent' }),
};

const JobRef = Type.Object(
  {
    id: Type.String(),
    kind: Type.String({ description: '`sync`, `backfill` or `ingest`' }),
    source: Type.String({ description: 'The provider, e.g. `google`' }),
    itemsProcessed: Type.Integer(),
    itemsAdded: Type.Integer(),
    itemsUpdated: Type.Integer(),
    itemsSkipped: Type.Integer(),
    errorsCount: Type.Integer(),
    startedAt: Nullable(Type.String()),
    completedAt: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

const strict = { additionalProperties: false } as const;

/** Each type's `data`. */
export const EVENT_DATA = {
  'client.risk_entered': Type.Object(Standing, { ...strict, description: 'A client’s score fell below the risk threshold (or it was first scored below it).' }),
  'client.risk_cleared': Type.Object(Standing, { ...strict, description: 'A client at risk is back at or above the threshold.' }),
  'client.score_changed': Type.Object(
    {
      ...Standing,
      delta: Type.Number({ description: 'score − previousScore' }),
      minDelta: Type.Number({ description: 'settings.events.scoreChangeMinDelta' }),
    },
    { ...strict, description: 'A client’s score moved by at least the workspace’s minDelta since the score last announced.' },
  ),
  'client.churn_intent': Type.Object(RiskSignal, { ...strict, description: 'A client said it may leave (a message at most 7 days old).' }),
  'client.escalation': Type.Object(RiskSignal, { ...strict, description: 'A client is escalating (chasers, several people, mail left unanswered).' }),
  'client.suggested': Type.Object(
    {
      client: Type.Object({ id: Type.String(), name: Type.String(), domain: Type.String() }, strict),
      discovery: Type.String({
        description: 'Why it is only suggested (docs/client-discovery.md): `cc_only`, `co_recipient`, `mass_mail`, `role_sender`, `policy`…',
      }),
    },
    { ...strict, description: 'Mail named a domain that did not qualify as a client: the team may accept it.' },
  ),
  'job.completed': Type.Object({ job: JobRef }, { ...strict, description: 'A sync, backfill or ingestion job finished.' }),
  'job.failed': Type.Object({ job: JobRef, error: Type.String() }, { ...strict, description: 'A job failed for good (it will not be retried).' }),
  'integration.needs_reauth': Type.Object(
    {
      provider: Type.String({ description: '`google`, `hubspot` or `intercom`' }),
      account: Nullable(Type.String({ description: 'The mailbox or portal, when the provider has several' })),
      reason: Type.String(),
    },
    { ...strict, description: 'A connected account’s credentials were refused: someone must connect it again.' },
  ),
  'webhook.test': Type.Object(
    { message: Type.String(), endpointId: Type.String() },
    { ...strict, description: 'Sent by “send test event” to that endpoint only; no endpoint subscribes to it.' },
  ),
} as const;

export type EventType = keyof typeof EVENT_DATA;
/** Types an endpoint or a listener can choose (every type but `webhook.test`). */
export const EVENT_TYPES = (Object.keys(EVENT_DATA) as EventType[]).filter((t) => t !== 'webhook.test');
export type SubscribableEventType = Exclude<EventType, 'webhook.test'>;

export function isEventType(v: unknown): v is EventType {
  return typeof v === 'string' && Object.hasOwn(EVENT_DATA, v);
}

export type EventData<T extends EventType> = Static<(typeof EVENT_DATA)[T]>;

/** What a webhook receives and an in-process listener is given. */
export interface EngineEvent<T extends EventType = EventType> {
  /** `evt_…`: also the delivery's `webhook-id`, the same on every retry. */
  id: string;
  type: T;
  version: typeof EVENT_VERSION;
  /** ISO 8601: when the change happened (the engine's clock). */
  occurredAt: string;
  workspaceId: string;
  data: EventData<T>;
}

/** Any event, narrowed by its `type`. */
export type AnyEngineEvent = { [T in EventType]: EngineEvent<T> }[EventType];

/** The JSON Schema of a whole payload of type `t`. */
export function eventSchema(t: EventType): TSchema {
  return Type.Object(
    {
      id: Type.String({ pattern: '^evt_' }),
      type: Type.Literal(t),
      version: Type.Literal(EVENT_VERSION),
      occurredAt: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T', description: 'ISO 8601, UTC' }),
      workspaceId: Type.String(),
      data: EVENT_DATA[t],
    },
    { additionalProperties: false, $id: `https://customer-health-service.dev/schemas/events/${t}.v${EVENT_VERSION}.json`, title: t },
  );
}
