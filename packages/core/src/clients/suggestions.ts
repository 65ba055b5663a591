/**
 * Suggested clients: domains our mail names that did not qualify as clients under the workspace's
 * discovery policy (resolve/discovery.ts). Their mail is stored under a `suggested` client row;
 * they are not scored and stay out of every metric until the team accepts one (it becomes a
 * scored client over its whole stored history: the caller rebuilds its health) or ignores it
 * (it stays out, and later mail never promotes it).
 */
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { ChsError } from '../errors.js';
import { discoveryText } from '../resolve/discovery.js';
import { registrableDomain } from '../resolve/domains.js';
import { activateClient } from './attributes.js';

export const SUGGESTION_STATUSES = ['suggested', 'ignored'] as const;
export type SuggestionStatus = (typeof SUGGESTION_STATUSES)[number];

export interface SuggestedClient {
  /** The client id it keeps when accepted. */
  clientId: string;
  domain: string;
  name: string;
  status: SuggestionStatus;
  /** Why it is not a client: a DomainRole or `policy` (resolve/discovery.ts). */
  reason: string;
  /** The reason in plain words. */
  reasonText: string;
  /** Stored messages that name it. */
  messages: number;
  /** Of which from someone there. */
  messagesFrom: number;
  /** Distinct addresses there that wrote. */
  people: number;
  firstAt: string | null;
  lastAt: string | null;
}

export interface ListSuggestionsOptions {
  /** Default `suggested`. */
  status?: SuggestionStatus;
  /** Default 50. */
  limit?: number;
  offset?: number;
}

/** Suggested (or ignored) clients: those whose people wrote the most first, then the most mail, then by domain. */
export async function listSuggestedClients(
  db: Db,
  workspaceId: string,
  options: ListSuggestionsOptions = {},
): Promise<{ suggestions: SuggestedClient[]; total: number }> {
  const status = options.status ?? 'suggested';
  const limit = options.limit ?? 50;
  const offset = options.offset ?? 0;
  const base = db.selectFrom('clients as k').where('k.workspace_id', '=', workspaceId).where('k.status', '=', status);
  const total = Number((await base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
  // A message from someone at the domain or one of its subdomains.
  const fromThem = sql<boolean>`(i.from_email like '%@' || k.primary_domain or i.from_email like '%.' || k.primary_domain)`;
  const rows = await base
    .leftJoin('interactions as i', 'i.client_id', 'k.id')
    .select([
      'k.id',
      'k.primary_domain',
      'k.name',
      'k.status',
      'k.discovery',
      sql<number>`count(i.id)`.as('messages'),
      sql<number>`sum(case when ${fromThem} then 1 else 0 end)`.as('from_them'),
      sql<number>`count(distinct case when ${fromThem} then i.from_email end)`.as('people'),
      sql<string | null>`min(i.occurred_at)`.as('first_at'),
      sql<string | null>`max(i.occurred_at)`.as('last_at'),
    ])
    .groupBy(['k.id', 'k.primary_domain', 'k.name', 'k.status', 'k.discovery'])
    // Where people there wrote to us first (the likelier clients), then the most mail.
    .orderBy(sql`sum(case when ${fromThem} then 1 else 0 end)`, 'desc')
    .orderBy(sql`count(i.id)`, 'desc')
    .orderBy('k.primary_domain')
    .limit(limit)
    .offset(offset)
    .execute();
  return {
    total,
    suggestions: rows.map((r) => ({
      clientId: r.id,
      domain: r.primary_domain,
      name: r.name,
      status: r.status as SuggestionStatus,
      reason: r.discovery ?? 'co_recipient',
      reasonText: discoveryText(r.discovery ?? 'co_recipient'),
      messages: Number(r.messages),
      messagesFrom: Number(r.from_them ?? 0),
      people: Number(r.people ?? 0),
      firstAt: r.first_at,
      lastAt: r.last_at,
    })),
  };
}

async function suggestionRow(db: Db, workspaceId: string, domainOrId: string): Promise<{ id: string; status: string; domain: string }> {
  const domain = registrableDomain(domainOrId) ?? domainOrId.toLowerCase();
  const row = await db
    .selectFrom('client_domains as d')
    .innerJoin('clients as k', 'k.id', 'd.client_id')
    .select(['k.id', 'k.status', 'k.primary_domain as domain'])
    .where('d.workspace_id', '=', workspaceId)
    .where('d.domain', '=', domain)
    .executeTakeFirst();
  const byId =
    row ??
    (await db
      .selectFrom('clients')
      .select(['id', 'status', 'primary_domain as domain'])
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', domainOrId)
      .executeTakeFirst());
  if (!byId || byId.status === 'active') throw new ChsError('NOT_FOUND', `no suggested client ${domainOrId}`);
  return byId;
}

/**
 * Accepts a suggestion (by domain or client id): it becomes a scored client with all its stored
 * mail. Returns its client id; its health is not rebuilt here (engine/suggestions.ts does both).
 */
export async function acceptSuggestedClient(db: Db, workspaceId: string, domainOrId: string, now: Date = new Date()): Promise<string> {
  const row = await suggestionRow(db, workspaceId, domainOrId);
  // Never scored while suggested: the caller's rebuild starts from its first interaction.
  await activateClient(db, workspaceId, row.id, 'manual', now);
  return row.id;
}

/** Ignores a suggestion (by domain or client id): it leaves the list; its mail stays stored, and later mail never makes it a client. */
export async function ignoreSuggestedClient(
  db: Db,
  workspaceId: string,
  domainOrId: string,
  now: Date = new Date(),
): Promise<{ clientId: string; domain: string }> {
  const row = await suggestionRow(db, workspaceId, domainOrId);
  await db.updateTable('clients').set({ status: 'ignored', updated_at: now.toISOString() }).where('id', '=', row.id).execute();
  return { clientId: row.id, domain: row.domain };
}
