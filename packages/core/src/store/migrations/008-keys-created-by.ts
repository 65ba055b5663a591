import type { Kysely } from 'kysely';

// Immutable once landed. Who made each API key: the id of the key whose request created it
// (POST /settings/api-keys), or `cli` (chs init, chs keys create, the library). Keys made before
// this migration keep null: nothing recorded who made them, and guessing would be a false record.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('created_by', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('created_by').execute();
}
