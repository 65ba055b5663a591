/**
 * Progress of a CRM / support sync as a user watching it sees it (docs/jobs.md#live-progress),
 * through the built `chs serve` (run `npx tsc -b` first) and real HTTP, on a SQLite file (a fresh
 * PostgreSQL database when CHS_TEST_DATABASE=postgres):
 * - a HubSpot full sync of 3,000 rows over three streams (600 companies, 1,200 contacts, 1,200 e-mails
 *   associated with their company and contact) from the fake HubSpot, a private-app token stored
 *   by `chs connect hubspot --access-token`;
 * - an Intercom full sync of 1,000 rows (400 contacts of 40 companies, 600 conversations) from the
 *   fake Intercom, its token stored by `chs connect intercom --access-token`.
 * Each fake answers every call after a delay (network and server time, scaled so a sync lasts
 * ~10 s). Started by POST /ingest/run and watched on /ingest/status: within 5 s the total shows,
 * equal to the rows the fake holds (the connectors' up-front counts); for most of the run the
 * progress sits strictly between 0 and 100 and it never goes back; by the middle of the run the
 * ETA is within 30 % of the real end; the run completes with every row stored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@chs/core';
import {
  createTestDatabase,
  judgeProgress,
  startFakeHubSpotServer,
  startFakeIntercomServer,
  type FakeHubSpotCompany,
  type FakeHubSpotContact,
  type FakeHubSpotEngagement,
  type FakeHubSpotServer,
  type FakeIntercomCompany,
  type FakeIntercomContact,
  type FakeIntercomConversation,
  type FakeIntercomServer,
  type ProgressSample,
  type TestDatabase,
} from '@chs/core/testing';
import { chs, chsEnv, serve, tearDown, watchStatus, type Env, type Serve } from './testing.js';

const SLOW = 120_000;

const serves: Serve[] = [];
let hubspot: FakeHubSpotServer | undefined;
let intercom: FakeIntercomServer | undefined;
let database: TestDatabase | undefined;
let store: Store | undefined;
const dirs: string[] = [];
afterEach(async () => {
  const opened = [store, hubspot, intercom, database] as const;
  [store, hubspot, intercom, database] = [undefined, undefined, undefined, undefined];
  await tearDown(serves, ...opened);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}, 120_000);

/**
 * A workspace acme.com (`chs init`) with `provider` connected by a token (`chs connect`), and
 * `chs serve` on it, the provider's API at `apiUrl`; resolves to the server and the API key.
 */
async function setting(provider: 'hubspot' | 'intercom', apiUrl: string, token: string): Promise<{ base: string; key: string }> {
  database = await createTestDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'chs-live-records-'));
  dirs.push(dir);
  // Google is pointed nowhere: only the provider under test is connected.
  const env: Env = chsEnv(database.url, dir, 'http://127.0.0.1:9/', 'http://127.0.0.1:9/token', {
    [provider === 'hubspot' ? 'CHS_HUBSPOT_API_URL' : 'CHS_INTERCOM_API_URL']: apiUrl,
  });
  const init = await chs(env, 'init', '--workspace', 'acme.com', '--name', 'Acme', '--owner-email', 'ana@acme.com', '--json');
  if (init.code !== 0) throw new Error(`chs init failed: ${init.stderr}`);
  const { apiKey } = JSON.parse(init.stdout) as { apiKey: string };
  const connect = await chs(env, 'connect', provider, '--workspace', 'acme.com', '--access-token', token);
  if (connect.code !== 0) throw new Error(`chs connect ${provider} failed: ${connect.stderr}`);
  const s = await serve(serves, env, 'runner', 20_000);
  return { base: s.base, key: apiKey };
}

/** POST /ingest/run of one source, full, then /ingest/status watched to the end and judged. */
async function runAndWatch(base: string, key: string, source: 'hubspot' | 'intercom', label: string) {
  const start = Date.now();
  const res = await fetch(`${base}/api/ingest/run?workspaceId=acme.com`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ sources: [source], syncType: 'full' }),
  });
  expect(res.status).toBe(200);
  const { samples, endAt, last } = await watchStatus('run', () => base, key, start, { timeoutMs: 60_000 });
  const j = judgeProgress(samples, endAt);
  console.info(`[live] /ingest/run ${label}: ${JSON.stringify(j)} in ${(endAt / 1000).toFixed(1)} s`);
  if (process.env.CHS_DEBUG_SAMPLES) console.info(dump(samples));
  return { samples, endAt, last, j };
}

