/**
 * Webhooks end to end through the built `chs` binary (run `npx tsc -b && npm run bundle -w runner`
 * first), with a receiver on 127.0.0.1 that verifies every delivery with the `standardwebhooks`
 * package (never our signing code) and CHS_WEBHOOKS_ALLOW_PRIVATE=1 so it may be reached:
 * (a) on each dialect: an endpoint made through the API gets a verified webhook.test whose
 *     webhook-id is the event id the API answered; then SIGKILL of the runner while the receiver
 *     holds a delivery open, events queued while no runner runs (`chs webhooks test`), a restart:
 *     every event arrives, the interrupted one again with the SAME webhook-id, none lost; and no
 *     log line carries a secret or the endpoint's URL path;
 * (b) PostgreSQL: two runners on one database, 200 test events queued through both: each webhook-id
 *     received exactly once, and the two runners' metrics add up to 200 deliveries.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createTestDatabase, postgresAvailable, testDialects, type TestDatabase } from '@chs/core/testing';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../http/webhook-testing.js';
import { chs, serve as serveOne, tearDown, until, type Env, type Serve } from './testing.js';

const SLOW = 240_000;
const SECRET_PATH = 'hooks/p4th-t0ken-9f2c';

const serves: Serve[] = [];
let database: TestDatabase | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  const opened = [receiver, database] as const;
  [receiver, database] = [undefined, undefined];
  await tearDown(serves, ...opened);
}, 120_000);

function baseEnv(db: string, dir: string): Env {
  return {
    ...(process.env as Env),
    CHS_DATABASE_URL: db,
    CHS_DATA_DIR: dir,
    CHS_LOG_LEVEL: 'debug',
    CHS_SMTP_URL: '',
    CHS_NOW: '',
    CHS_REDIS_URL: '',
    CHS_SECRET_KEY: 'webhooks-e2e-test-secret-key-32-bytes!!',
    CHS_SCHEDULER: 'off',
    CHS_WEBHOOKS_ALLOW_PRIVATE: '1',
    CHS_WEBHOOK_TIMEOUT_MS: '3000',
    CHS_WEBHOOK_POLL_MS: '100',
    CHS_WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800,1600,3200',
    CHS_RATE_LIMIT_PER_MINUTE: '100000',
    CHS_RATE_LIMIT_WORKSPACE_PER_MINUTE: '100000',
    CHS_RATE_LIMIT_PER_HOUR: '1000000',
  };
}

/** `chs serve` with its JSON log lines (stdout) collected from the moment it listens. */
async function serve(name: string, env: Env, logs: string[]): Promise<Serve> {
  const s = await serveOne(serves, env, name, 30_000);
  s.proc.stdout?.on('data', (d: Buffer) => logs.push(d.toString()));
  return s;
}

