/**
 * `chs webhooks` on a fresh database (SQLite, or PostgreSQL when CHS_TEST_DATABASE=postgres): the
 * secret printed once, the SSRF policy from the environment, update/disable/enable, delete, a test
 * event queued and then delivered (here by a dispatcher in this process, as `chs serve` would) and
 * verified with the `standardwebhooks` package, deliveries listed, a redelivery with the same
 * webhook-id, and a rotation after which both secrets verify.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createEngine, createWorkspace, EVENT_TYPES, loadOrCreateSecretKey, WebhookDispatcher } from '@chs/core';
import { createTestDatabase, type TestDatabase } from '@chs/core/testing';
import { startWebhookReceiver, type WebhookReceiver } from '../../http/webhook-testing.js';
import { main } from '../main.js';
import { captureContext } from '../testing.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  process.exitCode = undefined;
  for (const f of cleanup.splice(0).reverse()) await f();
});

interface Setting {
  env: NodeJS.ProcessEnv;
  database: string;
  dataDir: string;
}

async function setup(extra: NodeJS.ProcessEnv = {}): Promise<Setting> {
  const d: TestDatabase = await createTestDatabase();
  cleanup.push(() => d.drop());
  const engine = await createEngine({ database: d.url });
  try {
    for (const domain of ['acme.com', 'globex.com']) await createWorkspace(engine.store.db, { domain, name: domain, ownerEmail: `ana@${domain}` });
  } finally {
    await engine.close();
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'chs-webhooks-cli-'));
  return {
    env: { CHS_DATABASE_URL: d.url, CHS_DATA_DIR: dataDir, CHS_SECRET_KEY: 'webhooks-cli-test-secret-key-of-32-bytes', ...extra },
    database: d.url,
    dataDir,
  };
}

async function chs(s: Setting, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const { ctx, stdout, stderr } = captureContext({ ...s.env, ...env });
  const code = await main(['node', 'chs', 'webhooks', ...args], ctx);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

const json = <T>(r: { code: number; stdout: string; stderr: string }): T => {
  if (r.code !== 0) throw new Error(`chs exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
};

/** Delivers what is due now, as the running `chs serve` would. */
async function deliverDue(s: Setting): Promise<number> {
  const engine = await createEngine({ database: s.database });
  const d = new WebhookDispatcher({ db: engine.store.db, secretKey: () => loadOrCreateSecretKey(s.dataDir, s.env.CHS_SECRET_KEY), allowPrivate: true });
  try {
    return await d.drain();
  } finally {
    await d.stop(100);
    await engine.close();
  }
}

interface Shown {
  id: string;
  url: string;
  events: string[];
  kind: string;
  enabled: boolean;
  disabledReason: string | null;
  description: string | null;
  secret?: string;
}
interface DeliveryShown {
  id: string;
  eventId: string;
  eventType: string;
  state: string;
  attempts: number;
  lastStatus: number | null;
}

