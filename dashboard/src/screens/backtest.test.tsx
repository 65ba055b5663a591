// @vitest-environment happy-dom
/**
 * "Did the score predict churn?" against a fake API, as a CS lead reads it: reached from the
 * navigation, the engine's sentence and the figures in words, another horizon asked with its
 * days, the churns linked to their clients, the charts with their text alternatives; no outcomes
 * yet says how to import them; an API error says what went wrong. Below, the learned weights: none
 * learned says what learning needs; learning shows the engine's sentence (or its refusal); an
 * offered model is applied and a model in use reverted, each followed by the list read again.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../App.js';
import { backtest, emptyBacktest, healthModel, healthModelRoutes, installFakeApi, standardRoutes, type FakeApi } from '../test/fake-api.js';

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
      ['c6', 'Jun 20, 2025', '63.0', 'no risk signal', '0'],
      ['Calderon', 'Jun 12, 2025', '38.0', 'gone quiet', '51'],
      ['Brightwater', 'May 30, 2025', '22.0', 'said they would leave, negative tone', '74'],
      ['c4', 'Apr 2, 2025', '31.0', 'no risk signal', '38'],
      ['c5', 'Mar 15, 2025', '47.0', 'no risk signal', '12'],
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

const modelCalls = () => api.calls.filter((c) => c.url.pathname.startsWith('/api/health/models'));
const section = () => within(screen.getByRole('region', { name: 'Learned weights' }));
/** The cells of each model row: the row header, then every cell. */
const modelRows = () =>
  within(screen.getByTestId('models-table'))
    .getAllByRole('row')
    .slice(1)
    .map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent));

