/**
 * Settings → Webhooks: the workspace's endpoints — a signed Standard Webhooks receiver of your own,
 * or a Slack incoming webhook — each with the events it chose and its state in words; add, edit,
 * enable or disable, delete (after a confirmation), send a test event, rotate the signing secret,
 * and each endpoint's deliveries (retried by the server for about three days; any one can be sent
 * again). The `whsec_` secret is shown once, after creation or rotation, and lives in this
 * component's state only.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { done, unwrap, type Answer, type ApiError } from '../lib/api.js';
import { useAction, useApp, useQuery } from '../lib/context.js';
import { formatDateTime, formatRelative } from '../lib/format.js';
import { Empty, ErrorText, Loading, ShownOnce, TableWrap } from '../components/ui.js';

type Webhook = Answer<'/api/settings/webhooks'>['webhooks'][number];
type WebhookDelivery = Answer<'/api/settings/webhooks/{webhookId}/deliveries'>['deliveries'][number];
type Kind = Webhook['kind'];
type DeliveryState = WebhookDelivery['state'];
interface EventTypeInfo {
  type: string;
  description: string;
}
interface EndpointInput {
  url: string;
  kind: Kind;
  events: string[];
  description: string;
}
/** A secret to show once: after the endpoint's creation, or after a rotation. */
interface ShownSecret {
  endpointId: string;
  url: string;
  secret: string;
  after: 'create' | 'rotate';
  previousValidUntil?: string;
}

const KIND_LABEL: Record<Kind, string> = { standard: 'Standard', slack: 'Slack' };
const DISABLED_REASON: Record<NonNullable<Webhook['disabledReason']>, string> = {
  user: 'disabled by you',
  gone: 'the receiver said it is gone (410)',
  failing: 'failing for days',
};
const DELIVERY_STATE: Record<DeliveryState, string> = { pending: 'pending', succeeded: 'delivered', failed: 'failed' };
const PAGE = 20;

/** An attempt's answer: its status, and its error when that says more (the engine's error for a bad status is just `HTTP 500`). */
function answer(status: number | null, error: string | null, attempted: boolean): { status: string; error: string | null } {
  const s = status !== null ? `HTTP ${status}` : attempted ? 'no answer' : '—';
  return { status: s, error: error && error !== s ? error : null };
}

function stateInWords(w: Webhook): string {
  if (w.enabled) return 'Enabled';
  return `Disabled: ${w.disabledReason ? DISABLED_REASON[w.disabledReason] : 'disabled'}`;
}

function SecretNotice(props: { shown: ShownSecret; onDone: () => void }) {
  const { locale } = useApp();
  const box = useRef<HTMLDivElement>(null);
  // Focus moves to the secret, so a keyboard or screen reader user lands on it.
  useEffect(() => box.current?.focus(), []);
  const { shown } = props;
  return (
    <div class="new-key" role="status" data-testid="webhook-secret" tabIndex={-1} ref={box}>
      <p>
        <strong>{shown.after === 'create' ? 'Endpoint added.' : 'Secret rotated.'}</strong> Its signing secret is below: copy it into the receiver now.{' '}
        <strong>You will not see it again.</strong>
      </p>
      {shown.previousValidUntil && (
        <p>
          The previous secret also signs deliveries until {formatDateTime(shown.previousValidUntil, locale)}: switch the receiver to the new one before then.
        </p>
      )}
      <ShownOnce key={shown.secret} value={shown.secret} testId="webhook-secret-value" copyLabel="Copy secret" onDone={props.onDone} />
    </div>
  );
}

