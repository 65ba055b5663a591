/**
 * Sources and jobs: each integration's status (Gmail with every connected mailbox), a sync or a
 * backfill to start, the running job's progress (polling /ingest/status while one runs) with a
 * cancel button, the history, and e-mail ingestion stats.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { unwrap, type Answer } from '../lib/api.js';
import { useAction, useApp, useQuery } from '../lib/context.js';
import {
  dayInZone,
  formatCount,
  formatDate,
  formatDateTime,
  formatPercent,
  formatRate,
  formatRelative,
  formatTime,
  startOfDayInZone,
  type Locale,
} from '../lib/format.js';
import { Card, Empty, ErrorText, Loading, Stat, TableWrap } from '../components/ui.js';

const PROVIDERS = ['google', 'hubspot', 'intercom'] as const;
type Provider = (typeof PROVIDERS)[number];
const NAMES: Record<Provider, string> = { google: 'Gmail', hubspot: 'HubSpot', intercom: 'Intercom' };
/** What a backfill of each provider can read (POST /ingest/backfill's dataTypes). */
const DATA_TYPES: Record<Provider, readonly string[]> = {
  google: ['emails'],
  hubspot: ['companies', 'contacts', 'emails', 'meetings', 'calls', 'notes'],
  intercom: ['contacts', 'companies', 'conversations'],
};
/** How often the screen reads /ingest/status while a job runs. */
const POLL_MS = 2000;
/** Faster just after a job is started here, so its first move shows within a second or two. */
const FAST_POLL_MS = 1000;
const FAST_FOR_MS = 10_000;
const DAY_MS = 86_400_000;
/** The longest window a backfill reads (the spec's limit). */
const MAX_DAYS = 365;
type Job = NonNullable<Answer<'/api/ingest/status'>['currentJob']>;
type SourceView = Job['sources'][string];
type Waiting = NonNullable<Job['waiting']>;
const IN_PROGRESS: readonly Job['status'][] = ['queued', 'running', 'parked'];

function Mailboxes(props: { accounts: Answer<'/api/integrations/{provider}/status'>['accounts']; locale: Locale }) {
  if (props.accounts.length === 0) return <Empty>No mailbox is connected.</Empty>;
  return (
    <ul class="list mailboxes" aria-label="Connected mailboxes" data-testid="mailboxes">
      {props.accounts.map((a) => (
        <li key={a.account}>
          <div>
            <strong>{a.account || a.email || '—'}</strong>{' '}
            <span class={`badge ${a.state === 'connected' ? 'positive' : 'negative'}`}>{a.state.replace(/_/g, ' ')}</span>
          </div>
          <div class="muted small">last sync {formatDateTime(a.lastSyncAt, props.locale)}</div>
          {a.lastError && <div class="problem-text small">Last sync problem: {a.lastError}</div>}
        </li>
      ))}
    </ul>
  );
}

