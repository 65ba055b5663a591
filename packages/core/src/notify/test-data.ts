/**
 * Hand-made fixtures for notification tests (core and runner): rows inserted straight into the
 * store so each test states every number it relies on. Not used by the engine itself.
 */
import type { Db } from '../store/database.js';
import { storeSnapshots } from '../health/write.js';

/**
 * A snapshot of `score` whose contributions put everything above 30 into sentiment (the other
 * three give 10 each), so any fall is explained by sentiment: `sentiment_declining`.
 */
export async function seedSnapshot(db: Db, workspaceId: string, clientId: string, date: string, score: number, evidenceIds: string[] = []): Promise<void> {
  const comp = (c: number, w: number) => ({ value: c / w, weight: w, contribution: c });
  await storeSnapshots(db, [
    {
      workspace_id: workspaceId,
      client_id: clientId,
      date,
      score,
      confidence: 1,
      components: { sentiment: comp(score - 30, 0.4), engagement: comp(10, 0.2), responsiveness: comp(10, 0.2), recency: comp(10, 0.2) },
      reason: 'stable',
      reason_text: '',
      evidence: { interactionIds: evidenceIds },
    },
  ]);
}

/** Several days of one client's scores: `{ '2024-05-19': 80, … }`. */
export async function seedScores(db: Db, workspaceId: string, clientId: string, scores: Record<string, number>): Promise<void> {
  for (const [date, score] of Object.entries(scores)) await seedSnapshot(db, workspaceId, clientId, date, score);
}

export interface SeedClient {
  id: string;
  name?: string;
  domain?: string;
  mrr?: number | null;
  renewalDate?: string | null;
  csmOwner?: string | null;
  excluded?: boolean;
  /** Current score (clients.health_score); null = never scored. */
  score?: number | null;
  /** When the current score was computed. Default 2024-05-20T00:00:00.000Z. */
  scoredAt?: string;
}

export async function seedClient(db: Db, workspaceId: string, c: SeedClient): Promise<void> {
  const at = '2024-01-01T00:00:00.000Z';
  await db
    .insertInto('clients')
    .values({
      id: c.id,
      workspace_id: workspaceId,
      name: c.name ?? c.id,
      name_source: 'manual',
      primary_domain: c.domain ?? `${c.id}.test`,
      mrr: c.mrr ?? null,
      renewal_date: c.renewalDate ?? null,
      csm_owner: c.csmOwner ?? null,
      is_excluded: c.excluded ? 1 : 0,
      status: 'active',
      discovery: null,
      health_score: c.score ?? null,
      health_updated_at: c.score === undefined || c.score === null ? null : (c.scoredAt ?? '2024-05-20T00:00:00.000Z'),
      last_interaction_at: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
}

export async function seedInteraction(
  db: Db,
  workspaceId: string,
  i: { id: string; clientId: string; at: string; subject: string; sentiment: number; from?: string },
): Promise<void> {
  await db
    .insertInto('interactions')
    .values({
      id: i.id,
      workspace_id: workspaceId,
      client_id: i.clientId,
      type: 'email',
      source: 'mbox',
      dedupe_key: i.id,
      provider_id: null,
      thread_id: null,
      subject: i.subject,
      summary: i.subject,
      sentiment_label: i.sentiment < -0.05 ? 'negative' : i.sentiment > 0.05 ? 'positive' : 'neutral',
      sentiment_score: i.sentiment,
      occurred_at: i.at,
      from_email: i.from ?? `them@${i.clientId}.test`,
      to_emails: 'me@us.test',
      direction: 'inbound',
      opened: null,
      signals: 0,
      addressed: 1,
      role: null,
      topic: null,
      content_hash: i.id,
      created_at: i.at,
      updated_at: i.at,
    })
    .execute();
}