/** The add form, and the edit form of an endpoint (which keeps its kind). */
function EndpointForm(props: {
  label: string;
  submit: string;
  eventTypes: EventTypeInfo[] | undefined;
  eventTypesError?: ApiError | undefined;
  initial?: Webhook;
  busy: boolean;
  error: ApiError | undefined;
  onSubmit: (input: EndpointInput) => Promise<boolean>;
  onCancel?: () => void;
}) {
  const init = props.initial;
  const [kind, setKind] = useState<Kind>(init?.kind ?? 'standard');
  const [url, setUrl] = useState(init?.url ?? '');
  const [events, setEvents] = useState<string[]>(init?.events ?? []);
  const [description, setDescription] = useState(init?.description ?? '');
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const name = (id: string) => `${init?.id ?? 'new'}-${id}`;
  return (
    <form
      class="webhook-form"
      aria-label={props.label}
      onSubmit={async (e) => {
        e.preventDefault();
        if (events.length === 0) {
          setProblem('Choose at least one event to send.');
          return;
        }
        setProblem(undefined);
        if (await props.onSubmit({ url: url.trim(), kind, events, description: description.trim() })) {
          if (!init) {
            setUrl('');
            setEvents([]);
            setDescription('');
          }
        }
      }}
    >
      {!init && (
        <fieldset>
          <legend>Kind</legend>
          <label class="check">
            <input type="radio" name={name('kind')} checked={kind === 'standard'} onChange={() => setKind('standard')} /> Standard: signed JSON for your own
            service
          </label>
          <label class="check">
            <input type="radio" name={name('kind')} checked={kind === 'slack'} onChange={() => setKind('slack')} /> Slack: readable messages in a channel
          </label>
        </fieldset>
      )}
      <label>
        {kind === 'slack' ? 'Slack incoming-webhook URL' : 'Endpoint URL'}
        <input
          name="webhookUrl"
          type="url"
          value={url}
          maxLength={2048}
          placeholder={kind === 'slack' ? 'https://hooks.slack.com/services/…' : 'https://example.com/webhooks/chs'}
          onInput={(e) => setUrl(e.currentTarget.value)}
          required
        />
      </label>
      <fieldset class="events-choice">
        <legend>Events to send</legend>
        {props.eventTypes?.map((t) => (
          <label class="check" key={t.type}>
            <input
              type="checkbox"
              checked={events.includes(t.type)}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                setEvents((cur) => (on ? [...cur.filter((x) => x !== t.type), t.type] : cur.filter((x) => x !== t.type)));
              }}
            />{' '}
            <span>
              <code>{t.type}</code> <span class="muted">{t.description}</span>
            </span>
          </label>
        ))}
        {!props.eventTypes && !props.eventTypesError && <Loading what="the event types" />}
        <ErrorText error={props.eventTypesError} />
      </fieldset>
      <label>
        Description (optional)
        <input
          name="webhookDescription"
          value={description}
          maxLength={500}
          placeholder="Who receives it, what for"
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </label>
      <div class="row wrap">
        <button type="submit" disabled={props.busy || !props.eventTypes}>
          {props.submit}
        </button>
        {props.onCancel && (
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <ErrorText error={props.error} />
    </form>
  );
}

