import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { isChsError } from '../../errors.js';
import { fixedClock } from '../../util/time.js';
import { collect, readFixture, recordedRetry, useRecordedExchanges } from '../contract.harness.js';
import type { ActivityRecord, CompanyRecord, ContactRecord, ProviderRecord, SyncBatch } from '../types.js';
import { createHubSpotConnector, type HubSpotConnectorOptions } from './hubspot-connector.js';

const fx = (name: string) => readFixture(import.meta.url, name);

const API = 'https://api.hubapi.com';
const NOW = '2024-05-20T00:00:00.000Z';
const until = Date.parse(NOW);
let sleeps: number[] = [];

interface SearchBody {
  filterGroups: Array<{ filters: Array<{ propertyName: string; operator: string; value: string }> }>;
  sorts: Array<{ propertyName: string; direction: string }>;
  properties: string[];
  limit: number;
  after?: string;
}
const range = (b: SearchBody) => {
  const f = b.filterGroups[0]!.filters;
  return { prop: f[0]!.propertyName, start: Number(f.find((x) => x.operator === 'GTE')!.value), end: Number(f.find((x) => x.operator === 'LT')!.value) };
};

function connector(over: Partial<HubSpotConnectorOptions> = {}) {
  return createHubSpotConnector({
    credentials: { accessToken: 'pat-na1-test' },
    clock: fixedClock(NOW),
    retry: recordedRetry(sleeps),
    ...over,
  });
}

const all = (bs: SyncBatch<ProviderRecord>[]) => bs.flatMap((b) => b.items);

useRecordedExchanges(() => {
  sleeps = [];
});

