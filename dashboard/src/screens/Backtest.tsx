/**
 * Did the score predict churn? The backtest (GET /metrics/backtest): for each renewal outcome
 * recorded, the score the client had 30, 60 or 90 days before it, against what happened. The
 * engine's sentence first, then the figures in plain words (recall, precision, AUC, warning time,
 * lift), the ROC curve against a coin, the calibration against the perfect diagonal (each chart
 * with its text alternative: a caption, and the bins as a table), and the churns with their
 * score before and how long they had been red. Without outcomes: how to record them.
 *
 * Below it, the learned weights (GET/POST /health/models, apply, revert): which weights score
 * today (the hand-written ones or a learned model), a button to learn from the outcomes, and
 * every model tried with how it did on renewals it had not seen against the hand-written weights.
 * An offered (or retired) model can be applied, the one in use reverted; each action reloads.
 */
import { useMemo, useState } from 'preact/hooks';
import { unwrap, type Answer } from '../lib/api.js';
import { useAction, useApp, useQuery } from '../lib/context.js';
import { formatDate, formatPercent } from '../lib/format.js';
import { Chart, type ChartOption } from '../components/Chart.js';
import { Card, Empty, ErrorText, Link, Loading, Score, Stat, TableWrap } from '../components/ui.js';

type Backtest = Answer<'/api/metrics/backtest'>;
type Horizon = Backtest['horizons'][number];
type HealthModel = Answer<'/api/health/models'>['models'][number];
type Weights = HealthModel['weights'];

const HORIZONS = [30, 60, 90] as const;
/** The risk signals a churned client's score held before, in words. */
const SIGNAL_WORDS: Record<string, string> = {
  churn_intent: 'said they would leave',
  escalation: 'escalated',
  unanswered: 'waiting for our reply',
  gone_quiet: 'gone quiet',
  slow_replies: 'our replies slowed',
  negative_tone: 'negative tone',
};

/** The warning time the engine counts churns against ("red at least 45 days before"). */
const LEAD_GOAL_DAYS = 45;

const percent = (x: number | null) => (x === null ? '—' : formatPercent(x));
const axisPercent = (v: number) => `${Math.round(v * 100)}%`;
const COIN = { color: '#8a94a6', type: 'dashed' as const, width: 1 };

/** The ROC curve: churns caught against kept clients flagged, as the cut-off score rises; a coin is the diagonal. */
function rocOption(h: Horizon): ChartOption {
  return {
    grid: { left: 48, right: 16, top: 32, bottom: 44 },
    legend: { top: 0, data: ['Health score', 'A coin'] },
    tooltip: {
      trigger: 'item',
      formatter: (p: unknown) => {
        const [fpr, tpr] = ((p as { value?: number[] }).value ?? []) as [number, number];
        return `${axisPercent(tpr)} of churns caught<br/>${axisPercent(fpr)} of kept clients flagged`;
      },
    },
    xAxis: { type: 'value', min: 0, max: 1, name: 'Kept clients flagged', nameLocation: 'middle', nameGap: 26, axisLabel: { formatter: axisPercent } },
    yAxis: { type: 'value', min: 0, max: 1, name: 'Churns caught', nameLocation: 'middle', nameGap: 36, axisLabel: { formatter: axisPercent } },
    series: [
      { type: 'line', name: 'Health score', data: h.roc.map((p) => [p.fpr, p.tpr]), showSymbol: h.roc.length <= 40, symbolSize: 5 },
      {
        type: 'line',
        name: 'A coin',
        data: [
          [0, 0],
          [1, 1],
        ],
        showSymbol: false,
        silent: true,
        lineStyle: COIN,
        itemStyle: { color: COIN.color },
      },
    ],
  };
}

/** Reliability: per probability bin, the churn chance given against the share that churned; perfect calibration is the diagonal. */
function reliabilityOption(h: Horizon): ChartOption {
  const bins = h.reliability.filter((b) => b.predicted !== null && b.observed !== null && b.outcomes > 0);
  return {
    grid: { left: 48, right: 16, top: 32, bottom: 44 },
    legend: { top: 0, data: ['Observed', 'Perfect calibration'] },
    tooltip: {
      trigger: 'item',
      formatter: (p: unknown) => {
        const bin = bins[(p as { dataIndex?: number }).dataIndex ?? -1];
        if (!bin || (p as { seriesIndex?: number }).seriesIndex !== 0) return '';
        return `Given ${axisPercent(bin.predicted!)} chance of churn<br/>${axisPercent(bin.observed!)} churned (${bin.outcomes} outcomes)`;
      },
    },
    xAxis: { type: 'value', min: 0, max: 1, name: 'Churn chance given', nameLocation: 'middle', nameGap: 26, axisLabel: { formatter: axisPercent } },
    yAxis: { type: 'value', min: 0, max: 1, name: 'Share that churned', nameLocation: 'middle', nameGap: 36, axisLabel: { formatter: axisPercent } },
    series: [
      { type: 'line', name: 'Observed', data: bins.map((b) => [b.predicted!, b.observed!]), showSymbol: true, symbolSize: 8 },
      {
        type: 'line',
        name: 'Perfect calibration',
        data: [
          [0, 0],
          [1, 1],
        ],
        showSymbol: false,
        silent: true,
        lineStyle: COIN,
        itemStyle: { color: COIN.color },
      },
    ],
  };
}

