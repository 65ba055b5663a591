// @vitest-environment happy-dom
/**
 * The clients table, the client page and the API keys against a fake API: sorting and filters,
 * the edit that PATCHes the client, the chart's hover text, and a key shown once then revoked.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../App.js';
import type { Answer } from '../lib/api.js';
import { historyOption } from './ClientPage.js';
import { backfillWindow, navigation } from './Sources.js';
import { client, installFakeApi, standardRoutes, type FakeApi } from '../test/fake-api.js';

vi.mock('../components/Chart.js', () => ({
  Chart: (p: { label: string; testId?: string; highlight?: number | null }) => (
    <div data-testid={p.testId} data-highlight={p.highlight ?? ''}>
      {p.label}
    </div>
  ),
}));

const session = { workspace: 'acme.com', key: 'sk-test-key' };
let api: FakeApi;

beforeEach(() => {
  sessionStorage.clear();
  api = installFakeApi();
  standardRoutes(api);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  history.replaceState(null, '', '/');
});

const names = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((r) => r.querySelector('td')!.textContent);

describe('the clients table', () => {
  it('sorts by a column both ways, filters by text, risk, CSM and exclusion, and shows trend arrows', async () => {
    history.replaceState(null, '', '/clients');
    render(<App initialSession={session} />);
    const table = await screen.findByTestId('clients-table');
    // Default: by health, lowest first.
    expect(names(table)).toEqual(['Brightwater', 'Calderon', 'Vantage']);
    fireEvent.click(within(table).getByRole('button', { name: /MRR/ }));
    expect(names(table)).toEqual(['Vantage', 'Calderon', 'Brightwater']);
    fireEvent.click(within(table).getByRole('button', { name: /MRR/ }));
    expect(names(table)).toEqual(['Brightwater', 'Calderon', 'Vantage']);
    expect(within(table).getByRole('columnheader', { name: /MRR/ }).getAttribute('aria-sort')).toBe('descending');
    await waitFor(() => expect(within(table).getByLabelText('down 30.0')).toBeTruthy());

    fireEvent.input(screen.getByLabelText('Search'), { target: { value: 'calder' } });
    expect(names(table)).toEqual(['Calderon']);
    fireEvent.input(screen.getByLabelText('Search'), { target: { value: '' } });
    fireEvent.click(screen.getByLabelText('At risk only'));
    expect(names(table)).toEqual(['Brightwater']);
    fireEvent.click(screen.getByLabelText('At risk only'));
    fireEvent.click(screen.getByLabelText('Show excluded'));
    expect(names(table)).not.toContain('Vantage');
    fireEvent.change(screen.getByLabelText('CSM'), { target: { value: 'csm2@acme.com' } });
    expect(names(table)).toEqual(['Calderon']);
  });
});

const details: Answer<'/api/clients/{clientId}'> = {
  client: client('c1', 'Brightwater', 25, { mrr: 12500 }),
  metrics: { totalInteractions: 33, avgResponseTime: 5.2, lastMonthInteractions: 7, sentimentTrend: 'declining' },
  contacts: [{ email: 'jo@brightwater.com', name: 'Jo Smith', title: 'COO', lastSeen: '2025-06-20T10:00:00.000Z' }],
  health: {
    score: 25,
    date: '2025-06-30',
    confidence: 1,
    reason: 'Score 25.0: 2 messages say they will leave.',
    reasonCode: 'churn_intent',
    risks: [{ code: 'churn_intent', text: '2 messages say they will leave', interactionIds: ['i1'] }],
  },
};
const interaction = {
  id: 'i1',
  type: 'email',
  subject: 'We are looking at other vendors',
  sentiment: 'negative',
  date: '2025-06-20T10:00:00.000Z',
  from: 'jo@brightwater.com',
  to: 'ana@acme.com',
  summary: 'They may not renew.',
  sentimentScore: -0.7,
  direction: 'inbound',
  source: 'mbox',
};
const history90: Answer<'/api/clients/{clientId}/health-history'> = {
  clientId: 'c1',
  windowDays: 90,
  days: [
    { date: '2025-06-19', score: 70, confidence: 1, change: null, reasonCode: 'stable', reason: 'Stable.', sentiment: 60, interactionIds: [] },
    {
      date: '2025-06-20',
      score: 25,
      confidence: 1,
      change: -45,
      reasonCode: 'churn_intent',
      reason: 'Said <they> will leave & go.',
      sentiment: 30,
      interactionIds: ['i1'],
    },
  ],
  components: [{ name: 'sentiment', value: 30, weight: 0.4, contribution: 12 }],
  evidence: [interaction],
};

describe('the client page', () => {
  beforeEach(() => {
    api.on('GET', '/api/clients/c1', () => ({ body: details }));
    api.on('GET', '/api/clients/c1/health-history', () => ({ body: history90 }));
    api.on('GET', '/api/clients/c1/interactions', (url) => ({
      body: {
        interactions: [interaction],
        pagination: {
          total: 45,
          limit: Number(url.searchParams.get('limit')),
          offset: Number(url.searchParams.get('offset')),
          hasMore: Number(url.searchParams.get('offset')) < 40,
        },
      },
    }));
  });

  it('shows the reason, the risks, the evidence, components, contacts and a paged timeline', async () => {
    history.replaceState(null, '', '/clients/c1');
    render(<App initialSession={session} />);
    expect((await screen.findByTestId('client-reason')).textContent).toBe('Score 25.0: 2 messages say they will leave.');
    const evidence = await screen.findByTestId('evidence');
    expect(evidence.textContent).toContain('We are looking at other vendors');
    expect(evidence.textContent).toContain('negative');
    expect(evidence.textContent).toContain('They may not renew.');
    expect(screen.getByText('Jo Smith')).toBeTruthy();
    expect(screen.getByText('sentiment')).toBeTruthy();
    expect(screen.getByText('1–1 of 45')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Older →' }));
    await waitFor(() =>
      expect(api.calls.some((c) => c.url.pathname === '/api/clients/c1/interactions' && c.url.searchParams.get('offset') === '20')).toBe(true),
    );
  });

  it('saves MRR, renewal date, CSM owner and exclusion with one PATCH, and says so; an error in words', async () => {
    let patched: unknown;
    api.on('PATCH', '/api/clients/c1', (_url, req) => {
      patched = req.body;
      return { body: client('c1', 'Brightwater', 25, { mrr: 9000 }) };
    });
    history.replaceState(null, '', '/clients/c1');
    render(<App initialSession={session} />);
    await screen.findByTestId('client-reason');
    fireEvent.input(screen.getByLabelText('MRR'), { target: { value: '9000' } });
    fireEvent.input(screen.getByLabelText('Renewal date'), { target: { value: '2025-12-01' } });
    fireEvent.input(screen.getByLabelText('CSM owner'), { target: { value: '' } });
    fireEvent.click(screen.getByLabelText('Excluded from metrics'));
    fireEvent.submit(screen.getByRole('form', { name: 'Edit client' }));
    await screen.findByText('Saved.');
    expect(patched).toEqual({ mrr: 9000, renewalDate: '2025-12-01', csmOwner: null, isExcluded: true });

    api.on('PATCH', '/api/clients/c1', () => ({
      status: 400,
      body: { error: 'body.csmOwner: must match format "email"', code: 'VALIDATION_ERROR', status: 400 },
    }));
    fireEvent.input(screen.getByLabelText('CSM owner'), { target: { value: 'nobody' } });
    fireEvent.submit(screen.getByRole('form', { name: 'Edit client' }));
    expect(await screen.findByText('body.csmOwner: must match format "email"')).toBeTruthy();
  });

  it('lists each score move with its date, score, change and reason, reachable by keyboard; a focused move shows its point on the chart', async () => {
    history.replaceState(null, '', '/clients/c1');
    render(<App initialSession={session} />);
    const moves = await screen.findByTestId('score-moves');
    expect(within(moves).getByText('Score moves of 2 points or more, newest first')).toBeTruthy();
    const rows = within(moves).getAllByRole('row').slice(1);
    // Only the day that moved by 2 points or more (the chart's markers).
    expect(rows.map((r) => [...r.children].map((c) => c.textContent))).toEqual([['Jun 20, 2025', '25.0', '−45.0', 'Said <they> will leave & go.']]);
    const row = rows[0]!;
    expect(row.tabIndex).toBe(0);
    const chart = screen.getByTestId('score-history');
    expect(chart.textContent).toContain('each move and its reason are in the table below');
    expect(chart.getAttribute('data-highlight')).toBe('');
    fireEvent.focus(row);
    // The 2nd day of the history: its tooltip shows on the chart.
    await waitFor(() => expect(chart.getAttribute('data-highlight')).toBe('1'));
    fireEvent.blur(row);
    await waitFor(() => expect(chart.getAttribute('data-highlight')).toBe(''));
  });

  it("the chart's hover text gives the day, the score, its change and the reason, escaped", () => {
    const option = historyOption(history90, 40, { timeZone: 'UTC', currency: 'USD', lang: 'en-US' });
    const tooltip = option.tooltip as { formatter: (p: unknown) => string };
    const html = tooltip.formatter([{ axisValue: '2025-06-20' }]);
    expect(html).toContain('Jun 20, 2025');
    expect(html).toContain('Score 25.0 (−45.0)');
    expect(html).toContain('Said &lt;they&gt; will leave &amp; go.');
    expect(html).not.toContain('<they>');
  });
});

describe('API keys', () => {
  it('creates a key shown in full once with a copy button, lists keys masked, and revokes one after a confirmation', async () => {
    const keys = [
      { id: 'k1', name: 'Default key', key: 'sk-AbC…wxYz', lastUsedAt: null, isActive: true, createdAt: '2025-06-01T00:00:00.000Z', createdBy: null },
    ];
    api.on('GET', '/api/settings/user', () => ({
      body: {
        user: { email: 'ana@acme.com', name: 'Ana', title: '', hasCompletedOnboarding: true, createdAt: '2025-01-01T00:00:00.000Z', lastLoginAt: null },
        workspace: { domain: 'acme.com', name: 'Acme', plan: 'self-hosted', billingStatus: 'active' },
      },
    }));
    api.on('GET', '/api/settings/api-keys', () => ({ body: { apiKeys: keys } }));
    api.on('POST', '/api/settings/api-keys', (_url, req) => {
      const name = (req.body as { name: string }).name;
      keys.push({ id: 'k2', name, key: 'sk-NeW…1234', lastUsedAt: null, isActive: true, createdAt: '2025-06-30T00:00:00.000Z', createdBy: null });
      return {
        body: {
          success: true,
          message: 'created',
          apiKey: { id: 'k2', name, key: 'sk-NeWfullkeyfullkeyfullkeyfullkey1234', isActive: true, createdAt: '2025-06-30T00:00:00.000Z' },
        },
      };
    });
    api.on('DELETE', '/api/settings/api-keys/k2', () => {
      keys.splice(1, 1);
      return { body: { success: true, message: 'deleted' } };
    });
    const writeText = vi.fn(() => Promise.resolve(undefined));
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    history.replaceState(null, '', '/settings');
    render(<App initialSession={session} />);
    const table = await screen.findByTestId('api-keys');
    expect(table.textContent).toContain('sk-AbC…wxYz');

    fireEvent.input(screen.getByLabelText('New key name'), { target: { value: 'CI' } });
    fireEvent.submit(screen.getByRole('form', { name: 'Create an API key' }));
    expect((await screen.findByTestId('new-key-value')).textContent).toBe('sk-NeWfullkeyfullkeyfullkeyfullkey1234');
    fireEvent.click(screen.getByRole('button', { name: 'Copy' }));
    await screen.findByRole('button', { name: 'Copied' });
    expect(writeText).toHaveBeenCalledWith('sk-NeWfullkeyfullkeyfullkeyfullkey1234');
    await waitFor(() => expect(screen.getByTestId('api-keys').textContent).toContain('sk-NeW…1234'));
    fireEvent.click(screen.getByRole('button', { name: 'Done' }));
    expect(document.body.textContent).not.toContain('fullkey');

    fireEvent.click(screen.getByRole('button', { name: 'Revoke CI' }));
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Revoke CI for good' }));
    await waitFor(() => expect(screen.getByTestId('api-keys').textContent).not.toContain('sk-NeW…1234'));
    expect(api.calls.filter((c) => c.method === 'DELETE').map((c) => c.url.pathname)).toEqual(['/api/settings/api-keys/k2']);
  });
});

type IntegrationStatus = Answer<'/api/integrations/{provider}/status'>;
type Job = NonNullable<Answer<'/api/ingest/status'>['currentJob']>;

function integration(provider: string, connected: boolean, accounts: IntegrationStatus['accounts'] = []): IntegrationStatus {
  return {
    connected,
    provider,
    workspaceId: 'acme.com',
    email: connected ? 'rep@acme.com' : null,
    expiresAt: null,
    hasRefresh: connected,
    lastSyncAt: connected ? '2025-06-29T22:30:00.000Z' : null,
    scope: connected ? 'https://www.googleapis.com/auth/gmail.readonly' : null,
    state: connected ? 'connected' : 'not_connected',
    accounts,
  };
}

function job(status: Job['status'], progress: number, jobId = 'job1'): Job {
  return {
    jobId,
    status,
    progress,
    startedAt: '2025-06-30T08:00:00.000Z',
    estimatedCompletion: null,
    sources: { google: { status, itemsProcessed: progress * 10, totalItems: 1000 } },
  };
}

/** The Sources screen's reads; `current` answers GET /ingest/status each time it is polled. */
function sourcesRoutes(current: () => Job | null, accounts: IntegrationStatus['accounts'] = []): void {
  for (const p of ['google', 'hubspot', 'intercom'])
    api.on('GET', `/api/integrations/${p}/status`, () => ({ body: integration(p, p === 'google', p === 'google' ? accounts : []) }));
  api.on('GET', '/api/ingest/status', () => ({ body: { currentJob: current(), recentJobs: [] } }));
  api.on('GET', '/api/ingest/history', () => ({ body: { syncHistory: [], pagination: { total: 0, limit: 20, offset: 0, hasMore: false } } }));
  api.on('GET', '/api/ingest/email-stats', () => ({
    body: {
      windowDays: 30,
      emailsProcessed: 274,
      emailsInbound: 136,
      emailsOutbound: 138,
      openTrackingEnabled: false,
      openRate: 0,
      responseRate: 0.46,
      avgSentimentScore: 0.6,
      topClients: [],
      processingErrors: { parseErrors: 2, attachmentErrors: 0, sentimentErrors: 0, charsetErrors: 0 },
      note: '',
    },
  }));
}

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