/** `jobsEnded` counts the jobs seen ending: the status (last sync, mailboxes) is read again after each. */
function Integration(props: { provider: Provider; jobsEnded: number; onStarted(): void }) {
  const { workspace, locale } = useApp();
  const p = props.provider;
  const status = useQuery(
    ({ api }) => unwrap(api.GET('/api/integrations/{provider}/status', { params: { path: { provider: p }, query: { workspaceId: workspace } } })),
    [workspace, p, props.jobsEnded],
  );
  const [message, setMessage] = useState<string | undefined>(undefined);
  const sync = useAction(({ api }) =>
    unwrap(api.POST('/api/integrations/{provider}/sync', { params: { path: { provider: p } }, body: { workspaceId: workspace } })),
  );
  // Google (each CSM's own mailbox) and HubSpot (the public app's install) sign in through the
  // browser: the API answers the provider's consent URL, and the provider sends the browser back
  // to the server's callback, which stores the tokens and returns here (CHS_PUBLIC_URL).
  const signIn = useAction(({ api }) =>
    p === 'google'
      ? unwrap(api.POST('/api/integrations/google/authorize', { params: { query: { workspaceId: workspace } } }))
      : unwrap(api.POST('/api/integrations/hubspot/authorize', { params: { query: { workspaceId: workspace } } })),
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
      {s && p === 'google' && (
        <>
          <h3 class="small">Mailboxes</h3>
          <Mailboxes accounts={s.accounts} locale={locale} />
        </>
      )}
      {s && !s.connected && (
        <p class="muted small">
          Connect it {p === 'intercom' ? '' : 'with the button below or '}with <code>chs connect {p}</code>.
        </p>
      )}
      <div class="row wrap">
        {p !== 'intercom' && (
          <button
            type="button"
            class="secondary"
            disabled={signIn.busy}
            onClick={async () => {
              const r = await signIn.run();
              if (r) navigation.leaveFor(r.url);
            }}
          >
            {p === 'google' ? (s && s.accounts.length > 0 ? 'Connect another Gmail mailbox' : 'Connect a Gmail mailbox') : 'Install the HubSpot app'}
          </button>
        )}
        <button
          type="button"
          disabled={sync.busy || !s?.connected}
          onClick={async () => {
            setMessage(undefined);
            const r = await sync.run();
            if (r) {
              setMessage(r.message);
              props.onStarted();
            }
          }}
        >
          Sync now
        </button>
      </div>
      {message && (
        <p class="ok" role="status">
          {message}
        </p>
      )}
      <ErrorText error={sync.error} />
      <ErrorText error={signIn.error} />
    </section>
  );
}

/** Sends the browser to a provider's consent screen (an object of its own: tests replace it). */
export const navigation = { leaveFor: (url: string): void => window.location.assign(url) };

function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

export interface BackfillInput {
  from: string;
  /** The last day, included; empty: up to now. */
  to: string;
  dataTypes: readonly string[];
}

/**
 * The backfill's window in the workspace's zone (from the first day's midnight to the end of the
 * last day, or now when the last day is today or left empty), or what is wrong with it, in words.
 */
export function backfillWindow(input: BackfillInput, locale: Locale, now: Date): { from: Date; to: Date } | { problem: string } {
  const tz = locale.timeZone;
  const today = dayInZone(now, tz);
  const day = (d: string) => formatDate(d, locale);
  if (!input.from) return { problem: 'Choose the first day to read from.' };
  if (input.from > today) return { problem: `The first day cannot be in the future (today is ${day(today)}).` };
  if (input.to && input.to > today) return { problem: `The last day cannot be in the future (today is ${day(today)}).` };
  if (input.to && input.from > input.to) return { problem: `The first day (${day(input.from)}) must not be after the last day (${day(input.to)}).` };
  if (input.dataTypes.length === 0) return { problem: 'Choose at least one kind of data to read.' };
  const from = startOfDayInZone(input.from, tz);
  const to = !input.to || input.to === today ? now : startOfDayInZone(addDays(input.to, 1), tz);
  const days = Math.ceil((to.getTime() - from.getTime()) / DAY_MS);
  if (days > MAX_DAYS)
    return { problem: `A backfill reads at most ${MAX_DAYS} days; this range is ${days} days. Choose a later first day, or run it in two parts.` };
  return { from, to };
}

