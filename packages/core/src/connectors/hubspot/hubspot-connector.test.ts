import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { isChsError } from '../../errors.js';
import { fixedClock } from '../../util/time.js';
import { collect, FakeApi, readFixture, recordedRetry, useRecordedExchanges, type FakeRequest } from '../contract.harness.js';
import type { ActivityRecord, CompanyRecord, ContactRecord, Cursor, ProviderRecord, RecordsConnector, SyncBatch, SyncProgress } from '../types.js';
import { createHubSpotConnector, type HubSpotConnectorOptions } from './hubspot-connector.js';
import { hubspotHarness } from './hubspot.harness.js';

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

/** The up-front count's searches (limit 1), as asked. */
let counted: Array<{ stream: string; body: SearchBody }> = [];
/** Answers each stream's up-front count (a one-result search) with `total`, in HubSpot's search shape. */
function counts(totals: Record<string, number>, base = API): void {
  const scope = nock(base);
  for (const [stream, total] of Object.entries(totals)) {
    scope
      .post(`/crm/v3/objects/${stream}/search`, (b: SearchBody) => b.limit === 1 && (counted.push({ stream, body: b }), true))
      .reply(200, {
        total,
        results: [],
        ...(total > 1 ? { paging: { next: { after: '1', link: `${base}/crm/v3/objects/${stream}/search?after=1` } } } : {}),
      });
  }
}

useRecordedExchanges(() => {
  sleeps = [];
  counted = [];
});

describe('hubspot connector: full sync', () => {
  it('reads companies over two pages, contacts and engagements, mapping mrr / renewalDate / csmOwner', async () => {
    const bodies: SearchBody[] = [];
    counts({ companies: 3, contacts: 2, emails: 2, meetings: 1, calls: 0, notes: 0 });
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
    // First, one count per stream: a one-result search over the whole window its read covers.
    const since = Date.parse('2024-01-01T00:00:00Z');
    expect(counted.map((c) => [c.stream, range(c.body).start, range(c.body).end])).toEqual([
      ['companies', 0, until],
      ['contacts', 0, until],
      ['emails', since, until],
      ['meetings', since, until],
      ['calls', since, until],
      ['notes', since, until],
    ]);
    expect(counted[0]!.body).toEqual({ filterGroups: bodies[0]!.filterGroups, properties: ['hs_lastmodifieddate'], limit: 1 });
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
    counts({ companies: 1 });
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
    counts({ companies: 1 });
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
    expect(counted.map((c) => range(c.body))).toEqual([seen]);
    expect(all(batches)).toEqual([{ kind: 'company', providerId: '18231942003', name: 'Umbrella', domains: ['umbrella.test'], mrr: 800, csmOwner: '75999' }]);
    expect(batches[batches.length - 1]!.cursor).toEqual({ v: 1, done: { companies: until, contacts: done } });
  });

  it('splits a window whose total passes 10,000 so that every window can be paged through, with no gap', async () => {
    // Changes spread evenly: 30 per millisecond over [0, 1000).
    const windows: Array<[number, number]> = [];
    counts({ companies: 30_000 });
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
    const totals: Array<number | undefined> = [];
    const batches = await collect(
      connector({ streams: ['companies'] }).sync({ mode: 'full', until: new Date(1000), onProgress: (p) => void totals.push(p.totalEstimate) }),
    );
    nock.cleanAll();
    // The count asks once for the whole window: HubSpot's total is exact above the cap.
    expect(counted.map((c) => range(c.body))).toEqual([{ prop: 'hs_lastmodifieddate', start: 0, end: 1000 }]);
    expect(new Set(totals)).toEqual(new Set([30_000]));
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
    counts({ companies: 0 });
    nock(API)
      .post('/crm/v3/objects/companies/search')
      .reply(429, fx('error-429-ten-secondly.json'), { 'X-HubSpot-RateLimit-Interval-Milliseconds': '10000', 'X-HubSpot-RateLimit-Remaining': '0' })
      .post('/crm/v3/objects/companies/search')
      .reply(200, fx('search-empty.json'));
    await collect(connector({ streams: ['companies'] }).sync({ mode: 'full' }));
    expect(sleeps).toEqual([10_000]);
  });

  it('the DAILY limit parks the sync until midnight, even when the up-front count meets it', async () => {
    nock(API).post('/crm/v3/objects/companies/search').reply(429, fx('error-429-daily.json'));
    const err = await collect(connector().sync({ mode: 'full' })).catch((e: unknown) => e);
    expect(isChsError(err, 'PROVIDER_RATE_LIMITED')).toBe(true);
    expect((err as { details: { resumeAt: string } }).details.resumeAt).toBe('2024-05-21T00:00:00.000Z');
  });
});

