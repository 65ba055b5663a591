/**
 * HubSpot's CRM search as the contract suite sees it: the recorded objects of every stream,
 * filtered by the last-modified range the search asks for, sorted oldest change first and paged
 * by `after` (an offset, as HubSpot's is), with the recorded owners, associations and contacts.
 * Every search answers `total` (all the hits, whatever `limit`), as the up-front count reads it.
 */
import { readFixture, type ConnectorHarness, type FakeApi, type FakeReply, type FakeRequest } from '../contract.harness.js';
import type { HubSpotObject } from './hubspot-client.js';
import { createHubSpotConnector } from './hubspot-connector.js';
import { lastModifiedProperty, STREAMS, type Stream } from './hubspot-mapping.js';

const API = 'https://api.hubapi.com';
const fx = (name: string) => readFixture(import.meta.url, name);
/** An object as search returns it (the connector reads its id and properties). */
type Recorded = HubSpotObject & { updatedAt?: string };
const results = (name: string) => readFixture<{ results: Recorded[] }>(import.meta.url, name).results;

interface SearchBody {
  filterGroups: Array<{ filters: Array<{ propertyName: string; operator: string; value: string }> }>;
  limit: number;
  after?: string;
}

const isStream = (s: string | undefined): s is Stream => (STREAMS as readonly string[]).includes(s ?? '');

export const hubspotHarness: ConnectorHarness = {
  provider: 'hubspot',
  create(api: FakeApi) {
    const data: Record<Stream, Recorded[]> = {
      companies: [...results('companies-page1.json'), ...results('companies-page2.json')],
      contacts: results('contacts.json'),
      emails: results('emails.json'),
      meetings: results('meetings.json'),
      calls: [],
      notes: [],
      // No renewal pipeline is mapped: the connector never asks for deals.
      deals: [],
    };
    const ok = (body: unknown): FakeReply => ({ status: 200, body });
    const modified = (stream: Stream, o: HubSpotObject) => Date.parse(o.properties[lastModifiedProperty(stream)] ?? '');

    api.route(API, 'POST', /^\/crm\/v3\/objects\/\w+\/search$/, (r) => {
      const stream = r.path.split('/')[4];
      if (!isStream(stream)) return { status: 404, body: { status: 'error', message: 'Not found', category: 'OBJECT_NOT_FOUND' } };
      const body = r.body as SearchBody;
      const f = body.filterGroups[0]?.filters ?? [];
      const bound = (op: string) => Number(f.find((x) => x.operator === op && x.propertyName === lastModifiedProperty(stream))?.value);
      const [gte, lt] = [bound('GTE'), bound('LT')];
      const hits = data[stream].filter((o) => modified(stream, o) >= gte && modified(stream, o) < lt).sort((a, b) => modified(stream, a) - modified(stream, b));
      const from = Number(body.after ?? 0);
      const next = from + body.limit < hits.length ? String(from + body.limit) : undefined;
      return ok({
        total: hits.length,
        results: hits.slice(from, from + body.limit),
        ...(next ? { paging: { next: { after: next, link: `${API}/crm/v3/objects/${stream}/search?after=${next}` } } } : {}),
      });
    });
    api.route(API, 'GET', /^\/crm\/v3\/owners\/$/, () => ok(fx('owners.json')));
    api.route(API, 'POST', /^\/crm\/v4\/associations\/\w+\/\w+\/batch\/read$/, (r) => {
      const [, , , , from, to] = r.path.split('/');
      return ok(fx(`${from}-assoc-${to}.json`));
    });
    api.route(API, 'POST', /^\/crm\/v3\/objects\/contacts\/batch\/read$/, () => ok(fx('contacts-batch-read.json')));

    return {
      connector: ({ clock, retry }) => createHubSpotConnector({ credentials: { accessToken: 'pat-na1-test' }, clock, retry, pageSize: 2 }),
      // Companies over two pages, contacts, then the e-mails and the meeting.
      firstSync: ['18231942001', '18231942002', '18231942003', '901', '902', 'emails:51234567890', 'emails:51234567891', 'meetings:61000000001'],
      // The up-front count (a one-result search per stream) is not a page of the listing.
      isFirstPage: (r: FakeRequest) =>
        r.path === '/crm/v3/objects/companies/search' && (r.body as SearchBody).after === undefined && (r.body as SearchBody).limit > 1,
      unauthorized: { status: 401, body: fx('error-401.json') },
      serverError: { status: 502, body: fx('error-502.json') },
      rateLimited: (seconds) => ({
        status: 429,
        body: fx('error-429-ten-secondly.json'),
        headers: { 'retry-after': String(seconds), 'x-hubspot-ratelimit-max': '100', 'x-hubspot-ratelimit-remaining': '0' },
      }),
      change(at) {
        // Initech is renamed.
        const initech = data.companies.find((c) => c.id === '18231942002');
        if (initech) {
          initech.properties = { ...initech.properties, name: 'Initech Global', hs_lastmodifieddate: at.toISOString() };
          initech.updatedAt = at.toISOString();
        }
        return ['18231942002'];
      },
    };
  },
};
