import type { Kysely } from 'kysely';

// Live progress of a running job (docs/jobs.md#live-progress): `items_read` counts what the job has
// read from its source, stored or not yet, and `live_json` holds what the status derives its rate,
// phase and waits from. Both are written every second or so outside the batch transactions, which
// keep writing the exact stored counts as before.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('items_read', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('jobs').addColumn('live_json', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('live_json').execute();
  await db.schema.alterTable('jobs').dropColumn('items_read').execute();
}
