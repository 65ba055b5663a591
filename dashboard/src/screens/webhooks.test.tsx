// @vitest-environment happy-dom
/**
 * Settings → Webhooks against a stateful fake of the API: an endpoint added with its secret shown
 * once, a refused address in the API's words, disabled reasons in words, a test event, a rotated
 * secret, deletion after a confirmation, and the deliveries with a failed one sent again.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../App.js';
import { delivery, installFakeApi, standardRoutes, webhook, webhookRoutes, type FakeApi, type WebhookState } from '../test/fake-api.js';

vi.mock('../components/Chart.js', () => ({ Chart: (p: { label: string }) => <div>{p.label}</div> }));

const session = { workspace: 'acme.com', key: 'sk-test-key' };
let api: FakeApi;
let hooks: WebhookState;
let clipboard: string[];

beforeEach(() => {
  sessionStorage.clear();
  api = installFakeApi();
  standardRoutes(api);
  api.on('GET', '/api/settings/user', () => ({ body: { user: { name: 'Ana Lima', email: 'ana@acme.com' }, workspace: { plan: 'team' } } }));
  api.on('GET', '/api/settings/api-keys', () => ({ body: { apiKeys: [] } }));
  hooks = webhookRoutes(api);
  clipboard = [];
  vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText: (t: string) => Promise.resolve(void clipboard.push(t)) } });
  history.replaceState(null, '', '/settings');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  history.replaceState(null, '', '/');
});

const calls = (method: string, path: string) => api.calls.filter((c) => c.method === method && c.url.pathname === path);
const endpoint = (url: string) => screen.findByRole('article', { name: url });

async function addForm() {
  const form = await screen.findByRole('form', { name: 'Add a webhook endpoint' });
  // The event types come from the API, with their descriptions.
  await within(form).findByLabelText(/client\.risk_entered/);
  return form;
}

describe('webhook endpoints in the settings', () => {
  it('adds an endpoint and shows its secret once, with a copy button, gone after Done', async () => {
    render(<App initialSession={session} />);
    const form = await addForm();
    expect(
      within(form)
        .getByLabelText(/client\.churn_intent/)
        .closest('label')!.textContent,
    ).toContain('A client said it may leave');
    fireEvent.input(within(form).getByLabelText('Endpoint URL'), { target: { value: 'https://hooks.example.com/chs' } });
    fireEvent.click(within(form).getByLabelText(/client\.risk_entered/));
    fireEvent.click(within(form).getByLabelText(/client\.churn_intent/));
    fireEvent.input(within(form).getByLabelText('Description (optional)'), { target: { value: 'Our CRM' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add endpoint' }));

    const notice = await screen.findByTestId('webhook-secret');
    expect(notice.textContent).toContain('You will not see it again.');
    const secret = within(notice).getByTestId('webhook-secret-value').textContent;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
    const create = calls('POST', '/api/settings/webhooks');
    expect(create).toHaveLength(1);
    expect(create[0]!.body).toEqual({
      url: 'https://hooks.example.com/chs',
      events: ['client.risk_entered', 'client.churn_intent'],
      kind: 'standard',
      description: 'Our CRM',
    });
    expect(create[0]!.url.searchParams.get('workspaceId')).toBe('acme.com');
    expect(create[0]!.auth).toBe('Bearer sk-test-key');

    // Listed: URL, kind, the chosen events, enabled.
    const item = await endpoint('https://hooks.example.com/chs');
    expect(item.textContent).toContain('Standard');
    expect(item.textContent).toContain('Our CRM');
    expect(
      within(item)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['client.risk_entered', 'client.churn_intent']);
    expect(within(item).getByTestId('webhook-state').textContent).toBe('Enabled');

    fireEvent.click(within(notice).getByRole('button', { name: 'Copy secret' }));
    await within(notice).findByRole('button', { name: 'Copied' });
    expect(clipboard).toEqual([secret]);
    fireEvent.click(within(notice).getByRole('button', { name: 'Done' }));
    expect(screen.queryByTestId('webhook-secret')).toBeNull();
    expect(document.body.textContent).not.toContain(secret);
    // The form is empty again for the next one.
    expect(within(form).getByLabelText<HTMLInputElement>('Endpoint URL').value).toBe('');
  });

  it("shows the API's words when it refuses the address, and adds nothing", async () => {
    render(<App initialSession={session} />);
    const form = await addForm();
    fireEvent.input(within(form).getByLabelText('Endpoint URL'), { target: { value: 'https://127.0.0.1/hook' } });
    fireEvent.click(within(form).getByLabelText(/job\.failed/));
    fireEvent.click(within(form).getByRole('button', { name: 'Add endpoint' }));
    const alert = await within(form).findByRole('alert');
    expect(alert.textContent).toContain('url: 127.0.0.1 is not a public address (127.0.0.1 is a loopback address)');
    expect(alert.textContent).toContain('INVALID_INPUT');
    expect(screen.queryByTestId('webhook-secret')).toBeNull();
    expect(screen.queryByRole('list', { name: 'Webhook endpoints' })).toBeNull();
    expect(screen.getByText('No webhook endpoints yet.')).toBeTruthy();
    // What was typed stays, to be corrected.
    expect(within(form).getByLabelText<HTMLInputElement>('Endpoint URL').value).toBe('https://127.0.0.1/hook');
  });

  it('asks for at least one event before calling the API', async () => {
    render(<App initialSession={session} />);
    const form = await addForm();
    fireEvent.input(within(form).getByLabelText('Endpoint URL'), { target: { value: 'https://hooks.example.com/chs' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add endpoint' }));
    expect((await within(form).findByRole('alert')).textContent).toBe('Choose at least one event to send.');
    expect(calls('POST', '/api/settings/webhooks')).toHaveLength(0);
  });

  it('says why an endpoint is disabled, in words; disabling one says "disabled by you", enabling it again clears it', async () => {
    hooks.webhooks.push(
      webhook('wh_a', 'https://a.example.com/hook'),
      webhook('wh_gone', 'https://gone.example.com/hook', { enabled: false, disabledReason: 'gone' }),
      webhook('wh_failing', 'https://failing.example.com/hook', { enabled: false, disabledReason: 'failing', failingSince: '2025-06-20T00:00:00.000Z' }),
      webhook('wh_slack', 'https://hooks.slack.com/services/T/B/x', { kind: 'slack', failingSince: '2025-06-29T08:00:00.000Z' }),
    );
    render(<App initialSession={session} />);
    const state = async (url: string) => within(await endpoint(url)).getByTestId('webhook-state').textContent;
    expect(await state('https://gone.example.com/hook')).toBe('Disabled: the receiver said it is gone (410)');
    expect(await state('https://failing.example.com/hook')).toBe('Disabled: failing for days');
    expect(await state('https://hooks.slack.com/services/T/B/x')).toMatch(/^Enabled, failing since .*2025.* \(deliveries are being retried\)$/);
    const slack = await endpoint('https://hooks.slack.com/services/T/B/x');
    expect(slack.textContent).toContain('Slack');
    // A Slack endpoint has no signing secret to rotate.
    expect(within(slack).queryByRole('button', { name: 'Rotate secret' })).toBeNull();

    const a = await endpoint('https://a.example.com/hook');
    fireEvent.click(within(a).getByRole('button', { name: 'Disable' }));
    await waitFor(async () => expect(await state('https://a.example.com/hook')).toBe('Disabled: disabled by you'));
    const patch = calls('PATCH', '/api/settings/webhooks/wh_a');
    expect(patch.map((c) => c.body)).toEqual([{ enabled: false }]);
    expect(patch[0]!.url.searchParams.get('workspaceId')).toBe('acme.com');

    // A test event still goes: it is how one checks a receiver before enabling it again.
    fireEvent.click(within(await endpoint('https://a.example.com/hook')).getByRole('button', { name: 'Send test event' }));
    expect((await within(await endpoint('https://a.example.com/hook')).findByRole('status')).textContent).toContain(
      'even to a disabled endpoint (other events wait until you enable it)',
    );
    fireEvent.click(within(await endpoint('https://a.example.com/hook')).getByRole('button', { name: 'Enable' }));
    await waitFor(async () => expect(await state('https://a.example.com/hook')).toBe('Enabled'));
    fireEvent.click(within(await endpoint('https://gone.example.com/hook')).getByRole('button', { name: 'Enable' }));
    await waitFor(async () => expect(await state('https://gone.example.com/hook')).toBe('Enabled'));
  });

  it("lists an endpoint's deliveries: a failed one's error; Redeliver calls the API and the row is pending again", async () => {
    hooks.webhooks.push(webhook('wh_a', 'https://a.example.com/hook'));
    hooks.deliveries.set('wh_a', [
      delivery('dl_fail', {
        eventType: 'client.churn_intent',
        state: 'failed',
        attempts: 10,
        lastStatus: 302,
        lastError: 'redirect to http://169.254.169.254/latest not followed',
        deliveredAt: null,
        history: [
          { at: '2025-06-26T10:00:00.000Z', status: null, error: 'connect ECONNREFUSED', durationMs: 3 },
          { at: '2025-06-27T10:00:00.000Z', status: 500, error: 'HTTP 500', durationMs: 120 },
          { at: '2025-06-29T10:00:00.000Z', status: 302, error: 'redirect to http://169.254.169.254/latest not followed', durationMs: 80 },
        ],
      }),
      delivery('dl_ok'),
      delivery('dl_wait', {
        eventType: 'job.failed',
        state: 'pending',
        attempts: 2,
        lastStatus: 503,
        lastError: 'HTTP 503',
        nextAttemptAt: new Date(Date.now() + 2 * 3_600_000).toISOString(),
        deliveredAt: null,
      }),
    ]);
    render(<App initialSession={session} />);
    const item = await endpoint('https://a.example.com/hook');
    const toggle = within(item).getByRole('button', { name: 'Show deliveries' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const table = await within(item).findByTestId('webhook-deliveries');
    const row = (id: string) => table.querySelector(`tr[data-delivery-id="${id}"]`) as HTMLElement;
    const failed = row('dl_fail');
    expect(failed.textContent).toContain('client.churn_intent');
    expect(failed.textContent).toContain('failed');
    expect(failed.querySelector('[data-col="last"]')!.textContent).toBe('HTTP 302redirect to http://169.254.169.254/latest not followed');
    // Its attempts, one by one (a bad status said once).
    const attempts = [...failed.querySelectorAll('details li')].map((li) => li.textContent.replace(/^.*?: /, ''));
    expect(attempts).toEqual([
      'no answer — connect ECONNREFUSED (3 ms)',
      'HTTP 500 (120 ms)',
      'HTTP 302 — redirect to http://169.254.169.254/latest not followed (80 ms)',
    ]);
    expect(row('dl_ok').textContent).toContain('delivered');
    expect(row('dl_wait').textContent).toContain('in about 2 h');
    expect(row('dl_wait').querySelector('[data-col="last"]')!.textContent).toBe('HTTP 503');

    fireEvent.click(within(failed).getByRole('button', { name: 'Redeliver' }));
    expect((await within(item).findByRole('status')).textContent).toContain('goes out again within seconds, with the same webhook-id');
    expect(calls('POST', '/api/settings/webhooks/wh_a/deliveries/dl_fail/redeliver')).toHaveLength(1);
    await waitFor(() => expect(row('dl_fail').getAttribute('data-state')).toBe('pending'));

    // Only the failed ones.
    fireEvent.change(within(item).getByLabelText('Deliveries in state'), { target: { value: 'failed' } });
    await waitFor(() => expect(within(item).getByText('No failed deliveries.')).toBeTruthy());
    expect(api.calls.at(-1)!.url.searchParams.get('state')).toBe('failed');
  });

  it('sends a test event and shows its delivery; rotates the secret, shown once; deletes after a confirmation', async () => {
    hooks.webhooks.push(webhook('wh_a', 'https://a.example.com/hook'));
    render(<App initialSession={session} />);
    let item = await endpoint('https://a.example.com/hook');

    fireEvent.click(within(item).getByRole('button', { name: 'Send test event' }));
    expect((await within(item).findByRole('status')).textContent).toMatch(/^Test event queued/);
    expect(calls('POST', '/api/settings/webhooks/wh_a/test')).toHaveLength(1);
    const table = await within(item).findByTestId('webhook-deliveries');
    expect(table.textContent).toContain('webhook.test');
    expect(table.textContent).toContain('pending');

    fireEvent.click(within(item).getByRole('button', { name: 'Rotate secret' }));
    const notice = await within(item).findByTestId('webhook-secret');
    expect(notice.textContent).toContain('Secret rotated.');
    expect(notice.textContent).toContain('You will not see it again.');
    expect(notice.textContent).toMatch(/previous secret also signs deliveries until .*20\d\d/);
    const secret = within(notice).getByTestId('webhook-secret-value').textContent;
    expect(secret).toMatch(/^whsec_/);
    fireEvent.click(within(notice).getByRole('button', { name: 'Done' }));
    expect(document.body.textContent).not.toContain(secret);

    item = await endpoint('https://a.example.com/hook');
    fireEvent.click(within(item).getByRole('button', { name: 'Delete' }));
    expect(calls('DELETE', '/api/settings/webhooks/wh_a')).toHaveLength(0);
    fireEvent.click(within(item).getByRole('button', { name: 'Keep it' }));
    fireEvent.click(within(item).getByRole('button', { name: 'Delete' }));
    fireEvent.click(within(item).getByRole('button', { name: 'Delete for good' }));
    await screen.findByText('No webhook endpoints yet.');
    expect(calls('DELETE', '/api/settings/webhooks/wh_a')).toHaveLength(1);
  });

  it('edits the events of an endpoint; adds a Slack endpoint without a secret to copy', async () => {
    hooks.webhooks.push(webhook('wh_a', 'https://a.example.com/hook'));
    render(<App initialSession={session} />);
    const item = await endpoint('https://a.example.com/hook');
    fireEvent.click(within(item).getByRole('button', { name: 'Edit' }));
    const edit = within(item).getByRole('form', { name: 'Edit https://a.example.com/hook' });
    expect(within(edit).getByLabelText<HTMLInputElement>(/client\.risk_entered/).checked).toBe(true);
    fireEvent.click(within(edit).getByLabelText(/client\.risk_entered/));
    fireEvent.click(within(edit).getByLabelText(/integration\.needs_reauth/));
    fireEvent.click(within(edit).getByRole('button', { name: 'Save endpoint' }));
    await waitFor(() =>
      expect(
        within(item)
          .getAllByRole('listitem')
          .map((li) => li.textContent),
      ).toEqual(['integration.needs_reauth']),
    );
    expect(calls('PATCH', '/api/settings/webhooks/wh_a')[0]!.body).toEqual({
      url: 'https://a.example.com/hook',
      events: ['integration.needs_reauth'],
      description: '',
    });

    const form = await addForm();
    fireEvent.click(within(form).getByLabelText(/^Slack/));
    fireEvent.input(within(form).getByLabelText('Slack incoming-webhook URL'), { target: { value: 'https://hooks.slack.com/services/T0/B0/abc' } });
    fireEvent.click(within(form).getByLabelText(/client\.risk_entered/));
    fireEvent.click(within(form).getByRole('button', { name: 'Add endpoint' }));
    expect((await screen.findByText(/^Slack endpoint added/)).getAttribute('role')).toBe('status');
    expect(screen.queryByTestId('webhook-secret')).toBeNull();
    expect(calls('POST', '/api/settings/webhooks')[0]!.body).toMatchObject({ kind: 'slack' });
    expect((await endpoint('https://hooks.slack.com/services/T0/B0/abc')).textContent).toContain('Slack');
  });
});