function Deliveries(props: { webhook: Webhook; tick: number }) {
  const { locale } = useApp();
  const w = props.webhook;
  const [state, setState] = useState<DeliveryState | ''>('');
  const [offset, setOffset] = useState(0);
  const [note, setNote] = useState<string | undefined>(undefined);
  const list = useQuery(
    ({ api, workspace }) =>
      unwrap(
        api.GET('/api/settings/webhooks/{webhookId}/deliveries', {
          params: { path: { webhookId: w.id }, query: { workspaceId: workspace, limit: PAGE, offset, ...(state ? { state } : {}) } },
        }),
      ),
    [w.id, state, offset, props.tick],
  );
  const redeliver = useAction(({ api, workspace }, deliveryId: string) =>
    unwrap(
      api.POST('/api/settings/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
        params: { path: { webhookId: w.id, deliveryId }, query: { workspaceId: workspace } },
      }),
    ),
  );
  // A delivery due within the minute is about to change: look again in a few seconds.
  const data = list.data;
  useEffect(() => {
    const soon = data?.deliveries.some((d) => d.state === 'pending' && (!d.nextAttemptAt || Date.parse(d.nextAttemptAt) - Date.now() < 60_000));
    if (!soon) return;
    const timer = setTimeout(list.reload, 2000);
    return () => clearTimeout(timer);
  }, [data, list.reload]);

  return (
    <div class="deliveries" id={`deliveries-${w.id}`}>
      <div class="row wrap">
        <label class="inline">
          Deliveries in state
          <select
            value={state}
            onChange={(e) => {
              setState(e.currentTarget.value as DeliveryState | '');
              setOffset(0);
            }}
          >
            <option value="">any</option>
            <option value="pending">pending</option>
            <option value="succeeded">delivered</option>
            <option value="failed">failed</option>
          </select>
        </label>
        <button type="button" class="secondary" onClick={list.reload} disabled={list.loading}>
          Refresh deliveries
        </button>
      </div>
      {note && (
        <p class="ok" role="status">
          {note}
        </p>
      )}
      <ErrorText error={list.error} retry={list.reload} />
      <ErrorText error={redeliver.error} />
      {list.loading && !data && <Loading what="the deliveries" />}
      {data && data.deliveries.length === 0 && <Empty>{state ? `No ${DELIVERY_STATE[state]} deliveries.` : 'No deliveries yet: send a test event.'}</Empty>}
      {data && data.deliveries.length > 0 && (
        <TableWrap label={`Deliveries to ${w.url}`}>
          <table data-testid="webhook-deliveries">
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">State</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Next attempt</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.deliveries.map((d) => {
                const last = answer(d.lastStatus, d.lastError, d.attempts > 0);
                return (
                  <tr key={d.id} data-delivery-id={d.id} data-state={d.state}>
                    <td>{formatDateTime(d.createdAt, locale)}</td>
                    <td>
                      <code>{d.eventType}</code>
                    </td>
                    <td>
                      <span class={`badge ${d.state === 'succeeded' ? 'positive' : d.state === 'failed' ? 'negative' : ''}`}>{DELIVERY_STATE[d.state]}</span>
                    </td>
                    <td>
                      {d.history.length > 0 ? (
                        <details>
                          <summary>{d.attempts}</summary>
                          <ol class="attempts">
                            {d.history.map((a, i) => {
                              const said = answer(a.status, a.error, true);
                              return (
                                <li key={i}>
                                  {formatDateTime(a.at, locale)}: {said.status}
                                  {said.error ? ` — ${said.error}` : ''} ({a.durationMs} ms)
                                </li>
                              );
                            })}
                          </ol>
                        </details>
                      ) : (
                        d.attempts
                      )}
                    </td>
                    <td data-col="last">
                      {last.status}
                      {last.error && <div class="problem-text">{last.error}</div>}
                    </td>
                    <td title={d.state === 'pending' && d.nextAttemptAt ? formatDateTime(d.nextAttemptAt, locale) : undefined}>
                      {d.state === 'pending' ? formatRelative(d.nextAttemptAt) : '—'}
                    </td>
                    <td>
                      <button
                        type="button"
                        class="secondary"
                        disabled={redeliver.busy}
                        onClick={async () => {
                          setNote(undefined);
                          if (await redeliver.run(d.id)) {
                            setNote(
                              w.enabled || d.eventType === 'webhook.test'
                                ? `The ${d.eventType} delivery goes out again within seconds, with the same webhook-id.`
                                : `The ${d.eventType} delivery goes out again, with the same webhook-id, once you enable the endpoint.`,
                            );
                            list.reload();
                          }
                        }}
                      >
                        Redeliver
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableWrap>
      )}
      {data && data.total > PAGE && (
        <div class="pager">
          <button type="button" class="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Newer
          </button>
          <span>
            {offset + 1}–{Math.min(offset + PAGE, data.total)} of {data.total}
          </span>
          <button type="button" class="secondary" disabled={offset + PAGE >= data.total} onClick={() => setOffset(offset + PAGE)}>
            Older
          </button>
        </div>
      )}
    </div>
  );
}