const dump = (samples: readonly ProgressSample[]) =>
  samples.map((s) => `${s.at} ${s.status} ${s.progress} r${s.read} s${s.stored} t${s.total} eta${s.eta}${s.waiting ? ' waiting' : ''}`).join('\n');

/** What the store holds for acme.com from `source`: clients, contacts and interactions. */
async function stored(source: string): Promise<{ clients: number; contacts: number; interactions: number }> {
  store ??= await openStore({ url: database!.url });
  const db = store.db;
  const count = async (q: Promise<{ n: string | number | bigint } | undefined>) => Number((await q)?.n ?? 0);
  return {
    clients: await count(
      db
        .selectFrom('external_refs')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', 'acme.com')
        .where('provider', '=', source)
        .where('kind', '=', 'company')
        .executeTakeFirst(),
    ),
    contacts: await count(
      db
        .selectFrom('contacts')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', 'acme.com')
        .executeTakeFirst(),
    ),
    interactions: await count(
      db
        .selectFrom('interactions')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', 'acme.com')
        .where('source', '=', source)
        .executeTakeFirst(),
    ),
  };
}

/** The judgement every run must pass (docs/jobs.md#live-progress). */
function expectWatchable(samples: readonly ProgressSample[], j: ReturnType<typeof judgeProgress>, total: number): void {
  expect(j.firstTotalMs, dump(samples)).not.toBeNull();
  expect(j.firstTotalMs!, dump(samples)).toBeLessThanOrEqual(5000);
  expect(samples.find((s) => s.total !== null)!.total).toBe(total);
  expect(j.shareBetween, dump(samples)).toBeGreaterThanOrEqual(0.8);
  expect(j.backwards, dump(samples)).toBe(0);
  expect(j.etaErrorAtMid, dump(samples)).not.toBeNull();
  expect(j.etaErrorAtMid!, dump(samples)).toBeLessThanOrEqual(0.3);
}

const CLIENTS = (n: number) => Array.from({ length: n }, (_, i) => ({ domain: `client${i}.com`, name: `Client ${i}` }));

/** `n` companies, two contacts each, and an e-mail to or from each contact, all within the last year. */
function hubspotAccount(n: number): { companies: FakeHubSpotCompany[]; contacts: FakeHubSpotContact[]; engagements: FakeHubSpotEngagement[] } {
  const now = Date.now();
  const clients = CLIENTS(n);
  const companies = clients.map((c, i) => ({
    id: String(9_000_000 + i),
    name: c.name,
    domain: c.domain,
    updatedAt: new Date(now - (i + 1) * 12 * 3_600_000).toISOString(),
  }));
  const contacts = Array.from({ length: 2 * n }, (_, k) => {
    const i = k % n;
    return {
      id: String(100_000 + k),
      email: `contact${k}@${clients[i]!.domain}`,
      firstName: 'Contact',
      lastName: String(k),
      jobTitle: k < n ? 'Head of Operations' : 'Engineer',
      companyId: companies[i]!.id,
      updatedAt: new Date(now - (k + 1) * 6 * 3_600_000).toISOString(),
    };
  });
  const engagements = contacts.map((c, k): FakeHubSpotEngagement => {
    const inbound = k % 2 === 1;
    const at = now - (k + 1) * 5 * 3_600_000;
    return {
      type: 'emails',
      id: String(70_000_000 + k),
      timestamp: new Date(at).toISOString(),
      updatedAt: new Date(at + 60_000).toISOString(),
      subject: inbound ? `Re: rollout ${k}` : `Rollout ${k}`,
      body: inbound ? `Thanks, the rollout ${k} went well and the team is happy.` : `Hi, following up on rollout ${k}.`,
      direction: inbound ? 'inbound' : 'outbound',
      from: inbound ? c.email : 'rep@acme.com',
      to: inbound ? ['rep@acme.com'] : [c.email],
      companyIds: [c.companyId],
      contactIds: [c.id],
    };
  });
  return { companies, contacts, engagements };
}