function BackfillForm(props: { onStarted(): void }) {
  const { workspace, locale } = useApp();
  const [source, setSource] = useState<Provider>('google');
  const [from, setFrom] = useState(() => addDays(dayInZone(new Date(), locale.timeZone), -90));
  const [to, setTo] = useState('');
  const [types, setTypes] = useState<readonly string[]>(DATA_TYPES.google);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const start = useAction(({ api }, w: { from: Date; to: Date }) =>
    unwrap(
      api.POST('/api/ingest/backfill', {
        params: { query: { workspaceId: workspace } },
        body: { source, fromDate: w.from.toISOString(), toDate: w.to.toISOString(), dataTypes: [...types] },
      }),
    ),
  );
  const all = DATA_TYPES[source];
  return (
    <form
      class="backfill"
      aria-label="Start a backfill"
      noValidate
      onSubmit={async (e) => {
        e.preventDefault();
        setMessage(undefined);
        start.clearError();
        const w = backfillWindow({ from, to, dataTypes: types }, locale, new Date());
        if ('problem' in w) {
          setProblem(w.problem);
          return;
        }
        setProblem(undefined);
        const r = await start.run(w);
        if (r) {
          const items = r.estimatedItems === null ? 'an unknown number of items' : `about ${r.estimatedItems} items`;
          const took = r.estimatedDuration === 'unknown' ? '' : `, ${r.estimatedDuration}`;
          setMessage(
            `Backfill of ${NAMES[source]} queued: ${formatDateTime(r.dateRange.from, locale)} to ${formatDateTime(r.dateRange.to, locale)}, ${items}${took}.`,
          );
          props.onStarted();
        }
      }}
    >
      <p class="muted small">
        Reads a past window again from the provider (at most {MAX_DAYS} days; the days are in the workspace’s time zone, {locale.timeZone}). Mail already stored
        is not doubled.
      </p>
      <div class="row wrap fields">
        <label>
          Source
          <select
            name="source"
            value={source}
            onChange={(e) => {
              const p = e.currentTarget.value as Provider;
              setSource(p);
              setTypes(DATA_TYPES[p]);
            }}
          >
            {PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {NAMES[p]}
              </option>
            ))}
          </select>
        </label>
        <label>
          First day
          <input
            name="fromDate"
            type="date"
            value={from}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? 'backfill-problem' : undefined}
            onInput={(e) => setFrom(e.currentTarget.value)}
          />
        </label>
        <label>
          Last day (empty: up to now)
          <input
            name="toDate"
            type="date"
            value={to}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? 'backfill-problem' : undefined}
            onInput={(e) => setTo(e.currentTarget.value)}
          />
        </label>
      </div>
      {all.length > 1 && (
        <fieldset class="types">
          <legend>Data to read</legend>
          {all.map((t) => (
            <label key={t} class="check">
              <input
                type="checkbox"
                name="dataTypes"
                value={t}
                checked={types.includes(t)}
                onChange={(e) => setTypes(e.currentTarget.checked ? all.filter((x) => x === t || types.includes(x)) : types.filter((x) => x !== t))}
              />{' '}
              {t}
            </label>
          ))}
        </fieldset>
      )}
      <div class="row">
        <button type="submit" disabled={start.busy}>
          {start.busy ? 'Starting…' : 'Start backfill'}
        </button>
      </div>
      {problem && (
        <p class="error" role="alert" id="backfill-problem">
          {problem}
        </p>
      )}
      {message && (
        <p class="ok" role="status">
          {message}
        </p>
      )}
      <ErrorText error={start.error} />
    </form>
  );
}

/** A source's name in words: Gmail for google; a key the screen does not know as it is. */
const sourceName = (key: string): string => (key in NAMES ? NAMES[key as Provider] : key);

/** The sum of the counts, when every one is known. */
function sumIfAll(counts: readonly (number | undefined)[]): number | undefined {
  if (counts.length === 0 || counts.some((n) => n === undefined)) return undefined;
  return counts.reduce<number>((a, n) => a + (n ?? 0), 0);
}

/** "1,240 read · 1,000 stored · of about 3,000", or "… · total not known yet" while it runs (as separate parts). */
function countParts(read: number | undefined, stored: number, total: number | undefined, l: Locale, live = true): string[] {
  return [
    ...(read === undefined ? [] : [`${formatCount(read, l)} read`]),
    `${formatCount(stored, l)} stored`,
    ...(total !== undefined ? [`of about ${formatCount(total, l)}`] : live ? ['total not known yet'] : []),
  ];
}