describe('chs webhooks', () => {
  it('create prints the secret once; the address policy follows CHS_WEBHOOKS_ALLOW_PRIVATE; list never shows a secret', async () => {
    const s = await setup();
    const refused = await chs(s, ['create', '--workspace', 'acme.com', '--url', 'http://127.0.0.1:9/hook', '--events', 'job.failed']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^chs: url: must be https .*\[INVALID_INPUT\]\n$/);
    const metadata = await chs(s, ['create', '--workspace', 'acme.com', '--url', 'https://169.254.169.254/latest', '--events', 'job.failed']);
    expect(metadata.stderr).toMatch(/169\.254\.169\.254 is a linkLocal address.*CHS_WEBHOOKS_ALLOW_PRIVATE=1 \[INVALID_INPUT\]/);
    const unknown = await chs(s, ['create', '--workspace', 'acme.com', '--url', 'https://93.184.215.14/h', '--events', 'job.failed,client.exploded']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown type(s) client.exploded');
    const kind = await chs(s, ['create', '--workspace', 'acme.com', '--url', 'https://93.184.215.14/h', '--events', 'all', '--kind', 'teams']);
    expect(kind.stderr).toContain('--kind must be standard or slack');

    const allow = { CHS_WEBHOOKS_ALLOW_PRIVATE: '1' };
    const text = await chs(s, ['create', '--workspace', 'acme.com', '--url', 'http://127.0.0.1:9/hook', '--events', 'all', '--description', 'local'], allow);
    expect(text.code).toBe(0);
    const secret = /\n {2}(whsec_\S+)\n/.exec(text.stdout)?.[1];
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(text.stdout).toContain('shown once');
    expect(text.stdout.split(secret!)).toHaveLength(2);
    expect(text.stdout).toContain(`receiving ${EVENT_TYPES.join(', ')}`);
    expect(text.stderr).toBe('');

    const made = json<Shown & { workspaceId: string }>(
      await chs(s, [
        'create',
        '--workspace',
        'ACME.com',
        '--url',
        'https://93.184.215.14/slack',
        '--events',
        'client.risk_entered, client.churn_intent',
        '--kind',
        'slack',
        '--json',
      ]),
    );
    expect(made).toMatchObject({ kind: 'slack', events: ['client.risk_entered', 'client.churn_intent'], enabled: true, workspaceId: 'acme.com' });
    expect(made.secret).toMatch(/^whsec_/);

    const list = json<Shown[]>(await chs(s, ['list', '--workspace', 'acme.com', '--json']));
    expect(list.map((w) => [w.url, w.kind, w.description])).toEqual([
      ['http://127.0.0.1:9/hook', 'standard', 'local'],
      ['https://93.184.215.14/slack', 'slack', null],
    ]);
    expect(JSON.stringify(list)).not.toContain('whsec_');
    const table = await chs(s, ['list', '--workspace', 'acme.com']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+KIND\s+URL\s+EVENTS\s+STATE\s+DESCRIPTION$/);
    expect(table.stdout).toContain(made.id);
    expect(table.stdout).not.toContain('whsec_');
    expect((await chs(s, ['list', '--workspace', 'globex.com'])).stdout).toBe('No webhook endpoints in globex.com.\n');
  });

  it('update changes types, disables and enables; delete removes it; another workspace’s id is not found', async () => {
    const s = await setup();
    const w = json<Shown>(await chs(s, ['create', '--workspace', 'acme.com', '--url', 'https://93.184.215.14/h', '--events', 'job.failed', '--json']));
    const off = json<Shown>(await chs(s, ['update', w.id, '--workspace', 'acme.com', '--disable', '--events', 'job.completed,job.failed', '--json']));
    expect(off).toMatchObject({ enabled: false, disabledReason: 'user', events: ['job.completed', 'job.failed'] });
    // A test event goes even to a disabled endpoint (how one checks its receiver); the command says so.
    const tested = await chs(s, ['test', w.id, '--workspace', 'acme.com']);
    expect(tested.stdout).toContain('The endpoint is disabled: a test event goes all the same; other events wait until it is enabled');
    const on = await chs(s, ['update', w.id, '--workspace', 'acme.com', '--enable', '--description', 'ops']);
    expect(on.stdout).toBe(`Updated ${w.id} (enabled): https://93.184.215.14/h, receiving job.completed, job.failed.\n`);
    expect((await chs(s, ['update', w.id, '--workspace', 'acme.com'])).stderr).toContain('nothing to change');
    expect((await chs(s, ['update', w.id, '--workspace', 'acme.com', '--enable', '--disable'])).stderr).toContain('--enable and --disable go one at a time');
    expect((await chs(s, ['update', w.id, '--workspace', 'acme.com', '--url', 'https://10.1.2.3/h'])).stderr).toContain('10.1.2.3 is a private address');

    for (const args of [
      ['update', w.id, '--disable'],
      ['delete', w.id],
      ['test', w.id],
      ['rotate-secret', w.id],
      ['deliveries', w.id],
      ['redeliver', w.id, 'dlv_x'],
    ]) {
      const r = await chs(s, [...args, '--workspace', 'globex.com']);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(new RegExp(`${w.id}.*not found.*\\[NOT_FOUND\\]`));
    }
    expect((await chs(s, ['delete', w.id, '--workspace', 'acme.com'])).stdout).toBe(`Deleted webhook endpoint ${w.id} from acme.com, with its deliveries.\n`);
    expect(json<Shown[]>(await chs(s, ['list', '--workspace', 'acme.com', '--json']))).toEqual([]);
    expect((await chs(s, ['delete', w.id, '--workspace', 'acme.com'])).stderr).toContain('[NOT_FOUND]');
  });

  it('test queues an event that chs serve delivers (signed, verified); deliveries lists it; redeliver sends the same webhook-id; rotate-secret signs with both', async () => {
    const receiver: WebhookReceiver = await startWebhookReceiver();
    cleanup.push(() => receiver.close());
    const s = await setup({ CHS_WEBHOOKS_ALLOW_PRIVATE: '1' });
    const w = json<Shown>(await chs(s, ['create', '--workspace', 'acme.com', '--url', `${receiver.url}/in`, '--events', 'job.failed', '--json']));

    const queued = await chs(s, ['test', w.id, '--workspace', 'acme.com']);
    expect(queued.code).toBe(0);
    const eventId = /test event (evt_\S+)/.exec(queued.stdout)?.[1];
    expect(eventId).toBeDefined();
    expect(queued.stdout).toContain('This command does not send it: the running chs serve');
    expect(queued.stdout).toContain(`chs webhooks deliveries ${w.id} --workspace acme.com`);
    const pending = json<{ deliveries: DeliveryShown[]; total: number }>(await chs(s, ['deliveries', w.id, '--workspace', 'acme.com', '--json']));
    expect(pending.total).toBe(1);
    expect(pending.deliveries[0]).toMatchObject({ eventId, eventType: 'webhook.test', state: 'pending', attempts: 0 });
    expect(receiver.received).toHaveLength(0);

    expect(await deliverDue(s)).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const first = receiver.received[0]!;
    expect(first.id).toBe(eventId);
    expect(new Webhook(w.secret!).verify(first.body, first.headers as Record<string, string>)).toMatchObject({ id: eventId, type: 'webhook.test' });
    const table = await chs(s, ['deliveries', w.id, '--workspace', 'acme.com']);
    expect(table.stdout).toMatch(new RegExp(`${pending.deliveries[0]!.id}\\s+${eventId}\\s+webhook\\.test\\s+succeeded\\s+1\\s+HTTP 200\\s+delivered `));
    expect(json<{ total: number }>(await chs(s, ['deliveries', w.id, '--workspace', 'acme.com', '--state', 'pending', '--json'])).total).toBe(0);
    expect((await chs(s, ['deliveries', w.id, '--workspace', 'acme.com', '--state', 'lost'])).stderr).toContain(
      '--state must be one of pending, succeeded, failed',
    );

    const rotated = await chs(s, ['rotate-secret', w.id, '--workspace', 'acme.com']);
    const newSecret = /\n {2}(whsec_\S+)\n/.exec(rotated.stdout)?.[1];
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(w.secret);
    expect(rotated.stdout).toContain('signed with both the new and the previous secret');

    const again = json<DeliveryShown>(await chs(s, ['redeliver', w.id, pending.deliveries[0]!.id, '--workspace', 'acme.com', '--json']));
    expect(again).toMatchObject({ id: pending.deliveries[0]!.id, eventId, state: 'pending' });
    expect(await deliverDue(s)).toBe(1);
    const second = receiver.received[1]!;
    expect(second.id).toBe(eventId);
    for (const key of [w.secret!, newSecret!])
      expect(new Webhook(key).verify(second.body, second.headers as Record<string, string>)).toMatchObject({ id: eventId });
    expect((await chs(s, ['redeliver', w.id, 'dlv_nope', '--workspace', 'acme.com'])).stderr).toContain('delivery dlv_nope of webhook endpoint');
  });
});