/** 40 companies (half with a website), 10 contacts each, and 600 conversations started by them in the last 200 days. */
function intercomWorkspace(): { companies: FakeIntercomCompany[]; contacts: FakeIntercomContact[]; conversations: FakeIntercomConversation[] } {
  const nowS = Math.floor(Date.now() / 1000);
  const clients = CLIENTS(40);
  const companies = clients.map((c, i) => ({
    id: `66a0${String(i).padStart(8, '0')}`,
    name: c.name,
    website: i % 2 ? `https://www.${c.domain}` : null,
    monthlySpend: 100 * (i + 1),
  }));
  const contacts = Array.from({ length: 400 }, (_, k) => {
    const i = k % 40;
    return {
      id: `66b0${String(k).padStart(8, '0')}`,
      email: `user${k}@${clients[i]!.domain}`,
      name: `User ${k}`,
      role: k % 5 === 0 ? ('lead' as const) : ('user' as const),
      updatedAt: nowS - (k + 1) * 3 * 3600,
      companyIds: [companies[i]!.id],
    };
  });
  const conversations = Array.from({ length: 600 }, (_, n): FakeIntercomConversation => {
    const by = contacts[n % 400]!.id;
    const created = nowS - (n + 1) * 8 * 3600;
    return {
      id: String(500_000 + n),
      createdAt: created,
      updatedAt: created + 1800,
      title: n % 3 === 0 ? `Question ${n}` : null,
      source: { by, subject: n % 3 === 0 ? '' : `Help with export ${n}`, body: `<p>Hi, the export ${n} fails since this morning.</p>` },
      parts: [
        { by: 'admin', body: '<p>Thanks for reaching out, looking into it.</p>' },
        { by, body: '<p>Great, it works now, thank you!</p>' },
      ],
      state: 'closed',
    };
  });
  return { companies, contacts, conversations };
}

describe('live progress through chs serve, CRM and support records', () => {
  it(
    'HubSpot, 3,000 rows over companies, contacts and e-mails: a total within 5 s, progress between 0 and 100 that never goes back, an ETA within 30 % by the middle',
    async () => {
      const account = hubspotAccount(600);
      const rows = account.companies.length + account.contacts.length + account.engagements.length;
      hubspot = await startFakeHubSpotServer({ accessTokens: ['pat-na1-live'], ...account, delayMs: 250 });
      const { base, key } = await setting('hubspot', hubspot.apiUrl, 'pat-na1-live');
      const { samples, last, j } = await runAndWatch(base, key, 'hubspot', `${rows} HubSpot rows`);
      expect(last.status, dump(samples)).toBe('completed');
      expectWatchable(samples, j, rows);
      expect(last.stored).toBe(rows);
      expect(await stored('hubspot')).toEqual({ clients: 600, contacts: 1200, interactions: 1200 });
    },
    SLOW,
  );

  it(
    'Intercom, 1,000 rows of contacts and conversations: the same',
    async () => {
      const ws = intercomWorkspace();
      const rows = ws.contacts.length + ws.conversations.length;
      intercom = await startFakeIntercomServer({ accessTokens: ['tok-ic-live'], ...ws, delayMs: 75 });
      const { base, key } = await setting('intercom', intercom.apiUrl, 'tok-ic-live');
      const { samples, last, j } = await runAndWatch(base, key, 'intercom', `${rows} Intercom rows`);
      expect(last.status, dump(samples)).toBe('completed');
      expectWatchable(samples, j, rows);
      expect(await stored('intercom')).toEqual({ clients: 40, contacts: 400, interactions: 600 });
      // Each page of contacts (150) also stores the companies its contacts name (docs/connectors.md:
      // company records are additive across batches): the 40 companies on each of the 3 pages.
      expect(last.stored).toBe(rows + 40 * Math.ceil(ws.contacts.length / 150));
    },
    SLOW,
  );
});
