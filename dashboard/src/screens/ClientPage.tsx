/**
 * One client's story: the score history (each move's reason on hover), the evidence, the
 * current components, contacts, the paged timeline, the sentiment trend, and the attributes a
 * CSM edits (MRR, renewal date, CSM owner, exclusion).
 */
import { useMemo, useState } from 'preact/hooks';
import { unwrap, type Answer } from '../lib/api.js';
import { useAction, useApp, useQuery } from '../lib/context.js';
import { formatChange, formatDate, formatDateTime, formatMoney, type Locale } from '../lib/format.js';
import { Chart, type ChartOption } from '../components/Chart.js';
import { Card, Empty, ErrorText, Link, Loading, Stat, TableWrap } from '../components/ui.js';

type History = Answer<'/api/clients/{clientId}/health-history'>;
type Details = Answer<'/api/clients/{clientId}'>;
const PAGE = 20;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The score line, with the sentiment component beside it; the tooltip says why the score moved. */
export function historyOption(history: History, threshold: number, locale: Locale): ChartOption {
  const byDate = new Map(history.days.map((d) => [d.date, d]));
  return {
    grid: { left: 40, right: 32, top: 28, bottom: 28 },
    legend: { top: 0, data: ['Health score', 'Sentiment'] },
    tooltip: {
      trigger: 'axis',
      confine: true,
      formatter: (params: unknown) => {
        const list = Array.isArray(params) ? (params as { axisValue?: string }[]) : [params as { axisValue?: string }];
        const d = byDate.get(list[0]?.axisValue ?? '');
        if (!d) return '';
        const lines = [
          `<strong>${escapeHtml(formatDate(d.date, locale))}</strong>`,
          `Score ${d.score.toFixed(1)} (${escapeHtml(formatChange(d.change))})`,
          d.sentiment === null ? '' : `Sentiment ${d.sentiment.toFixed(0)}`,
          d.reason ? `<span style="white-space:normal">${escapeHtml(d.reason)}</span>` : '',
        ];
        return `<div style="max-width:320px">${lines.filter(Boolean).join('<br/>')}</div>`;
      },
    },
    xAxis: { type: 'category', data: history.days.map((d) => d.date), axisLabel: { formatter: (v: string) => formatDate(v, locale) } },
    yAxis: { type: 'value', min: 0, max: 100 },
    series: [
      {
        type: 'line',
        name: 'Health score',
        // A marker on every day the score moved by 2 points or more.
        data: history.days.map((d) => ({ value: d.score, symbolSize: d.change !== null && Math.abs(d.change) >= 2 ? 8 : 0 })),
        showSymbol: true,
        markLine: { silent: true, symbol: 'none', lineStyle: { color: '#c0392b', type: 'dashed' }, data: [{ yAxis: threshold }] },
      },
      { type: 'line', name: 'Sentiment', data: history.days.map((d) => d.sentiment), showSymbol: false, lineStyle: { type: 'dotted', width: 1 } },
    ],
  };
}

/** A move the chart marks: a day the score changed by this much or more. */
const MOVE = 2;

/**
 * The chart's marked moves as a table, newest first: the same date, score, change and reason the
 * tooltip gives on hover, for the keyboard and screen readers. A focused (or hovered) row shows
 * its point's tooltip on the chart.
 */
