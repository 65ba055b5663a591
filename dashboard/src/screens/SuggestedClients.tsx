/**
 * Suggested clients: domains our mail names that are not scored clients (co-recipients, people
 * who only copied us, role or mass senders, or a CRM-only policy), with why. Accept makes one a
 * scored client over its whole stored mail; Ignore sets it aside. Both refresh the list.
 */
import { useState } from 'preact/hooks';
import { unwrap } from '../lib/api.js';
import { useAction, useApp, useQuery } from '../lib/context.js';
import { formatDate } from '../lib/format.js';
import { Empty, ErrorText, Link, Loading, TableWrap } from '../components/ui.js';

type Status = 'suggested' | 'ignored';
const LIMIT = 200;

export function SuggestedClients() {
  const { workspace, locale } = useApp();
  const [status, setStatus] = useState<Status>('suggested');
  const [done, setDone] = useState<string | undefined>(undefined);
  const list = useQuery(
    ({ api }) => unwrap(api.GET('/api/clients/suggested', { params: { query: { workspaceId: workspace, status, limit: LIMIT } } })),
    [workspace, status],
  );
  const decide = useAction(async ({ api }, decision: 'accept' | 'ignore', domain: string) => {
    const params = { params: { path: { domain }, query: { workspaceId: workspace } } };
    if (decision === 'accept') {
      const r = await unwrap(api.POST('/api/clients/suggested/{domain}/accept', params));
      return `${r.client.name} (${domain}) is now a client, health ${r.client.sentimentScore.toFixed(1)}.`;
    }
    await unwrap(api.POST('/api/clients/suggested/{domain}/ignore', params));
    return `${domain} is ignored.`;
  });
  const act = async (decision: 'accept' | 'ignore', domain: string) => {
    setDone(undefined);
    const message = await decide.run(decision, domain);
    if (message !== undefined) {
      setDone(message);
      list.reload();
    }
  };
  const rows = list.data?.suggestions ?? [];

  return (
    <main id="main" class="screen">
      <div class="screen-head">
        <h1>Suggested clients</h1>
        <form class="controls" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
          <label class="check">
            <input type="checkbox" checked={status === 'ignored'} onChange={(e) => setStatus(e.currentTarget.checked ? 'ignored' : 'suggested')} /> Show ignored
          </label>
        </form>
      </div>
      <p class="muted">
        Domains your mail names without a real conversation. They are not scored and stay out of every metric until accepted.{' '}
        <Link href="/clients">Back to the clients</Link>
      </p>
      <ErrorText error={list.error} retry={list.reload} />
      <ErrorText error={decide.error} />
      {done && (
        <p role="status" class="notice">
          {done}
        </p>
      )}
      {list.loading && !list.data && <Loading what="the suggestions" />}
      {list.data && rows.length === 0 && <Empty>{status === 'ignored' ? 'No ignored domains.' : 'No suggested clients.'}</Empty>}
      {rows.length > 0 && (
        <>
          {list.data && list.data.total > rows.length && (
            <p class="muted">
              The {rows.length} with the most messages, of {list.data.total}.
            </p>
          )}
          <TableWrap label="Suggested clients">
            <table data-testid="suggested-table">
              <thead>
                <tr>
                  <th scope="col">Domain</th>
                  <th scope="col">Why</th>
                  <th scope="col" class="num">
                    Messages
                  </th>
                  <th scope="col" class="num">
                    People
                  </th>
                  <th scope="col">Last</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((s) => (
                  <tr key={s.clientId}>
                    <td>{s.domain}</td>
                    <td>{s.reasonText}</td>
                    <td class="num">{s.messages}</td>
                    <td class="num">{s.people}</td>
                    <td>{formatDate(s.lastAt, locale)}</td>
                    <td>
                      <button type="button" disabled={decide.busy} aria-label={`Accept ${s.domain}`} onClick={() => void act('accept', s.domain)}>
                        Accept
                      </button>{' '}
                      {s.status === 'suggested' && (
                        <button
                          type="button"
                          class="secondary"
                          disabled={decide.busy}
                          aria-label={`Ignore ${s.domain}`}
                          onClick={() => void act('ignore', s.domain)}
                        >
                          Ignore
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </>
      )}
    </main>
  );
}
