/**
 * The webhook dispatcher (docs/events.md#delivery): runs in every runner beside the job worker and
 * delivers what the outbox queued. Any runner of a scaled-out set may claim a due delivery (a
 * lease, SKIP LOCKED on PostgreSQL); each attempt has a time budget; 2xx is success; a redirect,
 * another status or no answer is a failure retried on a growing schedule for about three days
 * (Retry-After honoured); 410 disables the endpoint; an endpoint failing for days is disabled and
 * `onDisabled` is told (the runner e-mails the workspace's admins). At least once: a runner killed
 * mid-attempt leaves a lease that expires, and the event goes again with the same `webhook-id`.
 * No ordering promise.
 */
import { Webhook } from 'standardwebhooks';
import type { Db } from '../store/database.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { newId } from '../util/ids.js';
import { toError } from '../errors.js';
import type { SecretKeyInput } from '../integrations/secrets.js';
import { getSettings } from '../settings/settings.js';
import type { AnyEngineEvent } from './catalogue.js';
import {
  claimDue,
  DEFAULT_RETRY_SCHEDULE_MS,
  releaseClaim,
  settleAttempt,
  type AttemptVerdict,
  type ClaimedDelivery,
  type DeliveryState,
} from './deliveries.js';
import {
  endpointFailed,
  endpointGone,
  endpointSucceeded,
  getEndpoint,
  openTarget,
  type DisabledReason,
  type EndpointKind,
  type WebhookEndpoint,
} from './endpoints.js';
import { createSender, type Sender } from './send.js';
import { slackMessage } from './slack.js';

export interface DispatcherOptions {
  db: Db;
  /** The key that sealed the endpoints' secrets (or a function giving it, called on first use). */
  secretKey: SecretKeyInput | (() => SecretKeyInput);
  logger?: Logger;
  /** Lease owner name. Default: a new id. */
  owner?: string;
  /** Attempts in flight at once. Default 8. */
  concurrency?: number;
  /** How often to look for due deliveries when idle (ms). Default 1000. */
  pollMs?: number;
  /** Time budget of one attempt (ms). Default 15 000. */
  timeoutMs?: number;
  /** Deliver to loopback and private addresses (CHS_WEBHOOKS_ALLOW_PRIVATE). Default false. */
  allowPrivate?: boolean;
  /** Delay before each retry (ms). Default DEFAULT_RETRY_SCHEDULE_MS (about three days). */
  retryScheduleMs?: readonly number[];
  /** An endpoint failing without a success this long is disabled (ms). Default 5 days. */
  disableAfterMs?: number;
  /** Least time between two messages to one Slack endpoint (ms). Default 1000 (Slack: about one a second). */
  slackIntervalMs?: number;
  /** The dashboard's address, for links in Slack messages. */
  publicUrl?: string;
  /** An endpoint was disabled by a delivery (410, or failing for days). */
  onDisabled?: (endpoint: WebhookEndpoint, reason: Exclude<DisabledReason, 'user'>) => void | Promise<void>;
  /** Every attempt, for metrics. */
  onAttempt?: (a: AttemptReport) => void;
  /** Default: createSender({ allowPrivate }). */
  sender?: Sender;
}

export interface AttemptReport {
  kind: EndpointKind;
  eventType: string;
  /** `delivered`, `retry` (will be tried again) or `failed` (given up). */
  outcome: 'delivered' | 'retry' | 'failed';
  status: number | null;
  durationMs: number;
  /** From the event's recording to this attempt's end (ms). */
  lagMs: number;
}

const DAY_MS = 86_400_000;
const MAX_RETRY_AFTER_MS = DAY_MS;

export class WebhookDispatcher {
  readonly #o: Required<Pick<DispatcherOptions, 'concurrency' | 'pollMs' | 'timeoutMs' | 'retryScheduleMs' | 'disableAfterMs' | 'slackIntervalMs'>> &
    DispatcherOptions;
  readonly #logger: Logger;
  readonly #owner: string;
  readonly #sender: Sender;
  readonly #secrets = new Map<string, string>();
  readonly #inFlight = new Map<string, Promise<unknown>>();
  /** Slack endpoints: when the next message may go. */
  readonly #slackNext = new Map<string, number>();
  readonly #slackBusy = new Set<string>();
  #key: SecretKeyInput | undefined;
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;