describe('sources and jobs', () => {
  it("shows each integration's status, starts a sync, and follows the running job until it ends", async () => {
    let polls = 0;
    sourcesRoutes(() => {
      polls += 1;
      return polls < 3 ? job('running', polls * 30) : null;
    });
    api.on('POST', '/api/integrations/google/sync', () => ({
      body: { success: true, message: 'Sync started for google', syncId: 'job1', startedAt: '2025-06-30T08:00:00.000Z', estimatedDuration: 60 },
    }));
    history.replaceState(null, '', '/sources');
    render(<App initialSession={session} />);
    const gmail = (await screen.findByRole('heading', { name: /Gmail/ })).closest('section')!;
    await waitFor(() => expect(gmail.textContent).toContain('rep@acme.com'));
    expect(gmail.textContent).toContain('gmail.readonly');
    expect(gmail.textContent).toContain('No mailbox is connected.');
    const hubspot = screen.getByRole('heading', { name: /HubSpot/ }).closest('section')!;
    await waitFor(() => expect(hubspot.textContent).toContain('not connected'));
    expect(within(hubspot).getByRole<HTMLButtonElement>('button', { name: 'Sync now' }).disabled).toBe(true);

    fireEvent.click(within(gmail).getByRole('button', { name: 'Sync now' }));
    expect(await within(gmail).findByText('Sync started for google')).toBeTruthy();
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ workspaceId: 'acme.com' });
    // Polled every 2 s while it runs; the history is read again when it ends.
    expect((await screen.findByLabelText('Job progress')).getAttribute('value')).toBeTruthy();
    await waitFor(() => expect(screen.getByText('No job has run yet.')).toBeTruthy(), { timeout: 8000 });
    expect(polls).toBeGreaterThanOrEqual(3);
    await waitFor(() => expect(api.calls.filter((c) => c.url.pathname === '/api/ingest/history').length).toBeGreaterThanOrEqual(2));
    // And each integration's status (its last sync), once the job has ended.
    await waitFor(() => expect(api.calls.filter((c) => c.url.pathname === '/api/integrations/google/status').length).toBeGreaterThanOrEqual(2));
    expect(screen.getByText('274')).toBeTruthy();
  }, 15_000);

  it('lists every connected Gmail mailbox with its state, last sync and last problem', async () => {
    sourcesRoutes(
      () => null,
      [
        {
          account: 'ana@acme.com',
          email: 'ana@acme.com',
          state: 'connected',
          lastSyncAt: '2025-06-29T22:30:00.000Z',
          lastError: null,
          expiresAt: null,
          hasRefresh: true,
          connectedAt: '2025-06-01T00:00:00.000Z',
        },
        {
          account: 'bo@acme.com',
          email: 'bo@acme.com',
          state: 'needs_reauth',
          lastSyncAt: null,
          lastError: 'invalid_grant: the refresh token was revoked',
          expiresAt: null,
          hasRefresh: false,
          connectedAt: '2025-06-02T00:00:00.000Z',
        },
      ],
    );
    history.replaceState(null, '', '/sources');
    render(<App initialSession={session} />);
    const list = await screen.findByRole('list', { name: 'Connected mailboxes' });
    const items = within(list)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    // Europe/Paris: 22:30 UTC is 00:30 the next day.
    expect(items[0]).toMatch(/^ana@acme\.com connected.*last sync Jun 30, 2025, 12:30/);
    expect(items[1]).toContain('bo@acme.com needs reauth');
    expect(items[1]).toContain('last sync —');
    expect(items[1]).toContain('Last sync problem: invalid_grant: the refresh token was revoked');
  });

  it('refuses a bad backfill range in words without calling the API, starts a good one and shows its job progressing', async () => {
    let started = false;
    let polls = 0;
    sourcesRoutes(() => {
      if (!started) return null;
      polls += 1;
      return job(polls < 2 ? 'queued' : 'running', polls < 2 ? 0 : 40, 'run-bf');
    });
    let sent: unknown;
    api.on('POST', '/api/ingest/backfill', (url, req) => {
      started = true;
      sent = { query: url.searchParams.get('workspaceId'), body: req.body };
      return {
        body: {
          success: true,
          backfillId: 'run-bf',
          estimatedItems: 1200,
          estimatedDuration: '4m 10s',
          status: 'queued',
          source: 'hubspot',
          dateRange: { from: '2025-04-01T22:00:00.000Z', to: '2025-06-30T08:00:00.000Z' },
          dataTypes: ['contacts', 'emails'],
        },
      };
    });
    history.replaceState(null, '', '/sources');
    render(<App initialSession={session} />);
    const form = await screen.findByRole('form', { name: 'Start a backfill' });
    await screen.findByText('No job has run yet.');

    // More than 365 days back.
    fireEvent.input(within(form).getByLabelText('First day'), { target: { value: daysAgo(400) } });
    fireEvent.submit(form);
    expect((await within(form).findByRole('alert')).textContent).toMatch(/A backfill reads at most 365 days; this range is 40\d days\./);
    expect(within(form).getByLabelText('First day').getAttribute('aria-invalid')).toBe('true');
    // The first day after the last.
    fireEvent.input(within(form).getByLabelText('First day'), { target: { value: daysAgo(10) } });
    fireEvent.input(within(form).getByLabelText('Last day (empty: up to now)'), { target: { value: daysAgo(20) } });
    fireEvent.submit(form);
    expect((await within(form).findByRole('alert')).textContent).toMatch(/^The first day \(.+\) must not be after the last day \(.+\)\.$/);
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);

    // A good one: HubSpot, 90 days up to now, two kinds of data.
    fireEvent.change(within(form).getByLabelText('Source'), { target: { value: 'hubspot' } });
    fireEvent.input(within(form).getByLabelText('First day'), { target: { value: daysAgo(90) } });
    fireEvent.input(within(form).getByLabelText('Last day (empty: up to now)'), { target: { value: '' } });
    for (const t of ['companies', 'meetings', 'calls', 'notes']) fireEvent.click(within(form).getByLabelText(t));
    fireEvent.submit(form);
    expect((await within(form).findByRole('status')).textContent).toMatch(/^Backfill of HubSpot queued: .+ to .+, about 1200 items, 4m 10s\.$/);
    expect(within(form).queryByRole('alert')).toBeNull();
    const body = (sent as { query: string; body: { source: string; fromDate: string; toDate: string; dataTypes: string[] } }).body;
    expect((sent as { query: string }).query).toBe('acme.com');
    expect(body.source).toBe('hubspot');
    expect(body.dataTypes).toEqual(['contacts', 'emails']);
    // The first day's midnight in the workspace's zone (Europe/Paris), up to now.
    expect(new Date(body.fromDate).getTime()).toBeLessThan(Date.parse(`${daysAgo(90)}T00:00:00Z`));
    expect(Math.abs(Date.parse(body.toDate) - Date.now())).toBeLessThan(60_000);

    // The job appears and its progress follows the polls.
    const current = await screen.findByTestId('current-job');
    await waitFor(() => expect(within(current).getByTestId('job-status').textContent).toBe('queued'));
    await waitFor(() => expect(within(current).getByTestId('job-status').textContent).toBe('running'), { timeout: 6000 });
    expect(within(current).getByLabelText('Job progress').getAttribute('value')).toBe('40');
    expect(current.textContent).toContain('run-bf');
  }, 15_000);

  it("a CSM connects their own Gmail mailbox from the dashboard: the browser goes to Google's consent screen", async () => {
    sourcesRoutes(() => null);
    const consent = 'https://accounts.google.com/o/oauth2/v2/auth?client_id=cid&state=s1';
    api.on('POST', '/api/integrations/google/authorize', () => ({ body: { url: consent, expiresAt: '2025-06-30T08:10:00.000Z' } }));
    const left = vi.spyOn(navigation, 'leaveFor').mockImplementation(() => undefined);
    history.replaceState(null, '', '/sources');
    render(<App initialSession={session} />);
    const gmail = (await screen.findByRole('heading', { name: /Gmail/ })).closest('section')!;
    fireEvent.click(await within(gmail).findByRole('button', { name: 'Connect a Gmail mailbox' }));
    await waitFor(() => expect(left).toHaveBeenCalledWith(consent));
    const call = api.calls.find((c) => c.url.pathname === '/api/integrations/google/authorize');
    expect(call?.url.searchParams.get('workspaceId')).toBe('acme.com');
    left.mockRestore();
  });

  it('says in words when the HubSpot app cannot be installed from here, and stays on the page', async () => {
    sourcesRoutes(() => null);
    api.on('POST', '/api/integrations/hubspot/authorize', () => ({
      status: 409,
      body: { error: 'set CHS_HUBSPOT_CLIENT_ID and CHS_HUBSPOT_CLIENT_SECRET to install the HubSpot app', code: 'OAUTH_NOT_CONFIGURED', status: 409 },
    }));
    const left = vi.spyOn(navigation, 'leaveFor').mockImplementation(() => undefined);
    history.replaceState(null, '', '/sources');
    render(<App initialSession={session} />);
    const hubspot = (await screen.findByRole('heading', { name: /HubSpot/ })).closest('section')!;
    fireEvent.click(await within(hubspot).findByRole('button', { name: 'Install the HubSpot app' }));
    expect((await within(hubspot).findByRole('alert')).textContent).toContain('CHS_HUBSPOT_CLIENT_ID and CHS_HUBSPOT_CLIENT_SECRET');
    expect(left).not.toHaveBeenCalled();
    left.mockRestore();
  });

  it("shows the API's refusal of a backfill in words", async () => {
    sourcesRoutes(() => null);
    api.on('POST', '/api/ingest/backfill', () => ({
      status: 409,
      body: { error: 'intercom is not connected for acme.com; run chs connect intercom', code: 'INTEGRATION_NOT_CONNECTED', status: 409 },
    }));
    history.replaceState(null, '', '/sources');
    render(<App initialSession={session} />);
    const form = await screen.findByRole('form', { name: 'Start a backfill' });
    fireEvent.change(within(form).getByLabelText('Source'), { target: { value: 'intercom' } });
    fireEvent.submit(form);
    expect((await within(form).findByRole('alert')).textContent).toContain(
      'intercom is not connected for acme.com; run chs connect intercom (INTEGRATION_NOT_CONNECTED)',
    );
  });

  it('cancels the running job after a confirmation, and shows it cancelled', async () => {
    let state: Job['status'] = 'running';
    sourcesRoutes(() => job(state, 30, 'run-7'));
    api.on('POST', '/api/ingest/jobs/run-7/cancel', () => {
      state = 'cancelled';
      return { body: { success: true, message: 'cancelled 1 job(s)', jobId: 'run-7', status: 'cancelled' } };
    });
    history.replaceState(null, '', '/sources');
    render(<App initialSession={session} />);
    const current = await screen.findByTestId('current-job');
    fireEvent.click(within(current).getByRole('button', { name: 'Cancel job' }));
    fireEvent.click(within(current).getByRole('button', { name: 'Keep it running' }));
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.click(within(current).getByRole('button', { name: 'Cancel job' }));
    fireEvent.click(within(current).getByRole('button', { name: 'Yes, cancel the job' }));
    await waitFor(() => expect(screen.getByTestId('job-status').textContent).toBe('cancelled'));
    const cancels = api.calls.filter((c) => c.method === 'POST');
    expect(cancels.map((c) => `${c.url.pathname}?${c.url.searchParams}`)).toEqual(['/api/ingest/jobs/run-7/cancel?workspaceId=acme.com']);
    expect(screen.getByText('Job run-7 cancelled.')).toBeTruthy();
    // Finished: no cancel button any more.
    expect(screen.queryByRole('button', { name: 'Cancel job' })).toBeNull();
  });
});

