/**
 * Issue 16, "no open relay", through HTTP as a key holder (an attacker with a leaked key) would
 * try it: a sender on someone else's domain, a stream of test e-mails, redirecting the owner's
 * alerts to another address, and server paths in answers.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAY_MS, getOwner, planNotifications, updateSettings } from '@chs/core';
import { dropTestSchemas, testDialects } from '@chs/core/testing';
import { seedClient, seedScores, seedSnapshot } from '../../../../packages/core/src/notify/test-data.js';
import { createMailer } from '../../notify/mailer.js';
import { Notifier } from '../../notify/notifier.js';
import { buildApp } from '../app.js';
import { createLogger } from '../logging.js';
import { startTestApp, type TestApp } from '../testing.js';

afterAll(() => dropTestSchemas());

const dialects = await testDialects();

interface Body {
  error?: string;
  code?: string;
  status?: number;
  success?: boolean;
  message?: string;
}

describe.each(dialects.map((d) => [d.name, d] as const))('no open relay on %s', (_name, dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp({ dialect, config: { emailFromAllowList: ['mailer.vendor.io', 'bot@relay.net'] } });
  });
  afterEach(() => t.close());

  const q = () => `?workspaceId=${t.workspaceId}`;
  const put = (json: unknown, key?: string) => t.request(`/api/settings${q()}`, { method: 'PUT', json, ...(key ? { key } : {}) });
  const sendTest = () => t.request(`/api/notifications/test${q()}&channel=email`, { method: 'POST' });
  const settings = async () =>
    (await (await t.request(`/api/settings${q()}`)).json()) as { profile: Record<string, unknown>; workspace: { notifications: { emailFrom: string } } };
  const outbox = (): string[] => {
    try {
      return readdirSync(join(t.config.dataDir, 'outbox')).sort();
    } catch {
      return [];
    }
  };

  it('accepts emailFrom only on the workspace’s domains, their subdomains or the operator allow-list', async () => {
    for (const from of ['ceo@bank.com', 'support@acme.com.evil.io', 'x@evilacme.com', 'other@relay.net', 'x@vendor.io']) {
      const res = await put({ workspace: { notifications: { emailFrom: from } } });
      expect(res.status, from).toBe(400);
      const body = (await res.json()) as Body;
      expect(body, from).toMatchObject({ code: 'SENDER_NOT_ALLOWED', status: 400 });
      expect(res.headers.get('x-ratelimit-limit'), from).not.toBeNull();
    }
    // Nothing else of a refused PUT is applied either.
    expect((await put({ workspace: { riskThreshold: 50, notifications: { emailFrom: 'ceo@bank.com' } } })).status).toBe(400);
    const s = await settings();
    expect(s.workspace.notifications.emailFrom).toBe('notifications@acme.com');
    expect((s.workspace as unknown as { riskThreshold: number }).riskThreshold).toBe(40);

    for (const from of ['cs@acme.com', 'alerts@mail.acme.com', 'x@eu.mailer.vendor.io', 'bot@relay.net']) {
      expect((await put({ workspace: { notifications: { emailFrom: from } } })).status, from).toBe(200);
      expect((await settings()).workspace.notifications.emailFrom).toBe(from);
    }
  });

  it('refuses to send from a foreign sender stored before the check, and the scheduler sends from the default instead', async () => {
    await updateSettings(t.engine.store.db, t.workspaceId, { notifications: { emailFrom: 'ceo@bank.com' } });
    const res = await sendTest();
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'SENDER_NOT_ALLOWED' });
    expect(outbox()).toEqual([]);

    // A score drop the scheduler would alert on.
    const db = t.engine.store.db;
    const today = new Date().toISOString().slice(0, 10);
    const day = (n: number) => new Date(Date.parse(today) - n * DAY_MS).toISOString().slice(0, 10);
    await seedClient(db, t.workspaceId, { id: 'cl_globex', name: 'Globex', domain: 'globex.com', mrr: 4000, score: 50 });
    await seedScores(db, t.workspaceId, 'cl_globex', { [day(7)]: 80, [day(1)]: 80 });
    await seedSnapshot(db, t.workspaceId, 'cl_globex', today, 50);
    const notifier = new Notifier({
      db,
      mailer: createMailer({ outboxDir: join(t.config.dataDir, 'outbox') }),
      senderAllowList: t.config.emailFromAllowList ?? [],
    });
    const result = await notifier.run(t.workspaceId, new Date());
    expect(result.sent.map((s) => s.kind)).toContain('score_drop');
    expect(result.notes.join(' ')).toContain('sent from notifications@acme.com instead');
    for (const f of outbox()) {
      const mail = await simpleParser(readFileSync(join(t.config.dataDir, 'outbox', f)));
      expect(mail.from?.text).toBe('notifications@acme.com');
    }

    // A PUT that fixes the sender and changes the address at once: the confirmation goes from the new sender.
    const before = new Set(outbox());
    expect((await put({ workspace: { notifications: { emailFrom: 'cs@acme.com' } }, profile: { email: 'ana@newco.io' } })).status).toBe(200);
    const added = outbox().filter((f) => !before.has(f));
    expect(added).toHaveLength(1);
    const confirmation = await simpleParser(readFileSync(join(t.config.dataDir, 'outbox', added[0]!)));
    expect([confirmation.from?.text, confirmation.subject]).toEqual(['cs@acme.com', 'Confirm your new address for the Customer Health Service (acme.com)']);
  });

  it('sends at most 5 e-mails on request per workspace an hour, counted in the database across runners', async () => {
    // A second app over the same database: another runner as far as counting goes.
    const other = await buildApp({ engine: t.engine, config: t.config, logger: createLogger({ level: 'silent' }) });
    try {
      const viaOther = () =>
        other.inject({ method: 'POST', url: `/api/notifications/test${q()}&channel=email`, headers: { authorization: `Bearer ${t.apiKey}` } });
      for (let i = 0; i < 3; i++) expect((await sendTest()).status).toBe(200);
      for (let i = 0; i < 2; i++) expect((await viaOther()).statusCode).toBe(200);
      const refused = await sendTest();
      expect(refused.status).toBe(429);
      const body = (await refused.json()) as Body;
      expect(body).toMatchObject({ code: 'NOTIFICATION_RATE_LIMITED', status: 429 });
      expect(body.error).toContain('at most 5 e-mails an hour');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(3500);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(refused.headers.get('x-ratelimit-remaining')).not.toBeNull();
      expect((await viaOther()).statusCode).toBe(429);
      expect(outbox()).toHaveLength(5);
      const log = await t.engine.store.db.selectFrom('notification_log').select(['kind', 'status']).execute();
      expect(log).toEqual(Array.from({ length: 5 }, () => ({ kind: 'test', status: 'sent' })));

      // An hour later the window has moved on.
      await t.engine.store.db
        .updateTable('notification_log')
        .set({ sent_at: new Date(Date.now() - 3_601_000).toISOString() })
        .execute();
      expect((await sendTest()).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('keeps alerts on the confirmed address until the token mailed to the new one comes back', async () => {
    const db = t.engine.store.db;
    const res = await put({ profile: { email: 'Attacker@Elsewhere.io', title: 'VP' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Body;
    expect(body.message).toContain('profile.email stays ana@acme.com until attacker@elsewhere.io is confirmed');
    expect(body.message).not.toContain(t.config.dataDir);
    expect(await settings()).toMatchObject({ profile: { email: 'ana@acme.com', pendingEmail: 'attacker@elsewhere.io', title: 'VP' } });

    // The token went to the NEW address only, from the workspace's sender.
    const files = outbox();
    expect(files).toHaveLength(1);
    const mail = await simpleParser(readFileSync(join(t.config.dataDir, 'outbox', files[0]!)));
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : '').toBe('attacker@elsewhere.io');
    expect(mail.from?.text).toBe('notifications@acme.com');
    const token = /(?<![A-Za-z0-9_-])(ec_[A-Za-z0-9_-]{32})(?![A-Za-z0-9_-])/.exec(mail.text ?? '')?.[1];
    expect(token).toBeDefined();
    // The caller who asked never sees it: only the new mailbox can prove itself.
    expect(JSON.stringify(body)).not.toContain(token);
    expect(JSON.stringify(await settings())).not.toContain(token);
    expect(JSON.stringify(await db.selectFrom('users').selectAll().execute())).not.toContain(token);

    // Meanwhile alerts, digests and test e-mails go to the confirmed address.
    const today = new Date().toISOString().slice(0, 10);
    await seedClient(db, t.workspaceId, { id: 'cl_globex', name: 'Globex', domain: 'globex.com', mrr: 4000, score: 50 });
    await seedScores(db, t.workspaceId, 'cl_globex', { [new Date(Date.now() - DAY_MS).toISOString().slice(0, 10)]: 80 });
    await seedSnapshot(db, t.workspaceId, 'cl_globex', today, 50);
    const plan = await planNotifications(db, t.workspaceId, { now: new Date(), dataNow: new Date(), forceDigests: ['weekly'] });
    expect(plan.messages.length).toBeGreaterThan(0);
    for (const m of plan.messages) expect(m.to).toEqual(['ana@acme.com']);
    const test = (await (await sendTest()).json()) as Body;
    expect(test.message).toContain('Test e-mail to ana@acme.com');

    // A wrong token, or the right one with a key of the wrong workspace: nothing changes.
    const confirm = (json: unknown, key?: string, workspace = t.workspaceId) =>
      t.request(`/api/settings/confirm-email?workspaceId=${workspace}`, { method: 'POST', json, ...(key ? { key } : {}) });
    const wrong = await confirm({ token: `ec_${'x'.repeat(32)}` });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ code: 'CONFIRMATION_INVALID', status: 400 });
    expect((await confirm({})).status).toBe(400);
    expect((await confirm({ token })).status).toBe(200);
    expect((await getOwner(db, t.workspaceId))?.email).toBe('attacker@elsewhere.io');
    // Single use.
    expect(await (await confirm({ token })).json()).toMatchObject({ code: 'CONFIRMATION_INVALID' });
    const after = await planNotifications(db, t.workspaceId, { now: new Date(), dataNow: new Date(), forceDigests: ['weekly'] });
    for (const m of after.messages) expect(m.to).toEqual(['attacker@elsewhere.io']);
    expect((await settings()).profile).toEqual({ name: 'Ana Lima', email: 'attacker@elsewhere.io', title: 'VP' });
  });

  it('an address change over the hourly budget is refused whole (429) and changes nothing', async () => {
    for (let i = 0; i < 5; i++) expect((await sendTest()).status).toBe(200);
    const res = await put({ profile: { email: 'new@elsewhere.io', name: 'Changed' } });
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ code: 'NOTIFICATION_RATE_LIMITED' });
    expect((await settings()).profile).toEqual({ name: 'Ana Lima', email: 'ana@acme.com', title: '' });
    // Other settings still change, and repeating the confirmed address sends nothing.
    expect((await put({ profile: { name: 'Changed', email: 'ANA@acme.com' } })).status).toBe(200);
    expect((await settings()).profile).toEqual({ name: 'Changed', email: 'ana@acme.com', title: '' });
    expect(outbox()).toHaveLength(5);
  });

  it('never shows the server’s outbox path, even when the outbox cannot be written', async () => {
    // The outbox's parent is a file: mkdir fails with ENOTDIR, whose system message names the path.
    const blocked = join(t.config.dataDir, 'blocked');
    writeFileSync(blocked, 'not a folder');
    const u = await startTestApp({ dialect, config: { dataDir: blocked } });
    try {
      const res = await u.request(`/api/notifications/test?workspaceId=${u.workspaceId}&channel=email`, { method: 'POST' });
      expect(res.status).toBe(502);
      const body = (await res.json()) as Body;
      expect(body).toMatchObject({ code: 'NOTIFICATION_FAILED' });
      expect(body.error).toContain("could not write the message to the server's outbox (ENOTDIR)");
      expect(body.error).not.toContain(t.config.dataDir);
      expect(body.error).not.toContain('/');
    } finally {
      await u.close();
    }
  });
});
