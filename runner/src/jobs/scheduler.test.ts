import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DAY_MS,
  connectIntegration,
  createWorkspace,
  enqueueJob,
  listJobs,
  markIntegrationSynced,
  markNeedsReauth,
  transitionJob,
  updateSettings,
  type Db,
} from '@chs/core';
import { dropTestSchemas, storeSnapshots, testDialects } from '@chs/core/testing';
import { Scheduler } from './scheduler.js';

afterAll(async () => {
  await dropTestSchemas();
});

const KEY = randomBytes(32);
const MIN = 60_000;

async function seedClient(db: Db, ws: string, at: string): Promise<void> {
  await db
    .insertInto('clients')
    .values({
      id: `cl_${ws}`,
      workspace_id: ws,
      name: 'Globex',
      name_source: 'domain',
      primary_domain: `globex-${ws}`,
      mrr: null,
      renewal_date: null,
      csm_owner: null,
      is_excluded: 0,
      status: 'active',
      health_score: null,
      health_updated_at: null,
      last_interaction_at: at,
      created_at: at,
      updated_at: at,
    })
    .execute();
  await db
    .insertInto('interactions')
    .values({
      id: `in_${ws}`,
      workspace_id: ws,
      client_id: `cl_${ws}`,
      type: 'email',
      source: 'google',
      dedupe_key: 'k',
      provider_id: null,
      thread_id: null,
      subject: 's',
      summary: 's',
      sentiment_label: 'positive',
      sentiment_score: 0.5,
      occurred_at: at,
      from_email: 'a@globex.com',
      to_emails: `rep@${ws}`,
      direction: 'inbound',
      opened: null,
      signals: 0,
      addressed: 1,
      content_hash: 'h',
      created_at: at,
      updated_at: at,
    })
    .execute();
}

const snapshotDays = async (db: Db, ws: string) =>
  (
    await db
      .selectFrom('health_snapshots')
      .select('date')
      .where('client_id', 'in', db.selectFrom('clients').select('id').where('workspace_id', '=', ws))
      .orderBy('date')
      .execute()
  ).map((r) => r.date);

