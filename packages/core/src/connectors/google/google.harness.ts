/**
 * The Gmail API as the contract suite sees it, from the recorded fixtures: a profile, a message
 * list over two pages, each message as `raw`, and a history that is empty until the data changes
 * (then two history pages adding two messages and a draft, which is not mail to read).
 */
import { readFixture, type ConnectorHarness, type FakeApi, type FakeReply, type FakeRequest } from '../contract.harness.js';
import { createGoogleConnector } from './google-connector.js';

const API = 'https://gmail.googleapis.com';
const fx = (name: string) => readFixture(import.meta.url, name);

interface ListPage {
  messages?: Array<{ id: string; threadId: string }>;
  nextPageToken?: string;
}

export const googleHarness: ConnectorHarness = {
  provider: 'google',
  create(api: FakeApi) {
    const raws = readFixture<Record<string, Record<string, unknown>>>(import.meta.url, 'messages-raw.json');
    const page1 = readFixture<ListPage>(import.meta.url, 'messages-list-recent-page1.json');
    const page2 = readFixture<ListPage>(import.meta.url, 'messages-list-recent-page2.json');
    const historyPages = [fx('history-page1.json'), fx('history-page2.json')];
    const profile = fx('profile.json');
    // The mailbox's history id, and whether the recorded history happened after it.
    let historyId = String(profile['historyId']);
    let changed = false;
    const ok = (body: unknown): FakeReply => ({ status: 200, body });

    api.route(API, 'GET', /^\/gmail\/v1\/users\/me\/profile$/, () => ok({ ...profile, historyId }));
    // The up-front count (maxResults=1) answers Gmail's estimate for the window; the read gets the pages.
    const listed = [...(page1.messages ?? []), ...(page2.messages ?? [])];
    api.route(API, 'GET', /^\/gmail\/v1\/users\/me\/messages$/, (r) =>
      r.query.get('maxResults') === '1'
        ? ok({ messages: listed.slice(0, 1), nextPageToken: 'count-only', resultSizeEstimate: listed.length })
        : ok(r.query.get('pageToken') === page1.nextPageToken ? page2 : page1),
    );
    api.route(API, 'GET', /^\/gmail\/v1\/users\/me\/messages\/[^/]+$/, (r) => {
      const m = raws[r.path.split('/').pop() ?? ''];
      return m ? ok(m) : { status: 404, body: fx('error-404.json') };
    });
    api.route(API, 'GET', /^\/gmail\/v1\/users\/me\/history$/, (r) => {
      const start = r.query.get('startHistoryId') ?? '';
      if (!changed || start === historyId) return ok({ historyId });
      return ok(r.query.get('pageToken') === historyPages[0]?.['nextPageToken'] ? historyPages[1] : historyPages[0]);
    });

    return {
      connector: ({ clock, retry }) =>
        // One week back is one window: the two list pages. No refresh token: a 401 is final.
        createGoogleConnector({ credentials: { accessToken: 'ya29.valid', email: 'rep@acme.test' }, clock, retry, horizonDays: 7, quota: false }),
      firstSync: [...(page1.messages ?? []), ...(page2.messages ?? [])].map((m) => m.id),
      isFirstPage: (r: FakeRequest) => r.path === '/gmail/v1/users/me/messages' && !r.query.has('pageToken') && r.query.get('maxResults') !== '1',
      unauthorized: { status: 401, body: fx('error-401.json') },
      serverError: { status: 503, body: fx('error-503.json') },
      rateLimited: (seconds) => ({ status: 429, body: fx('error-429.json'), headers: { 'retry-after': String(seconds) } }),
      change() {
        changed = true;
        historyId = String(historyPages[1]?.['historyId']);
        // history-page1 adds 18f8000000000001 and a draft; history-page2 adds 18f8000000000003.
        return ['18f8000000000001', '18f8000000000003'];
      },
    };
  },
};
