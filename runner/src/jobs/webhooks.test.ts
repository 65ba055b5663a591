/**
 * The webhook dispatcher inside the job service (createJobService), on both dialects: it starts
 * and stops with the worker, delivers with the runner's secret key, reports every attempt (the
 * metrics of `chs serve`), and when a delivery disables an endpoint (410, or failing for days) the
 * workspace's admins — not its other users — get one e-mail (a real SMTP server here) that names the
 * endpoint and why, without its URL's path or any secret.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, createEngine, createWorkspace, getEndpoint, loadOrCreateSecretKey, sendTestEvent, type AttemptReport, type Engine } from '@chs/core';
import { dropTestSchema, dropTestSchemas, testDialects } from '@chs/core/testing';
import { DEFAULT_WEBHOOKS_CONFIG, type RunnerConfig } from '../config.js';
import { testConfig } from '../http/testing.js';
import { startWebhookReceiver, type WebhookReceiver } from '../http/webhook-testing.js';
import { createJobService, type JobService } from './service.js';
import { until } from './testing.js';

interface Received {
  from: string;
  to: string[];
  mail: ParsedMail;
}
const mails: Received[] = [];
let smtp: SMTPServer;
let smtpUrl = '';

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        void simpleParser(Buffer.concat(chunks)).then((mail) => {
          mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), mail });
          callback();
        });
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await dropTestSchemas();
});

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  mails.length = 0;
  for (const f of cleanup.splice(0).reverse()) await f();
});

const dialects = await testDialects();

describe.each(dialects.map((d) => [d.name, d] as const))('webhooks in the job service on %s', (_name, dialect) => {
  async function setting(
    webhooks: Partial<typeof DEFAULT_WEBHOOKS_CONFIG>,
  ): Promise<{ engine: Engine; config: RunnerConfig; jobs: JobService; attempts: AttemptReport[] }> {
    const store = await dialect.open();
    const engine = await createEngine({ database: store });
    cleanup.push(async () => {
      await engine.close();
      if (store.schema) await dropTestSchema(store.schema);
    });
    await createWorkspace(engine.store.db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
    const now = new Date().toISOString();
    const user = (id: string, email: string, role: string) => ({
      id,
      workspace_id: 'acme.com',
      email,
      name: id,
      title: '',
      role,
      has_completed_onboarding: 0,
      created_at: now,
      last_login_at: null,
    });
    await engine.store.db
      .insertInto('users')
      .values([user('usr_admin', 'ada@acme.com', 'admin'), user('usr_member', 'mo@acme.com', 'member')])
      .execute();
    const config = testConfig({
      smtpUrl,
      publicUrl: 'https://health.acme.com',
      jobs: { concurrency: 1, leaseMs: 30_000, pollMs: 1000, sweepMs: 10_000, shutdownMs: 2000, schedulerTickMs: 60_000, schedulerEnabled: false },
      webhooks: { ...DEFAULT_WEBHOOKS_CONFIG, allowPrivate: true, allowHttp: true, pollMs: 50, timeoutMs: 2000, ...webhooks },
    });
    const attempts: AttemptReport[] = [];
    const jobs = createJobService({ engine, config, onWebhookAttempt: (a) => attempts.push(a) });
    cleanup.push(() => jobs.stop());
    return { engine, config, jobs, attempts };
  }

  async function receiver(answer: WebhookReceiver['answer']): Promise<WebhookReceiver> {
    const r = await startWebhookReceiver(answer);
    cleanup.push(() => r.close());
    return r;
  }

  it('delivers with the runner’s secret key while started, reports each attempt, and stops', async () => {
    const r = await receiver(() => ({ status: 204 }));
    const { engine, config, jobs, attempts } = await setting({});
    const { endpoint } = await createEndpoint(
      engine.store.db,
      loadOrCreateSecretKey(config.dataDir, config.secretKey),
      { workspaceId: 'acme.com', url: `${r.url}/in`, events: ['job.failed'] },
      { allowPrivate: true },
    );
    // Queued before the service starts: nothing goes out until it does.
    const first = await sendTestEvent(engine.store.db, 'acme.com', endpoint.id);
    await new Promise((res) => setTimeout(res, 200));
    expect(r.received).toHaveLength(0);
    jobs.start();
    await r.waitFor(1, 10_000);
    expect(r.received[0]!.id).toBe(first.eventId);
    await until('the attempt to be reported', async () => (attempts.length === 1 ? true : undefined), 5000, 20);
    expect(attempts[0]).toMatchObject({ kind: 'standard', eventType: 'webhook.test', outcome: 'delivered', status: 204 });
    expect(attempts[0]!.lagMs).toBeGreaterThanOrEqual(200);

    await jobs.stop();
    await sendTestEvent(engine.store.db, 'acme.com', endpoint.id);
    await new Promise((res) => setTimeout(res, 300));
    expect(r.received).toHaveLength(1);
    expect(mails).toEqual([]);
  });

  it('a 410 disables the endpoint (gone) and e-mails the owner and admins once, naming it without its URL path', async () => {
    const r = await receiver(() => ({ status: 410 }));
    const { engine, config, jobs, attempts } = await setting({});
    const { endpoint } = await createEndpoint(
      engine.store.db,
      loadOrCreateSecretKey(config.dataDir, config.secretKey),
      { workspaceId: 'acme.com', url: `${r.url}/services/T000/B000/sl4ck-t0ken`, events: ['client.risk_entered'], kind: 'slack', description: 'CS channel' },
      { allowPrivate: true },
    );
    jobs.start();
    await sendTestEvent(engine.store.db, 'acme.com', endpoint.id);
    jobs.webhooks.nudge();
    await until('the admins’ e-mail', async () => (mails.length > 0 ? true : undefined), 10_000, 20);
    expect(await getEndpoint(engine.store.db, 'acme.com', endpoint.id)).toMatchObject({ enabled: false, disabledReason: 'gone' });
    expect(attempts.map((a) => [a.kind, a.outcome, a.status])).toEqual([['slack', 'failed', 410]]);
    expect(mails).toHaveLength(1);
    const m = mails[0]!;
    expect(m.to.sort()).toEqual(['ada@acme.com', 'ana@acme.com']);
    expect(m.from).toBe('notifications@acme.com');
    expect(m.mail.subject).toBe('Webhook endpoint disabled in acme.com: CS channel');
    const text = m.mail.text ?? '';
    expect(text).toContain(`Slack endpoint ${endpoint.id} (CS channel) of workspace acme.com`);
    expect(text).toContain('answered 410 Gone');
    expect(text).toContain(`chs webhooks update ${endpoint.id} --workspace acme.com --enable`);
    expect(text).toContain('https://health.acme.com/');
    expect(text).toContain(`${r.url}/…`);
    expect(text).not.toContain('sl4ck-t0ken');
    expect(text).not.toContain('whsec_');
    // A test event still goes to the disabled endpoint (it is how one checks the receiver); its 410 tells nobody twice.
    await sendTestEvent(engine.store.db, 'acme.com', endpoint.id);
    jobs.webhooks.nudge();
    await r.waitFor(2, 10_000);
    await until('the second attempt to be reported', async () => (attempts.length === 2 ? true : undefined), 5000, 20);
    await new Promise((res) => setTimeout(res, 200));
    expect(mails).toHaveLength(1);
  });

  it('an endpoint failing past CHS_WEBHOOK_DISABLE_AFTER_MS is disabled (failing) after its retries, and the admins are told', async () => {
    const r = await receiver(() => ({ status: 500 }));
    const { engine, config, jobs, attempts } = await setting({ retryScheduleMs: [30, 30, 30], disableAfterMs: 50 });
    const { endpoint } = await createEndpoint(
      engine.store.db,
      loadOrCreateSecretKey(config.dataDir, config.secretKey),
      { workspaceId: 'acme.com', url: `${r.url}/hook`, events: ['job.failed'] },
      { allowPrivate: true },
    );
    jobs.start();
    await sendTestEvent(engine.store.db, 'acme.com', endpoint.id);
    await until('the admins’ e-mail', async () => (mails.length > 0 ? true : undefined), 10_000, 20);
    const ep = await getEndpoint(engine.store.db, 'acme.com', endpoint.id);
    expect(ep).toMatchObject({ enabled: false, disabledReason: 'failing' });
    expect(r.received.length).toBeGreaterThanOrEqual(2);
    // Every attempt to the same webhook-id, each reported: retried, the last perhaps given up (its retries spent).
    expect(new Set(r.received.map((d) => d.id)).size).toBe(1);
    await until('every attempt reported', async () => (attempts.length === r.received.length ? true : undefined), 5000, 20);
    expect(attempts.every((a) => a.status === 500 && (a.outcome === 'retry' || a.outcome === 'failed'))).toBe(true);
    expect(attempts.filter((a) => a.outcome === 'retry').length).toBeGreaterThanOrEqual(2);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.mail.text).toContain('every delivery to it has failed for days without one success');
    expect(mails[0]!.mail.text).toContain(`failing since ${ep!.failingSince}`);
  });
});
