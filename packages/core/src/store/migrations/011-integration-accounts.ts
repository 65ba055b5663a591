import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

// Immutable once landed. Several accounts of one provider per workspace (each CSM connects their
// own mailbox): `integrations.account` names the account within (workspace, provider) — the
// lower-cased mailbox address for Google, '' for providers with one account per workspace
// (HubSpot, Intercom) — and the unique key becomes (workspace_id, provider, account).
// Existing Google rows take their address; their cursors move to the per-account key
// (`<key>:<address>`), so the next sync continues where it was instead of reading everything again.
const COLUMNS = [
  'id',
  'workspace_id',
  'provider',
  'status',
  'account_email',
  'credentials_enc',
  'scope',
  'expires_at',
  'has_refresh',
  'config_json',
  'last_sync_at',
  'last_error',
  'created_at',
  'updated_at',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await db.schema
      .alterTable('integrations')
      .addColumn('account', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    // The constraint of 001, or the index `down` leaves in its place.
    await sql`alter table integrations drop constraint if exists integrations_workspace_provider`.execute(db);
    await sql`drop index if exists integrations_workspace_provider`.execute(db);
  } else {
    // SQLite cannot drop a table's unique constraint: the table is rebuilt (nothing references it).
    await db.schema
      .createTable('integrations_next')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('account', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('account_email', 'text')
      .addColumn('credentials_enc', 'text', (c) => c.notNull())
      .addColumn('scope', 'text')
      .addColumn('expires_at', 'text')
      .addColumn('has_refresh', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('config_json', 'text')
      .addColumn('last_sync_at', 'text')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    const cols = sql.join(COLUMNS.map((c) => sql.ref(c)));
    await sql`insert into integrations_next (${cols}) select ${cols} from integrations`.execute(db);
    await db.schema.dropTable('integrations').execute();
    await db.schema.alterTable('integrations_next').renameTo('integrations').execute();
  }
  await sql`update integrations set account = lower(account_email) where provider = 'google' and account_email is not null`.execute(db);
  await db.schema.createIndex('integrations_workspace_provider_account').unique().on('integrations').columns(['workspace_id', 'provider', 'account']).execute();
  await sql`
    update source_cursors set source_key = source_key || ':' || (
      select i.account from integrations i where i.workspace_id = source_cursors.workspace_id and i.provider = 'google' and i.account <> ''
    )
    where (source_key = 'google' or source_key like 'google:%')
      and (select count(*) from integrations i where i.workspace_id = source_cursors.workspace_id and i.provider = 'google' and i.account <> '') = 1
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('integrations_workspace_provider_account').execute();
  await db.schema.alterTable('integrations').dropColumn('account').execute();
  // Fails while a workspace holds two accounts of one provider: disconnect the extra ones first.
  await db.schema.createIndex('integrations_workspace_provider').unique().on('integrations').columns(['workspace_id', 'provider']).execute();
}
