// @vitest-environment happy-dom
/** The suggested clients screen against a fake API: reached from the portfolio, lists why, accepts and ignores then refreshes. */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../App.js';
import type { Answer } from '../lib/api.js';
import { client, installFakeApi, standardRoutes, type FakeApi } from '../test/fake-api.js';

vi.mock('../components/Chart.js', () => ({ Chart: (p: { label: string }) => <div>{p.label}</div> }));

type Suggestion = Answer<'/api/clients/suggested'>['suggestions'][number];

const session = { workspace: 'acme.com', key: 'sk-test-key' };
let api: FakeApi;
let rows: Suggestion[];

function suggestion(clientId: string, domain: string, extra: Partial<Suggestion> = {}): Suggestion {
  return {
    clientId,
    domain,
    name: domain.split('.')[0]!,
    status: 'suggested',
    reason: 'co_recipient',
    reasonText: "only named as a co-recipient of someone else's mail",
    messages: 4,
    messagesFrom: 0,
    people: 0,
    firstAt: '2025-05-01T09:00:00.000Z',
    lastAt: '2025-06-20T09:00:00.000Z',
    ...extra,
  };
}

beforeEach(() => {
  sessionStorage.clear();
  api = installFakeApi();
  standardRoutes(api);
  rows = [
    suggestion('s1', 'initech.com', { reason: 'cc_only', reasonText: 'only ever copied us', messages: 9, messagesFrom: 9, people: 3 }),
    suggestion('s2', 'globex.com'),
  ];
  api.on('GET', '/api/clients/suggested', (url) => {
    const status = url.searchParams.get('status') ?? 'suggested';
    const list = rows.filter((r) => r.status === status);
    return { body: { suggestions: list, total: list.length } };
  });
  api.on('POST', '/api/clients/suggested/initech.com/accept', () => {
    rows = rows.filter((r) => r.clientId !== 's1');
    return { body: { client: client('s1', 'Initech', 62.5) } };
  });
  api.on('POST', '/api/clients/suggested/globex.com/ignore', () => {
    rows = rows.map((r) => (r.clientId === 's2' ? { ...r, status: 'ignored' as const } : r));
    return { body: { suggestion: { clientId: 's2', domain: 'globex.com', status: 'ignored' as const } } };
  });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  history.replaceState(null, '', '/');
});

const domains = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((r) => r.querySelector('td')!.textContent);

describe('suggested clients', () => {
  it('is reached from the portfolio, lists domain, why, messages and people, accepts and ignores, and refreshes', async () => {
    render(<App initialSession={session} />);
    fireEvent.click(await screen.findByRole('link', { name: 'Suggested clients' }));
    const table = await screen.findByTestId('suggested-table');
    expect(screen.getByRole('heading', { name: 'Suggested clients' })).toBeTruthy();
    expect(domains(table)).toEqual(['initech.com', 'globex.com']);
    const first = within(table).getAllByRole('row')[1]!;
    expect(first.textContent).toContain('only ever copied us');
    expect([...first.querySelectorAll('td.num')].map((td) => td.textContent)).toEqual(['9', '3']);

    fireEvent.click(screen.getByRole('button', { name: 'Accept initech.com' }));
    expect((await screen.findByRole('status')).textContent).toMatch(/Initech \(initech\.com\) is now a client, health 62\.5/);
    await waitFor(() => expect(domains(screen.getByTestId('suggested-table'))).toEqual(['globex.com']));
    const accept = api.calls.find((c) => c.method === 'POST' && c.url.pathname.endsWith('/accept'))!;
    expect(accept.url.searchParams.get('workspaceId')).toBe('acme.com');
    expect(accept.auth).toBe('Bearer sk-test-key');

    fireEvent.click(screen.getByRole('button', { name: 'Ignore globex.com' }));
    await screen.findByText('No suggested clients.');
    fireEvent.click(screen.getByLabelText('Show ignored'));
    const ignored = await screen.findByTestId('suggested-table');
    expect(domains(ignored)).toEqual(['globex.com']);
    // An ignored domain can still be accepted, not ignored again.
    expect(screen.getByRole('button', { name: 'Accept globex.com' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Ignore globex.com' })).toBeNull();
    expect(api.calls.filter((c) => c.url.pathname === '/api/clients/suggested').map((c) => c.url.searchParams.get('status'))).toEqual([
      'suggested',
      'suggested',
      'suggested',
      'ignored',
    ]);
  });

  it("shows the API's refusal in words and keeps the row", async () => {
    api.on('POST', '/api/clients/suggested/globex.com/accept', () => ({
      status: 404,
      body: { error: 'no suggested client globex.com', code: 'NOT_FOUND', status: 404 },
    }));
    history.replaceState(null, '', '/clients/suggested');
    render(<App initialSession={session} />);
    await screen.findByTestId('suggested-table');
    fireEvent.click(screen.getByRole('button', { name: 'Accept globex.com' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/no suggested client globex\.com.*NOT_FOUND/);
    expect(domains(screen.getByTestId('suggested-table'))).toEqual(['initech.com', 'globex.com']);
  });
});