describe('hubspot connector: live progress', () => {
  const isCount = (r: FakeRequest) => r.path.endsWith('/search') && (r.body as SearchBody).limit === 1;
  /** Over the harness's fake (companies over two pages, contacts, e-mails, a meeting): the progress seen when each batch arrived. */
  async function read(api: FakeApi, cursor?: Cursor) {
    const fake = hubspotHarness.create(api);
    const c = fake.connector({ clock: fixedClock(NOW), retry: recordedRetry(sleeps) }) as RecordsConnector;
    const events: SyncProgress[] = [];
    const arrivals: Array<{ batch: SyncBatch<ProviderRecord>; seen: SyncProgress | undefined }> = [];
    for await (const batch of c.sync({ mode: cursor ? 'quick' : 'full', ...(cursor ? { cursor } : {}), onProgress: (p) => void events.push({ ...p }) })) {
      arrivals.push({ batch, seen: events.at(-1) });
    }
    nock.cleanAll();
    return { fake, events, arrivals };
  }
  /** Search rows each batch lists, added up batch by batch. */
  const runningRows = (arrivals: Array<{ batch: SyncBatch<ProviderRecord> }>) => {
    let n = 0;
    return arrivals.map(({ batch }) => (n += batch.expectedIds.length));
  };

  it('the total of every stream is known before the first batch, and the read counter reaches it page by page', async () => {
    const api = new FakeApi();
    const { fake, events, arrivals } = await read(api);
    // The fake holds 3 companies, 2 contacts, 2 e-mails and 1 meeting in the read's windows.
    expect(arrivals[0]!.seen).toMatchObject({ totalEstimate: 8, itemsListed: 2 });
    expect(events[0]).toMatchObject({ totalEstimate: 8, itemsListed: 0, itemsYielded: 0 });
    // Each batch arrives with the counter already past its page's rows.
    expect(arrivals.map((a) => a.seen?.itemsListed)).toEqual(runningRows(arrivals));
    expect(arrivals.filter((a) => a.batch.items.length > 0).map((a) => a.seen?.itemsListed)).toEqual([2, 3, 5, 7, 8]);
    expect(events.at(-1)).toMatchObject({ itemsListed: 8, itemsYielded: fake.firstSync.length, totalEstimate: 8 });
    expect(events.every((e) => e.totalEstimate === 8)).toBe(true);
    // One cheap call per stream.
    expect(api.count(isCount)).toBe(6);
  });

  it('a count answering 500 does not fail the sync: the total is the other streams’ sum, or absent when none could count', async () => {
    const failing = new FakeApi();
    const error500 = { status: 500, body: { status: 'error', message: 'internal error', correlationId: 'c-1', category: 'INTERNAL_ERROR' } };
    failing.fail((r) => isCount(r) && r.path === '/crm/v3/objects/contacts/search', error500, Infinity);
    const one = await read(failing);
    expect(one.arrivals.flatMap((a) => a.batch.items.map((i) => i.providerId))).toEqual(one.fake.firstSync);
    expect(one.arrivals[0]!.seen?.totalEstimate).toBe(6);
    expect(one.events.at(-1)).toMatchObject({ itemsListed: 8, totalEstimate: 6 });
    // A count is retried once at most: it must not hold up the read.
    expect(failing.count((r) => isCount(r) && r.path === '/crm/v3/objects/contacts/search')).toBe(2);

    const none = new FakeApi();
    none.fail(isCount, error500, Infinity);
    const zero = await read(none);
    expect(zero.arrivals.flatMap((a) => a.batch.items.map((i) => i.providerId))).toEqual(zero.fake.firstSync);
    expect(zero.events.some((e) => e.totalEstimate !== undefined)).toBe(false);
    expect(zero.events.at(-1)?.itemsListed).toBe(8);
  });

  it('resuming mid-stream counts only what is left to read', async () => {
    const first = await read(new FakeApi());
    const head = first.arrivals[0]!.batch;
    const resumed = await read(new FakeApi(), head.cursor);
    // 3 companies less the 2 already listed, then contacts, e-mails and the meeting.
    expect(resumed.events[0]).toMatchObject({ totalEstimate: 6, itemsListed: 0 });
    expect(resumed.events.at(-1)).toMatchObject({ totalEstimate: 6, itemsListed: 6 });
  });
});
