/**
 * Sources and jobs: each integration's status, a sync or backfill to start, the running job's
 * progress (polling /ingest/status while one runs), the history, and e-mail ingestion stats.
 */
import { useEffect, useState } from 'preact/hooks';
import { unwrap } from '../lib/api.js';
import { useAction, useApp, useQuery } from '../lib/context.js';
import { formatDateTime, formatPercent } from '../lib/format.js';
import { Card, Empty, ErrorText, Loading, Stat, TableWrap } from '../components/ui.js';

const PROVIDERS = ['google', 'hubspot', 'intercom'] as const;
type Provider = (typeof PROVIDERS)[number];
const NAMES: Record<Provider, string> = { google: 'Gmail', hubspot: 'HubSpot', intercom: 'Intercom' };
const POLL_MS = 2000;

function Integration(props: { provider: Provider; onStarted(): void }) {
  const { workspace, locale } = useApp();
  const p = props.provider;
  const status = useQuery(
    ({ api }) => unwrap(api.GET('/api/integrations/{provider}/status', { params: { path: { provider: p }, query: { workspaceId: workspace } } })),
    [workspace, p],
  );
  const [sinceDays, setSinceDays] = useState(90);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const sync = useAction(({ api }) =>
    unwrap(api.POST('/api/integrations/{provider}/sync', { params: { path: { provider: p } }, body: { workspaceId: workspace } })),
  );
  const backfill = useAction(({ api }) =>
    unwrap(api.POST('/api/integrations/{provider}/backfill', { params: { path: { provider: p } }, body: { workspaceId: workspace, sinceDays } })),
  );
  const s = status.data;
  return (
    <section class="card integration" aria-labelledby={`int-${p}`}>
      <h2 id={`int-${p}`}>
        {NAMES[p]} {s && <span class={`badge ${s.connected ? 'positive' : 'neutral'}`}>{s.connected ? 'connected' : s.state.replace(/_/g, ' ')}</span>}
      </h2>
      <ErrorText error={status.error} retry={status.reload} />
      {status.loading && !s && <Loading />}
      {s && (
        <dl class="facts">
          <dt>Account</dt>
          <dd>{s.email ?? '—'}</dd>
          <dt>Last sync</dt>
          <dd>{formatDateTime(s.lastSyncAt, locale)}</dd>
          <dt>Scope</dt>
          <dd class="scope">{s.scope ?? '—'}</dd>
          {s.expiresAt && (
            <>
              <dt>Token expires</dt>
              <dd>
                {formatDateTime(s.expiresAt, locale)} {s.hasRefresh ? '(refreshable)' : ''}
              </dd>
            </>
          )}
        </dl>
      )}
      {s && !s.connected && (
        <p class="muted small">
          Connect it with <code>chs connect {p}</code>.
        </p>
      )}
      <div class="row wrap">
        <button
          type="button"
          disabled={sync.busy || !s?.connected}
          onClick={async () => {
            const r = await sync.run();
            if (r) {
              setMessage(r.message);
              props.onStarted();
            }
          }}
        >
          Sync now
        </button>
        <label class="inline">
          Backfill days
          <input type="number" min={1} max={365} value={sinceDays} onChange={(e) => setSinceDays(Number(e.currentTarget.value))} />
        </label>
        <button
          type="button"
          disabled={backfill.busy || !s?.connected}
          onClick={async () => {
            const r = await backfill.run();
            if (r) {
              setMessage(r.message);
              props.onStarted();
            }
          }}
        >
          Backfill
        </button>
      </div>
      {message && (
        <p class="ok" role="status">
          {message}
        </p>
      )}
      <ErrorText error={sync.error ?? backfill.error} />
    </section>
  );
}