/** "done about 14:32 (in about 40 s)". */
const etaPart = (iso: string, l: Locale, now: Date): string => `done about ${formatTime(iso, l, now)} (${formatRelative(iso, now)})`;

/** One source of the job: live counts, speed, phase and end while it runs; what it stored once it has ended. */
function sourceLine(key: string, src: SourceView, l: Locale, now: Date): string {
  if (!IN_PROGRESS.includes(src.status)) {
    const stored = formatCount(src.itemsProcessed, l);
    const total = src.totalItems === undefined ? '' : ` of ${src.totalItems === src.itemsProcessed ? '' : 'about '}${formatCount(src.totalItems, l)}`;
    const read = src.itemsRead !== undefined && src.itemsRead !== src.itemsProcessed ? `, ${formatCount(src.itemsRead, l)} read` : '';
    return `${key}: ${src.status}, ${stored}${total} items stored${read}`;
  }
  const rebuilding = src.phase === 'rebuilding';
  const parts = [
    ...(rebuilding ? ['rebuilding client health'] : []),
    ...countParts(src.itemsRead, src.itemsProcessed, src.totalItems, l),
    ...(src.rate !== undefined && !rebuilding ? [formatRate(src.rate, l)] : []),
    ...(src.estimatedCompletion ? [etaPart(src.estimatedCompletion, l, now)] : []),
  ];
  return `${key}: ${src.status}, ${parts.join(' · ')}`;
}

/** "Waiting on Gmail's quota (daily limit reached) until 14:35." A live region: its words change only with the wait. */
function WaitingLine(props: { who: string; waiting: Waiting; locale: Locale; now: Date }) {
  const w = props.waiting;
  return (
    <p class="notice" role="status">
      Waiting on {props.who} quota ({w.reason}){w.until ? ` until ${formatTime(w.until, props.locale, props.now)}` : ''}.
    </p>
  );
}

