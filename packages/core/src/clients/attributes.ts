/**
 * Client attributes mail cannot give: mrr, renewal date, CSM owner, exclusion, a manual name and
 * extra domains. Set by `PATCH /clients/{id}` and `chs clients import` as the `manual` source,
 * which outranks every provider (clients/precedence.ts); HubSpot and Intercom set them through
 * the records writer under the same rule.
 */
import { newClientRow } from '../store/clients.js';
import type { Db } from '../store/database.js';
import type { ClientsTable } from '../store/schema.js';
import { ChsError } from '../errors.js';
import { registrableDomain } from '../resolve/domains.js';
import { attributePatch } from './precedence.js';

export interface ClientAttributes {
  name?: string;
  /**
   * Monthly recurring revenue, ≥ 0. null clears it and hands it back to the providers: the next
   * HubSpot / Intercom read of the company that carries a value fills it again.
   */
  mrr?: number | null;
  /** YYYY-MM-DD; null clears it (as mrr). */
  renewalDate?: string | null;
  /** The CSM's e-mail address; null clears it (as mrr). */
  csmOwner?: string | null;
  isExcluded?: boolean;
  /** Extra domains to attach to the client (folded to their registrable domain). */
  domains?: string[];
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A real calendar day written YYYY-MM-DD. */
export function isValidDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/** Checks the values; throws INVALID_INPUT naming the first bad field. */
export function validateAttributes(a: ClientAttributes): void {
  if (a.name !== undefined && a.name.trim() === '') throw new ChsError('INVALID_INPUT', 'name must not be empty');
  if (a.mrr !== undefined && a.mrr !== null && (!Number.isFinite(a.mrr) || a.mrr < 0)) throw new ChsError('INVALID_INPUT', 'mrr must be a number ≥ 0');
  if (a.renewalDate !== undefined && a.renewalDate !== null && !isValidDate(a.renewalDate))
    throw new ChsError('INVALID_INPUT', 'renewalDate must be a date YYYY-MM-DD');
  if (a.csmOwner !== undefined && a.csmOwner !== null && !EMAIL.test(a.csmOwner)) throw new ChsError('INVALID_INPUT', 'csmOwner must be an e-mail address');
  for (const d of a.domains ?? []) {
    if (registrableDomain(d) === null) throw new ChsError('INVALID_DOMAIN', `not a registrable domain: ${d}`);
  }
}

/** Applies attributes to a client of the workspace; returns the updated row. */
export async function updateClientAttributes(
  db: Db,
  workspaceId: string,
  clientId: string,
  attrs: ClientAttributes,
  now: Date = new Date(),
): Promise<ClientsTable> {
  validateAttributes(attrs);
  return db.transaction().execute((trx) => applyClientAttributes(trx, workspaceId, clientId, attrs, now));
}

/** As updateClientAttributes, inside the caller's transaction (`trx` cannot open another). */
export async function applyClientAttributes(trx: Db, workspaceId: string, clientId: string, attrs: ClientAttributes, now: Date): Promise<ClientsTable> {
  {
    const row = await trx
      .selectFrom('clients')
      .selectAll()
      .where('id', '=', clientId)
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (!row) throw new ChsError('CLIENT_NOT_FOUND', `client ${clientId} not found`);
    await attachDomains(trx, workspaceId, clientId, attrs.domains ?? []);
    // By hand: outranks every provider, so every value given is written and pinned as `manual`.
    const patch: Partial<ClientsTable> = {
      ...attributePatch(
        row,
        {
          name: attrs.name?.trim(),
          mrr: attrs.mrr,
          renewalDate: attrs.renewalDate,
          csmOwner: attrs.csmOwner === null ? null : attrs.csmOwner?.toLowerCase(),
          isExcluded: attrs.isExcluded,
        },
        'manual',
      ),
      updated_at: now.toISOString(),
    };
    await trx.updateTable('clients').set(patch).where('id', '=', clientId).execute();
    return trx.selectFrom('clients').selectAll().where('id', '=', clientId).executeTakeFirstOrThrow();
  }
}

async function attachDomains(db: Db, workspaceId: string, clientId: string, domains: string[]): Promise<void> {
  for (const raw of domains) {
    const domain = registrableDomain(raw);
    if (domain === null) throw new ChsError('INVALID_DOMAIN', `not a registrable domain: ${raw}`);
    const owner = await db
      .selectFrom('client_domains')
      .select('client_id')
      .where('workspace_id', '=', workspaceId)
      .where('domain', '=', domain)
      .executeTakeFirst();
    if (owner && owner.client_id !== clientId) throw new ChsError('CONFLICT', `domain ${domain} already belongs to client ${owner.client_id}`);
    if (!owner) await db.insertInto('client_domains').values({ workspace_id: workspaceId, domain, client_id: clientId }).execute();
  }
}

/** The client owning a domain, or null. */
export async function findClientByDomain(db: Db, workspaceId: string, domain: string): Promise<string | null> {
  const row = await db.selectFrom('client_domains').select('client_id').where('workspace_id', '=', workspaceId).where('domain', '=', domain).executeTakeFirst();
  return row?.client_id ?? null;
}

/**
 * Makes a suggested or ignored client a scored one (`reason`: why, a DiscoveryReason). True when
 * it was not active before. Its mail is already stored: the caller rebuilds its health.
 */
export async function activateClient(db: Db, workspaceId: string, clientId: string, reason: string, now: Date = new Date()): Promise<boolean> {
  const res = await db
    .updateTable('clients')
    .set({ status: 'active', discovery: reason, updated_at: now.toISOString() })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', clientId)
    .where('status', '<>', 'active')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Creates a client for a domain (its name derived from the domain unless given). */
export async function createClient(db: Db, workspaceId: string, domain: string, name: string | undefined, now: Date = new Date()): Promise<string> {
  const row = newClientRow({ workspaceId, domain, ...(name !== undefined ? { name } : {}), source: 'manual', now: now.toISOString(), discovery: 'manual' });
  const id = row.id;
  await db.insertInto('clients').values(row).execute();
  await db.insertInto('client_domains').values({ workspace_id: workspaceId, domain, client_id: id }).execute();
  return id;
}