function Endpoint(props: {
  webhook: Webhook;
  eventTypes: EventTypeInfo[] | undefined;
  secret: ShownSecret | undefined;
  showSecret: (s: ShownSecret | undefined) => void;
  changed: () => void;
}) {
  const { locale } = useApp();
  const w = props.webhook;
  const heading = `webhook-${w.id}`;
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [open, setOpen] = useState(false);
  const [tick, setTick] = useState(0);
  const [note, setNote] = useState<string | undefined>(undefined);
  const path = (workspace: string) => ({ path: { webhookId: w.id }, query: { workspaceId: workspace } });

  const update = useAction(({ api, workspace }, body: { url?: string; events?: string[]; description?: string; enabled?: boolean }) =>
    unwrap(api.PATCH('/api/settings/webhooks/{webhookId}', { params: path(workspace), body })),
  );
  const remove = useAction(({ api, workspace }) => done(api.DELETE('/api/settings/webhooks/{webhookId}', { params: path(workspace) })));
  const test = useAction(({ api, workspace }) => unwrap(api.POST('/api/settings/webhooks/{webhookId}/test', { params: path(workspace) })));
  const rotate = useAction(({ api, workspace }) => unwrap(api.POST('/api/settings/webhooks/{webhookId}/rotate-secret', { params: path(workspace) })));
  const busy = update.busy || remove.busy || test.busy || rotate.busy;
  const describe = (type: string) => props.eventTypes?.find((t) => t.type === type)?.description;

  return (
    <li>
      <article class={`webhook ${w.enabled ? '' : 'disabled'}`} aria-labelledby={heading}>
        <h3 id={heading} class="webhook-url">
          {w.url}
        </h3>
        <dl class="facts">
          <dt>Kind</dt>
          <dd>{KIND_LABEL[w.kind]}</dd>
          {w.description && (
            <>
              <dt>Description</dt>
              <dd>{w.description}</dd>
            </>
          )}
          <dt>Events</dt>
          <dd>
            <ul class="event-list" aria-label="Events sent">
              {w.events.map((t) => (
                <li key={t} title={describe(t)}>
                  <code>{t}</code>
                </li>
              ))}
            </ul>
          </dd>
          <dt>State</dt>
          <dd data-testid="webhook-state" class={w.enabled ? (w.failingSince ? 'problem-text' : 'ok') : 'problem-text'}>
            {stateInWords(w)}
            {w.enabled && w.failingSince && `, failing since ${formatDateTime(w.failingSince, locale)} (deliveries are being retried)`}
          </dd>
          <dt>Added</dt>
          <dd>{formatDateTime(w.createdAt, locale)}</dd>
        </dl>
        {props.secret && <SecretNotice key={props.secret.secret} shown={props.secret} onDone={() => props.showSecret(undefined)} />}
        {editing ? (
          <EndpointForm
            label={`Edit ${w.url}`}
            submit="Save endpoint"
            eventTypes={props.eventTypes}
            initial={w}
            busy={update.busy}
            error={update.error}
            onCancel={() => {
              setEditing(false);
              update.clearError();
            }}
            onSubmit={async (input) => {
              const ok = await update.run({ url: input.url, events: input.events, description: input.description });
              if (ok) {
                setEditing(false);
                props.changed();
              }
              return Boolean(ok);
            }}
          />
        ) : (
          <div class="row wrap">
            <button
              type="button"
              class="secondary"
              disabled={busy}
              onClick={async () => {
                setNote(undefined);
                if (await update.run({ enabled: !w.enabled })) props.changed();
              }}
            >
              {w.enabled ? 'Disable' : 'Enable'}
            </button>
            <button
              type="button"
              class="secondary"
              disabled={busy}
              onClick={async () => {
                setNote(undefined);
                const r = await test.run();
                if (r) {
                  setNote(
                    `Test event queued: it goes out within seconds${w.enabled ? '' : ', even to a disabled endpoint (other events wait until you enable it)'}. Its delivery is listed below.`,
                  );
                  setOpen(true);
                  setTick((t) => t + 1);
                }
              }}
            >
              Send test event
            </button>
            {w.kind === 'standard' && (
              <button
                type="button"
                class="secondary"
                disabled={busy}
                onClick={async () => {
                  setNote(undefined);
                  const r = await rotate.run();
                  if (r) {
                    props.showSecret({ endpointId: w.id, url: w.url, secret: r.secret, after: 'rotate', previousValidUntil: r.previousSecretValidUntil });
                    props.changed();
                  }
                }}
              >
                Rotate secret
              </button>
            )}
            <button type="button" class="secondary" onClick={() => setEditing(true)}>
              Edit
            </button>
            <button type="button" class="secondary" aria-expanded={open} aria-controls={`deliveries-${w.id}`} onClick={() => setOpen(!open)}>
              {open ? 'Hide deliveries' : 'Show deliveries'}
            </button>
            {confirming ? (
              <span class="row wrap">
                <span>Delete this endpoint and its delivery history?</span>
                <button
                  type="button"
                  class="danger"
                  disabled={busy}
                  onClick={async () => {
                    if (await remove.run()) {
                      setConfirming(false);
                      props.changed();
                    }
                  }}
                >
                  Delete for good
                </button>
                <button type="button" class="secondary" onClick={() => setConfirming(false)}>
                  Keep it
                </button>
              </span>
            ) : (
              <button type="button" class="secondary" disabled={busy} onClick={() => setConfirming(true)}>
                Delete
              </button>
            )}
          </div>
        )}
        {note && (
          <p class="ok" role="status">
            {note}
          </p>
        )}
        <ErrorText error={update.error && !editing ? update.error : (remove.error ?? test.error ?? rotate.error)} />
        {open && <Deliveries webhook={w} tick={tick} />}
      </article>
    </li>
  );
}