describe('learned weights, below the backtest', () => {
  it('with none learned, says the hand-written weights score and what learning needs; a refusal is shown in words', async () => {
    history.replaceState(null, '', '/backtest');
    render(<App initialSession={session} />);
    await waitFor(() => expect(screen.getByTestId('model-in-use').textContent).toContain('In use: the hand-written weights'));
    // The settings' weights (0.4, 0.25, 0.2, 0.15) as shares of the score.
    expect(screen.getByTestId('model-in-use').textContent).toBe(
      'In use: the hand-written weights (sentiment 40%, engagement 25%, responsiveness 20%, recency 15%).',
    );
    expect(
      section().getByText(/^No model learned yet\. Learning needs at least 30 recorded renewals with a score 60 days before them, 8 of them churns/),
    ).toBeTruthy();
    expect(screen.queryByTestId('models-table')).toBeNull();
    expect(section().queryByRole('button', { name: 'Revert' })).toBeNull();

    fireEvent.click(section().getByRole('button', { name: 'Learn from outcomes' }));
    const alert = await section().findByRole('alert');
    expect(alert.textContent).toMatch(/^learning weights needs at least 30 renewal outcomes with a score 60 days before them, 8 of them churns.*\(CONFLICT\)$/);
    const learn = modelCalls().find((c) => c.method === 'POST')!;
    expect(learn.url.searchParams.get('workspaceId')).toBe('acme.com');
    expect(learn.body).toEqual({ days: 60 });
    expect(learn.auth).toBe('Bearer sk-test-key');
  });

  it('learns at the horizon shown, shows the sentence, and applies the offered model', async () => {
    const state = healthModelRoutes(api);
    const summary =
      'Learned from 142 renewals (23 churned) between 2024-07-02 and 2025-06-27, 90 days before each: sentiment 22 %, engagement 18 %, responsiveness 20 %, recency 40 %. ' +
      'On the 113 later renewals it was tested on (fitted on the earlier ones only), its AUC is 0.811 against 0.763 for the hand-written weights. It is offered.';
    state.learn = (days) => {
      const model = healthModel(1, 'offered', { horizonDays: days });
      state.models.unshift(model);
      return { status: 201, body: { model, summary } };
    };
    history.replaceState(null, '', '/backtest');
    render(<App initialSession={session} />);
    await screen.findByTestId('backtest-summary');
    fireEvent.click(screen.getByRole('button', { name: '90 days before' }));
    fireEvent.click(section().getByRole('button', { name: 'Learn from outcomes' }));
    expect((await screen.findByTestId('model-notice')).textContent).toBe(summary);
    expect(modelCalls().find((c) => c.method === 'POST')!.body).toEqual({ days: 90 });
    // The list is read again: the offered model, its figures in words.
    await screen.findByTestId('models-table');
    expect(modelRows()).toEqual([
      ['Learned model 1score read 90 days before', 'offered: did better', 'Jun 28, 2025', '142', '23', '0.811', '0.763', '22%', '18%', '20%', '40%', 'Apply'],
    ]);

    fireEvent.click(section().getByRole('button', { name: 'Apply learned model 1' }));
    await waitFor(() =>
      expect(screen.getByTestId('model-notice').textContent).toBe(
        'Learned model 1 is in use: 3 client(s) rescored from today. Earlier days keep the weights that scored them.',
      ),
    );
    const apply = modelCalls().find((c) => c.url.pathname === '/api/health/models/1/apply')!;
    expect(apply.method).toBe('POST');
    expect(apply.url.searchParams.get('workspaceId')).toBe('acme.com');
    await waitFor(() =>
      expect(screen.getByTestId('model-in-use').textContent).toMatch(
        /^In use: learned model 1 \(sentiment 22%, engagement 18%, responsiveness 20%, recency 40%\), applied /,
      ),
    );
    expect(section().getByRole('button', { name: 'Revert' })).toBeTruthy();
    expect(modelRows()[0]!.slice(1, 2)).toEqual(['in use']);
    expect(section().queryByRole('button', { name: 'Apply learned model 1' })).toBeNull();
  });

  it('with a learned model in use, reverts to the hand-written weights; a rejected model cannot be applied', async () => {
    healthModelRoutes(api, [healthModel(2, 'active'), healthModel(1, 'rejected', { createdAt: '2025-05-02T09:00:00.000Z' })]);
    history.replaceState(null, '', '/backtest');
    render(<App initialSession={session} />);
    await waitFor(() => expect(screen.getByTestId('model-in-use').textContent).toMatch(/^In use: learned model 2 /));
    expect(section().getByText('Revert goes back to the hand-written weights from today.')).toBeTruthy();
    expect(modelRows().map((r) => [r[0], r[1], r[5], r[6], r.at(-1)])).toEqual([
      ['Learned model 2score read 60 days before', 'in use', '0.811', '0.763', ''],
      ['Learned model 1score read 60 days before', 'not adopted: did no better', '0.751', '0.763', ''],
    ]);

    fireEvent.click(section().getByRole('button', { name: 'Revert' }));
    await waitFor(() =>
      expect(screen.getByTestId('model-notice').textContent).toBe('The hand-written weights are in use again: 3 client(s) rescored from today.'),
    );
    expect(modelCalls().some((c) => c.method === 'POST' && c.url.pathname === '/api/health/models/revert')).toBe(true);
    await waitFor(() => expect(screen.getByTestId('model-in-use').textContent).toMatch(/^In use: the hand-written weights/));
    expect(section().queryByRole('button', { name: 'Revert' })).toBeNull();
    // Retired, it may be applied again; the rejected one never.
    expect(modelRows().map((r) => [r[1], r.at(-1)])).toEqual([
      ['retired', 'Apply'],
      ['not adopted: did no better', ''],
    ]);
  });

  it("shows a failed read of the models in the API's words, and tries again", async () => {
    let fail = true;
    const state = healthModelRoutes(api, [healthModel(1, 'offered')]);
    const listed = api.routes.get('GET /api/health/models')!;
    api.on('GET', '/api/health/models', (url, init) =>
      fail
        ? { status: 503, body: { error: 'The database is locked by another process; retry shortly', code: 'DATABASE_BUSY', status: 503 } }
        : listed(url, init),
    );
    history.replaceState(null, '', '/backtest');
    render(<App initialSession={session} />);
    const alert = await within(await screen.findByRole('region', { name: 'Learned weights' })).findByRole('alert');
    expect(alert.textContent).toMatch(/The database is locked by another process; retry shortly.*DATABASE_BUSY/);
    fail = false;
    fireEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    await screen.findByTestId('models-table');
    expect(section().queryByRole('alert')).toBeNull();
    expect(state.models).toHaveLength(1);
  });
});