describe('the backfill window', () => {
  const paris = { timeZone: 'Europe/Paris', currency: 'EUR', lang: 'en-US' };
  const now = new Date('2025-06-30T08:00:00.000Z');
  it("reads whole days in the workspace's zone, up to now when the last day is today or empty", () => {
    expect(backfillWindow({ from: '2025-06-01', to: '', dataTypes: ['emails'] }, paris, now)).toEqual({
      from: new Date('2025-05-31T22:00:00.000Z'),
      to: now,
    });
    expect(backfillWindow({ from: '2025-06-01', to: '2025-06-10', dataTypes: ['emails'] }, paris, now)).toEqual({
      from: new Date('2025-05-31T22:00:00.000Z'),
      to: new Date('2025-06-10T22:00:00.000Z'),
    });
  });
  it('says in words what is wrong', () => {
    const problem = (from: string, to: string, dataTypes = ['emails']) => {
      const w = backfillWindow({ from, to, dataTypes }, paris, now);
      return 'problem' in w ? w.problem : undefined;
    };
    expect(problem('', '')).toBe('Choose the first day to read from.');
    expect(problem('2025-07-02', '')).toBe('The first day cannot be in the future (today is Jun 30, 2025).');
    expect(problem('2025-06-01', '2025-07-01')).toBe('The last day cannot be in the future (today is Jun 30, 2025).');
    expect(problem('2025-06-10', '2025-06-01')).toBe('The first day (Jun 10, 2025) must not be after the last day (Jun 1, 2025).');
    expect(problem('2025-06-01', '', [])).toBe('Choose at least one kind of data to read.');
    expect(problem('2024-06-01', '')).toBe('A backfill reads at most 365 days; this range is 395 days. Choose a later first day, or run it in two parts.');
    expect(problem('2024-07-01', '')).toBeUndefined();
  });
});

