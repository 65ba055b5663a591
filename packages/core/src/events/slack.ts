/**
 * Slack messages for an endpoint of kind `slack` (a Slack incoming webhook): a readable Block Kit
 * message per event, within Slack's limits — at most 50 blocks, a header's text ≤ 150 characters,
 * a section's text ≤ 3,000, a field's ≤ 2,000, at most 10 fields, the fallback `text` ≤ 40,000
 * (docs/events.md#slack). Names and quotes from mail are escaped (&, <, >) so they cannot ping
 * a channel or forge a link.
 */
import type { KnownBlock } from '@slack/types';
import type { AnyEngineEvent } from './catalogue.js';

export const SLACK_LIMITS = Object.freeze({ blocks: 50, headerText: 150, sectionText: 3000, fieldText: 2000, fields: 10, text: 40_000, buttonText: 75 });

export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}

export interface SlackFormatOptions {
  /** The dashboard's address, for a link to the client's page (CHS_PUBLIC_URL). */
  publicUrl?: string;
  /** ISO 4217 code of the workspace's currency. Default USD. */
  currency?: string;
}

function escape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** At most `max` characters, ending in `…` when cut: never half a surrogate pair, nor half an escape (`&am…`). */
function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  const head = s
    .slice(0, max - 1)
    .replace(/[\uD800-\uDBFF]$/, '')
    .replace(/&[a-z]{0,4}$/, '');
  return `${head}…`;
}

function money(v: number | null, currency: string): string {
  if (v === null) return '—';
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: 0 }).format(v);
  } catch {
    return `${Math.round(v)} ${currency}`;
  }
}

const score = (s: number | null) => (s === null ? '—' : s.toFixed(0));

interface Parts {
  title: string;
  summary: string;
  fields: Array<[string, string]>;
  link?: { text: string; url: string };
  quote?: string;
}

function clientLink(publicUrl: string | undefined, clientId: string): Parts['link'] {
  if (!publicUrl) return undefined;
  return { text: 'Open client', url: `${publicUrl.replace(/\/+$/, '')}/clients/${encodeURIComponent(clientId)}` };
}

function parts(e: AnyEngineEvent, o: SlackFormatOptions): Parts {
  const cur = o.currency ?? 'USD';
  switch (e.type) {
    case 'client.risk_entered':
    case 'client.risk_cleared':
    case 'client.score_changed': {
      const d = e.data;
      const c = d.client;
      const title =
        e.type === 'client.risk_entered'
          ? `🔴 ${c.name} is at risk`
          : e.type === 'client.risk_cleared'
            ? `🟢 ${c.name} is out of risk`
            : `${e.data.delta < 0 ? '📉' : '📈'} ${c.name}: score ${e.data.delta > 0 ? '+' : ''}${e.data.delta.toFixed(0)}`;
      return {
        title,
        summary: d.reasonText,
        fields: [
          ['Score', `${score(d.previousScore)} → ${score(d.score)} (threshold ${d.threshold})`],
          ['MRR', money(c.mrr, cur)],
          ['Renewal', c.renewalDate ?? '—'],
          ['CSM', c.csmOwner ?? '—'],
          ['Domain', c.domain],
        ],
        ...withLink(clientLink(o.publicUrl, c.id)),
      };
    }
    case 'client.churn_intent':
    case 'client.escalation': {
      const d = e.data;
      const c = d.client;
      return {
        title: e.type === 'client.churn_intent' ? `⚠️ ${c.name} says it may leave` : `🔥 ${c.name} is escalating`,
        summary:
          e.type === 'client.churn_intent' ? 'A client wrote that it may cancel or move away.' : 'Chasers, several people writing, or mail left unanswered.',
        quote: d.text,
        fields: [
          ['Score', score(d.score)],
          ['MRR', money(c.mrr, cur)],
          ['Renewal', c.renewalDate ?? '—'],
          ['CSM', c.csmOwner ?? '—'],
          ['Last message', d.lastMessageAt.slice(0, 16).replace('T', ' ') + ' UTC'],
        ],
        ...withLink(clientLink(o.publicUrl, c.id)),
      };
    }
    case 'client.suggested':
      return {
        title: `💡 Suggested client: ${e.data.client.name}`,
        summary: `Mail names ${e.data.client.domain}, which did not qualify as a client (${e.data.discovery}). Accept it in Suggested clients if it is one.`,
        fields: [['Domain', e.data.client.domain]],
        ...withLink(o.publicUrl ? { text: 'Review suggestions', url: `${o.publicUrl.replace(/\/+$/, '')}/clients/suggested` } : undefined),
      };
    case 'job.completed':
    case 'job.failed': {
      const j = e.data.job;
      return {
        title: e.type === 'job.completed' ? `✅ ${j.source} ${j.kind} finished` : `❌ ${j.source} ${j.kind} failed`,
        summary: e.type === 'job.failed' ? e.data.error : `${j.itemsProcessed} items read, ${j.itemsAdded} added.`,
        fields: [
          ['Job', j.id],
          ['Errors', String(j.errorsCount)],
        ],
      };
    }
    case 'integration.needs_reauth':
      return {
        title: `🔌 ${e.data.provider}${e.data.account ? ` (${e.data.account})` : ''} must be connected again`,
        summary: e.data.reason,
        fields: [['Provider', e.data.provider]],
        ...withLink(o.publicUrl ? { text: 'Open Sources', url: `${o.publicUrl.replace(/\/+$/, '')}/sources` } : undefined),
      };
    case 'webhook.test':
      return { title: '👋 Test event from Customer Health Service', summary: e.data.message, fields: [['Endpoint', e.data.endpointId]] };
  }
}

function withLink(link: Parts['link']): Pick<Parts, 'link'> {
  return link ? { link } : {};
}

/** The Slack message for an event. */
export function slackMessage(e: AnyEngineEvent, o: SlackFormatOptions = {}): SlackMessage {
  const p = parts(e, o);
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: cut(escape(p.title), SLACK_LIMITS.headerText), emoji: true } },
    { type: 'section', text: { type: 'mrkdwn', text: cut(escape(p.summary), SLACK_LIMITS.sectionText) } },
  ];
  if (p.quote) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: cut(`> ${escape(p.quote).replace(/\n/g, '\n> ')}`, SLACK_LIMITS.sectionText) } });
  if (p.fields.length)
    blocks.push({
      type: 'section',
      fields: p.fields.slice(0, SLACK_LIMITS.fields).map(([k, v]) => ({ type: 'mrkdwn', text: cut(`*${escape(k)}*\n${escape(v)}`, SLACK_LIMITS.fieldText) })),
    });
  if (p.link)
    blocks.push({
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: cut(p.link.text, SLACK_LIMITS.buttonText) }, url: p.link.url }],
    });
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: cut(escape(`${e.type} · ${e.workspaceId} · ${e.occurredAt}`), SLACK_LIMITS.sectionText) }],
  });
  // The fallback is mrkdwn too (notifications, clients without blocks): escaped like the blocks.
  const text = cut(escape(`${p.title}: ${p.summary}`), SLACK_LIMITS.text);
  return { text, blocks: blocks.slice(0, SLACK_LIMITS.blocks) };
}
