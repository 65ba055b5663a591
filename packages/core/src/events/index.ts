export {
  EVENT_DATA,
  EVENT_TYPES,
  EVENT_VERSION,
  eventSchema,
  isEventType,
  type AnyEngineEvent,
  type EngineEvent,
  type EventData,
  type EventType,
  type SubscribableEventType,
} from './catalogue.js';
export { getEvent, recordEvent, type NewEvent } from './outbox.js';
export {
  DEFAULT_RETRY_SCHEDULE_MS,
  DELIVERY_STATES,
  deliveryBacklog,
  getDelivery,
  listDeliveries,
  redeliver,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryState,
  type ListDeliveriesQuery,
} from './deliveries.js';
export {
  DISABLED_REASONS,
  ENDPOINT_KINDS,
  MAX_ENDPOINTS,
  SECRET_GRACE_MS,
  checkTargetUrl,
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  refusedAddress,
  resealEndpointSecrets,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
  type CreateEndpointInput,
  type DisabledReason,
  type EndpointKind,
  type TargetPolicy,
  type UpdateEndpointInput,
  type WebhookEndpoint,
} from './endpoints.js';
export { WebhookDispatcher, signatureHeaders, type AttemptReport, type DispatcherOptions } from './dispatcher.js';
export { slackMessage, SLACK_LIMITS, type SlackMessage, type SlackFormatOptions } from './slack.js';
export type { EngineEvents, EventListener } from './emitter.js';
