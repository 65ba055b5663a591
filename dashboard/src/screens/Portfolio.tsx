/**
 * The morning screen: average health and its 7-day change, MRR and MRR at risk, who is at risk
 * and why, renewals in the next 30 days, the most improved, the health trend and the score
 * distribution; the risk threshold and the window can be changed here for this view.
 */
import { useMemo, useState } from 'preact/hooks';
import { unwrap } from '../lib/api.js';
import { useApp, useQuery } from '../lib/context.js';
import { formatChange, formatDate, formatMoney } from '../lib/format.js';
import { Chart, type ChartOption } from '../components/Chart.js';
import { Card, Empty, ErrorText, Link, Loading, Score, Stat, TableWrap } from '../components/ui.js';

type Interval = 'daily' | 'weekly' | 'monthly';
const RANGES = [30, 90, 365] as const;
const WINDOWS = [7, 14, 30, 90] as const;

export function Portfolio() {
  const { settings, locale, workspace } = useApp();
  const [threshold, setThreshold] = useState(settings.workspace.riskThreshold);
  const [windowDays, setWindowDays] = useState<number>(Math.min(90, settings.workspace.defaultWindowDays || 7));
  const [range, setRange] = useState<number>(90);
  const [interval, setTrendInterval] = useState<Interval>('daily');

  const summary = useQuery(
    ({ api }) => unwrap(api.GET('/api/metrics/summary', { params: { query: { workspaceId: workspace, windowDays, riskThreshold: threshold } } })),
    [workspace, windowDays, threshold],
  );
  const clients = useQuery(({ api }) => unwrap(api.GET('/api/clients', { params: { query: { workspaceId: workspace } } })), [workspace]);
  const trend = useQuery(
    ({ api }) => unwrap(api.GET('/api/metrics/trends/health', { params: { query: { workspaceId: workspace, windowDays: range, interval } } })),
    [workspace, range, interval],
  );

  const renewalOf = useMemo(() => new Map((clients.data ?? []).map((c) => [c.id, c.renewalDate])), [clients.data]);
  const s = summary.data;
  // A churn probability beside each score once the engine has calibrated the weights in use (chs health learn).
  const calibrated = s?.health.churnCalibration.available === true;

  const trendOption = useMemo<ChartOption | null>(() => {
    if (!trend.data) return null;
    return {
      grid: { left: 40, right: 32, top: 16, bottom: 28 },
      tooltip: { trigger: 'axis', valueFormatter: (v) => (typeof v === 'number' ? v.toFixed(1) : String(v)) },
      xAxis: { type: 'category', data: trend.data.map((p) => p.date), axisLabel: { formatter: (d: string) => formatDate(d, locale) } },
      yAxis: { type: 'value', min: 0, max: 100 },
      series: [
        {
          type: 'line',
          name: 'Average health',
          data: trend.data.map((p) => p.avgScore),
          showSymbol: trend.data.length < 40,
          markLine: { silent: true, symbol: 'none', lineStyle: { color: '#c0392b', type: 'dashed' }, data: [{ yAxis: threshold, name: 'risk threshold' }] },
        },
      ],
    };
  }, [trend.data, threshold, locale]);

  const distribution = useMemo(() => {
    const buckets = Array.from({ length: 10 }, () => 0);
    for (const c of clients.data ?? []) if (!c.isExcluded) buckets[Math.min(9, Math.floor(c.sentimentScore / 10))]! += 1;
    return buckets;
  }, [clients.data]);
  const distributionOption = useMemo<ChartOption>(
    () => ({
      grid: { left: 32, right: 12, top: 12, bottom: 28 },
      tooltip: { trigger: 'axis' },
      xAxis: { type: 'category', data: distribution.map((_, i) => `${i * 10}–${i * 10 + 10}`) },
      yAxis: { type: 'value', minInterval: 1 },
      series: [
        {
          type: 'bar',
          name: 'Clients',
          data: distribution.map((n, i) => ({
            value: n,
            itemStyle: { color: (i + 1) * 10 <= threshold ? '#c0392b' : i * 10 < threshold ? '#e67e22' : '#2e86de' },
          })),
        },
      ],
    }),
    [distribution, threshold],
  );

  return (
    <main id="main" class="screen">
      <div class="screen-head">
        <h1>Portfolio</h1>
        <form class="controls" onSubmit={(e) => e.preventDefault()} aria-label="Portfolio settings">
          <label>
            Risk threshold
            <input
              type="number"
              min={0}
              max={100}
              step={1}
              value={threshold}
              onChange={(e) => {
                const v = Number(e.currentTarget.value);
                if (Number.isFinite(v) && v >= 0 && v <= 100) setThreshold(v);
              }}
            />
          </label>
          <label>
            Window
            <select value={String(windowDays)} onChange={(e) => setWindowDays(Number(e.currentTarget.value))}>
              {WINDOWS.map((w) => (
                <option value={String(w)}>{w} days</option>
              ))}
            </select>
          </label>
        </form>
      </div>
      <p class="muted">
        New domains in your mail wait in <Link href="/clients/suggested">Suggested clients</Link> until you accept or ignore them.
      </p>
      <ErrorText error={summary.error} retry={summary.reload} />
      {!s && summary.loading && <Loading what="the portfolio" />}
      {s && (
        <>
          <div class="stats">
            <Stat
              label="Average health"
              value={s.health.avgScore.toFixed(1)}
              detail={<span class={s.health.change7 < 0 ? 'down' : s.health.change7 > 0 ? 'up' : ''}>{formatChange(s.health.change7)} in 7 days</span>}
            />
            <Stat label="MRR" value={formatMoney(s.revenue.mrrTotal, locale)} detail={`${s.totals.clients} clients`} />
            <Stat
              label="MRR at risk"
              value={formatMoney(s.revenue.mrrAtRisk, locale)}
              detail={`${s.health.atRiskCount} clients below ${s.health.threshold}`}
              tone={s.revenue.mrrAtRisk > 0 ? 'bad' : undefined}
            />
            <Stat label="Renewals in 30 days" value={String(s.totals.renewals30d)} detail={formatMoney(s.revenue.renewals30dValue, locale)} />
          </div>
          <Card title="At risk" id="at-risk-title">
            {s.lists.topRisks.length === 0 ? (
              <Empty>No client is below {s.health.threshold}.</Empty>
            ) : (
              <TableWrap label="Clients at risk">
                <table data-testid="at-risk">
                  <thead>
                    <tr>
                      <th scope="col">Client</th>
                      <th scope="col" class="num">
                        Score
                      </th>
                      <th scope="col" class="num">
                        MRR
                      </th>
                      <th scope="col">Renewal</th>
                      {calibrated && (
                        <th scope="col" class="num" title={s.health.churnCalibration.text}>
                          Churn chance
                        </th>
                      )}
                      <th scope="col">Why</th>
                    </tr>
                  </thead>
                  <tbody>
                    {s.lists.topRisks.map((r) => (
                      <tr key={r.clientId}>
                        <td>
                          <Link href={`/clients/${encodeURIComponent(r.clientId)}`}>{r.name}</Link>
                        </td>
                        <td class="num">
                          <Score score={r.score} threshold={s.health.threshold} />
                        </td>
                        <td class="num">{formatMoney(r.mrr, locale)}</td>
                        <td>{formatDate(renewalOf.get(r.clientId) ?? null, locale)}</td>
                        {calibrated && <td class="num">{r.churnProbability === null ? '—' : `${Math.round(r.churnProbability * 100)} %`}</td>}
                        <td class="reason">{r.reason}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )}
            <p class="muted" data-testid="churn-calibration">
              {s.health.churnCalibration.text}
            </p>
          </Card>
          <div class="grid2">
            <Card title="Renewals in the next 30 days">
              {s.lists.renewals.length === 0 ? (
                <Empty>No renewal in the next 30 days.</Empty>
              ) : (
                <ul class="list">
                  {s.lists.renewals.map((r) => (
                    <li key={r.clientId}>
                      <Link href={`/clients/${encodeURIComponent(r.clientId)}`}>{r.name}</Link>
                      <span class="muted">
                        {formatDate(r.renewalDate, locale)} · in {r.daysUntil} days · {formatMoney(r.mrr, locale)}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </Card>
            <Card title="Most improved">
              {s.lists.topImproving.length === 0 ? (
                <Empty>No client improved in the window.</Empty>
              ) : (
                <ul class="list">
                  {s.lists.topImproving.map((r) => (
                    <li key={r.clientId}>
                      <Link href={`/clients/${encodeURIComponent(r.clientId)}`}>{r.name}</Link>
                      <span class="muted">
                        {r.score.toFixed(1)} (<span class="up">{formatChange(r.scoreChange)}</span>) · {formatMoney(r.mrr, locale)}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </Card>
          </div>
        </>
      )}
      <div class="grid2">
        <Card title="Health trend">
          <div class="segmented" role="group" aria-label="Range">
            {RANGES.map((r) => (
              <button type="button" aria-pressed={range === r} onClick={() => setRange(r)}>
                {r} days
              </button>
            ))}
          </div>
          <div class="segmented" role="group" aria-label="Interval">
            {(['daily', 'weekly', 'monthly'] as const).map((i) => (
              <button type="button" aria-pressed={interval === i} onClick={() => setTrendInterval(i)}>
                {i}
              </button>
            ))}
          </div>
          <ErrorText error={trend.error} retry={trend.reload} />
          {trend.loading && !trend.data && <Loading what="the trend" />}
          {trend.data && trend.data.length === 0 && <Empty>No scores in this range yet.</Empty>}
          {trendOption && trend.data && trend.data.length > 0 && (
            <Chart option={trendOption} label={`Average health, last ${range} days, ${interval}`} testId="health-trend" />
          )}
        </Card>
        <Card title="Distribution of scores">
          <ErrorText error={clients.error} retry={clients.reload} />
          {clients.loading && !clients.data && <Loading what="the clients" />}
          {clients.data && clients.data.length === 0 && <Empty>No clients yet: ingest some mail first.</Empty>}
          {clients.data && clients.data.length > 0 && (
            <Chart option={distributionOption} label="Number of clients per score band of 10 points" testId="distribution" />
          )}
        </Card>
      </div>
    </main>
  );
}