  constructor(options: DispatcherOptions) {
    this.#o = {
      concurrency: 8,
      pollMs: 1000,
      timeoutMs: 15_000,
      retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
      disableAfterMs: 5 * DAY_MS,
      slackIntervalMs: 1000,
      ...options,
    };
    this.#logger = options.logger ?? silentLogger;
    this.#owner = options.owner ?? newId('dispatch');
    this.#sender = options.sender ?? createSender({ allowPrivate: options.allowPrivate ?? false });
  }

  get owner(): string {
    return this.#owner;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Looks for due deliveries now (an event was just recorded). */
  nudge(): void {
    this.#wake?.();
  }

  /** Stops claiming and waits up to `graceMs` for attempts in flight; an attempt still running keeps its lease until it expires. */
  async stop(graceMs = this.#o.timeoutMs): Promise<void> {
    this.#running = false;
    this.nudge();
    await this.#loop;
    const pending = Promise.allSettled([...this.#inFlight.values()]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([pending, new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    this.#sender.close();
  }

  /** Delivers every delivery due now, one pass (tests and `chs` commands). Returns how many attempts were made. */
  async drain(now: Date = new Date()): Promise<number> {
    let n = 0;
    for (;;) {
      const claimed = await claimDue(this.#o.db, this.#owner, this.#leaseMs(), this.#o.concurrency, now, this.#slackBlocked());
      if (claimed.length === 0) return n;
      const made = await Promise.all(claimed.map((c) => this.#attempt(c)));
      n += made.filter(Boolean).length;
    }
  }

  #leaseMs(): number {
    return this.#o.timeoutMs + 30_000;
  }

  #slackBlocked(): Set<string> {
    const now = Date.now();
    const blocked = new Set(this.#slackBusy);
    for (const [id, at] of this.#slackNext) if (at > now) blocked.add(id);
    return blocked;
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let claimed: ClaimedDelivery[] = [];
      const room = this.#o.concurrency - this.#inFlight.size;
      if (room > 0) {
        try {
          claimed = await claimDue(this.#o.db, this.#owner, this.#leaseMs(), room, new Date(), this.#slackBlocked());
        } catch (err) {
          this.#logger.error({ err: toError(err).message }, 'webhook dispatcher: could not claim deliveries');
        }
      }
      for (const c of claimed) {
        const p = this.#attempt(c).finally(() => {
          this.#inFlight.delete(c.id);
          this.nudge();
        });
        this.#inFlight.set(c.id, p);
      }
      if (claimed.length > 0 && claimed.length === room) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.#o.pollMs);
        timer.unref();
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.#wake = done;
      });
      this.#wake = undefined;
    }
  }

  #secretKey(): SecretKeyInput {
    const k = this.#o.secretKey;
    this.#key ??= typeof k === 'function' ? k() : k;
    return this.#key;
  }

  /** One attempt of a claimed delivery; false when it was given back untried. */
  async #attempt(c: ClaimedDelivery): Promise<boolean> {
    const db = this.#o.db;
    let slackHeld = false;
    try {
      const now = new Date();
      const event = c.event;
      const target = c.endpoint ? await openTarget(this.#secretKey(), c.endpoint, now, this.#secrets) : null;
      if (!target || !event) {
        await settleAttempt(
          db,
          c,
          this.#owner,
          { at: now.toISOString(), status: null, error: 'the event or its endpoint is no longer stored', durationMs: 0 },
          { kind: 'give_up' },
        );
        return true;
      }
      if (!this.#running && this.#loop) {
        await releaseClaim(db, c.id, this.#owner);
        return false;
      }
      const slack = target.kind === 'slack';
      if (slack) {
        // One message at a time per Slack endpoint: a claim can hold several of its deliveries
        // (its kind is known only now), and those would go at once. The others are given back;
        // claims skip the endpoint while it is busy or waiting (#slackBlocked).
        if (this.#slackBusy.has(target.id)) {
          await releaseClaim(db, c.id, this.#owner);
          return false;
        }
        this.#slackBusy.add(target.id);
        slackHeld = true;
        const wait = (this.#slackNext.get(target.id) ?? 0) - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      const body = slack
        ? JSON.stringify(
            slackMessage(event, {
              ...(this.#o.publicUrl ? { publicUrl: this.#o.publicUrl } : {}),
              currency: (await getSettings(db, event.workspaceId)).currency,
            }),
          )
        : JSON.stringify(event);
      const headers = slack ? {} : signatureHeaders(event, body, target.secrets, new Date());
      const at = new Date();
      const r = await this.#sender.send(target.url, headers, body, this.#o.timeoutMs);
      if (slack) {
        // Slack's 429 (Retry-After) holds for the whole webhook, not only this message.
        const retryAt = Math.min(r.retryAfter?.getTime() ?? 0, Date.now() + MAX_RETRY_AFTER_MS);
        this.#slackNext.set(target.id, Math.max(Date.now() + this.#o.slackIntervalMs, retryAt));
        this.#slackBusy.delete(target.id);
        slackHeld = false;
      }
      const verdict = judge(r.status, r.retryAfter);
      const settled = await settleAttempt(
        db,
        c,
        this.#owner,
        { at: at.toISOString(), status: r.status, error: r.error, durationMs: r.durationMs },
        verdict,
        this.#o.retryScheduleMs,
      );
      if (!settled) {
        this.#logger.warn({ deliveryId: c.id }, 'webhook delivery: lease lost before the attempt was recorded; another runner will send it again');
        return true;
      }
      this.#o.onAttempt?.({
        kind: target.kind,
        eventType: event.type,
        outcome: settled.state === 'succeeded' ? 'delivered' : settled.state === 'pending' ? 'retry' : 'failed',
        status: r.status,
        durationMs: r.durationMs,
        // From the recording (the wall clock), not occurredAt (the data's clock, CHS_NOW when set).
        lagMs: Date.now() - Date.parse(c.createdAt),
      });
      await this.#afterAttempt(target.id, verdict, settled.state, at);
      const log = { deliveryId: c.id, endpointId: target.id, eventId: event.id, type: event.type, status: r.status, attempt: c.attempts + 1, ms: r.durationMs };
      if (settled.state === 'succeeded') this.#logger.debug(log, 'webhook delivered');
      else
        this.#logger.warn(
          { ...log, error: r.error, next: settled.nextAttemptAt },
          settled.state === 'failed' ? 'webhook delivery failed for good' : 'webhook delivery failed; will retry',
        );
      return true;
    } catch (err) {
      // Not given back due at once: a fault that persists (a secret this key cannot open, the
      // database refusing) would be claimed and hit again in a tight loop. The claim keeps its
      // lease, and the delivery is taken up again, by any runner, once the lease has run out.
      this.#logger.error({ deliveryId: c.id, err: toError(err).message }, 'webhook delivery could not be attempted; it stays queued until its lease runs out');
      if (slackHeld) this.#slackBusy.delete(c.endpointId);
      return false;
    }
  }

  async #afterAttempt(endpointId: string, verdict: AttemptVerdict, state: DeliveryState, at: Date): Promise<void> {
    const db = this.#o.db;
    if (state === 'succeeded') return endpointSucceeded(db, endpointId);
    let disabled: Exclude<DisabledReason, 'user'> | null = null;
    if (verdict.kind === 'give_up') {
      if (await endpointGone(db, endpointId)) disabled = 'gone';
    } else if (await endpointFailed(db, endpointId, at, this.#o.disableAfterMs)) disabled = 'failing';
    if (!disabled || !this.#o.onDisabled) return;
    const row = await db.selectFrom('webhook_endpoints').select('workspace_id').where('id', '=', endpointId).executeTakeFirst();
    const ep = row ? await getEndpoint(db, row.workspace_id, endpointId) : null;
    if (ep)
      await Promise.resolve(this.#o.onDisabled(ep, disabled)).catch((err: unknown) =>
        this.#logger.error({ endpointId, err: toError(err).message }, 'could not report a disabled webhook endpoint'),
      );
  }
}

/** 2xx: delivered; 410: give up (the endpoint is gone); anything else: retry, not before Retry-After. */
function judge(status: number | null, retryAfter: Date | undefined): AttemptVerdict {
  if (status !== null && status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 410) return { kind: 'give_up' };
  if (retryAfter) return { kind: 'retry', notBefore: new Date(Math.min(retryAfter.getTime(), Date.now() + MAX_RETRY_AFTER_MS)) };
  return { kind: 'retry' };
}

/** The Standard Webhooks headers: one `v1,` signature per valid secret (two during a rotation's grace). */
export function signatureHeaders(event: Pick<AnyEngineEvent, 'id'>, body: string, secrets: readonly string[], at: Date): Record<string, string> {
  return {
    'webhook-id': event.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(event.id, at, body)).join(' '),
  };
}
