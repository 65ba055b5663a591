import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../util/time.js';
import { collect, FakeApi, readFixture, recordedRetry, useRecordedExchanges, type FakeRequest } from '../contract.harness.js';
import type { ActivityRecord, Cursor, ProviderRecord, RecordsConnector, SyncBatch, SyncProgress } from '../types.js';
import { createIntercomConnector, type IntercomConnectorOptions } from './intercom-connector.js';
import { intercomHarness } from './intercom.harness.js';

const fx = (name: string) => readFixture(import.meta.url, name);

const API = 'https://api.intercom.io';
const NOW = '2024-05-20T00:00:00.000Z';
const nowS = Date.parse(NOW) / 1000;
let sleeps: number[] = [];

function connector(over: Partial<IntercomConnectorOptions> = {}) {
  return createIntercomConnector({
    credentials: { accessToken: 'dG9rOmFiYw==' },
    clock: fixedClock(NOW),
    retry: recordedRetry(sleeps),
    ...over,
  });
}
const all = (bs: SyncBatch<ProviderRecord>[]) => bs.flatMap((b) => b.items);
interface SearchBody {
  query: { operator: string; value: Array<{ field: string; operator: string; value: number }> };
  pagination: { per_page: number; starting_after?: string };
}
const headers = { authorization: 'Bearer dG9rOmFiYw==', 'intercom-version': '2.11', accept: 'application/json' };

/** The up-front count's searches (per_page 1), as asked. */
let counted: Array<{ stream: string; body: SearchBody }> = [];
/** Answers each stream's up-front count (a one-row search) with `total_count`, in Intercom's search shape. */
function counts(totals: { contacts?: number; conversations?: number }, base = API): void {
  const scope = nock(base, { reqheaders: headers });
  for (const [stream, total] of Object.entries(totals)) {
    scope
      .post(`/${stream}/search`, (b: SearchBody) => b.pagination.per_page === 1 && (counted.push({ stream, body: b }), true))
      .reply(200, {
        type: stream === 'contacts' ? 'list' : 'conversation.list',
        total_count: total,
        pages: {
          type: 'pages',
          page: 1,
          per_page: 1,
          total_pages: total,
          ...(total > 1 ? { next: { page: 2, starting_after: 'WzE3MTU2NzkwMDAwMDAsIjEiLDFd' } } : {}),
        },
        [stream === 'contacts' ? 'data' : 'conversations']: [],
      });
  }
}

useRecordedExchanges(() => {
  sleeps = [];
  counted = [];
});