function CurrentJob(props: { job: Job; onChanged(): void }) {
  const { workspace, locale } = useApp();
  const job = props.job;
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const cancel = useAction(({ api }) =>
    unwrap(api.POST('/api/ingest/jobs/{jobId}/cancel', { params: { path: { jobId: job.jobId }, query: { workspaceId: workspace } } })),
  );
  const inProgress = IN_PROGRESS.includes(job.status);
  // Re-rendered with each poll: "in about 40 s" counts down with it.
  const now = new Date();
  const sources = Object.entries(job.sources);
  const views = sources.map(([, s]) => s);
  const read = job.itemsRead ?? sumIfAll(views.map((s) => s.itemsRead));
  const stored = job.itemsProcessed ?? views.reduce((a, s) => a + s.itemsProcessed, 0);
  const total = job.totalItems ?? sumIfAll(views.map((s) => s.totalItems));
  const active = views.filter((s) => IN_PROGRESS.includes(s.status));
  const rebuilding = inProgress && active.some((s) => s.phase === 'rebuilding');
  const reading = inProgress && (active.length === 0 || active.some((s) => s.phase !== 'rebuilding'));
  const rate = job.rate ?? sumIfAll(active.map((s) => s.rate));
  // No total anywhere yet: the bar moves without a value rather than sitting at 0 %.
  const indeterminate = inProgress && job.totalItems === undefined && views.every((s) => s.totalItems === undefined);
  const summary = [
    ...countParts(read, stored, total, locale, inProgress),
    ...(rebuilding ? ['rebuilding client health'] : []),
    ...(reading && rate !== undefined ? [formatRate(rate, locale)] : []),
    ...(inProgress && job.estimatedCompletion ? [etaPart(job.estimatedCompletion, locale, now)] : []),
  ];
  const waits = inProgress ? sources.filter(([, s]) => s.waiting).map(([k, s]) => ({ who: `${sourceName(k)}'s`, waiting: s.waiting! })) : [];
  if (inProgress && waits.length === 0 && job.waiting)
    waits.push({ who: sources.length === 1 ? `${sourceName(sources[0]![0])}'s` : "the provider's", waiting: job.waiting });
  return (
    <div data-testid="current-job">
      <p>
        Job <code>{job.jobId}</code>: <strong data-testid="job-status">{job.status}</strong>, started {formatDateTime(job.startedAt, locale)}
      </p>
      {waits.map((w) => (
        <WaitingLine key={w.who} who={w.who} waiting={w.waiting} locale={locale} now={now} />
      ))}
      {/* Keyed: going from one kind to the other makes a new element (no value attribute left behind). */}
      {indeterminate ? (
        <progress key="indeterminate" max={100} aria-label="Job progress" />
      ) : (
        <progress key="determinate" max={100} value={job.progress} aria-label="Job progress">
          {job.progress}%
        </progress>
      )}
      <p data-testid="job-summary">{summary.join(' · ')}</p>
      <ul class="list" aria-label="Sources of the job">
        {sources.map(([name, src]) => (
          <li key={name}>{sourceLine(name, src, locale, now)}</li>
        ))}
      </ul>
      {inProgress && (
        <p class="muted small">
          Read counts move every second or so while the job reads from the provider; stored counts move with each stored batch. The page checks the job every{' '}
          {POLL_MS / 1000} s.
        </p>
      )}
      {inProgress && !confirming && (
        <button type="button" class="secondary" onClick={() => (setMessage(undefined), setConfirming(true))}>
          Cancel job
        </button>
      )}
      {inProgress && confirming && (
        <div class="row wrap confirm" role="group" aria-label="Confirm cancelling the job">
          <span>Stop this job? What it has stored so far stays.</span>
          <button
            type="button"
            class="danger"
            disabled={cancel.busy}
            onClick={async () => {
              const r = await cancel.run();
              setConfirming(false);
              if (r) {
                setMessage(`Job ${job.jobId} cancelled.`);
                props.onChanged();
              }
            }}
          >
            Yes, cancel the job
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Keep it running
          </button>
        </div>
      )}
      {message && (
        <p class="ok" role="status">
          {message}
        </p>
      )}
      <ErrorText error={cancel.error} />
    </div>
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

  const running = !!status.data?.currentJob && IN_PROGRESS.includes(status.data.currentJob.status);
  // Live progress: poll while a job runs (every second for the first seconds of a job started
  // here, even before it shows; a failed read is tried again); the history is re-read when it ends.
  const fastUntil = useRef(0);
  const started = () => {
    fastUntil.current = Date.now() + FAST_FOR_MS;
    status.reload();
  };
  useEffect(() => {
    const fast = Date.now() < fastUntil.current;
    if (!running && !fast) return;
    const t = setTimeout(status.reload, fast ? FAST_POLL_MS : POLL_MS);
    return () => clearTimeout(t);
  }, [running, status.data, status.error]);
  const [wasRunning, setWasRunning] = useState(false);
  const [jobsEnded, setJobsEnded] = useState(0);
  useEffect(() => {
    if (running) setWasRunning(true);
    else if (wasRunning) {
      setWasRunning(false);
      setJobsEnded((n) => n + 1);
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
          <Integration key={p} provider={p} jobsEnded={jobsEnded} onStarted={started} />
        ))}
      </div>
      <div class="grid2">
        <Card title="Start a backfill">
          <BackfillForm onStarted={started} />
        </Card>
        <Card title="Latest job">
          <ErrorText error={status.error} retry={status.reload} />
          {status.loading && !status.data && <Loading />}
          {status.data && !job && <Empty>No job has run yet.</Empty>}
          {job && (
            <CurrentJob
              key={job.jobId}
              job={job}
              onChanged={() => {
                status.reload();
                history.reload();
              }}
            />
          )}
        </Card>
      </div>
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