export function Sources() {
  const { workspace, locale } = useApp();
  const status = useQuery(({ api }) => unwrap(api.GET('/api/ingest/status', { params: { query: { workspaceId: workspace } } })), [workspace]);
  const history = useQuery(({ api }) => unwrap(api.GET('/api/ingest/history', { params: { query: { workspaceId: workspace, limit: 20 } } })), [workspace]);
  const stats = useQuery(
    ({ api }) => unwrap(api.GET('/api/ingest/email-stats', { params: { query: { workspaceId: workspace, windowDays: 30 } } })),
    [workspace],
  );

  const running = status.data?.currentJob && (status.data.currentJob.status === 'running' || status.data.currentJob.status === 'queued');
  // Live progress: poll while a job runs; the history is re-read when it ends.
  useEffect(() => {
    if (!running) return;
    const t = setTimeout(status.reload, POLL_MS);
    return () => clearTimeout(t);
  }, [running, status.data]);
  const [wasRunning, setWasRunning] = useState(false);
  useEffect(() => {
    if (running) setWasRunning(true);
    else if (wasRunning) {
      setWasRunning(false);
      history.reload();
    }
  }, [running]);

  const job = status.data?.currentJob;
  const e = stats.data;
  return (
    <main id="main" class="screen">
      <div class="screen-head">
        <h1>Sources and jobs</h1>
      </div>
      <div class="grid3">
        {PROVIDERS.map((p) => (
          <Integration key={p} provider={p} onStarted={status.reload} />
        ))}
      </div>
      <Card title="Running now">
        <ErrorText error={status.error} retry={status.reload} />
        {status.loading && !status.data && <Loading />}
        {status.data && !job && <Empty>No job is running.</Empty>}
        {job && (
          <div data-testid="current-job">
            <p>
              Job <code>{job.jobId}</code>: {job.status}, started {formatDateTime(job.startedAt, locale)}
              {job.estimatedCompletion ? `, done about ${formatDateTime(job.estimatedCompletion, locale)}` : ''}
            </p>
            <progress max={100} value={job.progress} aria-label="Job progress">
              {job.progress}%
            </progress>
            <ul class="list">
              {Object.entries(job.sources).map(([name, src]) => (
                <li key={name}>
                  {name}: {src.status}, {src.itemsProcessed}
                  {src.totalItems ? ` of ${src.totalItems}` : ''} items
                </li>
              ))}
            </ul>
          </div>
        )}
      </Card>
      <Card title="History">
        <ErrorText error={history.error} retry={history.reload} />
        {history.loading && !history.data && <Loading />}
        {history.data && history.data.syncHistory.length === 0 && <Empty>No sync has run yet.</Empty>}
        {history.data && history.data.syncHistory.length > 0 && (
          <TableWrap label="Sync history">
            <table data-testid="history">
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Source</th>
                  <th scope="col">Status</th>
                  <th scope="col">Duration</th>
                  <th scope="col" class="num">
                    Processed
                  </th>
                  <th scope="col" class="num">
                    Added
                  </th>
                  <th scope="col" class="num">
                    Updated
                  </th>
                  <th scope="col" class="num">
                    Skipped
                  </th>
                  <th scope="col">Errors</th>
                </tr>
              </thead>
              <tbody>
                {history.data.syncHistory.map((h) => (
                  <tr key={h.jobId}>
                    <td>{formatDateTime(h.startedAt, locale)}</td>
                    <td>{h.source}</td>
                    <td>{h.status}</td>
                    <td>{h.duration}</td>
                    <td class="num">{h.itemsProcessed}</td>
                    <td class="num">{h.itemsAdded}</td>
                    <td class="num">{h.itemsUpdated}</td>
                    <td class="num">{h.itemsSkipped}</td>
                    <td>{h.errors.length === 0 ? '—' : h.errors.map((x) => `${x.message} (${x.count})`).join('; ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Card>
      <Card title="E-mail ingestion, last 30 days">
        <ErrorText error={stats.error} retry={stats.reload} />
        {stats.loading && !e && <Loading />}
        {e && (
          <>
            <div class="stats">
              <Stat label="E-mails" value={String(e.emailsProcessed)} detail={`${e.emailsInbound} in · ${e.emailsOutbound} out`} />
              <Stat label="Response rate" value={formatPercent(e.responseRate)} />
              <Stat label="Open rate" value={e.openTrackingEnabled ? formatPercent(e.openRate) : 'not tracked'} />
              <Stat
                label="Processing errors"
                value={String(
                  e.processingErrors.parseErrors + e.processingErrors.attachmentErrors + e.processingErrors.sentimentErrors + e.processingErrors.charsetErrors,
                )}
                detail={`parse ${e.processingErrors.parseErrors} · attachments ${e.processingErrors.attachmentErrors} · charset ${e.processingErrors.charsetErrors}`}
              />
            </div>
            {e.note && <p class="muted small">{e.note}</p>}
            {e.topClients.length > 0 && (
              <TableWrap label="Top clients by e-mail">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Client</th>
                      <th scope="col" class="num">
                        E-mails
                      </th>
                      <th scope="col" class="num">
                        Avg sentiment
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {e.topClients.map((t) => (
                      <tr key={t.clientId}>
                        <td>{t.clientName}</td>
                        <td class="num">{t.emailCount}</td>
                        <td class="num">{t.avgSentiment.toFixed(2)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )}
          </>
        )}
      </Card>
    </main>
  );
}