/** The text alternative of the ROC curve, in words. */
function rocSummary(h: Horizon): string {
  const auc = h.auc === null ? 'no area (it needs both churned and kept clients)' : `an area (AUC) of ${h.auc.toFixed(2)}`;
  return (
    `Each point is a cut-off score: how many of the churns it catches against how many kept clients it flags, ${h.days} days before the renewal. ` +
    `The higher the curve above the diagonal (a coin, 0.50), the better. The score's curve has ${auc}.`
  );
}

export function Backtest() {
  const { workspace, locale } = useApp();
  const [days, setDays] = useState<number>(60);
  const report = useQuery(({ api }) => unwrap(api.GET('/api/metrics/backtest', { params: { query: { workspaceId: workspace, days } } })), [workspace, days]);
  const clients = useQuery(({ api }) => unwrap(api.GET('/api/clients', { params: { query: { workspaceId: workspace } } })), [workspace]);
  const nameOf = useMemo(() => new Map((clients.data ?? []).map((c) => [c.id, c.name])), [clients.data]);

  const r = report.data;
  const roc = useMemo(() => (r ? rocOption(r) : null), [r]);
  const calibration = useMemo(() => (r ? reliabilityOption(r) : null), [r]);
  const empty = r !== undefined && r.outcomes + r.withoutHistory === 0;
  const churns = useMemo(() => [...(r?.churns ?? [])].sort((a, b) => b.date.localeCompare(a.date)), [r]);
  const caught = r && r.recall !== null ? Math.round(r.recall * r.churned) : null;
  const kept = r ? r.outcomes - r.churned : 0;

  return (
    <main id="main" class="screen">
      <div class="screen-head">
        <h1>Did the score predict churn?</h1>
        <div class="segmented" role="group" aria-label="Score read before the renewal">
          {HORIZONS.map((d) => (
            <button type="button" aria-pressed={days === d} onClick={() => setDays(d)}>
              {d} days before
            </button>
          ))}
        </div>
      </div>
      <p class="muted">
        For each renewal you recorded, the health score the client had {days} days before it, against how the renewal ended. A client is flagged when its score
        was under the risk threshold{r ? ` (${r.threshold})` : ''}.
      </p>
      <ErrorText error={report.error} retry={report.reload} />
      {report.loading && (!r || r.days !== days) && <Loading what={`the backtest, ${days} days before`} />}
      {r && (
        <p class="reason lead" data-testid="backtest-summary">
          {r.summary}
        </p>
      )}
      {empty && (
        <Card title="No renewal outcomes yet">
          <p>There is nothing to check the score against until you record how renewals ended: renewed, churned or downgraded.</p>
          <p>Import them from a CSV file (columns domain or clientId, date, outcome, mrrBefore, mrrAfter):</p>
          <pre class="command">
            <code data-testid="import-command">chs outcomes import --workspace {workspace} --file outcomes.csv</code>
          </pre>
          <p class="muted">
            Or record them one at a time through the API: <code>POST /api/clients/&#123;clientId&#125;/outcomes</code>.
          </p>
        </Card>
      )}
      {r && !empty && (
        <>
          <div class="stats" data-testid="backtest-figures">
            <Stat
              label="Churns seen coming: recall"
              value={percent(r.recall)}
              detail={caught === null ? 'no churn among these outcomes' : `${caught} of ${r.churned} churns were flagged ${r.days} days before`}
            />
            <Stat
              label="Flagged that did churn: precision"
              value={percent(r.precision)}
              detail={r.flagged === 0 ? 'no client was flagged then' : `of the ${r.flagged} clients flagged ${r.days} days before`}
            />
            <Stat
              label="AUC"
              value={r.auc === null ? '—' : r.auc.toFixed(2)}
              detail={r.auc === null ? 'needs both churned and kept clients' : 'a churning client scored lower than a kept one this often; a coin is 0.50'}
              tone={r.auc !== null && r.auc >= 0.7 ? 'good' : r.auc !== null && r.auc <= 0.55 ? 'bad' : undefined}
            />
            <Stat
              label="Median warning time (days)"
              value={r.leadTimeDaysMedian === null ? '—' : String(r.leadTimeDaysMedian)}
              detail={
                r.churns.length === 0
                  ? 'no churn recorded'
                  : `${r.churnsRedAtLeast45Days} of ${r.churns.length} churns were red ${LEAD_GOAL_DAYS} days or more before`
              }
            />
            <Stat
              label="Riskiest tenth churns"
              value={r.liftTopDecile === null ? '—' : `${r.liftTopDecile.toFixed(1)}×`}
              detail={r.liftTopDecile === null ? 'no churn among these outcomes' : 'as often as all clients: the lowest-scored tenth (lift)'}
            />
          </div>
          <p class="muted" data-testid="backtest-counts">
            {r.outcomes} renewals had a score {r.days} days before: {r.churned} churned, {r.downgraded} downgraded, {r.renewed} renewed
            {r.withoutHistory > 0 ? `; ${r.withoutHistory} had no score then and are left out` : ''}.
          </p>
          <div class="grid2">
            <Card title="ROC curve">
              {roc && r.roc.length > 0 && r.churned > 0 && kept > 0 ? (
                <figure class="figure">
                  <Chart
                    option={roc}
                    label={`ROC curve, ${r.days} days before the renewal: churns caught against kept clients flagged; AUC ${r.auc?.toFixed(2) ?? 'unknown'}, a coin 0.50`}
                    testId="backtest-roc"
                  />
                  <figcaption class="muted small" data-testid="backtest-roc-caption">
                    {rocSummary(r)}
                  </figcaption>
                </figure>
              ) : (
                <Empty>The curve needs both churned and kept clients with a score {r.days} days before.</Empty>
              )}
            </Card>
            <Card title="Churn chance given against what happened">
              {calibration && r.outcomes > 0 ? (
                <figure class="figure">
                  <Chart
                    option={calibration}
                    label={`Reliability, ${r.days} days before the renewal: the churn chance the score gave against the share that churned, per band; the diagonal is perfect calibration`}
                    testId="backtest-reliability"
                  />
                  <figcaption class="muted small">
                    Points on the diagonal mean the chance given came true; below it, fewer churned than the score said.
                    {r.brier === null ? '' : ` Error of the chances (Brier score): ${r.brier.toFixed(3)}; 0 is perfect, 0.25 a coin.`}
                  </figcaption>
                  <TableWrap label="Churn chance per band">
                    <table data-testid="backtest-reliability-table">
                      <caption class="sr-only">Churn chance given and share that churned, per band of chance</caption>
                      <thead>
                        <tr>
                          <th scope="col">Chance given</th>
                          <th scope="col" class="num">
                            Outcomes
                          </th>
                          <th scope="col" class="num">
                            Mean chance
                          </th>
                          <th scope="col" class="num">
                            Churned
                          </th>
                        </tr>
                      </thead>
                      <tbody>
                        {r.reliability.map((b) => (
                          <tr key={b.from}>
                            <td>
                              {axisPercent(b.from)}–{axisPercent(b.to)}
                            </td>
                            <td class="num">{b.outcomes}</td>
                            <td class="num">{percent(b.predicted)}</td>
                            <td class="num">{percent(b.observed)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </TableWrap>
                </figure>
              ) : (
                <Empty>No outcome had a score {r.days} days before.</Empty>
              )}
            </Card>
          </div>
          <Card title="Churns">
            {churns.length === 0 ? (
              <Empty>No churn recorded: every renewal was kept.</Empty>
            ) : (
              <TableWrap label="Churns">
                <table data-testid="backtest-churns">
                  <caption class="sr-only">
                    Clients that churned, newest first, with their score {r.days} days before and how long they had been at risk
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Client</th>
                      <th scope="col">Churned on</th>
                      <th scope="col" class="num">
                        Score {r.days} days before
                      </th>
                      <th scope="col">What it saw then</th>
                      <th scope="col" class="num">
                        Warning time (days at risk before)
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {churns.map((c) => (
                      <tr key={`${c.clientId} ${c.date}`}>
                        <td>
                          <Link href={`/clients/${encodeURIComponent(c.clientId)}`}>{nameOf.get(c.clientId) ?? c.clientId}</Link>
                        </td>
                        <td>{formatDate(c.date, locale)}</td>
                        <td class="num">
                          {c.scoreBefore === null ? <span class="muted">no score then</span> : <Score score={c.scoreBefore} threshold={r.threshold} />}
                        </td>
                        <td>
                          {c.signalsBefore.length === 0 ? (
                            <span class="muted">no risk signal</span>
                          ) : (
                            c.signalsBefore.map((code) => SIGNAL_WORDS[code] ?? code).join(', ')
                          )}
                        </td>
                        <td class="num">
                          <span class={c.leadTimeDays >= LEAD_GOAL_DAYS ? 'up' : c.leadTimeDays === 0 ? 'down' : ''}>{c.leadTimeDays}</span>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )}
          </Card>
          <Card title="At 30, 60 and 90 days">
            <TableWrap label="The figures at each horizon">
              <table data-testid="backtest-horizons">
                <caption class="sr-only">The same figures with the score read 30, 60 and 90 days before the renewal</caption>
                <thead>
                  <tr>
                    <th scope="col">Score read</th>
                    <th scope="col" class="num">
                      Outcomes
                    </th>
                    <th scope="col" class="num">
                      Churns seen coming
                    </th>
                    <th scope="col" class="num">
                      Flagged that did churn
                    </th>
                    <th scope="col" class="num">
                      AUC
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {r.horizons.map((h) => (
                    <tr key={h.days} aria-current={h.days === r.days ? 'true' : undefined}>
                      <th scope="row">{h.days} days before</th>
                      <td class="num">{h.outcomes}</td>
                      <td class="num">{percent(h.recall)}</td>
                      <td class="num">{percent(h.precision)}</td>
                      <td class="num">{h.auc === null ? '—' : h.auc.toFixed(2)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          </Card>
        </>
      )}
      <LearnedWeights days={days} />
    </main>
  );
}

const COMPONENTS = [
  ['sentiment', 'Sentiment'],
  ['engagement', 'Engagement'],
  ['responsiveness', 'Responsiveness'],
  ['recency', 'Recency'],
] as const;

/** The status of a model, in words. */
const STATUS: Record<HealthModel['status'], { label: string; tone: string }> = {
  offered: { label: 'offered: did better', tone: 'positive' },
  rejected: { label: 'not adopted: did no better', tone: 'negative' },
  active: { label: 'in use', tone: 'positive' },
  retired: { label: 'retired', tone: '' },
};

const share = (w: number) => `${Math.round(w * 100)}%`;
const weightsText = (w: Weights) => COMPONENTS.map(([k, label]) => `${label.toLowerCase()} ${share(w[k])}`).join(', ');
const auc = (x: number | null) => (x === null ? '—' : x.toFixed(3));

/** The settings' weights as shares of the score (the API normalises them the same way). */
function normalised(w: Weights): Weights {
  const total = w.sentiment + w.engagement + w.responsiveness + w.recency;
  if (total <= 0) return { sentiment: 0.25, engagement: 0.25, responsiveness: 0.25, recency: 0.25 };
  return { sentiment: w.sentiment / total, engagement: w.engagement / total, responsiveness: w.responsiveness / total, recency: w.recency / total };
}

type ModelAction = { kind: 'learn'; days: number } | { kind: 'apply'; version: number } | { kind: 'revert' };

/**
 * "Learned weights": the weights the score is made with today, learning new ones from the recorded
 * renewals (reading the score `days` before each, as the report above), and every model tried.
 */
function LearnedWeights(props: { days: number }) {
  const { workspace, locale, settings } = useApp();
  const list = useQuery(({ api }) => unwrap(api.GET('/api/health/models', { params: { query: { workspaceId: workspace } } })), [workspace]);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const act = useAction(async ({ api }, a: ModelAction): Promise<string> => {
    const query = { workspaceId: workspace };
    if (a.kind === 'learn') {
      const r = await unwrap(api.POST('/api/health/models', { params: { query }, body: { days: a.days } }));
      return r.summary;
    }
    if (a.kind === 'apply') {
      const r = await unwrap(api.POST('/api/health/models/{version}/apply', { params: { path: { version: a.version }, query } }));
      return `Learned model ${r.model.version} is in use: ${r.clientsRescored} client(s) rescored from today. Earlier days keep the weights that scored them.`;
    }
    const r = await unwrap(api.POST('/api/health/models/revert', { params: { query } }));
    const back = r.model ? `Learned model ${r.model.version} is in use again` : 'The hand-written weights are in use again';
    return `${back}: ${r.clientsRescored} client(s) rescored from today.`;
  });
  const run = async (a: ModelAction) => {
    setNotice(undefined);
    const message = await act.run(a);
    if (message !== undefined) setNotice(message);
    // Whatever happened (a model stored, applied, or refused), the list shows the state now.
    list.reload();
  };

  const models = list.data?.models ?? [];
  const active = models.find((m) => m.status === 'active');
  const handWritten = normalised(settings.workspace.healthWeights);

  return (
    <Card title="Learned weights" id="learned-weights">
      <p class="muted">
        The health score adds up four parts with fixed weights. The engine can instead learn the weights from the renewals you recorded: how much each part
        told, {props.days} days before, the clients that churned from those that stayed. A learned model is offered only when it foresaw the churns better than
        the hand-written weights on later renewals it did not learn from, and it is used only once you apply it.
      </p>
      <ErrorText error={list.error} retry={list.reload} />
      {list.loading && !list.data && <Loading what="the learned weights" />}
      {list.data && (
        <div class="row wrap" data-testid="model-in-use">
          <p>
            {active ? (
              <>
                <strong>In use: learned model {active.version}</strong> ({weightsText(active.weights)}), applied {formatDate(active.appliedAt, locale)}.
              </>
            ) : (
              <>
                <strong>In use: the hand-written weights</strong> ({weightsText(handWritten)}).
              </>
            )}
          </p>
          {active && (
            <button type="button" class="secondary" disabled={act.busy} onClick={() => void run({ kind: 'revert' })}>
              Revert
            </button>
          )}
        </div>
      )}
      {active && (
        <p class="muted small">
          Revert goes back to {active.previousVersion === null ? 'the hand-written weights' : `learned model ${active.previousVersion}`} from today.
        </p>
      )}
      <div class="row wrap">
        <button type="button" disabled={act.busy} onClick={() => void run({ kind: 'learn', days: props.days })}>
          Learn from outcomes
        </button>
        {act.busy && <span class="muted">Working…</span>}
      </div>
      <ErrorText error={act.error} />
      {notice && (
        <p class="notice" data-testid="model-notice">
          {notice}
        </p>
      )}
      {list.data && models.length === 0 && (
        <Empty>
          No model learned yet. Learning needs at least 30 recorded renewals with a score {props.days} days before them, 8 of them churns; until a learned model
          is applied, the hand-written weights score.
        </Empty>
      )}
      {models.length > 0 && (
        <TableWrap label="Learned models">
          <table data-testid="models-table">
            <caption class="sr-only">Every model learned, newest first: how it did on later renewals against the hand-written weights, and its weights</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Status</th>
                <th scope="col">Learned on</th>
                <th scope="col" class="num">
                  Renewals
                </th>
                <th scope="col" class="num">
                  Churned
                </th>
                <th scope="col" class="num">
                  AUC learned
                </th>
                <th scope="col" class="num">
                  AUC hand-written
                </th>
                {COMPONENTS.map(([k, label]) => (
                  <th key={k} scope="col" class="num">
                    {label}
                  </th>
                ))}
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {models.map((m) => (
                <tr key={m.version} aria-current={m.status === 'active' ? 'true' : undefined}>
                  <th scope="row">
                    Learned model {m.version}
                    <div class="muted small">score read {m.horizonDays} days before</div>
                  </th>
                  <td>
                    <span class={`badge ${STATUS[m.status].tone}`}>{STATUS[m.status].label}</span>
                  </td>
                  <td>{formatDate(m.createdAt, locale)}</td>
                  <td class="num">{m.outcomes}</td>
                  <td class="num">{m.churned}</td>
                  <td class="num">{auc(m.heldOut.aucLearned)}</td>
                  <td class="num">{auc(m.heldOut.aucDefault)}</td>
                  {COMPONENTS.map(([k]) => (
                    <td key={k} class="num">
                      {share(m.weights[k])}
                    </td>
                  ))}
                  <td>
                    {(m.status === 'offered' || m.status === 'retired') && (
                      <button
                        type="button"
                        disabled={act.busy}
                        aria-label={`Apply learned model ${m.version}`}
                        onClick={() => void run({ kind: 'apply', version: m.version })}
                      >
                        Apply
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {models.length > 0 && (
        <p class="muted small">
          AUC: how often a client that churned scored lower than one that stayed, on the later renewals each model was tested on (it learned from the earlier
          ones only), with its weights and with the hand-written ones; 0.50 is a coin, 1.00 perfect. Renewals and churned: what it learned from.
        </p>
      )}
    </Card>
  );
}
