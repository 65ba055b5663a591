import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspace, getSummary, openStore, updateSettings, type Db, type Digest } from '@chs/core';
import { dropTestSchemas, testDialects } from '@chs/core/testing';
import { seedClient, seedInteraction, seedScores, seedSnapshot } from '../../../packages/core/src/notify/test-data.js';
import { Scheduler } from '../jobs/scheduler.js';
import { startTestApp } from '../http/testing.js';
import { createMailer } from './mailer.js';
import { Notifier } from './notifier.js';

interface Received {
  from: string;
  to: string[];
  mail: ParsedMail;
}

const received: Received[] = [];
let rejectNext = 0;
let server: SMTPServer;
let smtpUrl = '';

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (rejectNext > 0) {
          rejectNext -= 1;
          const err = new Error('mailbox busy, try later') as Error & { responseCode: number };
          err.responseCode = 451;
          callback(err);
          return;
        }
        void simpleParser(Buffer.concat(chunks)).then((mail) => {
          received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), mail });
          callback();
        });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  smtpUrl = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await dropTestSchemas();
});
beforeEach(() => {
  received.length = 0;
  rejectNext = 0;
});

const WS = 'acme.com';
/** Monday 2024-05-20, 09:00 UTC. */
const NOW = new Date('2024-05-20T09:00:00.000Z');
const notifier = (db: Db, dataNow?: Date) =>
  new Notifier({ db, mailer: createMailer({ smtpUrl, outboxDir: '/nonexistent' }), ...(dataNow ? { dataClock: () => dataNow } : {}) });

/** One client whose score fell 80 → 60 today (25 %), one that moved 80 → 75 (6.25 %), one renewing in 10 days at risk. */
async function seed(db: Db): Promise<void> {
  await seedClient(db, WS, { id: 'cl_globex', name: 'Globex', domain: 'globex.com', mrr: 4000, score: 60, csmOwner: 'cy@acme.com' });
  await seedInteraction(db, WS, {
    id: 'in_1',
    clientId: 'cl_globex',
    at: '2024-05-20T07:12:00.000Z',
    subject: 'Outage again <urgent>',
    sentiment: -0.9,
    from: 'cto@globex.com',
  });
  await seedScores(db, WS, 'cl_globex', { '2024-05-13': 78, '2024-05-19': 80 });
  await seedSnapshot(db, WS, 'cl_globex', '2024-05-20', 60, ['in_1']);
  await seedClient(db, WS, { id: 'cl_hooli', name: 'Hooli', domain: 'hooli.com', mrr: 1000, score: 75 });
  await seedScores(db, WS, 'cl_hooli', { '2024-05-13': 78, '2024-05-19': 80, '2024-05-20': 75 });
  await seedClient(db, WS, { id: 'cl_initech', name: 'Initech', domain: 'initech.com', mrr: 2500, score: 30, renewalDate: '2024-05-30' });
  await seedScores(db, WS, 'cl_initech', { '2024-05-13': 31, '2024-05-19': 30, '2024-05-20': 30 });
}

