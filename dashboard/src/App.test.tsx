// @vitest-environment happy-dom
/**
 * The shell and the portfolio against a fake API: the at-risk list with reasons, the threshold
 * sent to the API, errors in words, and a 401 that sends the user back to sign-in.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from './App.js';
import { installFakeApi, standardRoutes, summaryAnswer, type FakeApi } from './test/fake-api.js';

// Canvas charts are Chromium's business (the e2e suite); here a chart is its label.
vi.mock('./components/Chart.js', () => ({ Chart: (p: { label: string; testId?: string }) => <div data-testid={p.testId}>{p.label}</div> }));

const session = { workspace: 'acme.com', key: 'sk-test-key' };
let api: FakeApi;

beforeEach(() => {
  history.replaceState(null, '', '/');
  sessionStorage.clear();
  api = installFakeApi();
  standardRoutes(api);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the portfolio', () => {
  it('shows the figures, the at-risk list with score, MRR in the currency, renewal and reason, sending the key and workspace', async () => {
    render(<App initialSession={session} />);
    const table = await screen.findByTestId('at-risk');
    const row = within(table).getAllByRole('row')[1]!;
    expect(row.textContent).toContain('Brightwater');
    expect(row.textContent).toContain('25.0');
    expect(row.textContent).toMatch(/€12,500/);
    expect(row.textContent).toContain('Sep 1, 2025');
    expect(row.textContent).toContain('say they will leave or not renew');
    expect(screen.getByText('−2.4 in 7 days')).toBeTruthy();
    expect(screen.getByText('€15,500')).toBeTruthy();
    expect(screen.getByText('Calderon')).toBeTruthy();
    expect(screen.getByText('Vantage')).toBeTruthy();
    expect(screen.getByTestId('health-trend').textContent).toContain('last 90 days, daily');
    const summaryCall = api.calls.find((c) => c.url.pathname === '/api/metrics/summary')!;
    expect(summaryCall.auth).toBe('Bearer sk-test-key');
    expect(summaryCall.url.searchParams.get('workspaceId')).toBe('acme.com');
    expect(summaryCall.url.searchParams.get('riskThreshold')).toBe('40');
    // No renewal outcome learned from yet: no churn chance column, and the list says why.
    expect(within(table).queryByText('Churn chance')).toBeNull();
    expect(screen.getByTestId('churn-calibration').textContent).toMatch(/^No churn calibration yet/);
  });

  it('gives each client at risk its chance of churning once the score is calibrated on past renewals', async () => {
    api.on('GET', '/api/metrics/summary', () => {
      const s = summaryAnswer(40);
      s.health.churnCalibration = {
        available: true,
        model: null,
        horizonDays: 60,
        outcomes: 180,
        text: 'Churn probability: the chance a client with this score churns at a renewal 60 days later, fitted on 180 renewals.',
      };
      s.lists.topRisks = s.lists.topRisks.map((r) => ({ ...r, churnProbability: 0.413 }));
      return { body: s };
    });
    render(<App initialSession={session} />);
    const table = await screen.findByTestId('at-risk');
    expect(within(table).getByText('Churn chance').getAttribute('title')).toMatch(/fitted on 180 renewals/);
    expect(within(table).getAllByRole('row')[1]!.textContent).toContain('41 %');
    expect(screen.getByTestId('churn-calibration').textContent).toMatch(
      /^Churn probability: the chance a client with this score churns at a renewal 60 days later/,
    );
  });

  it('asks again with the threshold and the trend range the user picks', async () => {
    render(<App initialSession={session} />);
    await screen.findByTestId('at-risk');
    fireEvent.change(screen.getByLabelText('Risk threshold'), { target: { value: '55' } });
    await waitFor(() =>
      expect(api.calls.some((c) => c.url.pathname === '/api/metrics/summary' && c.url.searchParams.get('riskThreshold') === '55')).toBe(true),
    );
    fireEvent.click(screen.getByRole('button', { name: '365 days' }));
    fireEvent.click(screen.getByRole('button', { name: 'monthly' }));
    await waitFor(() =>
      expect(
        api.calls.some(
          (c) =>
            c.url.pathname === '/api/metrics/trends/health' &&
            c.url.searchParams.get('windowDays') === '365' &&
            c.url.searchParams.get('interval') === 'monthly',
        ),
      ).toBe(true),
    );
    expect(screen.getByRole('button', { name: '365 days' }).getAttribute('aria-pressed')).toBe('true');
  });

  it("shows the API's error text in words", async () => {
    api.on('GET', '/api/metrics/summary', () => ({
      status: 400,
      body: { error: 'querystring.riskThreshold: must be <= 100', code: 'VALIDATION_ERROR', status: 400 },
    }));
    render(<App initialSession={session} />);
    const alert = await screen.findByText('querystring.riskThreshold: must be <= 100');
    expect(alert.closest('[role="alert"]')?.textContent).toContain('VALIDATION_ERROR');
  });

  it('sends a 401 back to sign-in with a clear message, and forgets the key', async () => {
    sessionStorage.setItem('chs.session', JSON.stringify(session));
    api.on('GET', '/api/metrics/summary', () => ({
      status: 401,
      body: { error: 'Invalid API key: unknown, deleted or inactive', code: 'AUTH_INVALID_KEY', status: 401 },
    }));
    render(<App initialSession={session} />);
    const notice = await screen.findByText(/Signed out: Invalid API key: unknown, deleted or inactive/);
    expect(notice.textContent).toContain('Sign in again');
    expect(screen.getByLabelText('API key')).toBeTruthy();
    expect(sessionStorage.getItem('chs.session')).toBeNull();
  });
});

describe('sign-in', () => {
  it('signs in through the form once the API accepts the key, and says why it does not', async () => {
    let accepted = false;
    api.on('GET', '/api/settings/user', (_url, req) =>
      req.headers.get('authorization') === 'Bearer sk-good'
        ? ((accepted = true),
          {
            body: {
              user: { email: 'ana@acme.com', name: 'Ana', title: '', hasCompletedOnboarding: true, createdAt: '2025-01-01T00:00:00.000Z', lastLoginAt: null },
              workspace: { domain: 'acme.com', name: 'Acme', plan: 'self-hosted', billingStatus: 'active' },
            },
          })
        : { status: 401, body: { error: 'Invalid API key: unknown, deleted or inactive', code: 'AUTH_INVALID_KEY', status: 401 } },
    );
    render(<App initialSession={null} />);
    fireEvent.input(screen.getByLabelText('Workspace domain'), { target: { value: 'Acme.com' } });
    fireEvent.input(screen.getByLabelText('API key'), { target: { value: 'sk-bad' } });
    fireEvent.submit(screen.getByRole('button', { name: 'Sign in' }).closest('form')!);
    expect(await screen.findByText('Invalid API key: unknown, deleted or inactive')).toBeTruthy();
    fireEvent.input(screen.getByLabelText('API key'), { target: { value: 'sk-good' } });
    fireEvent.submit(screen.getByRole('button', { name: 'Sign in' }).closest('form')!);
    await screen.findByTestId('at-risk');
    expect(accepted).toBe(true);
    expect(JSON.parse(sessionStorage.getItem('chs.session')!)).toEqual({ workspace: 'acme.com', key: 'sk-good' });
  });
});
