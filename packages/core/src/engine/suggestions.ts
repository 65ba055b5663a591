/**
 * Accepting a suggested client, whole: it becomes a scored client (clients/suggestions.ts) and is
 * scored at once over all its stored mail (health/recompute.ts). What the API, the CLI and an
 * embedding service call.
 */
import type { Db } from '../store/database.js';
import { acceptSuggestedClient } from '../clients/suggestions.js';
import { recomputeHealth } from '../health/recompute.js';

/** Accepts the suggestion (by domain or client id) and rebuilds its health; returns its client id. */
export async function acceptAndScoreSuggestion(db: Db, workspaceId: string, domainOrId: string, now: Date): Promise<string> {
  const clientId = await acceptSuggestedClient(db, workspaceId, domainOrId, now);
  await recomputeHealth(db, { workspaceId, clientIds: [clientId], now });
  return clientId;
}
