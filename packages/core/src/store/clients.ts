/** Row builders shared by everything that creates clients (mail ingestion, CRM records, CSV import). */
import type { ClientsTable } from './schema.js';
import { newId } from '../util/ids.js';
import { initialSources } from '../clients/precedence.js';

/** "acme-corp.co.uk" → "Acme Corp": a readable name until a better source names the client. */
export function nameFromDomain(domain: string): string {
  const label = domain.split('.')[0] ?? domain;
  return label
    .split(/[-_]/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

export interface NewClient {
  workspaceId: string;
  /** Registrable domain: the client's primary domain. */
  domain: string;
  /** Default: derived from the domain (name source `domain`). */
  name?: string;
  /**
   * Where the given name, mrr, renewal date and CSM owner came from: `manual`, `hubspot`,
   * `intercom` (clients/precedence.ts). Default `manual`. Attributes not given have no source.
   */
  source?: string;
  /** Older spelling of `source`, still accepted. */
  nameSource?: string;
  mrr?: number | null;
  renewalDate?: string | null;
  csmOwner?: string | null;
  /** Row timestamps (ISO). */
  now: string;
  id?: string;
  /** `active` (default) or `suggested` (resolve/discovery.ts). */
  status?: 'active' | 'suggested';
  /** Why the row exists: a DiscoveryReason (resolve/discovery.ts); default null. */
  discovery?: string | null;
}

export function newClientRow(c: NewClient): ClientsTable {
  const named = c.name?.trim();
  const source = c.source ?? c.nameSource ?? 'manual';
  const values = { mrr: c.mrr ?? null, renewalDate: c.renewalDate ?? null, csmOwner: c.csmOwner ?? null };
  return {
    id: c.id ?? newId('cl'),
    workspace_id: c.workspaceId,
    name: named || nameFromDomain(c.domain),
    name_source: named ? source : 'domain',
    primary_domain: c.domain,
    mrr: values.mrr,
    renewal_date: values.renewalDate,
    csm_owner: values.csmOwner,
    ...initialSources(values, source),
    is_excluded: 0,
    excluded_source: null,
    status: c.status ?? 'active',
    discovery: c.discovery ?? null,
    health_score: null,
    risk_state: null,
    announced_score: null,
    health_stale_from: null,
    health_stale_at: null,
    health_stale_seq: null,
    health_updated_at: null,
    last_interaction_at: null,
    created_at: c.now,
    updated_at: c.now,
  };
}
