// @vitest-environment happy-dom
/**
 * "Did the score predict churn?" against a fake API, as a CS lead reads it: reached from the
 * navigation, the engine's sentence and the figures in words, another horizon asked with its
 * days, the churns linked to their clients, the charts with their text alternatives; no outcomes
 * yet says how to import them; an API error says what went wrong.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../App.js';
import { backtest, emptyBacktest, installFakeApi, standardRoutes, type FakeApi } from '../test/fake-api.js';

vi.mock('../components/Chart.js', () => ({ Chart: (p: { label: string; testId?: string }) => <div data-testid={p.testId}>{p.label}</div> }));

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

const backtestCalls = () => api.calls.filter((c) => c.url.pathname === '/api/metrics/backtest');
/** A figure's value and detail, by its label. */
function figure(label: string): { value: string; detail: string } {
  const stat = within(screen.getByTestId('backtest-figures')).getByText(label).closest('.stat')!;
  return { value: stat.querySelector('.stat-value')!.textContent, detail: stat.querySelector('.stat-detail')!.textContent };
}

describe('did the score predict churn?', () => {
  it('is reached from the navigation and says it in words: the sentence, the figures, the charts and the churns', async () => {
    render(<App initialSession={session} />);
    fireEvent.click(await screen.findByRole('link', { name: 'Churn backtest' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Did the score predict churn?' })).toBeTruthy();
    const summary = await screen.findByTestId('backtest-summary');
    expect(summary.textContent).toBe(backtest(60).summary);
    expect(summary.textContent).toMatch(/^Of the 5 clients that churned, 2 were at risk \(red\) at least 45 days before/);

    expect(figure('Churns seen coming: recall')).toEqual({ value: '60%', detail: '3 of 5 churns were flagged 60 days before' });
    expect(figure('Flagged that did churn: precision')).toEqual({ value: '60%', detail: 'of the 5 clients flagged 60 days before' });
    expect(figure('AUC').value).toBe('0.84');
    expect(figure('Median warning time (days)')).toEqual({ value: '38', detail: '2 of 5 churns were red 45 days or more before' });
    expect(figure('Riskiest tenth churns')).toEqual({ value: '2.9×', detail: 'as often as all clients: the lowest-scored tenth (lift)' });
    expect(screen.getByTestId('backtest-counts').textContent).toBe(
      '22 renewals had a score 60 days before: 5 churned, 3 downgraded, 14 renewed; 4 had no score then and are left out.',
    );
    expect(screen.getByRole('button', { name: '60 days before' }).getAttribute('aria-pressed')).toBe('true');

    // Both charts, each with its text alternative.
    expect(screen.getByTestId('backtest-roc').textContent).toMatch(/^ROC curve, 60 days before the renewal: .*AUC 0\.84, a coin 0\.50$/);
    expect(screen.getByTestId('backtest-roc-caption').textContent).toContain("The score's curve has an area (AUC) of 0.84.");
    expect(screen.getByTestId('backtest-reliability').textContent).toMatch(/^Reliability, 60 days before the renewal/);
    const bands = within(screen.getByTestId('backtest-reliability-table')).getAllByRole('row').slice(1);
    expect(bands.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent))).toEqual([
      ['0%–20%', '13', '8%', '8%'],
      ['20%–40%', '4', '29%', '25%'],
      ['40%–60%', '3', '47%', '33%'],
      ['60%–80%', '2', '68%', '100%'],
      ['80%–100%', '0', '—', '—'],
    ]);

    // The churns, newest first, each client linked to its page (by name when it is still a client).
    const churns = within(screen.getByTestId('backtest-churns')).getAllByRole('row').slice(1);
    expect(churns.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent))).toEqual([
      ['c6', 'Jun 20, 2025', '63.0', '0'],
      ['Calderon', 'Jun 12, 2025', '38.0', '51'],
      ['Brightwater', 'May 30, 2025', '22.0', '74'],
      ['c4', 'Apr 2, 2025', '31.0', '38'],
      ['c5', 'Mar 15, 2025', '47.0', '12'],
    ]);
    fireEvent.click(within(churns[2]!).getByRole('link', { name: 'Brightwater' }));
    await waitFor(() => expect(location.pathname).toBe('/clients/c1'));

    const call = backtestCalls()[0]!;
    expect(call.url.searchParams.get('workspaceId')).toBe('acme.com');
    expect(call.url.searchParams.get('days')).toBe('60');
    expect(call.auth).toBe('Bearer sk-test-key');
  });

  it('asks the API again with days=90 and shows the figures 90 days before', async () => {
    history.replaceState(null, '', '/backtest');
    render(<App initialSession={session} />);
    await screen.findByTestId('backtest-summary');
    fireEvent.click(screen.getByRole('button', { name: '90 days before' }));
    await waitFor(() => expect(screen.getByTestId('backtest-summary').textContent).toContain('90 days before a renewal'));
    expect(backtestCalls().map((c) => c.url.searchParams.get('days'))).toEqual(['60', '90']);
    expect(screen.getByRole('button', { name: '90 days before' }).getAttribute('aria-pressed')).toBe('true');
    expect(figure('Churns seen coming: recall')).toEqual({ value: '25%', detail: '1 of 4 churns were flagged 90 days before' });
    expect(figure('Flagged that did churn: precision').value).toBe('25%');
    expect(figure('AUC').value).toBe('0.68');
    expect(screen.getByTestId('backtest-counts').textContent).toContain('8 had no score then and are left out');
    expect(screen.getByTestId('backtest-roc').textContent).toMatch(/^ROC curve, 90 days before the renewal/);
    // The churn not tracked 90 days before says so.
    const c6 = within(screen.getByTestId('backtest-churns')).getAllByRole('row')[1]!;
    expect(c6.textContent).toContain('no score then');
    // The horizons table marks the one shown.
    const current = within(screen.getByTestId('backtest-horizons'))
      .getAllByRole('row')
      .find((r) => r.getAttribute('aria-current') === 'true')!;
    expect(current.textContent).toMatch(/^90 days before18/);
  });

  it('without outcomes, says so and how to import them, with no empty charts', async () => {
    api.on('GET', '/api/metrics/backtest', (url) => ({ body: emptyBacktest(Number(url.searchParams.get('days'))) }));
    history.replaceState(null, '', '/backtest');
    render(<App initialSession={session} />);
    expect((await screen.findByTestId('backtest-summary')).textContent).toMatch(/^No renewal outcomes recorded yet/);
    expect(screen.getByRole('heading', { name: 'No renewal outcomes yet' })).toBeTruthy();
    expect(screen.getByTestId('import-command').textContent).toBe('chs outcomes import --workspace acme.com --file outcomes.csv');
    expect(screen.queryByTestId('backtest-figures')).toBeNull();
    expect(screen.queryByTestId('backtest-roc')).toBeNull();
    expect(screen.queryByTestId('backtest-reliability')).toBeNull();
  });

  it("shows the API's error in words, and tries again", async () => {
    let fail = true;
    api.on('GET', '/api/metrics/backtest', (url) =>
      fail
        ? { status: 503, body: { error: 'The database is not reachable.', code: 'DB_UNAVAILABLE', status: 503 } }
        : { body: backtest(Number(url.searchParams.get('days'))) },
    );
    history.replaceState(null, '', '/backtest');
    render(<App initialSession={session} />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/The database is not reachable\..*DB_UNAVAILABLE/);
    expect(screen.queryByTestId('backtest-figures')).toBeNull();
    fail = false;
    fireEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    await screen.findByTestId('backtest-figures');
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
