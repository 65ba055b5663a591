import { sql, type Kysely } from 'kysely';

// Immutable once landed. Where each client attribute came from, as name_source already says for
// the name, so that a sync of a less authoritative source never overwrites a value set by a more
// authoritative one (clients/precedence.ts): `manual` (PATCH /clients/{id}, `chs clients import`),
// `hubspot`, `intercom`; null when no source holds the attribute.
//
// Backfill. Until now the last writer won and nothing recorded who it was, so a value present
// today is attributed by where it can have come from. Only the records writer (for a company it
// links in external_refs) and PATCH / the CSV import set mrr, renewal_date and csm_owner, so:
// - a client no provider company is linked to got its values by hand: `manual` (certain);
// - a client linked to a HubSpot company: `hubspot`, else linked to an Intercom one: `intercom`.
//   A hand-set value there may be labelled as the provider's; the provider's next read of that
//   company can then replace it, which is what happened before this migration anyway, and setting
//   it again by hand pins it. Calling provider values `manual` instead would pin them silently
//   and stop the CRM's updates forever, which is worse.
// is_excluded = 1 was only ever set by hand: `manual`; 0 is the default: null.

const linked = (provider: string) =>
  sql`exists (select 1 from external_refs r where r.workspace_id = clients.workspace_id and r.kind = 'company' and r.provider = ${sql.lit(provider)} and r.internal_id = clients.id)`;

const COLUMNS = [
  ['mrr_source', 'mrr'],
  ['renewal_source', 'renewal_date'],
  ['csm_source', 'csm_owner'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  for (const [source] of COLUMNS) await db.schema.alterTable('clients').addColumn(source, 'text').execute();
  await db.schema.alterTable('clients').addColumn('excluded_source', 'text').execute();
  for (const [source, value] of COLUMNS) {
    await sql`update clients set ${sql.ref(source)} = case when ${linked('hubspot')} then 'hubspot' when ${linked('intercom')} then 'intercom' else 'manual' end where ${sql.ref(value)} is not null`.execute(
      db,
    );
  }
  await sql`update clients set excluded_source = 'manual' where is_excluded = 1`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('clients').dropColumn('excluded_source').execute();
  for (const [source] of [...COLUMNS].reverse()) await db.schema.alterTable('clients').dropColumn(source).execute();
}