export function Webhooks() {
  const { workspace } = useApp();
  const list = useQuery(({ api }) => unwrap(api.GET('/api/settings/webhooks', { params: { query: { workspaceId: workspace } } })), [workspace]);
  const types = useQuery(({ api }) => unwrap(api.GET('/api/settings/webhooks/event-types', { params: { query: { workspaceId: workspace } } })), [workspace]);
  const eventTypes = types.data?.eventTypes.map((t) => ({ type: t.type, description: t.description }));
  const [secret, setSecret] = useState<ShownSecret | undefined>(undefined);
  const [added, setAdded] = useState<string | undefined>(undefined);
  const create = useAction(({ api }, input: EndpointInput) =>
    unwrap(
      api.POST('/api/settings/webhooks', {
        params: { query: { workspaceId: workspace } },
        body: { url: input.url, events: input.events, kind: input.kind, ...(input.description ? { description: input.description } : {}) },
      }),
    ),
  );
  const webhooks = list.data?.webhooks;

  return (
    <>
      <p class="muted">
        Tell your own services, or a Slack channel, when a client turns red, says it may leave, or a sync fails. Each endpoint chooses its events; a delivery
        that fails is retried for about three days.
      </p>
      <ErrorText error={list.error} retry={list.reload} />
      {list.loading && !webhooks && <Loading what="the webhook endpoints" />}
      {webhooks && webhooks.length === 0 && <Empty>No webhook endpoints yet.</Empty>}
      {webhooks && webhooks.length > 0 && (
        <ul class="webhooks" aria-label="Webhook endpoints">
          {webhooks.map((w) => (
            <Endpoint
              key={w.id}
              webhook={w}
              eventTypes={eventTypes}
              secret={secret?.after === 'rotate' && secret.endpointId === w.id ? secret : undefined}
              showSecret={setSecret}
              changed={list.reload}
            />
          ))}
        </ul>
      )}
      <h3>Add an endpoint</h3>
      <EndpointForm
        label="Add a webhook endpoint"
        submit="Add endpoint"
        eventTypes={eventTypes}
        eventTypesError={types.error}
        busy={create.busy}
        error={create.error}
        onSubmit={async (input) => {
          setAdded(undefined);
          const r = await create.run(input);
          if (!r) return false;
          const w = r.webhook;
          // Slack does not check signatures: its URL is the secret, so there is nothing to copy.
          if (w.kind === 'standard') setSecret({ endpointId: w.id, url: w.url, secret: w.secret, after: 'create' });
          else setAdded(`Slack endpoint added. Send it a test event to see the message in the channel.`);
          list.reload();
          return true;
        }}
      />
      {secret?.after === 'create' && <SecretNotice key={secret.secret} shown={secret} onDone={() => setSecret(undefined)} />}
      {added && (
        <p class="ok" role="status">
          {added}
        </p>
      )}
    </>
  );
}