describe("the running job's live progress", () => {
  /** A Gmail job as /ingest/status gives it: the job's own members follow its one source. */
  function gmailJob(status: Job['status'], src: Job['sources'][string], extra: Partial<Job> = {}): Job {
    return {
      jobId: 'run-live',
      status,
      progress: src.progress ?? 0,
      startedAt: '2025-06-30T12:20:00.000Z',
      estimatedCompletion: src.estimatedCompletion ?? null,
      sources: { google: src },
      itemsProcessed: src.itemsProcessed,
      ...(src.itemsRead === undefined ? {} : { itemsRead: src.itemsRead }),
      ...(src.totalItems === undefined ? {} : { totalItems: src.totalItems }),
      ...(src.rate === undefined ? {} : { rate: src.rate }),
      ...(src.waiting === undefined ? {} : { waiting: src.waiting }),
      ...extra,
    };
  }
  const sourceItems = (current: HTMLElement) =>
    within(within(current).getByRole('list', { name: 'Sources of the job' }))
      .getAllByRole('listitem')
      .map((li) => li.textContent);

  // The clock stands at 14:31:20 in Paris (the workspace's zone); the timers run for real.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2025-06-30T12:31:20.000Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('shows what was read, what is stored and of about how many, the speed and when it should end, on a determinate bar', async () => {
    sourcesRoutes(() =>
      gmailJob('running', {
        status: 'running',
        itemsRead: 1240,
        itemsProcessed: 1000,
        totalItems: 3000,
        progress: 41.3,
        rate: 52.4,
        estimatedCompletion: '2025-06-30T12:32:00.000Z',
        phase: 'reading',
      }),
    );
    history.replaceState(null, '', '/sources');
    render(<App initialSession={session} />);
    const current = await screen.findByTestId('current-job');
    expect(within(current).getByTestId('job-status').textContent).toBe('running');
    expect(within(current).getByText(/^1,240 read · 1,000 stored · of about 3,000 · 52 per second · done about 2:32\sPM \(in about 40 s\)$/)).toBeTruthy();
    expect(sourceItems(current)).toEqual([
      expect.stringMatching(/^google: running, 1,240 read · 1,000 stored · of about 3,000 · 52 per second · done about 2:32\sPM/),
    ]);
    const bar = within(current).getByRole('progressbar', { name: 'Job progress' });
    expect(bar.getAttribute('value')).toBe('41.3');
    expect(current.textContent).toContain('Read counts move every second or so');
    expect(current.textContent).not.toContain('total not known yet');
    expect(within(current).queryByRole('status')).toBeNull();
  });

  it('says the total is not known yet rather than 0 %, on a bar without a value, until the provider gives one', async () => {
    let polls = 0;
    sourcesRoutes(() => {
      polls += 1;
      return polls < 2
        ? gmailJob('running', { status: 'running', itemsRead: 80, itemsProcessed: 0, rate: 40, phase: 'reading' })
        : gmailJob('running', { status: 'running', itemsRead: 160, itemsProcessed: 100, totalItems: 400, progress: 40, rate: 40, phase: 'reading' });
    });
    history.replaceState(null, '', '/sources');
    render(<App initialSession={session} />);
    const current = await screen.findByTestId('current-job');
    expect(within(current).getByText('80 read · 0 stored · total not known yet · 40 per second')).toBeTruthy();
    expect(sourceItems(current)).toEqual(['google: running, 80 read · 0 stored · total not known yet · 40 per second']);
    expect(current.textContent).not.toMatch(/\d\s?%/);
    expect(within(current).getByRole('progressbar', { name: 'Job progress' }).hasAttribute('value')).toBe(false);
    // The next poll brings a total: the bar shows how far the read is.
    await within(current).findByText('160 read · 100 stored · of about 400 · 40 per second', undefined, { timeout: 4000 });
    expect(within(current).getByRole('progressbar', { name: 'Job progress' }).getAttribute('value')).toBe('40');
  });

  it("says when the job waits on the provider's quota, why and until when", async () => {
    sourcesRoutes(() =>
      gmailJob('parked', {
        status: 'parked',
        itemsRead: 2000,
        itemsProcessed: 2000,
        totalItems: 3000,
        progress: 66.7,
        rate: 0,
        phase: 'reading',
        waiting: { reason: 'daily quota used up', until: '2025-06-30T12:35:00.000Z' },
      }),
    );
    history.replaceState(null, '', '/sources');
    render(<App initialSession={session} />);
    const current = await screen.findByTestId('current-job');
    expect(within(current).getByTestId('job-status').textContent).toBe('parked');
    // One line, though the job and its source both say so.
    expect(within(current).getByRole('status').textContent).toMatch(/^Waiting on Gmail's quota \(daily quota used up\) until 2:35\sPM\.$/);
    expect(within(current).getByText('2,000 read · 2,000 stored · of about 3,000 · 0 per second')).toBeTruthy();
    expect(within(current).getByRole('progressbar', { name: 'Job progress' }).getAttribute('value')).toBe('66.7');
  });

  it('says when the job rebuilds client health, its last step, rather than giving a reading speed', async () => {
    sourcesRoutes(() =>
      gmailJob('running', {
        status: 'running',
        itemsRead: 3000,
        itemsProcessed: 3000,
        totalItems: 3000,
        progress: 100,
        rate: 52,
        estimatedCompletion: '2025-06-30T12:33:00.000Z',
        phase: 'rebuilding',
      }),
    );
    history.replaceState(null, '', '/sources');
    render(<App initialSession={session} />);
    const current = await screen.findByTestId('current-job');
    expect(
      within(current).getByText(/^3,000 read · 3,000 stored · of about 3,000 · rebuilding client health · done about 2:33\sPM \(in about 2 min\)$/),
    ).toBeTruthy();
    expect(sourceItems(current)).toEqual([expect.stringMatching(/^google: running, rebuilding client health · 3,000 read/)]);
    expect(current.textContent).not.toContain('per second');
  });

  it('shows a finished source with what it stored', async () => {
    sourcesRoutes(() => ({
      ...gmailJob('completed', { status: 'completed', itemsRead: 300, itemsProcessed: 300, totalItems: 300, progress: 100 }),
      progress: 100,
    }));
    history.replaceState(null, '', '/sources');
    render(<App initialSession={session} />);
    const current = await screen.findByTestId('current-job');
    expect(sourceItems(current)).toEqual(['google: completed, 300 of 300 items stored']);
    expect(within(current).getByText('300 read · 300 stored · of about 300')).toBeTruthy();
    expect(within(current).getByRole('progressbar', { name: 'Job progress' }).getAttribute('value')).toBe('100');
    expect(current.textContent).not.toContain('Read counts move');
  });
});

