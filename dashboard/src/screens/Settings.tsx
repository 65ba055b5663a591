/**
 * Settings: the workspace (name, time zone, currency, risk threshold, window), notifications
 * (with a test e-mail), API keys — a new key is shown in full once, with a copy button;
 * listings are masked; a key can be revoked — and webhook endpoints (Webhooks.tsx).
 */
import { useEffect, useState } from 'preact/hooks';
import { unwrap, type Answer } from '../lib/api.js';
import { useAction, useApp, useQuery } from '../lib/context.js';
import { formatDateTime } from '../lib/format.js';
import { Card, Empty, ErrorText, Loading, ShownOnce, TableWrap } from '../components/ui.js';
import { Webhooks } from './Webhooks.js';

type Settings = Answer<'/api/settings'>;
type Notifications = Settings['workspace']['notifications'];

function WorkspaceForm() {
  const { settings, workspace, reloadSettings } = useApp();
  const w = settings.workspace;
  const [name, setName] = useState(w.workspaceName);
  const [timezone, setTimezone] = useState(w.timezone);
  const [currency, setCurrency] = useState(w.currency);
  const [threshold, setThreshold] = useState(String(w.riskThreshold));
  const [windowDays, setWindowDays] = useState(String(w.defaultWindowDays));
  const [saved, setSaved] = useState(false);
  const save = useAction(({ api }) =>
    unwrap(
      api.PUT('/api/settings', {
        params: { query: { workspaceId: workspace } },
        body: {
          workspace: {
            workspaceName: name,
            timezone,
            currency: currency.toUpperCase(),
            riskThreshold: Number(threshold),
            defaultWindowDays: Number(windowDays),
          },
        },
      }),
    ),
  );
  return (
    <form
      class="form"
      aria-label="Workspace settings"
      onSubmit={async (e) => {
        e.preventDefault();
        setSaved(false);
        if (await save.run()) {
          setSaved(true);
          reloadSettings();
        }
      }}
    >
      <label>
        Workspace name
        <input value={name} onInput={(e) => setName(e.currentTarget.value)} required />
      </label>
      <label>
        Domain
        <input value={w.domain} readOnly />
      </label>
      <label>
        Time zone
        <input value={timezone} placeholder="Europe/Paris" onInput={(e) => setTimezone(e.currentTarget.value)} required />
      </label>
      <label>
        Currency
        <input value={currency} maxLength={3} placeholder="USD" onInput={(e) => setCurrency(e.currentTarget.value)} required />
      </label>
      <label>
        Risk threshold
        <input name="riskThreshold" type="number" min={0} max={100} value={threshold} onInput={(e) => setThreshold(e.currentTarget.value)} required />
      </label>
      <label>
        Default window (days)
        <input type="number" min={1} max={90} value={windowDays} onInput={(e) => setWindowDays(e.currentTarget.value)} required />
      </label>
      <div class="row">
        <button type="submit" disabled={save.busy}>
          Save workspace
        </button>
        {saved && (
          <span class="ok" role="status">
            Saved.
          </span>
        )}
      </div>
      <ErrorText error={save.error} />
    </form>
  );
}

const TOGGLES: { key: 'dailyDigest' | 'weeklyDigest' | 'alertOnScoreDrop' | 'alertOnRiskSignals' | 'alertOnRenewals'; label: string }[] = [
  { key: 'dailyDigest', label: 'Daily digest' },
  { key: 'weeklyDigest', label: 'Weekly digest' },
  { key: 'alertOnScoreDrop', label: 'Alert on a score drop' },
  { key: 'alertOnRiskSignals', label: 'Alert on risk signals (churn threat, escalation…)' },
  { key: 'alertOnRenewals', label: 'Alert on coming renewals' },
];

function NotificationsForm() {
  const { settings, workspace, reloadSettings } = useApp();
  const [n, setN] = useState<Notifications>(settings.workspace.notifications);
  const [saved, setSaved] = useState(false);
  const [sent, setSent] = useState<string | undefined>(undefined);
  const save = useAction(({ api }) =>
    unwrap(api.PUT('/api/settings', { params: { query: { workspaceId: workspace } }, body: { workspace: { notifications: n } } })),
  );
  const test = useAction(({ api }) => unwrap(api.POST('/api/notifications/test', { params: { query: { workspaceId: workspace, channel: 'email' } } })));
  return (
    <form
      class="form"
      aria-label="Notification settings"
      onSubmit={async (e) => {
        e.preventDefault();
        setSaved(false);
        if (await save.run()) {
          setSaved(true);
          reloadSettings();
        }
      }}
    >
      <label class="check">
        <input type="checkbox" checked={n.channels.email} onChange={(e) => setN({ ...n, channels: { ...n.channels, email: e.currentTarget.checked } })} /> Send
        by e-mail
      </label>
      {TOGGLES.map((t) => (
        <label class="check" key={t.key}>
          <input type="checkbox" checked={n[t.key]} onChange={(e) => setN({ ...n, [t.key]: e.currentTarget.checked })} /> {t.label}
        </label>
      ))}
      <label>
        Score drop that alerts (%)
        <input type="number" min={1} max={100} value={n.scoreDropPct} onChange={(e) => setN({ ...n, scoreDropPct: Number(e.currentTarget.value) })} />
      </label>
      <label>
        Renewals ahead (days)
        <input type="number" min={1} max={365} value={n.renewalsAheadDays} onChange={(e) => setN({ ...n, renewalsAheadDays: Number(e.currentTarget.value) })} />
      </label>
      <div class="row wrap">
        <button type="submit" disabled={save.busy}>
          Save notifications
        </button>
        <button
          type="button"
          class="secondary"
          disabled={test.busy}
          onClick={async () => {
            setSent(undefined);
            const r = await test.run();
            if (r) setSent(r.message);
          }}
        >
          Send a test e-mail
        </button>
        {saved && (
          <span class="ok" role="status">
            Saved.
          </span>
        )}
      </div>
      {sent && (
        <p class="ok" role="status">
          {sent}
        </p>
      )}
      <ErrorText error={save.error ?? test.error} />
    </form>
  );
}

