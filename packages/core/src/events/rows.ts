/** A stored event row as the event delivered and heard (outbox.ts, deliveries.ts). */
import type { Database } from '../store/schema.js';
import { isRecord, readJson } from '../util/json.js';
import { EVENT_VERSION, isEventType, type AnyEngineEvent } from './catalogue.js';

type EventRow = Pick<Database['events'], 'id' | 'workspace_id' | 'type' | 'occurred_at' | 'data_json'>;

/** The event of a stored row; null for a type this version does not know (a newer runner's). */
export function toEvent(r: EventRow): AnyEngineEvent | null {
  if (!isEventType(r.type)) return null;
  return {
    id: r.id,
    type: r.type,
    version: EVENT_VERSION,
    occurredAt: r.occurred_at,
    workspaceId: r.workspace_id,
    data: readJson(r.data_json, isRecord, 'events.data_json'),
  } as AnyEngineEvent;
}
