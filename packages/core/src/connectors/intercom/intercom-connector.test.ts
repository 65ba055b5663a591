import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../util/time.js';
import { collect, readFixture, recordedRetry, useRecordedExchanges } from '../contract.harness.js';
import type { ActivityRecord, ProviderRecord, SyncBatch } from '../types.js';
import { createIntercomConnector, type IntercomConnectorOptions } from './intercom-connector.js';

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

useRecordedExchanges(() => {
  sleeps = [];
});

describe('intercom connector', () => {
  it('full sync: contacts over two pages with their companies, then conversations with only the customer’s words', async () => {
    const bodies: SearchBody[] = [];
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
    expect(all(batches).map((i) => i.providerId)).toEqual(['379']);
    expect(batches[batches.length - 1]!.cursor).toMatchObject({ streams: { conversations: { since: 1715679600 } } });
  });

  it('a 5xx is retried; a conversation failing twice is listed as unreconciled', async () => {
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
    nock('https://api.eu.intercom.io')
      .post('/contacts/search')
      .reply(200, fx('empty-contacts.json'))
      .post('/conversations/search')
      .reply(200, fx('empty-conversations.json'));
    const batches = await collect(connector({ apiUrl: 'https://api.eu.intercom.io/' }).sync({ mode: 'full' }));
    expect(batches).toHaveLength(2);
  });
});