describe('following a job just started', () => {
  it('shows its first move within a second or two of the start', async () => {
    let started = false;
    let polls = 0;
    sourcesRoutes(() => {
      if (!started) return null;
      polls += 1;
      return polls < 2
        ? { ...job('queued', 0, 'run-new'), sources: { google: { status: 'queued', itemsProcessed: 0 } } }
        : { ...job('running', 0, 'run-new'), sources: { google: { status: 'running', itemsProcessed: 0, itemsRead: 120, rate: 60 } } };
    });
    api.on('POST', '/api/integrations/google/sync', () => {
      started = true;
      return { body: { success: true, message: 'Sync started for google', syncId: 'run-new', startedAt: '2025-06-30T08:00:00.000Z', estimatedDuration: 60 } };
    });
    history.replaceState(null, '', '/sources');
    render(<App initialSession={session} />);
    const gmail = (await screen.findByRole('heading', { name: /Gmail/ })).closest('section')!;
    await screen.findByText('No job has run yet.');
    await waitFor(() => expect(within(gmail).getByRole<HTMLButtonElement>('button', { name: 'Sync now' }).disabled).toBe(false));
    fireEvent.click(within(gmail).getByRole('button', { name: 'Sync now' }));
    const current = await screen.findByTestId('current-job');
    await waitFor(() => expect(within(current).getByTestId('job-status').textContent).toBe('queued'));
    // Polled every 2 s once a job runs, but every second at its start.
    await waitFor(() => expect(within(current).getByText(/^120 read · 0 stored · total not known yet · 60 per second$/)).toBeTruthy(), { timeout: 1700 });
  });
});