describe.each(await testDialects())('Scheduler.tick with a fake clock ($name)', (dialect) => {
  it('queues quick syncs per interval, runs the daily snapshot once per local day of each workspace, and treats JOB_CONFLICT as "already active"', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await createWorkspace(db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
      await createWorkspace(db, { domain: 'initech.com', name: 'Initech', ownerEmail: 'bo@initech.com' });
      await updateSettings(db, 'acme.com', { timezone: 'America/New_York', syncIntervalMinutes: 30 });
      await connectIntegration(db, KEY, { workspaceId: 'acme.com', provider: 'google', credentials: { accessToken: 'a', email: 'rep@acme.com' } });
      await connectIntegration(db, KEY, { workspaceId: 'acme.com', provider: 'hubspot', credentials: { accessToken: 'b' } });
      await markNeedsReauth(db, 'acme.com', 'hubspot', 'invalid_grant');
      await seedClient(db, 'acme.com', '2024-05-10T10:00:00.000Z');
      await seedClient(db, 'initech.com', '2024-05-10T10:00:00.000Z');

      let now = new Date('2024-05-20T03:30:00Z'); // New York: 2024-05-19 23:30; UTC: 2024-05-20
      let nudged = 0;
      const scheduler = new Scheduler({
        db,
        dataClock: () => now,
        onEnqueued: () => {
          nudged += 1;
        },
      });

      let r = await scheduler.tick(now);
      expect(r.errors).toEqual([]);
      // Google is due (never synced); HubSpot needs re-auth and is left alone; initech has nothing connected.
      expect(r.syncsQueued.map((s) => [s.workspaceId, s.provider])).toEqual([['acme.com', 'google']]);
      expect(nudged).toBe(1);
      expect(r.daily.map((d) => [d.workspaceId, d.localDay])).toEqual([
        ['acme.com', '2024-05-19'],
        ['initech.com', '2024-05-20'],
      ]);
      expect((await snapshotDays(db, 'acme.com')).at(-1)).toBe('2024-05-20');
      const googleJob = (await listJobs(db, { workspaceId: 'acme.com', limit: 10, offset: 0 })).jobs[0]!;
      expect(googleJob).toMatchObject({ kind: 'sync', source: 'google', state: 'queued', params: { mode: 'quick' } });

      // 10 minutes later: nothing is due, and the daily work of both local days is done.
      await db.deleteFrom('health_snapshots').execute();
      now = new Date(now.getTime() + 10 * MIN);
      r = await scheduler.tick(now);
      expect(r.syncsQueued).toEqual([]);
      expect(r.daily).toEqual([]);
      expect(await snapshotDays(db, 'acme.com')).toEqual([]);

      // The sync ran and finished at +5 min.
      await transitionJob(db, googleJob.id, 'queued', 'running', { patch: { leaseOwner: 'w' } });
      await transitionJob(db, googleJob.id, 'running', 'completed', { owner: 'w' });
      await markIntegrationSynced(db, 'acme.com', 'google', new Date(Date.parse('2024-05-20T03:35:00Z')));

      // 00:01 in New York: acme's new local day (its snapshot is written again); still 2024-05-20 in UTC for initech.
      now = new Date('2024-05-20T04:01:00Z');
      r = await scheduler.tick(now);
      expect(r.syncsQueued).toEqual([]); // last sync 26 min ago < 30
      expect(r.daily.map((d) => [d.workspaceId, d.localDay])).toEqual([['acme.com', '2024-05-20']]);
      expect((await snapshotDays(db, 'acme.com')).at(-1)).toBe('2024-05-20');
      expect(await snapshotDays(db, 'initech.com')).toEqual([]);

      // 36 min after the last sync it is due again — but a backfill holds google's slot: JOB_CONFLICT means "already active", no error.
      const backfill = await enqueueJob(db, { workspaceId: 'acme.com', kind: 'backfill', source: 'google', params: { since: '2024-01-01T00:00:00Z' } });
      now = new Date('2024-05-20T04:11:00Z');
      r = await scheduler.tick(now);
      expect(r).toMatchObject({ syncsQueued: [], errors: [] });
      await transitionJob(db, backfill.id, 'queued', 'cancelled');
      now = new Date('2024-05-20T04:12:00Z');
      r = await scheduler.tick(now);
      expect(r.syncsQueued.map((s) => s.provider)).toEqual(['google']);
    } finally {
      await store.close();
    }
  });

  it('prunes jobs, job events, ingestion errors and runs, sessions and snapshots older than dataRetentionDays, and keeps the rest', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await createWorkspace(db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
      await updateSettings(db, 'acme.com', { dataRetentionDays: 30 });
      const now = new Date('2024-05-20T12:00:00Z');
      const old = new Date(now.getTime() - 40 * DAY_MS);
      const recent = new Date(now.getTime() - 2 * DAY_MS);
      const jobAt = async (at: Date, source: string) => {
        const j = await enqueueJob(db, { workspaceId: 'acme.com', kind: 'sync', source }, at);
        await transitionJob(db, j.id, 'queued', 'running', { now: at, patch: { leaseOwner: 'w' } });
        await transitionJob(db, j.id, 'running', 'completed', { now: at, owner: 'w' });
        return j.id;
      };
      const oldJob = await jobAt(old, 'google');
      const newJob = await jobAt(recent, 'hubspot');
      const run = (id: string, at: Date) =>
        db
          .insertInto('ingestion_runs')
          .values({
            id,
            workspace_id: 'acme.com',
            job_id: null,
            source: 'mbox',
            status: 'completed',
            started_at: at.toISOString(),
            completed_at: at.toISOString(),
            filtered_json: '{}',
            skipped_json: '{}',
            items_processed: 1,
            items_added: 1,
            items_updated: 0,
            items_skipped: 0,
            items_filtered: 0,
            errors_count: 1,
            parse_errors: 1,
            charset_errors: 0,
            attachment_errors: 0,
            sentiment_errors: 0,
            clients_created: 0,
            contacts_created: 0,
          })
          .execute();
      await run('run_old', old);
      await run('run_new', recent);
      await db
        .insertInto('ingestion_errors')
        .values([
          { run_id: 'run_old', at: old.toISOString(), kind: 'parse', reason: 'bad', location: 'x' },
          { run_id: 'run_new', at: recent.toISOString(), kind: 'parse', reason: 'bad', location: 'y' },
        ])
        .execute();
      await db
        .insertInto('ingestion_sessions')
        .values({
          id: 'ing_old',
          workspace_id: 'acme.com',
          job_id: null,
          status: 'completed',
          config_json: '{}',
          stats_json: '{}',
          errors_json: '[]',
          started_at: old.toISOString(),
          updated_at: old.toISOString(),
          completed_at: old.toISOString(),
        })
        .execute();
      await seedClient(db, 'acme.com', old.toISOString());
      const snap = (date: string) => ({
        workspace_id: 'acme.com',
        client_id: 'cl_acme.com',
        date,
        score: 60,
        confidence: 1,
        components: {},
        reason: null,
        reason_text: null,
        evidence: null,
      });
      await storeSnapshots(db, [snap('2024-04-10'), snap('2024-04-19'), snap('2024-04-20'), snap('2024-05-01')]);

      const r = await new Scheduler({ db, dataClock: () => now }).tick(now);
      expect(r.errors).toEqual([]);
      const pruned = r.daily[0]!.pruned;
      expect(pruned).toEqual({
        jobs: 1,
        jobEvents: 3,
        ingestionErrors: 1,
        ingestionRuns: 1,
        ingestionSessions: 1,
        healthSnapshots: 2,
        webhookDeliveries: 0,
        events: 0,
      });
      expect((await db.selectFrom('jobs').select('id').execute()).map((x) => x.id)).toEqual([newJob]);
      expect(await db.selectFrom('job_events').select('id').where('job_id', '=', oldJob).execute()).toEqual([]);
      expect((await db.selectFrom('ingestion_runs').select('id').execute()).map((x) => x.id)).toEqual(['run_new']);
      expect((await db.selectFrom('ingestion_errors').select('run_id').execute()).map((x) => x.run_id)).toEqual(['run_new']);
      // The horizon is 2024-04-20: the days before it are gone; the rest kept (the recompute fills the gap up to today).
      const days = await snapshotDays(db, 'acme.com');
      expect(days[0]).toBe('2024-04-20');
      expect(days).toContain('2024-05-01');
      expect(days.at(-1)).toBe('2024-05-20');
    } finally {
      await store.close();
    }
  });
});
