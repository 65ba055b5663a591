/**
 * Intercom's search endpoints as the contract suite sees them: the recorded contacts and
 * conversations, filtered by `updated_at >` the search's value and paged by an opaque
 * `starting_after`, with each company and conversation readable by id. Every search answers
 * `total_count` (all the hits, whatever `per_page`), as the up-front count reads it.
 */
import { readFixture, type ConnectorHarness, type FakeApi, type FakeReply, type FakeRequest } from '../contract.harness.js';
import { createIntercomConnector } from './intercom-connector.js';

const API = 'https://api.intercom.io';
const fx = (name: string) => readFixture(import.meta.url, name);

interface Row {
  id: string;
  updated_at: number;
}

interface SearchBody {
  query: { value: Array<{ field: string; operator: string; value: number }> };
  pagination: { per_page: number; starting_after?: string };
}

// Intercom's cursors are opaque base64; the fake's carry the offset.
const token = (offset: number) => Buffer.from(JSON.stringify([offset])).toString('base64');
const offsetOf = (t: string | undefined) => (t === undefined ? 0 : ((JSON.parse(Buffer.from(t, 'base64').toString('utf8')) as number[])[0] ?? 0));

export const intercomHarness: ConnectorHarness = {
  provider: 'intercom',
  create(api: FakeApi) {
    const contacts = [fx('contacts-search-page1.json'), fx('contacts-search-page2.json')].flatMap((p) => p['data'] as Row[]);
    const conversations = readFixture<{ conversations: Row[] }>(import.meta.url, 'conversations-search.json').conversations;
    const details: Record<string, Row> = {
      '378': readFixture<Row>(import.meta.url, 'conversation-378.json'),
      '379': readFixture<Row>(import.meta.url, 'conversation-379.json'),
    };
    const companies = [fx('company-globex.json'), fx('company-hooli.json')];
    const ok = (body: unknown): FakeReply => ({ status: 200, body });
    const notFound: FakeReply = { status: 404, body: { type: 'error.list', errors: [{ code: 'not_found', message: 'Resource Not Found' }] } };

    const search = (rows: Row[], key: 'data' | 'conversations', type: string) => (r: FakeRequest) => {
      const body = r.body as SearchBody;
      const after = body.query.value.find((v) => v.field === 'updated_at' && v.operator === '>')?.value ?? 0;
      const hits = rows.filter((x) => x.updated_at > after);
      const per = body.pagination.per_page;
      const from = offsetOf(body.pagination.starting_after);
      const page = Math.floor(from / per) + 1;
      const more = from + per < hits.length;
      return ok({
        type,
        total_count: hits.length,
        pages: {
          type: 'pages',
          page,
          per_page: per,
          total_pages: Math.ceil(hits.length / per),
          ...(more ? { next: { page: page + 1, starting_after: token(from + per) } } : {}),
        },
        [key]: hits.slice(from, from + per),
      });
    };
    api.route(API, 'POST', /^\/contacts\/search$/, search(contacts, 'data', 'list'));
    api.route(API, 'POST', /^\/conversations\/search$/, search(conversations, 'conversations', 'conversation.list'));
    api.route(API, 'GET', /^\/conversations\/\w+$/, (r) => {
      const c = details[r.path.split('/')[2] ?? ''];
      return c ? ok(c) : notFound;
    });
    api.route(API, 'GET', /^\/companies\/\w+$/, (r) => {
      const c = companies.find((x) => x['id'] === r.path.split('/')[2]);
      return c ? ok(c) : notFound;
    });

    return {
      connector: ({ clock, retry }) => createIntercomConnector({ credentials: { accessToken: 'dG9rOmFiYw==' }, clock, retry, pageSize: 2 }),
      // Companies come with the contacts of the page that names them.
      firstSync: [
        '667d608a8a68186f43bafd61',
        '667d608a8a68186f43bafd62',
        '667d60ea8a68186f43bafdec',
        '667d60ea8a68186f43bafded',
        '667d608a8a68186f43bafd62',
        '667d60ea8a68186f43bafdee',
        '378',
        '379',
      ],
      // The up-front count (a one-row search per stream) is not a page of the listing.
      isFirstPage: (r: FakeRequest) =>
        r.path === '/contacts/search' && (r.body as SearchBody).pagination.starting_after === undefined && (r.body as SearchBody).pagination.per_page > 1,
      unauthorized: { status: 401, body: fx('error-401.json') },
      serverError: { status: 500, body: fx('error-500.json') },
      // Intercom says when its window resets (epoch seconds), not Retry-After.
      rateLimited: (seconds, now) => ({
        status: 429,
        body: fx('error-429.json'),
        headers: { 'x-ratelimit-limit': '1666', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(now.getTime() / 1000) + seconds) },
      }),
      change(at) {
        // A customer writes again in conversation 379.
        const t = Math.floor(at.getTime() / 1000);
        for (const c of [conversations.find((x) => x.id === '379'), details['379']]) if (c) c.updated_at = t;
        return ['379'];
      },
    };
  },
};