function ScoreMoves(props: { days: History['days']; locale: Locale; onFocusDay(index: number | null): void }) {
  const moves = props.days.map((d, index) => ({ d, index })).filter(({ d }) => d.change !== null && Math.abs(d.change) >= MOVE);
  if (moves.length === 0) return <Empty>The score moved by less than {MOVE} points a day in this range.</Empty>;
  return (
    <div class="table-wrap moves">
      <table data-testid="score-moves">
        <caption>Score moves of {MOVE} points or more, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col" class="num">
              Score
            </th>
            <th scope="col" class="num">
              Change
            </th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {moves.reverse().map(({ d, index }) => (
            <tr
              key={d.date}
              tabIndex={0}
              onFocus={() => props.onFocusDay(index)}
              onBlur={() => props.onFocusDay(null)}
              onMouseEnter={() => props.onFocusDay(index)}
              onMouseLeave={() => props.onFocusDay(null)}
            >
              <th scope="row">{formatDate(d.date, props.locale)}</th>
              <td class="num">{d.score.toFixed(1)}</td>
              <td class={`num ${d.change !== null && d.change < 0 ? 'down' : 'up'}`}>{formatChange(d.change)}</td>
              <td class="reason">{d.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function EditClient(props: { client: Details['client']; onSaved(): void }) {
  const { workspace } = useApp();
  const c = props.client;
  const [mrr, setMrr] = useState(c.mrr === null ? '' : String(c.mrr));
  const [renewal, setRenewal] = useState(c.renewalDate ?? '');
  const [csm, setCsm] = useState(c.csmOwner ?? '');
  const [excluded, setExcluded] = useState(c.isExcluded);
  const [saved, setSaved] = useState(false);
  const save = useAction(async ({ api }) => {
    const amount = mrr.trim() === '' ? null : Number(mrr);
    return unwrap(
      api.PATCH('/api/clients/{clientId}', {
        params: { path: { clientId: c.id }, query: { workspaceId: workspace } },
        body: { mrr: amount, renewalDate: renewal || null, csmOwner: csm.trim() || null, isExcluded: excluded },
      }),
    );
  });
  return (
    <form
      class="edit"
      aria-label="Edit client"
      onSubmit={async (e) => {
        e.preventDefault();
        setSaved(false);
        if (await save.run()) {
          setSaved(true);
          props.onSaved();
        }
      }}
    >
      <label>
        MRR
        <input name="mrr" type="number" min={0} step="any" inputMode="decimal" value={mrr} onInput={(e) => setMrr(e.currentTarget.value)} />
      </label>
      <label>
        Renewal date
        <input name="renewalDate" type="date" value={renewal} onInput={(e) => setRenewal(e.currentTarget.value)} />
      </label>
      <label>
        CSM owner
        <input name="csmOwner" type="email" placeholder="name@yourco.com" value={csm} onInput={(e) => setCsm(e.currentTarget.value)} />
      </label>
      <label class="check">
        <input name="isExcluded" type="checkbox" checked={excluded} onChange={(e) => setExcluded(e.currentTarget.checked)} /> Excluded from metrics
      </label>
      <div class="row">
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save'}
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

function Sentiment(props: { label: string }) {
  return <span class={`badge ${props.label}`}>{props.label}</span>;
}

export function ClientPage(props: { clientId: string }) {
  const { workspace, locale, settings } = useApp();
  const threshold = settings.workspace.riskThreshold;
  const id = props.clientId;
  const [range, setRange] = useState(90);
  const [offset, setOffset] = useState(0);
  /** The chart point whose tooltip shows while its row in the moves table has the focus. */
  const [highlight, setHighlight] = useState<number | null>(null);
  const details = useQuery(
    ({ api }) => unwrap(api.GET('/api/clients/{clientId}', { params: { path: { clientId: id }, query: { workspaceId: workspace } } })),
    [workspace, id],
  );
  const history = useQuery(
    ({ api }) =>
      unwrap(api.GET('/api/clients/{clientId}/health-history', { params: { path: { clientId: id }, query: { workspaceId: workspace, windowDays: range } } })),
    [workspace, id, range],
  );
  const timeline = useQuery(
    ({ api }) =>
      unwrap(api.GET('/api/clients/{clientId}/interactions', { params: { path: { clientId: id }, query: { workspaceId: workspace, limit: PAGE, offset } } })),
    [workspace, id, offset],
  );
  const option = useMemo(() => (history.data ? historyOption(history.data, threshold, locale) : null), [history.data, threshold, locale]);

  if (details.error && !details.data) {
    return (
      <main id="main" class="screen">
        <p>
          <Link href="/clients">← Clients</Link>
        </p>
        <ErrorText error={details.error} retry={details.reload} />
      </main>
    );
  }
  const d = details.data;
  if (!d)
    return (
      <main id="main" class="screen">
        <Loading what="the client" />
      </main>
    );
  const c = d.client;
  return (
    <main id="main" class="screen">
      <p class="crumbs">
        <Link href="/clients">← Clients</Link>
      </p>
      <div class="screen-head">
        <h1>
          {c.name} <span class="muted small">{c.domain}</span>
        </h1>
      </div>
      <div class="stats">
        <Stat
          label="Health"
          value={c.sentimentScore.toFixed(1)}
          tone={c.sentimentScore < threshold ? 'bad' : undefined}
          detail={d.health.confidence === null ? 'no score yet' : `confidence ${(d.health.confidence * 100).toFixed(0)}%`}
        />
        <Stat label="MRR" value={formatMoney(c.mrr, locale)} detail={c.renewalDate ? `renews ${formatDate(c.renewalDate, locale)}` : 'no renewal date'} />
        <Stat label="Interactions" value={String(d.metrics.totalInteractions)} detail={`${d.metrics.lastMonthInteractions} in the last 30 days`} />
        <Stat
          label="Sentiment trend"
          value={d.metrics.sentimentTrend}
          detail={d.metrics.avgResponseTime === null ? 'no replies yet' : `we reply in ${d.metrics.avgResponseTime.toFixed(1)} h on average`}
          tone={d.metrics.sentimentTrend === 'declining' ? 'bad' : d.metrics.sentimentTrend === 'improving' ? 'good' : undefined}
        />
      </div>
      <Card title="Why">
        <p class="reason lead" data-testid="client-reason">
          {d.health.reason}
        </p>
        {d.health.risks.length > 0 && (
          <ul class="risks">
            {d.health.risks.map((r) => (
              <li key={r.code}>
                <span class="badge negative">{r.code.replace(/_/g, ' ')}</span> {r.text}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card title="Score history">
        <div class="segmented" role="group" aria-label="Range">
          {[30, 90, 365].map((r) => (
            <button type="button" aria-pressed={range === r} onClick={() => setRange(r)}>
              {r} days
            </button>
          ))}
        </div>
        <ErrorText error={history.error} retry={history.reload} />
        {history.loading && !history.data && <Loading what="the history" />}
        {history.data && history.data.days.length === 0 && <Empty>No score history in this range.</Empty>}
        {option && history.data && history.data.days.length > 0 && (
          <Chart
            option={option}
            label={`${c.name}: health score and sentiment, last ${range} days; each move and its reason are in the table below`}
            testId="score-history"
            height={300}
            highlight={highlight}
          />
        )}
        {history.data && history.data.days.length > 0 && <ScoreMoves days={history.data.days} locale={locale} onFocusDay={setHighlight} />}
      </Card>
      <div class="grid2">
        <Card title="Evidence">
          {history.data && history.data.evidence.length === 0 && <Empty>No interaction drove a move in this range.</Empty>}
          {history.data && history.data.evidence.length > 0 && (
            <ul class="evidence" data-testid="evidence">
              {history.data.evidence.map((i) => (
                <li key={i.id}>
                  <div>
                    <strong>{i.subject || '(no subject)'}</strong> <Sentiment label={i.sentiment} />
                  </div>
                  <div class="muted small">
                    {formatDateTime(i.date, locale)} · {i.direction === 'inbound' ? `from ${i.from}` : `to ${i.to}`} · {i.type}
                  </div>
                  {i.summary && <p class="summary">{i.summary}</p>}
                </li>
              ))}
            </ul>
          )}
        </Card>
        <Card title="Components">
          {history.data && history.data.components.length === 0 && <Empty>No components yet.</Empty>}
          {history.data && history.data.components.length > 0 && (
            <table class="components">
              <thead>
                <tr>
                  <th scope="col">Component</th>
                  <th scope="col" class="num">
                    Value
                  </th>
                  <th scope="col" class="num">
                    Weight
                  </th>
                  <th scope="col" class="num">
                    Points
                  </th>
                </tr>
              </thead>
              <tbody>
                {history.data.components.map((k) => (
                  <tr key={k.name}>
                    <td>
                      {k.name}
                      <div class="bar" aria-hidden="true">
                        <span style={{ width: `${Math.max(0, Math.min(100, k.value ?? 0))}%` }} />
                      </div>
                    </td>
                    <td class="num">{k.value === null ? '—' : k.value.toFixed(0)}</td>
                    <td class="num">{k.weight === null ? '—' : `${(k.weight * 100).toFixed(0)}%`}</td>
                    <td class="num">{k.contribution === null ? '—' : k.contribution.toFixed(1)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Card>
      </div>
      <div class="grid2">
        <Card title="Account">
          {/* A form per client: its fields start from that client's values. */}
          <EditClient key={c.id} client={c} onSaved={details.reload} />
        </Card>
        <Card title="Contacts">
          {d.contacts.length === 0 ? (
            <Empty>No contacts yet.</Empty>
          ) : (
            <TableWrap label="Contacts">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">E-mail</th>
                    <th scope="col">Title</th>
                    <th scope="col">Last seen</th>
                  </tr>
                </thead>
                <tbody>
                  {d.contacts.map((p) => (
                    <tr key={p.email}>
                      <td>{p.name || '—'}</td>
                      <td>{p.email}</td>
                      <td>{p.title || '—'}</td>
                      <td>{formatDate(p.lastSeen, locale)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </Card>
      </div>
      <Card title="Timeline">
        <ErrorText error={timeline.error} retry={timeline.reload} />
        {timeline.loading && !timeline.data && <Loading what="the interactions" />}
        {timeline.data && timeline.data.interactions.length === 0 && <Empty>No interactions.</Empty>}
        {timeline.data && timeline.data.interactions.length > 0 && (
          <>
            <TableWrap label="Interactions">
              <table data-testid="timeline">
                <thead>
                  <tr>
                    <th scope="col">Date</th>
                    <th scope="col">Type</th>
                    <th scope="col">Subject</th>
                    <th scope="col">Sentiment</th>
                    <th scope="col">From</th>
                  </tr>
                </thead>
                <tbody>
                  {timeline.data.interactions.map((i) => (
                    <tr key={i.id} title={i.summary}>
                      <td>{formatDateTime(i.date, locale)}</td>
                      <td>{i.type}</td>
                      <td>{i.subject || '(no subject)'}</td>
                      <td>
                        <Sentiment label={i.sentiment} />
                      </td>
                      <td>{i.from}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
            <div class="pager">
              <button type="button" disabled={offset === 0 || timeline.loading} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
                ← Newer
              </button>
              <span class="muted">
                {timeline.data.pagination.offset + 1}–{timeline.data.pagination.offset + timeline.data.interactions.length} of {timeline.data.pagination.total}
              </span>
              <button type="button" disabled={!timeline.data.pagination.hasMore || timeline.loading} onClick={() => setOffset(offset + PAGE)}>
                Older →
              </button>
            </div>
          </>
        )}
      </Card>
    </main>
  );
}