describe.each(await testDialects())('notifications through a real SMTP server on loopback ($name)', (dialect) => {
  it('each alert fires exactly once, to the owner and the CSM, in text and HTML; a second pass and a restart send nothing', async () => {
    const t = await startTestApp({ dialect, now: NOW.toISOString() });
    try {
      const db = t.engine.store.db;
      await seed(db);
      // Digests off here: this test is about alerts.
      await updateSettings(db, WS, { notifications: { weeklyDigest: false, dailyDigest: false } });
      const r = await notifier(db, NOW).run(WS, NOW);
      expect(r.failed).toEqual([]);
      expect(r.sent.map((s) => s.dedupeKey).sort()).toEqual(['renewal:cl_initech:2024-05-30', 'score_drop:cl_globex:2024-05-20']);
      expect(received).toHaveLength(2);

      const drop = received.find((m) => m.mail.subject?.startsWith('Score drop'))!;
      expect(drop.from).toBe('notifications@acme.com');
      expect(drop.to).toEqual(['ana@acme.com', 'cy@acme.com']);
      expect(drop.mail.subject).toBe('Score drop: Globex fell 25.0% to 60.0');
      expect(drop.mail.text).toContain('Globex (globex.com) scored 60.0 on 2024-05-20, 20.0 points (25.0%) below the day before.');
      expect(drop.mail.text).toContain('Why: Score fell 20.0 points (80.0 → 60.0), mostly because the tone of recent interactions turned more negative');
      expect(drop.mail.text).toContain('2024-05-20 "Outage again <urgent>" from cto@globex.com');
      expect(drop.mail.text).toContain('Client id: cl_globex');
      // The HTML part escapes what clients wrote.
      expect(drop.mail.html).toContain('Outage again &lt;urgent&gt;');
      expect(drop.mail.html).not.toContain('<urgent>');

      const renewal = received.find((m) => m.mail.subject?.startsWith('Renewal'))!;
      expect(renewal.to).toEqual(['ana@acme.com']);
      expect(renewal.mail.subject).toBe('Renewal in 10 days: Initech on 2024-05-30 (at risk)');
      expect(renewal.mail.text).toContain('MRR: $2,500');
      expect(renewal.mail.text).toContain('AT RISK: score 30.0 is below the threshold 40.');
      expect(renewal.mail.text).toContain('Why: Score fell 1.0 points (31.0 → 30.0)');

      const log = await db.selectFrom('notification_log').select(['kind', 'dedupe_key', 'status', 'transport', 'recipients']).orderBy('dedupe_key').execute();
      expect(log).toEqual([
        { kind: 'renewal', dedupe_key: 'renewal:cl_initech:2024-05-30', status: 'sent', transport: 'smtp', recipients: 'ana@acme.com' },
        { kind: 'score_drop', dedupe_key: 'score_drop:cl_globex:2024-05-20', status: 'sent', transport: 'smtp', recipients: 'ana@acme.com, cy@acme.com' },
      ]);

      // Same data an hour later: nothing new. A "restarted" runner (a new notifier, nothing in memory) neither.
      expect((await notifier(db, NOW).run(WS, new Date(NOW.getTime() + 3_600_000))).sent).toEqual([]);
      const restarted = notifier(db, NOW);
      const again = await restarted.run(WS, new Date(NOW.getTime() + 7_200_000));
      expect(again.sent).toEqual([]);
      expect(again.planned).toEqual([]);
      expect(received).toHaveLength(2);
    } finally {
      await t.close();
    }
  });

  it('switches off: nothing is sent when channels.email is false, and no alert of a kind whose switch is off', async () => {
    const t = await startTestApp({ dialect, now: NOW.toISOString() });
    try {
      const db = t.engine.store.db;
      await seed(db);
      await updateSettings(db, WS, { notifications: { channels: { email: false }, dailyDigest: true, weeklyDigest: true } });
      const off = await notifier(db, NOW).run(WS, NOW);
      expect([off.planned, off.sent, received]).toEqual([[], [], []]);
      expect(await db.selectFrom('notification_log').selectAll().execute()).toEqual([]);

      await updateSettings(db, WS, {
        notifications: { channels: { email: true }, alertOnScoreDrop: false, alertOnRenewals: false, dailyDigest: false, weeklyDigest: false },
      });
      const none = await notifier(db, NOW).run(WS, NOW);
      expect(none.sent).toEqual([]);
      expect(received).toEqual([]);

      await updateSettings(db, WS, { notifications: { alertOnRenewals: true } });
      const one = await notifier(db, NOW).run(WS, NOW);
      expect(one.sent.map((s) => s.kind)).toEqual(['renewal']);
      expect(received).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it("digests: the workspace's time zone decides the day and hour; figures equal GET /metrics/summary at the same moment; sent once", async () => {
    const t = await startTestApp({ dialect, now: NOW.toISOString() });
    try {
      const db = t.engine.store.db;
      await seed(db);
      await updateSettings(db, WS, {
        timezone: 'Asia/Tokyo',
        notifications: { alertOnScoreDrop: false, alertOnRenewals: false, dailyDigest: true, weeklyDigest: true },
      });
      // Sunday 22:59 UTC is Monday 07:59 in Tokyo: too early.
      const n = notifier(db, NOW);
      expect((await n.run(WS, new Date('2024-05-19T22:59:00Z'))).planned).toEqual([]);
      // Sunday 23:00 UTC is Monday 08:00 in Tokyo: the daily and the weekly digest of Monday 2024-05-20 (a UTC workspace would still be on Sunday).
      const r = await n.run(WS, new Date('2024-05-19T23:00:00Z'));
      expect(r.sent.map((s) => s.dedupeKey)).toEqual(['digest_daily:2024-05-20', 'digest_weekly:2024-05-20']);
      expect(received.map((m) => m.to)).toEqual([['ana@acme.com'], ['ana@acme.com']]);

      const res = await t.request(`/api/metrics/summary?workspaceId=${WS}`);
      expect(res.status).toBe(200);
      const summary = (await res.json()) as Awaited<ReturnType<typeof getSummary>>;
      const daily = r.planned.find((m) => m.kind === 'digest_daily')!.content as Digest;
      expect(daily.figures).toEqual({
        clients: summary.totals.clients,
        avgScore: summary.health.avgScore,
        change7: summary.health.change7,
        threshold: summary.health.threshold,
        atRiskCount: summary.health.atRiskCount,
        mrrTotal: summary.revenue.mrrTotal,
        mrrAtRisk: summary.revenue.mrrAtRisk,
        renewals30d: summary.totals.renewals30d,
        renewals30dValue: summary.revenue.renewals30dValue,
      });
      // By hand: at risk = Initech (30 < 40), MRR 2,500 of 7,500; average (60 + 75 + 30) / 3 = 55.
      expect(daily.figures).toMatchObject({ clients: 3, atRiskCount: 1, mrrAtRisk: 2500, mrrTotal: 7500, avgScore: 55 });
      const text = received[0]!.mail.text ?? '';
      expect(text).toContain('At risk (score below 40): 1 clients, $2,500 MRR at risk of $7,500');
      expect(text).toContain('Clients: 3, average score 55.0');
      expect(received[0]!.mail.html).toContain('<strong>$2,500</strong> of $7,500');
      // Daily digest on data day 05-20 reports 05-19 against 05-18; the weekly 05-13…05-19 against 05-12.
      expect([daily.fromDay, daily.toDay]).toEqual(['2024-05-19', '2024-05-19']);

      // Later that Tokyo day, and after a restart: not again.
      expect((await notifier(db, NOW).run(WS, new Date('2024-05-20T05:00:00Z'))).sent).toEqual([]);
      // Tuesday 08:00 Tokyo (data day 05-21): the next daily only; it reports day 05-20 against 05-19, where Globex fell 20 and Hooli 5.
      const tue = await notifier(db, new Date('2024-05-21T09:00:00Z')).run(WS, new Date('2024-05-20T23:00:00Z'));
      expect(tue.sent.map((s) => s.dedupeKey)).toEqual(['digest_daily:2024-05-21']);
      const tueDigest = tue.planned[0]!.content as Digest;
      expect([tueDigest.fromDay, tueDigest.toDay]).toEqual(['2024-05-20', '2024-05-20']);
      expect(tueDigest.movers.map((c) => [c.name, c.delta])).toEqual([
        ['Globex', -20],
        ['Hooli', -5],
      ]);
      expect(tueDigest.newRisks).toEqual([]);
      expect(received[2]!.mail.text).toContain('Globex: 80.0 → 60.0 (−20.0), MRR $4,000. Score fell 20.0 points');
      // Wednesday: no snapshot for 05-21 was written, so nothing changed: quiet, recorded as skipped, not sent.
      const wed = await notifier(db, new Date('2024-05-22T09:00:00Z')).run(WS, new Date('2024-05-21T23:00:00Z'));
      expect(wed.sent).toEqual([]);
      expect(wed.quiet.map((q) => q.dedupeKey)).toEqual(['digest_daily:2024-05-22']);
      expect((await db.selectFrom('notification_log').select('status').where('dedupe_key', '=', 'digest_daily:2024-05-22').executeTakeFirst())?.status).toBe(
        'skipped',
      );
      expect(received).toHaveLength(3);
    } finally {
      await t.close();
    }
  });

  it('two runners on one database at once: every alert is sent once', async () => {
    const { url, schema } = await dialect.url();
    const a = await openStore({ url, ...(schema ? { schema } : {}) });
    const b = await openStore({ url, ...(schema ? { schema } : {}) });
    try {
      await createWorkspace(a.db, { domain: WS, name: 'Acme', ownerEmail: 'ana@acme.com' });
      await seed(a.db);
      await updateSettings(a.db, WS, { notifications: { dailyDigest: true, weeklyDigest: false } });
      const [ra, rb] = await Promise.all([notifier(a.db, NOW).run(WS, NOW), notifier(b.db, NOW).run(WS, NOW)]);
      const sent = [...ra.sent, ...rb.sent].map((s) => s.dedupeKey).sort();
      expect(sent).toEqual(['digest_daily:2024-05-20', 'renewal:cl_initech:2024-05-30', 'score_drop:cl_globex:2024-05-20']);
      // A key both runners planned was sent by one and found claimed by the other.
      for (const m of ra.planned.filter((x) => rb.planned.some((y) => y.dedupeKey === x.dedupeKey))) {
        const byA = ra.sent.some((x) => x.dedupeKey === m.dedupeKey);
        expect(byA ? rb.claimedElsewhere : ra.claimedElsewhere).toContain(m.dedupeKey);
      }
      expect(received).toHaveLength(3);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a refused delivery is retried on the next pass, then sent once', async () => {
    const t = await startTestApp({ dialect, now: NOW.toISOString() });
    try {
      const db = t.engine.store.db;
      await seed(db);
      await updateSettings(db, WS, { notifications: { alertOnScoreDrop: false, dailyDigest: false, weeklyDigest: false } });
      rejectNext = 1;
      const first = await notifier(db, NOW).run(WS, NOW);
      expect(first.sent).toEqual([]);
      expect(first.failed.map((f) => [f.dedupeKey, f.attempt, f.willRetry])).toEqual([['renewal:cl_initech:2024-05-30', 1, true]]);
      expect(first.failed[0]!.error).toContain('mailbox busy');
      const second = await notifier(db, NOW).run(WS, new Date(NOW.getTime() + 60_000));
      expect(second.sent.map((s) => [s.dedupeKey, s.attempt])).toEqual([['renewal:cl_initech:2024-05-30', 2]]);
      expect((await notifier(db, NOW).run(WS, new Date(NOW.getTime() + 120_000))).sent).toEqual([]);
      expect(received).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it('the scheduler runs the notifier on each tick: a due digest once, not again on the next tick', async () => {
    const t = await startTestApp({ dialect, now: NOW.toISOString() });
    try {
      const db = t.engine.store.db;
      await seedClient(db, WS, { id: 'cl_initech', name: 'Initech', domain: 'initech.com', mrr: 2500, renewalDate: '2024-05-25' });
      // An ingestion problem for the digest to report: a sync that failed at 10:00 UTC.
      await db
        .insertInto('jobs')
        .values({
          id: 'job_1',
          workspace_id: WS,
          kind: 'sync',
          source: 'google',
          state: 'failed',
          group_id: null,
          params_json: '{}',
          progress_json: '{}',
          items_processed: 0,
          items_read: 0,
          total_items: null,
          items_added: 0,
          items_updated: 0,
          items_skipped: 0,
          items_filtered: 0,
          errors_count: 1,
          errors_json: '[]',
          cursor_json: null,
          lease_owner: null,
          lease_expires_at: null,
          parked_until: null,
          attempts: 3,
          last_error: 'Gmail answered 500',
          created_at: '2024-05-20T09:55:00.000Z',
          started_at: '2024-05-20T09:55:00.000Z',
          completed_at: '2024-05-20T10:00:00.000Z',
          updated_at: '2024-05-20T10:00:00.000Z',
        })
        .execute();
      await updateSettings(db, WS, { timezone: 'America/New_York', notifications: { dailyDigest: true, weeklyDigest: false } });
      const n = notifier(db, NOW);
      const scheduler = new Scheduler({ db, dataClock: () => NOW, notify: (ws, now) => n.run(ws, now) });
      // 07:30 in New York: the renewal alert, no digest yet.
      let r = await scheduler.tick(new Date('2024-05-20T11:30:00Z'));
      expect(r.errors).toEqual([]);
      expect(r.notified).toEqual([{ workspaceId: WS, sent: 1, failed: 0 }]);
      expect(received.map((m) => m.mail.subject)).toEqual(['Renewal in 5 days: Initech on 2024-05-25']);
      // 08:01 in New York: the daily digest, with the failed sync.
      r = await scheduler.tick(new Date('2024-05-20T12:01:00Z'));
      expect(r.notified).toEqual([{ workspaceId: WS, sent: 1, failed: 0 }]);
      expect(received[1]!.mail.subject).toMatch(/^Daily digest for Acme \(2024-05-20\)/);
      expect(received[1]!.mail.text).toContain('sync of google failed at 2024-05-20T10:00:00.000Z: Gmail answered 500 (job job_1)');
      r = await scheduler.tick(new Date('2024-05-20T12:02:00Z'));
      expect(r.notified).toEqual([]);
      expect(received).toHaveLength(2);
    } finally {
      await t.close();
    }
  });
});