describe('hubspot connector: full sync', () => {
  it('reads companies over two pages, contacts and engagements, mapping mrr / renewalDate / csmOwner', async () => {
    const bodies: SearchBody[] = [];
    nock(API, { reqheaders: { authorization: 'Bearer pat-na1-test' } })
      .post('/crm/v3/objects/companies/search', (b: SearchBody) => (bodies.push(b), b.after === undefined))
      .reply(200, fx('companies-page1.json'))
      .get('/crm/v3/owners/')
      .query({ limit: '500', archived: 'false' })
      .reply(200, fx('owners.json'))
      .post('/crm/v3/objects/companies/search', (b: SearchBody) => b.after === '2')
      .reply(200, fx('companies-page2.json'))
      .post('/crm/v3/objects/contacts/search', (b: SearchBody) => (bodies.push(b), true))
      .reply(200, fx('contacts.json'))
      .post('/crm/v3/objects/emails/search')
      .reply(200, fx('emails.json'))
      .post('/crm/v4/associations/emails/companies/batch/read', { inputs: [{ id: '51234567890' }, { id: '51234567891' }] })
      .reply(200, fx('emails-assoc-companies.json'))
      .post('/crm/v4/associations/emails/contacts/batch/read')
      .reply(200, fx('emails-assoc-contacts.json'))
      // 901 is known from the contacts stream; only 903 is looked up.
      .post('/crm/v3/objects/contacts/batch/read', (b: { inputs: Array<{ id: string }> }) => JSON.stringify(b.inputs) === '[{"id":"903"}]')
      .reply(200, fx('contacts-batch-read.json'))
      .post('/crm/v3/objects/meetings/search')
      .reply(200, fx('meetings.json'))
      .post('/crm/v4/associations/meetings/companies/batch/read')
      .reply(200, fx('meetings-assoc-companies.json'))
      .post('/crm/v4/associations/meetings/contacts/batch/read')
      .reply(200, fx('meetings-assoc-contacts.json'))
      .post('/crm/v3/objects/calls/search')
      .reply(200, fx('search-empty.json'))
      .post('/crm/v3/objects/notes/search')
      .reply(200, fx('search-empty.json'));

    const batches = await collect(connector().sync({ mode: 'full', since: new Date('2024-01-01T00:00:00Z') }));
    const items = all(batches);
    const companies = items.filter((i): i is CompanyRecord => i.kind === 'company');
    expect(companies).toEqual([
      {
        kind: 'company',
        providerId: '18231942001',
        name: 'Globex',
        domains: ['globex.test', 'globex-eu.test', 'globex.co.uk'],
        mrr: 12500.5,
        renewalDate: '2024-09-30',
        csmOwner: 'carla.csm@acme.test',
      },
      { kind: 'company', providerId: '18231942002', name: 'Initech', domains: ['initech.test'], renewalDate: '2024-12-31' },
      // An owner id HubSpot does not list stays an id rather than being dropped.
      { kind: 'company', providerId: '18231942003', name: 'Umbrella', domains: ['umbrella.test'], mrr: 800, csmOwner: '75999' },
    ]);
    // The search asks for the mapped properties, sorted oldest change first, companies from the beginning of time.
    expect(bodies[0]!.properties).toEqual(expect.arrayContaining(['name', 'domain', 'hs_additional_domains', 'mrr', 'renewal_date', 'hubspot_owner_id']));
    expect(bodies[0]!.sorts).toEqual([{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' }]);
    expect(range(bodies[0]!)).toEqual({ prop: 'hs_lastmodifieddate', start: 0, end: until });
    expect(range(bodies[1]!).prop).toBe('lastmodifieddate');

    const contacts = items.filter((i): i is ContactRecord => i.kind === 'contact');
    expect(contacts).toEqual([
      { kind: 'contact', providerId: '901', email: 'bob@globex.test', name: 'Bob Globex', title: 'VP Operations', companyProviderId: '18231942001' },
      { kind: 'contact', providerId: '902', email: '', name: 'Nameless', title: '' },
    ]);

    const acts = items.filter((i): i is ActivityRecord => i.kind === 'activity');
    expect(acts).toEqual([
      {
        kind: 'activity',
        providerId: 'emails:51234567890',
        type: 'email',
        occurredAt: '2024-05-14T09:30:00.000Z',
        subject: 'Q3 renewal',
        text: 'Hi Bob, following up on the renewal.',
        fromEmail: 'alice@acme.test',
        toEmails: ['bob@globex.test'],
        direction: 'outbound',
        opened: true,
        companyProviderId: '18231942001',
        contactEmails: ['bob@globex.test'],
        contactProviderIds: ['901'],
      },
      {
        kind: 'activity',
        providerId: 'emails:51234567891',
        type: 'email',
        occurredAt: '2024-05-14T12:30:00.000Z',
        subject: 'Re: Q3 renewal',
        text: 'Thanks Alice, we are very happy.',
        fromEmail: 'bob@globex.test',
        toEmails: ['alice@acme.test'],
        direction: 'inbound',
        // Opens are tracked on mail we send, not on replies.
        opened: null,
        companyProviderId: '18231942001',
        contactEmails: ['dana@globex.test'],
        contactProviderIds: ['903'],
      },
      {
        kind: 'activity',
        providerId: 'meetings:61000000001',
        type: 'meeting',
        occurredAt: '2024-05-16T15:00:00.000Z',
        subject: 'QBR',
        text: 'Quarterly review, renewal looks likely.',
        fromEmail: '',
        toEmails: [],
        direction: 'outbound',
        opened: null,
        companyProviderId: '18231942001',
        contactEmails: [],
        contactProviderIds: [],
      },
    ]);
    const last = batches[batches.length - 1]!;
    expect(last.cursor).toEqual({ v: 1, done: { companies: until, contacts: until, emails: until, meetings: until, calls: until, notes: until } });
    // Mid-stream the cursor points at the next page.
    expect(batches[0]!.cursor).toMatchObject({ current: { stream: 'companies', start: 0, end: until, after: '2' } });
  });

  it('uses a configured property map', async () => {
    nock(API)
      .post(
        '/crm/v3/objects/companies/search',
        (b: SearchBody) => b.properties.includes('arr_monthly') && b.properties.includes('contract_end') && b.properties.includes('csm_email'),
      )
      .reply(200, {
        total: 1,
        results: [
          {
            id: '7',
            properties: {
              name: 'Hooli',
              domain: 'hooli.test',
              arr_monthly: '4200',
              contract_end: '2025-01-31T00:00:00.000Z',
              csm_email: 'dina@acme.test',
              hs_lastmodifieddate: '2024-05-01T00:00:00Z',
            },
            createdAt: '2024-01-01T00:00:00Z',
            updatedAt: '2024-05-01T00:00:00Z',
            archived: false,
          },
        ],
      });
    const items = all(
      await collect(
        connector({ streams: ['companies'], propertyMap: { mrr: 'arr_monthly', renewalDate: 'contract_end', csmOwner: 'csm_email' } }).sync({ mode: 'full' }),
      ),
    );
    expect(items).toEqual([
      { kind: 'company', providerId: '7', name: 'Hooli', domains: ['hooli.test'], mrr: 4200, renewalDate: '2025-01-31', csmOwner: 'dina@acme.test' },
    ]);
  });
});

describe('hubspot connector: incremental and windows', () => {
  it('a quick sync starts at the saved position minus the overlap', async () => {
    const done = Date.parse('2024-05-19T00:00:00Z');
    let seen: ReturnType<typeof range> | undefined;
    nock(API)
      .post('/crm/v3/objects/companies/search', (b: SearchBody) => ((seen = range(b)), true))
      .reply(200, fx('companies-page2.json'))
      // Without the owners scope the owner id is kept.
      .get('/crm/v3/owners/')
      .query(true)
      .reply(403, {
        status: 'error',
        message: "This app hasn't been granted all required scopes to make this call.",
        correlationId: 'x',
        category: 'MISSING_SCOPES',
      });
    const batches = await collect(connector({ streams: ['companies'] }).sync({ mode: 'quick', cursor: { v: 1, done: { companies: done, contacts: done } } }));
    expect(seen).toEqual({ prop: 'hs_lastmodifieddate', start: done - 5 * 60_000, end: until });
    expect(all(batches)).toEqual([{ kind: 'company', providerId: '18231942003', name: 'Umbrella', domains: ['umbrella.test'], mrr: 800, csmOwner: '75999' }]);
    expect(batches[batches.length - 1]!.cursor).toEqual({ v: 1, done: { companies: until, contacts: done } });
  });

  it('splits a window whose total passes 10,000 so that every window can be paged through, with no gap', async () => {
    // Changes spread evenly: 30 per millisecond over [0, 1000).
    const windows: Array<[number, number]> = [];
    nock(API)
      .post('/crm/v3/objects/companies/search')
      .times(20)
      .reply(200, (_uri, body) => {
        const { start, end } = range(body as SearchBody);
        const total = (end - start) * 30;
        if (total <= 10_000) windows.push([start, end]);
        return {
          total,
          results:
            total <= 10_000
              ? [
                  {
                    id: `w${start}`,
                    properties: { name: `W${start}`, domain: null },
                    createdAt: '2024-01-01T00:00:00Z',
                    updatedAt: '2024-01-01T00:00:00Z',
                    archived: false,
                  },
                ]
              : [],
        };
      });
    const batches = await collect(connector({ streams: ['companies'] }).sync({ mode: 'full', until: new Date(1000) }));
    nock.cleanAll();
    expect(windows[0]![0]).toBe(0);
    expect(windows[windows.length - 1]![1]).toBe(1000);
    for (let i = 1; i < windows.length; i++) expect(windows[i]![0]).toBe(windows[i - 1]![1]);
    for (const [s, e] of windows) expect((e - s) * 30).toBeLessThanOrEqual(10_000);
    expect(windows.length).toBeGreaterThan(3);
    expect(all(batches)).toHaveLength(windows.length);
  });
});

describe('hubspot connector: politeness and failures', () => {
  // 429 with Retry-After, 5xx, 401 and resuming are the connector contract's (contract.test.ts); these are HubSpot's own.
  it('a ten-secondly 429 without Retry-After waits the advertised interval', async () => {
    nock(API)
      .post('/crm/v3/objects/companies/search')
      .reply(429, fx('error-429-ten-secondly.json'), { 'X-HubSpot-RateLimit-Interval-Milliseconds': '10000', 'X-HubSpot-RateLimit-Remaining': '0' })
      .post('/crm/v3/objects/companies/search')
      .reply(200, fx('search-empty.json'));
    await collect(connector({ streams: ['companies'] }).sync({ mode: 'full' }));
    expect(sleeps).toEqual([10_000]);
  });

  it('the DAILY limit parks the sync until midnight', async () => {
    nock(API).post('/crm/v3/objects/companies/search').reply(429, fx('error-429-daily.json'));
    const err = await collect(connector().sync({ mode: 'full' })).catch((e: unknown) => e);
    expect(isChsError(err, 'PROVIDER_RATE_LIMITED')).toBe(true);
    expect((err as { details: { resumeAt: string } }).details.resumeAt).toBe('2024-05-21T00:00:00.000Z');
  });
});
