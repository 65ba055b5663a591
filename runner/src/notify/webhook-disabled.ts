/**
 * The e-mail a workspace's admins get when a delivery disables one of its webhook endpoints (the
 * receiver answered 410, or the endpoint failed for days): which endpoint, why, and how to turn it
 * back on. The endpoint's URL is shown by its origin only: a Slack incoming-webhook URL is itself
 * a secret (its path), and other URLs may carry a token in their path or query.
 */
import {
  effectiveSender,
  getSettings,
  listWorkspaceAdmins,
  silentLogger,
  toError,
  type Db,
  type DisabledReason,
  type Logger,
  type WebhookEndpoint,
} from '@chs/core';
import type { Mailer } from './mailer.js';

export interface WebhookDisabledNoticeOptions {
  db: Db;
  /** The transport, asked for when an e-mail is to go (most runners never send one). */
  mailer: () => Mailer;
  /** Senders allowed beyond each workspace's domains (CHS_EMAIL_FROM_ALLOWLIST). Default none. */
  senderAllowList?: readonly string[];
  /** The dashboard's address (CHS_PUBLIC_URL), for a link to the workspace's settings. Default none. */
  publicUrl?: string | undefined;
  logger?: Logger;
}

/** Why the delivery disabled an endpoint (the `user` reason is not announced: a person did it). */
type AnnouncedReason = Exclude<DisabledReason, 'user'>;

const REASONS: Record<AnnouncedReason, string> = {
  gone: 'the receiver answered 410 Gone, which says the endpoint no longer exists',
  failing: 'every delivery to it has failed for days without one success',
};

/** The URL shown: its origin (scheme, host, port), never its path or query. */
function shownTarget(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname === '/' && !u.search ? u.origin : `${u.origin}/…`;
  } catch {
    return '(an unreadable URL)';
  }
}

function webhookDisabledText(endpoint: WebhookEndpoint, reason: AnnouncedReason, publicUrl?: string): { subject: string; text: string } {
  const what = `${endpoint.kind === 'slack' ? 'Slack' : 'webhook'} endpoint ${endpoint.id}${endpoint.description ? ` (${endpoint.description})` : ''}`;
  const subject = `Webhook endpoint disabled in ${endpoint.workspaceId}: ${endpoint.description ?? endpoint.id}`;
  const text =
    `The Customer Health Service disabled the ${what} of workspace ${endpoint.workspaceId}, which sent events to ${shownTarget(endpoint.url)}.\n\n` +
    `Why: ${REASONS[reason]}${endpoint.failingSince ? ` (failing since ${endpoint.failingSince})` : ''}.\n\n` +
    'No more events are sent to it: deliveries still pending wait, and new events are not queued for it.\n' +
    'Once the receiver works again, check it with a test event (one goes even to a disabled endpoint), then enable it; its pending deliveries then go out:\n\n' +
    `    chs webhooks test ${endpoint.id} --workspace ${endpoint.workspaceId}\n` +
    `    chs webhooks update ${endpoint.id} --workspace ${endpoint.workspaceId} --enable\n\n` +
    `or PATCH /api/settings/webhooks/${endpoint.id}?workspaceId=${endpoint.workspaceId} with {"enabled": true}` +
    `${publicUrl ? `, or the dashboard's Settings at ${publicUrl}/` : ''}.\n` +
    `Its deliveries and their errors: chs webhooks deliveries ${endpoint.id} --workspace ${endpoint.workspaceId}\n`;
  return { subject, text };
}

/**
 * The dispatcher's `onDisabled`: e-mails every admin of the endpoint's workspace (one message,
 * from the workspace's sender when it is allowed, else notifications@<workspace>). A failure to
 * send is logged, never thrown: the endpoint is disabled either way.
 */
export function webhookDisabledNotice(options: WebhookDisabledNoticeOptions): (endpoint: WebhookEndpoint, reason: AnnouncedReason) => Promise<void> {
  const logger = options.logger ?? silentLogger;
  return async (endpoint, reason) => {
    const log = { workspaceId: endpoint.workspaceId, endpointId: endpoint.id, reason };
    logger.warn(log, 'webhook endpoint disabled by its deliveries');
    try {
      const admins = await listWorkspaceAdmins(options.db, endpoint.workspaceId);
      if (admins.length === 0) {
        logger.warn(log, 'webhook endpoint disabled: the workspace has no admin to tell');
        return;
      }
      const settings = await getSettings(options.db, endpoint.workspaceId);
      const { from } = await effectiveSender(options.db, endpoint.workspaceId, settings.notifications.emailFrom, options.senderAllowList ?? []);
      const sent = await options.mailer().send({ from, to: admins.map((a) => a.email), ...webhookDisabledText(endpoint, reason, options.publicUrl) });
      logger.info({ ...log, recipients: admins.length, transport: sent.transport }, 'webhook endpoint disabled: admins told');
    } catch (err) {
      logger.error({ ...log, err: toError(err).message }, 'webhook endpoint disabled: the e-mail to its admins could not be sent');
    }
  };
}
