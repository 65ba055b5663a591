/**
 * What a health write announces (docs/events.md), recorded in the write's own transaction:
 * - client.risk_entered / risk_cleared: the client's current score crossed the workspace's risk
 *   threshold (a client first scored below it enters risk);
 * - client.score_changed: its score moved by at least settings.events.scoreChangeMinDelta since the
 *   score last announced (so a slow slide is announced once it adds up, not never);
 * - client.churn_intent / client.escalation: its current snapshot carries the signal and the newest
 *   message behind it is at most 7 days old (a history import does not announce last year's
 *   threats); once per newest message, however often history is rebuilt.
 * Excluded clients are tracked but never announced.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import { recordEvent } from '../events/outbox.js';
import type { EventData } from '../events/catalogue.js';
import { addDays, utcDay } from '../util/time.js';
import { round1 } from '../util/numbers.js';
import { explainStanding, storedSignals, type StoredComponents } from './model.js';
import type { SnapshotRow } from './score-client.js';

export interface AnnounceOptions {
  workspaceId: string;
  riskThreshold: number;
  minDelta: number;
  /** The data's "now" (the engine's clock). */
  now: Date;
}

export interface ClientStanding {
  id: string;
  score: number;
  /** The client's newest rebuilt snapshot and the one before it (when rebuilt too). */
  latest?: SnapshotRow | undefined;
  previous?: SnapshotRow | undefined;
}

/** A signal is news while its newest message is at most this old (as the risk alerts). */
const FRESH_DAYS = 7;
const ALERTING = ['churn_intent', 'escalation'] as const;

/** The clients' new `risk_state` and `announced_score`, after recording what changed. */
export async function announceHealth(
  trx: Transaction<Database>,
  clients: ReadonlyArray<ClientStanding>,
  o: AnnounceOptions,
): Promise<Map<string, { riskState: number; announcedScore: number }>> {
  const out = new Map<string, { riskState: number; announcedScore: number }>();
  if (clients.length === 0) return out;
  const rows = await trx
    .selectFrom('clients')
    .select(['id', 'name', 'primary_domain', 'mrr', 'renewal_date', 'csm_owner', 'is_excluded', 'health_score', 'risk_state', 'announced_score'])
    .where(
      'id',
      'in',
      clients.map((c) => c.id),
    )
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const c of clients) {
    const r = byId.get(c.id);
    if (!r) continue;
    const atRisk = c.score < o.riskThreshold;
    const announced = r.announced_score;
    const moved = announced !== null && Math.abs(c.score - announced) >= o.minDelta;
    out.set(c.id, { riskState: atRisk ? 1 : 0, announcedScore: announced === null || moved ? c.score : announced });
    if (r.is_excluded) continue;
    const client = { id: r.id, name: r.name, domain: r.primary_domain, mrr: r.mrr, renewalDate: r.renewal_date, csmOwner: r.csm_owner };
    const cur = c.latest ? c.latest.components : null;
    const prev = c.previous ? { score: c.previous.score, components: c.previous.components } : null;
    const why =
      c.latest?.reason === 'no_data' ? { code: 'no_data', text: c.latest.reason_text ?? 'No interactions yet.' } : explainStanding(c.score, cur, prev);
    const standing = {
      client,
      score: round1(c.score),
      previousScore: r.health_score === null ? null : round1(r.health_score),
      threshold: o.riskThreshold,
      reason: why.code,
      reasonText: why.text,
    };
    const enters = atRisk && r.risk_state !== 1;
    const clears = !atRisk && r.risk_state === 1;
    if (enters || clears)
      await recordEvent(trx, { workspaceId: o.workspaceId, type: enters ? 'client.risk_entered' : 'client.risk_cleared', occurredAt: o.now, data: standing });
    if (moved) {
      const data: EventData<'client.score_changed'> = {
        ...standing,
        previousScore: round1(announced),
        delta: round1(c.score - announced),
        minDelta: o.minDelta,
      };
      await recordEvent(trx, { workspaceId: o.workspaceId, type: 'client.score_changed', occurredAt: o.now, data });
    }
    if (cur && storedSignals(cur).some((x) => ALERTING.some((a) => a === x.code))) await announceSignals(trx, client, c.score, cur, o);
  }
  return out;
}

async function announceSignals(
  trx: Transaction<Database>,
  client: EventData<'client.churn_intent'>['client'],
  score: number,
  components: StoredComponents,
  o: AnnounceOptions,
): Promise<void> {
  const oldest = utcDay(addDays(o.now, -FRESH_DAYS));
  for (const s of storedSignals(components)) {
    const code = ALERTING.find((a) => a === s.code);
    if (!code || s.interactionIds.length === 0) continue;
    const msgs = await trx
      .selectFrom('interactions')
      .select(['id', 'occurred_at'])
      .where('id', 'in', s.interactionIds)
      .orderBy('occurred_at')
      .orderBy('id')
      .execute();
    const newest = msgs.at(-1);
    if (!newest || newest.occurred_at.slice(0, 10) < oldest) continue;
    await recordEvent(trx, {
      workspaceId: o.workspaceId,
      type: code === 'churn_intent' ? 'client.churn_intent' : 'client.escalation',
      occurredAt: o.now,
      data: { client, score: round1(score), text: s.text, interactionIds: msgs.map((m) => m.id), lastMessageAt: newest.occurred_at },
      dedupeKey: `${code}:${client.id}:${newest.id}`,
    });
  }
}