function api(s: () => Serve, key: string) {
  return async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${s().base}/api${path}${path.includes('?') ? '&' : '?'}workspaceId=acme.com`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
}

/** Verifies a delivery with the standardwebhooks package and the endpoint's secret; returns the payload. */
function verified(secret: string, d: ReceivedDelivery): { id: string; type: string } {
  const payload = new Webhook(secret).verify(d.body, d.headers as Record<string, string>) as { id: string; type: string };
  expect(payload.id).toBe(d.id);
  return payload;
}

async function setting(dialect: 'sqlite' | 'postgres'): Promise<{ env: Env; key: string }> {
  database = await createTestDatabase(dialect);
  const dir = mkdtempSync(join(tmpdir(), 'chs-webhooks-e2e-'));
  const env = baseEnv(database.url, dir);
  const init = await chs(env, 'init', '--workspace', 'acme.com', '--name', 'Acme', '--owner-email', 'ana@acme.com', '--json');
  if (init.code !== 0) throw new Error(`chs init failed: ${init.stderr}`);
  return { env, key: (JSON.parse(init.stdout) as { apiKey: string }).apiKey };
}

interface Created {
  webhook: { id: string; secret: string };
}
interface Delivery {
  eventId: string;
  state: string;
  attempts: number;
}

const dialects = (await testDialects()).map((d) => d.name);

describe.each(dialects)('webhooks through chs serve on %s', (dialect) => {
  it(
    '(a) a verified test event with the webhook-id the API answered; SIGKILL mid-delivery and events queued while down: after a restart every event arrives, the interrupted one with the same webhook-id',
    async () => {
      const { env, key } = await setting(dialect);
      receiver = await startWebhookReceiver();
      const logs: string[] = [];
      let current = await serve('A', env, logs);
      const call = api(() => current, key);

      const created = await call<Created>('POST', '/settings/webhooks', { url: `${receiver.url}/${SECRET_PATH}`, events: ['job.completed', 'job.failed'] });
      expect(created.status).toBe(201);
      const { id: endpointId, secret } = created.body.webhook;

      // One test event: delivered within a moment, verified, its webhook-id the event id the API gave.
      const first = await call<{ eventId: string }>('POST', `/settings/webhooks/${endpointId}/test`);
      expect(first.status).toBe(202);
      const [got] = await receiver.waitFor(1, 20_000);
      expect(got!.id).toBe(first.body.eventId);
      expect(got!.path).toBe(`/${SECRET_PATH}`);
      expect(verified(secret, got!)).toMatchObject({ type: 'webhook.test' });

      // The next delivery hangs at the receiver; the runner is killed while it waits for the answer.
      // The receiver holds the next delivery open (the first test event is settled, so it is this one).
      let hung = '';
      receiver.answer = (d) => {
        if (hung !== '') return { status: 200 };
        hung = d.id;
        return 'hang';
      };
      const hangId = (await call<{ eventId: string }>('POST', `/settings/webhooks/${endpointId}/test`)).body.eventId;
      // A few more go out before the crash, delivered or not.
      const before: string[] = [];
      for (let i = 0; i < 5; i++) before.push((await call<{ eventId: string }>('POST', `/settings/webhooks/${endpointId}/test`)).body.eventId);
      await until('the receiver to hold the hanging delivery', async () => (hung !== '' ? true : undefined), 20_000, 20);
      expect(hung).toBe(hangId);
      expect(receiver.hanging).toBe(1);
      current.proc.kill('SIGKILL');
      await current.exited;

      // Queued while no runner runs, by the command line.
      const whileDown: string[] = [];
      for (let i = 0; i < 3; i++) {
        const q = await chs(env, 'webhooks', 'test', endpointId, '--workspace', 'acme.com', '--json');
        expect(q.code, q.stderr).toBe(0);
        whileDown.push((JSON.parse(q.stdout) as { eventId: string }).eventId);
      }
      receiver.answer = () => ({ status: 200 });
      current = await serve('B', env, logs);
      const all = [first.body.eventId, hangId, ...before, ...whileDown];
      // The interrupted delivery's lease (CHS_WEBHOOK_TIMEOUT_MS + 30 s) must expire before it goes again.
      await until(
        'every event to arrive after the restart',
        async () => {
          const counts = receiver!.counts();
          return all.every((id) => (counts.get(id) ?? 0) >= 1) && (counts.get(hangId) ?? 0) >= 2 ? true : undefined;
        },
        90_000,
        100,
      );
      const counts = receiver.counts();
      expect(counts.get(hangId)).toBeGreaterThanOrEqual(2);
      for (const d of receiver.received) expect(verified(secret, d).type).toBe('webhook.test');
      // Nothing but these events was sent.
      expect([...counts.keys()].sort()).toEqual([...all].sort());
      const after = receiver.received.filter((d) => d.id === hangId);
      expect(new Set(after.map((d) => d.id))).toEqual(new Set([hangId]));

      // The API agrees: every delivery succeeded; the interrupted one counts its one recorded attempt.
      const listed = await until(
        'every delivery to be recorded as succeeded',
        async () => {
          const r = await call<{ deliveries: Delivery[]; total: number }>('GET', `/settings/webhooks/${endpointId}/deliveries?limit=200`);
          return r.body.deliveries.every((d) => d.state === 'succeeded') ? r.body : undefined;
        },
        20_000,
        100,
      );
      expect(listed.total).toBe(all.length);
      expect(listed.deliveries.map((d) => d.eventId).sort()).toEqual([...all].sort());

      // No log line carries the secret or the endpoint's URL path.
      const text = logs.join('');
      expect(text).toContain('webhook delivered');
      expect(text).not.toContain(secret.slice(6));
      expect(text).not.toContain('whsec_');
      expect(text).not.toContain(SECRET_PATH);
    },
    SLOW,
  );
});

describe.runIf(await postgresAvailable())('two chs serve runners on one PostgreSQL database', () => {
  it(
    '(b) 200 test events queued through both runners: each webhook-id received exactly once, and the runners’ deliveries add up to 200',
    async () => {
      const N = 200;
      const { env, key } = await setting('postgres');
      receiver = await startWebhookReceiver(() => ({ status: 200 }));
      const logs: string[] = [];
      const [a, b] = await Promise.all([serve('A', env, logs), serve('B', env, logs)]);
      const created = await api(() => a, key)<Created>('POST', '/settings/webhooks', { url: `${receiver.url}/in`, events: ['job.failed'] });
      expect(created.status).toBe(201);
      const { id: endpointId, secret } = created.body.webhook;

      const queued: string[] = [];
      for (let i = 0; i < N; i += 10) {
        const batch = await Promise.all(
          Array.from({ length: 10 }, (_, j) =>
            api(() => ((i + j) % 2 === 0 ? a : b), key)<{ eventId: string }>('POST', `/settings/webhooks/${endpointId}/test`),
          ),
        );
        for (const r of batch) {
          expect(r.status).toBe(202);
          queued.push(r.body.eventId);
        }
      }
      await receiver.waitFor(N, 60_000);
      // A moment more, for any second sending to show.
      await new Promise((r) => setTimeout(r, 1500));
      const counts = receiver.counts();
      expect(counts.size).toBe(N);
      expect([...counts.keys()].sort()).toEqual([...queued].sort());
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      for (const d of receiver.received) verified(secret, d);

      const delivered = async (s: Serve): Promise<number> => {
        const text = await (await fetch(`${s.base}/metrics`)).text();
        return Number(/^chs_webhook_deliveries_total\{kind="standard",outcome="delivered"\} (\d+)$/m.exec(text)?.[1] ?? 0);
      };
      const [byA, byB] = await Promise.all([delivered(a), delivered(b)]);
      expect(byA + byB).toBe(N);
      console.log(`[webhooks e2e] ${N} events: runner A delivered ${byA}, runner B ${byB}`);
    },
    SLOW,
  );
});
