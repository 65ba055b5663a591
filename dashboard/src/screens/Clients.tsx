/** Every client in a sortable, filterable table. */
import { useMemo, useState } from 'preact/hooks';
import { unwrap, type Answer } from '../lib/api.js';
import { useApp, useQuery } from '../lib/context.js';
import { formatDate, formatDateTime, formatMoney } from '../lib/format.js';
import { Empty, ErrorText, Link, Loading, Score, TableWrap, TrendArrow } from '../components/ui.js';

type ClientRow = Answer<'/api/clients'>[number] & { change: number | null };
type SortKey = 'name' | 'domain' | 'sentimentScore' | 'change' | 'mrr' | 'renewalDate' | 'csmOwner' | 'lastInteraction' | 'isExcluded';

const COLUMNS: { key: SortKey; label: string; num?: boolean }[] = [
  { key: 'name', label: 'Name' },
  { key: 'domain', label: 'Domain' },
  { key: 'sentimentScore', label: 'Health', num: true },
  { key: 'change', label: 'Trend (7 d)', num: true },
  { key: 'mrr', label: 'MRR', num: true },
  { key: 'renewalDate', label: 'Renewal' },
  { key: 'csmOwner', label: 'CSM' },
  { key: 'lastInteraction', label: 'Last interaction' },
  { key: 'isExcluded', label: 'Excluded' },
];

function compare(a: ClientRow, b: ClientRow, key: SortKey): number {
  const x = a[key];
  const y = b[key];
  // Empty values sort last whatever the direction is.
  if (x === null || x === undefined) return y === null || y === undefined ? 0 : 1;
  if (y === null || y === undefined) return -1;
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  if (typeof x === 'boolean' && typeof y === 'boolean') return Number(x) - Number(y);
  return String(x).localeCompare(String(y));
}

export function Clients() {
  const { workspace, locale, settings } = useApp();
  const threshold = settings.workspace.riskThreshold;
  const clients = useQuery(({ api }) => unwrap(api.GET('/api/clients', { params: { query: { workspaceId: workspace } } })), [workspace]);
  // Each client's move over 7 days (every move of at least 0.1 point), for the trend arrow.
  const deltas = useQuery(
    ({ api }) => unwrap(api.GET('/api/metrics/deltas', { params: { query: { workspaceId: workspace, windowDays: 7, minDelta: 0.1 } } })),
    [workspace],
  );
  const [sort, setSort] = useState<{ key: SortKey; dir: 1 | -1 }>({ key: 'sentimentScore', dir: 1 });
  const [text, setText] = useState('');
  const [atRiskOnly, setAtRiskOnly] = useState(false);
  const [showExcluded, setShowExcluded] = useState(true);
  const [csm, setCsm] = useState('');

  const changeOf = useMemo(() => {
    const m = new Map<string, number>();
    for (const g of deltas.data ?? []) for (const c of g.clients) m.set(c.id, c.delta);
    return m;
  }, [deltas.data]);
  const csms = useMemo(() => [...new Set((clients.data ?? []).map((c) => c.csmOwner).filter((x): x is string => !!x))].sort(), [clients.data]);

  const rows = useMemo(() => {
    const needle = text.trim().toLowerCase();
    const list: ClientRow[] = (clients.data ?? []).map((c) => ({ ...c, change: changeOf.get(c.id) ?? (deltas.data ? 0 : null) }));
    return list
      .filter((c) => !needle || c.name.toLowerCase().includes(needle) || c.domain.includes(needle) || (c.csmOwner ?? '').toLowerCase().includes(needle))
      .filter((c) => !atRiskOnly || (!c.isExcluded && c.sentimentScore < threshold))
      .filter((c) => showExcluded || !c.isExcluded)
      .filter((c) => !csm || c.csmOwner === csm)
      .sort((a, b) => compare(a, b, sort.key) * sort.dir || a.name.localeCompare(b.name));
  }, [clients.data, changeOf, deltas.data, text, atRiskOnly, showExcluded, csm, sort, threshold]);

  return (
    <main id="main" class="screen">
      <div class="screen-head">
        <h1>Clients</h1>
        <form class="controls" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
          <label>
            Search
            <input type="search" placeholder="Name, domain or CSM" value={text} onInput={(e) => setText(e.currentTarget.value)} />
          </label>
          <label>
            CSM
            <select value={csm} onChange={(e) => setCsm(e.currentTarget.value)}>
              <option value="">Everyone</option>
              {csms.map((c) => (
                <option value={c}>{c}</option>
              ))}
            </select>
          </label>
          <label class="check">
            <input type="checkbox" checked={atRiskOnly} onChange={(e) => setAtRiskOnly(e.currentTarget.checked)} /> At risk only
          </label>
          <label class="check">
            <input type="checkbox" checked={showExcluded} onChange={(e) => setShowExcluded(e.currentTarget.checked)} /> Show excluded
          </label>
        </form>
      </div>
      <p class="muted">
        <Link href="/clients/suggested">Suggested clients</Link>: domains your mail names that are not scored yet, to accept or ignore.
      </p>
      <ErrorText error={clients.error} retry={clients.reload} />
      <ErrorText error={deltas.error} retry={deltas.reload} />
      {clients.loading && !clients.data && <Loading what="the clients" />}
      {clients.data && clients.data.length === 0 && <Empty>No clients yet: ingest some mail first.</Empty>}
      {clients.data && clients.data.length > 0 && (
        <>
          <p class="muted" aria-live="polite">
            {rows.length} of {clients.data.length} clients
          </p>
          <TableWrap label="Clients">
            <table data-testid="clients-table" class="sortable">
              <thead>
                <tr>
                  {COLUMNS.map((col) => (
                    <th
                      scope="col"
                      class={col.num ? 'num' : undefined}
                      aria-sort={sort.key === col.key ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'}
                    >
                      <button type="button" onClick={() => setSort((s) => ({ key: col.key, dir: s.key === col.key ? (s.dir === 1 ? -1 : 1) : 1 }))}>
                        {col.label}
                        <span aria-hidden="true">{sort.key === col.key ? (sort.dir === 1 ? ' ▲' : ' ▼') : ''}</span>
                      </button>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <tr key={c.id} class={c.isExcluded ? 'excluded' : undefined}>
                    <td>
                      <Link href={`/clients/${encodeURIComponent(c.id)}`}>{c.name}</Link>
                    </td>
                    <td>{c.domain}</td>
                    <td class="num">
                      <Score score={c.sentimentScore} threshold={threshold} />
                    </td>
                    <td class="num">
                      <TrendArrow change={c.change} />
                    </td>
                    <td class="num" data-col="mrr">
                      {formatMoney(c.mrr, locale)}
                    </td>
                    <td>{formatDate(c.renewalDate, locale)}</td>
                    <td>{c.csmOwner ?? '—'}</td>
                    <td>{formatDateTime(c.lastInteraction, locale)}</td>
                    <td>{c.isExcluded ? 'Yes' : 'No'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          {rows.length === 0 && <Empty>No client matches these filters.</Empty>}
        </>
      )}
    </main>
  );
}