describe('intercom connector', () => {
  it('full sync: contacts over two pages with their companies, then conversations with only the customer’s words', async () => {
    const bodies: SearchBody[] = [];
    counts({ contacts: 3, conversations: 2 });
    nock(API, { reqheaders: headers })
      .post('/contacts/search', (b: SearchBody) => (bodies.push(b), b.pagination.starting_after === undefined))
      .reply(200, fx('contacts-search-page1.json'), { 'X-RateLimit-Limit': '1666', 'X-RateLimit-Remaining': '1665', 'X-RateLimit-Reset': String(nowS + 10) })
      .get('/companies/667d608a8a68186f43bafd61')
      .reply(200, fx('company-globex.json'))
      .get('/companies/667d608a8a68186f43bafd62')
      .reply(200, fx('company-hooli.json'))
      .post('/contacts/search', (b: SearchBody) => b.pagination.starting_after === 'WzE3MTU2NzkwMDAwMDAsIjY2N2Q2MGVhIiwyXQ==')
      .reply(200, fx('contacts-search-page2.json'))
      .post('/conversations/search', (b: SearchBody) => (bodies.push(b), true))
      .reply(200, fx('conversations-search.json'))
      .get('/conversations/378')
      .query({ display_as: 'plaintext' })
      .reply(200, fx('conversation-378.json'))
      .get('/conversations/379')
      .query({ display_as: 'plaintext' })
      .reply(200, fx('conversation-379.json'));
    const batches = await collect(connector().sync({ mode: 'full', since: new Date('2024-01-01T00:00:00Z') }));
    const items = all(batches);
    expect(items.filter((i) => i.kind !== 'activity')).toEqual([
      // Website wins; without one, the contacts' own domains (never free mail).
      { kind: 'company', providerId: '667d608a8a68186f43bafd61', name: 'Globex', domains: ['globex.test'] },
      { kind: 'company', providerId: '667d608a8a68186f43bafd62', name: 'Hooli', domains: ['hooli.test'], mrr: 3200 },
      {
        kind: 'contact',
        providerId: '667d60ea8a68186f43bafdec',
        email: 'bob@globex.test',
        name: 'Bob Globex',
        title: 'Head of Ops',
        companyProviderId: '667d608a8a68186f43bafd61',
        companyDomain: 'globex.test',
      },
      {
        kind: 'contact',
        providerId: '667d60ea8a68186f43bafded',
        email: 'kim@hooli.test',
        name: 'Kim Hooli',
        title: '',
        companyProviderId: '667d608a8a68186f43bafd62',
        companyDomain: 'hooli.test',
      },
      { kind: 'company', providerId: '667d608a8a68186f43bafd62', name: 'Hooli', domains: [], mrr: 3200 },
      {
        kind: 'contact',
        providerId: '667d60ea8a68186f43bafdee',
        email: 'sam@gmail.com',
        name: 'Sam Free',
        title: '',
        companyProviderId: '667d608a8a68186f43bafd62',
      },
    ]);
    const tickets = items.filter((i): i is ActivityRecord => i.kind === 'activity');
    expect(tickets[0]).toEqual({
      kind: 'activity',
      providerId: '378',
      type: 'support_ticket',
      occurredAt: '2024-05-14T09:13:20.000Z',
      subject: 'Q3 renewal',
      text: 'Hi, question about our renewal.\n\nGreat, thanks a lot!',
      fromEmail: 'bob@globex.test',
      toEmails: [],
      direction: 'inbound',
      opened: null,
      contactEmails: ['bob@globex.test'],
      contactProviderIds: ['667d60ea8a68186f43bafdec'],
      threadId: 'intercom:378',
    });
    expect(tickets[1]).toMatchObject({
      providerId: '379',
      subject: 'Login broken',
      text: 'I cannot log in, this is terrible.',
      contactEmails: ['kim@hooli.test'],
    });
    expect(bodies[0]).toEqual({ query: { operator: 'AND', value: [{ field: 'updated_at', operator: '>', value: 0 }] }, pagination: { per_page: 150 } });
    // First, one count per stream: a one-row search with the query its read uses.
    expect(counted).toEqual([
      { stream: 'contacts', body: { query: bodies[0]!.query, pagination: { per_page: 1 } } },
      { stream: 'conversations', body: { query: bodies[1]!.query, pagination: { per_page: 1 } } },
    ]);
    expect(bodies[1]!.query.value[0]!.value).toBe(Date.parse('2024-01-01T00:00:00Z') / 1000);
    expect(batches[0]!.cursor).toMatchObject({ current: { stream: 'contacts', startingAfter: 'WzE3MTU2NzkwMDAwMDAsIjY2N2Q2MGVhIiwyXQ==' } });
    expect(batches[batches.length - 1]!.cursor).toMatchObject({
      v: 1,
      streams: { contacts: { since: 1715679200 }, conversations: { since: 1715679600, seen: { '378': 1715679000, '379': 1715679600 } } },
    });
  });

  it('incremental: re-reads a day of overlap and skips what it already read unchanged', async () => {
    const cursor = {
      v: 1,
      streams: {
        contacts: { since: 1715679200, seen: {} },
        conversations: { since: 1715679000, seen: { '378': 1715679000 } },
      },
    };
    let asked: number | undefined;
    counts({ contacts: 0, conversations: 2 });
    nock(API)
      .post('/contacts/search')
      .reply(200, fx('empty-contacts.json'))
      .post('/conversations/search', (b: SearchBody) => ((asked = b.query.value[0]!.value), true))
      .reply(200, fx('conversations-search.json'))
      // 378 comes back in the overlap with the same updated_at: not fetched again.
      .get('/conversations/379')
      .query({ display_as: 'plaintext' })
      .reply(200, fx('conversation-379.json'));
    const batches = await collect(connector().sync({ mode: 'quick', cursor }));
    expect(asked).toBe(1715679000 - 86_400);
    expect(counted.map((c) => c.body.query.value[0]!.value)).toEqual([1715679200 - 86_400, asked]);
    expect(all(batches).map((i) => i.providerId)).toEqual(['379']);
    expect(batches[batches.length - 1]!.cursor).toMatchObject({ streams: { conversations: { since: 1715679600 } } });
  });

  it('a 5xx is retried; a conversation failing twice is listed as unreconciled', async () => {
    counts({ contacts: 0, conversations: 2 });
    nock(API)
      .post('/contacts/search')
      .reply(500, fx('error-500.json'))
      .post('/contacts/search')
      .reply(200, fx('empty-contacts.json'))
      .post('/conversations/search')
      .reply(200, fx('conversations-search.json'))
      .get('/conversations/378')
      .query(true)
      // One retry inside each pass, and two passes: four attempts in all.
      .times(4)
      .reply(503, fx('error-500.json'))
      .get('/conversations/379')
      .query(true)
      .reply(200, fx('conversation-379.json'));
    const batches = await collect(connector({ retry: recordedRetry(sleeps, { maxRetries: 1 }) }).sync({ mode: 'full' }));
    const last = batches[batches.length - 1]!;
    expect(last.items.map((i) => i.providerId)).toEqual(['379']);
    expect(last.unreconciled).toEqual([{ providerId: '378', reason: expect.stringMatching(/HTTP 503/) }]);
    // 378 is not marked as read: the next sync tries it again.
    expect((last.cursor as { streams: { conversations: { seen: Record<string, number> } } }).streams.conversations.seen).not.toHaveProperty('378');
  });

  it('honours a configured regional base URL', async () => {
    counts({ contacts: 0, conversations: 0 }, 'https://api.eu.intercom.io');
    nock('https://api.eu.intercom.io')
      .post('/contacts/search')
      .reply(200, fx('empty-contacts.json'))
      .post('/conversations/search')
      .reply(200, fx('empty-conversations.json'));
    const batches = await collect(connector({ apiUrl: 'https://api.eu.intercom.io/' }).sync({ mode: 'full' }));
    expect(batches).toHaveLength(2);
  });
});