function ApiKeys() {
  const { workspace, locale } = useApp();
  const keys = useQuery(({ api }) => unwrap(api.GET('/api/settings/api-keys', { params: { query: { workspaceId: workspace } } })), [workspace]);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string } | undefined>(undefined);
  const [confirming, setConfirming] = useState<string | undefined>(undefined);
  const create = useAction(({ api }, keyName: string) =>
    unwrap(api.POST('/api/settings/api-keys', { params: { query: { workspaceId: workspace } }, body: { name: keyName } })),
  );
  const revoke = useAction(({ api }, keyId: string) =>
    unwrap(api.DELETE('/api/settings/api-keys/{keyId}', { params: { path: { keyId }, query: { workspaceId: workspace } } })),
  );
  // The full key lives in this component's state only: leaving the screen forgets it.
  useEffect(() => () => setCreated(undefined), []);

  return (
    <>
      <form
        class="row wrap"
        aria-label="Create an API key"
        onSubmit={async (e) => {
          e.preventDefault();
          const r = await create.run(name.trim());
          if (r) {
            setCreated({ name: r.apiKey.name, key: r.apiKey.key });
            setName('');
            keys.reload();
          }
        }}
      >
        <label class="inline">
          New key name
          <input name="keyName" value={name} maxLength={100} placeholder="CI, Zapier, …" onInput={(e) => setName(e.currentTarget.value)} required />
        </label>
        <button type="submit" disabled={create.busy}>
          Create key
        </button>
      </form>
      <ErrorText error={create.error} />
      {created && (
        <div class="new-key" role="status" data-testid="new-key">
          <p>
            <strong>Your new key “{created.name}”.</strong> Copy it now: it is shown this once and cannot be retrieved later.
          </p>
          <ShownOnce key={created.key} value={created.key} testId="new-key-value" copyLabel="Copy" onDone={() => setCreated(undefined)} />
        </div>
      )}
      <ErrorText error={keys.error} retry={keys.reload} />
      <ErrorText error={revoke.error} />
      {keys.loading && !keys.data && <Loading what="the keys" />}
      {keys.data && keys.data.apiKeys.length === 0 && <Empty>No keys.</Empty>}
      {keys.data && keys.data.apiKeys.length > 0 && (
        <TableWrap label="API keys">
          <table data-testid="api-keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.apiKeys.map((k) => (
                <tr key={k.id} data-key-name={k.name}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.key}</code>
                  </td>
                  <td>{formatDateTime(k.createdAt, locale)}</td>
                  <td>{k.lastUsedAt ? formatDateTime(k.lastUsedAt, locale) : 'never'}</td>
                  <td>{k.isActive ? 'active' : 'inactive'}</td>
                  <td>
                    {confirming === k.id ? (
                      <span class="row">
                        <button
                          type="button"
                          class="danger"
                          disabled={revoke.busy}
                          onClick={async () => {
                            if (await revoke.run(k.id)) {
                              setConfirming(undefined);
                              keys.reload();
                            }
                          }}
                        >
                          Revoke {k.name} for good
                        </button>
                        <button type="button" class="secondary" onClick={() => setConfirming(undefined)}>
                          Cancel
                        </button>
                      </span>
                    ) : (
                      <button type="button" class="secondary" onClick={() => setConfirming(k.id)} aria-label={`Revoke ${k.name}`}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}

export function SettingsScreen() {
  const { workspace } = useApp();
  const user = useQuery(({ api }) => unwrap(api.GET('/api/settings/user', { params: { query: { workspaceId: workspace } } })), [workspace]);
  return (
    <main id="main" class="screen">
      <div class="screen-head">
        <h1>Settings</h1>
        {user.data && (
          <p class="muted">
            Signed in as {user.data.user.name || user.data.user.email} ({user.data.user.email}) · plan {user.data.workspace.plan}
          </p>
        )}
      </div>
      <div class="grid2">
        <Card title="Workspace">
          <WorkspaceForm />
        </Card>
        <Card title="Notifications">
          <NotificationsForm />
        </Card>
      </div>
      <Card title="API keys">
        <ApiKeys />
      </Card>
      <Card title="Webhooks">
        <Webhooks />
      </Card>
    </main>
  );
}
