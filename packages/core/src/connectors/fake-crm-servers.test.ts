/**
 * The fake HubSpot and the fake Intercom (`@chs/core/testing`) as the real connectors see them over
 * a socket: every stream read in full, each engagement with its company and contacts, the
 * up-front count equal to what the fake holds and the rows listed reaching it, the delay and the
 * rate limit felt, a wrong token refused as the provider refuses it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../util/time.js';
import { startFakeHubSpotServer, type FakeHubSpotServer } from './hubspot/fake-hubspot-server.js';
import { createHubSpotConnector } from './hubspot/hubspot-connector.js';
import { startFakeIntercomServer, type FakeIntercomServer } from './intercom/fake-intercom-server.js';
import { createIntercomConnector } from './intercom/intercom-connector.js';
import type { ActivityRecord, ContactRecord, ProviderRecord, RecordsConnector, SyncProgress } from './types.js';

const open: Array<FakeHubSpotServer | FakeIntercomServer> = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

const NOW = Date.now();
const iso = (msAgo: number) => new Date(NOW - msAgo).toISOString();
const sAgo = (s: number) => Math.floor(NOW / 1000) - s;

async function drain(c: RecordsConnector): Promise<{ items: ProviderRecord[]; progress: SyncProgress[]; unreconciled: number }> {
  const items: ProviderRecord[] = [];
  const progress: SyncProgress[] = [];
  let unreconciled = 0;
  for await (const b of c.sync({ mode: 'full', onProgress: (p) => progress.push({ ...p }) })) {
    items.push(...b.items);
    unreconciled += b.unreconciled.length;
  }
  return { items, progress, unreconciled };
}

describe('fake HubSpot', () => {
  async function hubspot(over: Parameters<typeof startFakeHubSpotServer>[0] = {}) {
    const companies = Array.from({ length: 5 }, (_, i) => ({
      id: String(100 + i),
      name: `Client ${i}`,
      domain: `client${i}.com`,
      updatedAt: iso((i + 1) * 3600_000),
      ownerId: '75001',
    }));
    const contacts = Array.from({ length: 250 }, (_, i) => ({
      id: String(1000 + i),
      email: `person${i}@client${i % 5}.com`,
      firstName: 'Person',
      lastName: String(i),
      companyId: String(100 + (i % 5)),
      updatedAt: iso((i + 1) * 60_000),
    }));
    const types = ['emails', 'meetings', 'calls', 'notes'] as const;
    // Engagement i is of types[i % 4]; 4 is an e-mail the customer wrote, 10 a call with no
    // contact, 11 a note with no company.
    const engagements = Array.from({ length: 12 }, (_, i) => {
      const inbound = i === 4;
      return {
        type: types[i % 4]!,
        id: String(5000 + i),
        timestamp: iso((i + 1) * 86_400_000),
        updatedAt: iso((i + 1) * 86_400_000 - 60_000),
        subject: `Subject ${i}`,
        body: `Body ${i}`,
        direction: inbound ? ('inbound' as const) : ('outbound' as const),
        from: inbound ? `person${i}@client${i % 5}.com` : 'rep@acme.com',
        to: inbound ? ['rep@acme.com'] : [`person${i}@client${i % 5}.com`],
        companyIds: i === 11 ? [] : [String(100 + (i % 5))],
        contactIds: i === 10 ? [] : [String(1000 + i)],
      };
    });
    const fake = await startFakeHubSpotServer({
      accessTokens: ['pat-na1-fake'],
      companies,
      contacts,
      engagements,
      owners: [{ id: '75001', email: 'Carla.CSM@acme.com' }],
      ...over,
    });
    open.push(fake);
    return fake;
  }
  const connector = (fake: FakeHubSpotServer, token = 'pat-na1-fake') =>
    createHubSpotConnector({ credentials: { accessToken: token }, apiUrl: fake.apiUrl, clock: systemClock, retry: { maxRetries: 2 } });

  it('serves every stream, paged, with associations, owners and the contacts a batch read names; the count is what it holds', async () => {
    const fake = await hubspot();
    const { items, progress, unreconciled } = await drain(connector(fake));
    expect(unreconciled).toBe(0);
    expect(items.filter((r) => r.kind === 'company')).toHaveLength(5);
    expect(items.filter((r) => r.kind === 'company')[0]).toMatchObject({ domains: ['client4.com'], csmOwner: 'carla.csm@acme.com' });
    const contacts = items.filter((r): r is ContactRecord => r.kind === 'contact');
    expect(contacts).toHaveLength(250);
    expect(contacts[0]).toMatchObject({ email: 'person249@client4.com', name: 'Person 249', companyProviderId: '104' });
    const activities = items.filter((r): r is ActivityRecord => r.kind === 'activity');
    expect(activities.map((a) => a.type).sort()).toEqual([
      ...Array(3).fill('call'),
      ...Array(3).fill('email'),
      ...Array(3).fill('meeting'),
      ...Array(3).fill('note'),
    ]);
    const email = activities.find((a) => a.providerId === 'emails:5004')!;
    expect(email).toMatchObject({
      subject: 'Subject 4',
      text: 'Body 4',
      direction: 'inbound',
      fromEmail: 'person4@client4.com',
      toEmails: ['rep@acme.com'],
      companyProviderId: '104',
      contactProviderIds: ['1004'],
      contactEmails: ['person4@client4.com'],
    });
    expect(activities.find((a) => a.providerId === 'meetings:5001')).toMatchObject({ type: 'meeting', subject: 'Subject 1', text: 'Body 1' });
    expect(activities.find((a) => a.providerId === 'calls:5010')).toMatchObject({ contactProviderIds: [], companyProviderId: '100' });
    expect(activities.find((a) => a.providerId === 'notes:5011')!.companyProviderId).toBeUndefined();
    // Six one-result counts, before any page: the total is everything the fake holds.
    expect(fake.stats.counts).toBe(6);
    const withTotal = progress.filter((p) => p.totalEstimate !== undefined);
    expect(withTotal[0]).toMatchObject({ phase: 'count', totalEstimate: 267, itemsListed: 0 });
    expect(progress.at(-1)!.itemsListed).toBe(267);
    // 250 contacts at 200 a page.
    expect(fake.stats.byRoute['POST /crm/v3/objects/{type}/search']).toBe(6 + 1 + 2 + 4);
    expect(fake.stats.byRoute['GET /crm/v3/owners/']).toBe(1);
  });

  it('a search asks for at most 200 results, and a narrower window holds fewer', async () => {
    const fake = await hubspot();
    const post = (body: unknown) =>
      fetch(`${fake.apiUrl}/crm/v3/objects/contacts/search`, {
        method: 'POST',
        headers: { authorization: 'Bearer pat-na1-fake', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post({ limit: 201 })).status).toBe(400);
    const since = String(NOW - 10 * 60_000 - 1);
    const r = (await (
      await post({ filterGroups: [{ filters: [{ propertyName: 'lastmodifieddate', operator: 'GTE', value: since }] }], properties: ['email'], limit: 3 })
    ).json()) as { total: number; results: Array<{ properties: Record<string, unknown> }>; paging?: { next?: { after: string } } };
    expect(r.total).toBe(10);
    expect(r.results).toHaveLength(3);
    expect(Object.keys(r.results[0]!.properties).sort()).toEqual(['createdate', 'email', 'hs_object_id', 'lastmodifieddate']);
    expect(r.paging?.next?.after).toBe('3');
  });

  it('each call takes the delay; over the burst limit HubSpot answers 429 with Retry-After and the sync waits it out', async () => {
    const fake = await hubspot({ delayMs: 40, rateLimit: { max: 10, intervalMs: 1000 } });
    const t0 = Date.now();
    const { items } = await drain(connector(fake));
    expect(items).toHaveLength(267);
    expect(fake.stats.throttled).toBeGreaterThan(0);
    // 15 calls at 10 a second, each 40 ms, one after the other.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
  });

  it('an unknown token is 401 INVALID_AUTHENTICATION: the sync asks to reconnect', async () => {
    const fake = await hubspot();
    await expect(drain(connector(fake, 'pat-na1-wrong'))).rejects.toMatchObject({ code: 'INTEGRATION_NEEDS_REAUTH' });
  });
});

describe('fake Intercom', () => {
  async function intercom(over: Parameters<typeof startFakeIntercomServer>[0] = {}) {
    const companies = [
      { id: 'co1', name: 'Globex', website: 'https://www.globex.com' },
      { id: 'co2', name: 'Hooli', website: null, monthlySpend: 3200 },
    ];
    const contacts = Array.from({ length: 160 }, (_, i) => ({
      id: `ct${String(i).padStart(3, '0')}`,
      email: i % 2 ? `user${i}@globex.com` : `user${i}@hooli.com`,
      name: `User ${i}`,
      updatedAt: sAgo(86_400 * (200 - i)),
      companyIds: [i % 2 ? 'co1' : 'co2'],
    }));
    const conversations = Array.from({ length: 7 }, (_, i) => ({
      id: String(300 + i),
      createdAt: sAgo(7200 + i),
      updatedAt: sAgo(3600 - i),
      title: i === 0 ? 'Login broken' : null,
      source: { by: `ct${String(i).padStart(3, '0')}`, subject: i === 0 ? '' : `Question ${i}`, body: `<p>Hello <b>there</b> ${i}</p>` },
      parts: [
        { by: 'admin', body: '<p>Happy to help.</p>' },
        { by: 'admin', body: '<p>Escalate.</p>', partType: 'note' as const },
        { by: `ct${String(i).padStart(3, '0')}`, body: '<p>Thanks a lot!</p>' },
      ],
    }));
    const fake = await startFakeIntercomServer({ accessTokens: ['tok-ic'], companies, contacts, conversations, ...over });
    open.push(fake);
    return fake;
  }
  const connector = (fake: FakeIntercomServer, token = 'tok-ic') =>
    createIntercomConnector({ credentials: { accessToken: token }, apiUrl: fake.apiUrl, clock: systemClock, retry: { maxRetries: 2 } });

  it('serves contacts with their companies and conversations with their parts; the count is what it holds', async () => {
    const fake = await intercom();
    const { items, progress, unreconciled } = await drain(connector(fake));
    expect(unreconciled).toBe(0);
    expect(items.filter((r) => r.kind === 'contact')).toHaveLength(160);
    // Each page of contacts carries the companies it names: two pages of 150 and 10.
    const companies = items.filter((r) => r.kind === 'company');
    expect(companies).toHaveLength(4);
    expect(companies.find((c) => c.providerId === 'co1')).toMatchObject({ name: 'Globex', domains: ['globex.com'] });
    expect(companies.find((c) => c.providerId === 'co2')).toMatchObject({ domains: ['hooli.com'], mrr: 3200 });
    const tickets = items.filter((r): r is ActivityRecord => r.kind === 'activity');
    expect(tickets).toHaveLength(7);
    expect(tickets.find((t) => t.providerId === '301')).toMatchObject({
      type: 'support_ticket',
      subject: 'Question 1',
      text: 'Hello there 1\n\nThanks a lot!',
      fromEmail: 'user1@globex.com',
      direction: 'inbound',
      contactProviderIds: ['ct001'],
    });
    expect(tickets.find((t) => t.providerId === '300')!.subject).toBe('Login broken');
    expect(fake.stats.counts).toBe(2);
    expect(progress.find((p) => p.totalEstimate !== undefined)).toMatchObject({ phase: 'count', totalEstimate: 167, itemsListed: 0 });
    expect(progress.at(-1)!.itemsListed).toBe(167);
    expect(fake.stats.byRoute).toEqual({
      'POST /contacts/search': 1 + 2,
      'POST /conversations/search': 1 + 1,
      'GET /companies/{id}': 2,
      'GET /conversations/{id}': 7,
    });
    expect(fake.stats.versions).toEqual({ '2.11': 2 + 3 + 2 + 7 });
  });

  it('dates on contacts match by day; the cursor pages on from the last row; per_page is at most 150', async () => {
    const fake = await intercom();
    const post = (path: string, body: unknown) =>
      fetch(`${fake.apiUrl}${path}`, {
        method: 'POST',
        headers: { authorization: 'Bearer tok-ic', accept: 'application/json', 'content-type': 'application/json', 'intercom-version': '2.11' },
        body: JSON.stringify(body),
      });
    expect((await post('/contacts/search', { pagination: { per_page: 151 } })).status).toBe(400);
    expect((await post('/contacts/search', { query: { field: 'updated_at', operator: '>=', value: 1 } })).status).toBe(400);
    // Contact i changed 200 - i days ago; `>` a moment after contact 150 (that day) starts the next day.
    const at = sAgo(86_400 * 50) + 1;
    type Page = { total_count: number; data: Array<{ id: string }>; pages: { page: number; next?: { starting_after: string } } };
    const first = (await (
      await post('/contacts/search', { query: { field: 'updated_at', operator: '>', value: at }, pagination: { per_page: 5 } })
    ).json()) as Page;
    expect(first.total_count).toBe(9);
    expect(first.data[0]!.id).toBe('ct151');
    const second = (await (
      await post('/contacts/search', {
        query: { operator: 'AND', value: [{ field: 'updated_at', operator: '>', value: at }] },
        pagination: { per_page: 5, starting_after: first.pages.next!.starting_after },
      })
    ).json()) as Page;
    expect(second.pages.page).toBe(2);
    expect(second.data.map((c) => c.id)).toEqual(['ct156', 'ct157', 'ct158', 'ct159']);
    expect(second.pages.next).toBeUndefined();
  });

  it('each call takes the delay; over the window Intercom answers 429 and the sync waits for the reset', async () => {
    // Four calls a second: the sync's ~15 calls cannot fit in one window, however slow the machine.
    const fake = await intercom({ delayMs: 20, rateLimit: { limit: 4, windowMs: 1000 } });
    const { items } = await drain(connector(fake));
    expect(items.filter((r) => r.kind !== 'company')).toHaveLength(167);
    expect(fake.stats.throttled).toBeGreaterThan(0);
    // Every refused call was made again after the reset.
    expect(fake.stats.requests).toBeGreaterThan(fake.stats.throttled + 10);
  });

  it('an unknown token is 401 unauthorized: the sync asks to reconnect', async () => {
    const fake = await intercom();
    await expect(drain(connector(fake, 'nope'))).rejects.toMatchObject({ code: 'INTEGRATION_NEEDS_REAUTH' });
    expect(fake.stats.unauthorized).toBeGreaterThan(0);
  });
});