describe('intercom connector: live progress', () => {
  const isCount = (r: FakeRequest) => r.path.endsWith('/search') && (r.body as SearchBody).pagination.per_page === 1;
  /** Over the harness's fake (contacts over two pages, then conversations): the progress seen when each batch arrived. */
  async function read(api: FakeApi, cursor?: Cursor) {
    const fake = intercomHarness.create(api);
    const c = fake.connector({ clock: fixedClock(NOW), retry: recordedRetry(sleeps) }) as RecordsConnector;
    const events: SyncProgress[] = [];
    const arrivals: Array<{ batch: SyncBatch<ProviderRecord>; seen: SyncProgress | undefined }> = [];
    for await (const batch of c.sync({ mode: cursor ? 'quick' : 'full', ...(cursor ? { cursor } : {}), onProgress: (p) => void events.push({ ...p }) })) {
      arrivals.push({ batch, seen: events.at(-1) });
    }
    nock.cleanAll();
    return { fake, events, arrivals };
  }
  const ids = (arrivals: Array<{ batch: SyncBatch<ProviderRecord> }>) => arrivals.flatMap((a) => a.batch.items.map((i) => i.providerId));

  it('the total of both streams is known before the first batch, and the read counter reaches it page by page', async () => {
    const api = new FakeApi();
    const { fake, events, arrivals } = await read(api);
    // The fake holds 3 contacts (two pages) and 2 conversations in the read's windows.
    expect(events[0]).toMatchObject({ totalEstimate: 5, itemsListed: 0, itemsYielded: 0 });
    // Each batch arrives with the counter already past its page's rows.
    expect(arrivals.map((a) => a.seen?.itemsListed)).toEqual([2, 3, 5]);
    expect(arrivals.map((a) => a.seen?.totalEstimate)).toEqual([5, 5, 5]);
    expect(events.at(-1)).toMatchObject({ itemsListed: 5, totalEstimate: 5, itemsYielded: fake.firstSync.length });
    expect(ids(arrivals)).toEqual(fake.firstSync);
    // One cheap call per stream.
    expect(api.count(isCount)).toBe(2);
  });

  it('a count answering 500 does not fail the sync: the total is the other stream’s, or absent when none could count', async () => {
    const error500 = { status: 500, body: fx('error-500.json') };
    const failing = new FakeApi();
    failing.fail((r) => isCount(r) && r.path === '/conversations/search', error500, Infinity);
    const one = await read(failing);
    expect(ids(one.arrivals)).toEqual(one.fake.firstSync);
    expect(one.arrivals[0]!.seen?.totalEstimate).toBe(3);
    expect(one.events.at(-1)).toMatchObject({ itemsListed: 5, totalEstimate: 3 });
    // A count is retried once at most: it must not hold up the read.
    expect(failing.count((r) => isCount(r) && r.path === '/conversations/search')).toBe(2);

    const none = new FakeApi();
    none.fail(isCount, error500, Infinity);
    const zero = await read(none);
    expect(ids(zero.arrivals)).toEqual(zero.fake.firstSync);
    expect(zero.events.some((e) => e.totalEstimate !== undefined)).toBe(false);
    expect(zero.events.at(-1)?.itemsListed).toBe(5);
  });

  it('resuming mid-stream counts only what is left to read', async () => {
    const first = await read(new FakeApi());
    const resumed = await read(new FakeApi(), first.arrivals[0]!.batch.cursor);
    // 3 contacts less the 2 already listed, then the 2 conversations.
    expect(resumed.events[0]).toMatchObject({ totalEstimate: 3, itemsListed: 0 });
    expect(resumed.events.at(-1)).toMatchObject({ totalEstimate: 3, itemsListed: 3 });
  });
});
