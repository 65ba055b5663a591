/**
 * The e-mail templates: one function per kind for the subject, the plain text and the HTML.
 * Templates are plain template literals; `h` escapes every interpolated value, so client names
 * and e-mail subjects can never inject markup.
 */
import {
  MOVER_MIN_CHANGE,
  type Digest,
  type DigestClientChange,
  type EvidenceItem,
  type RenewalAlert,
  type RiskSignalAlert,
  type ScoreDropAlert,
} from './types.js';

export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

/** Markup that is already safe (built by `h`). */
class Safe {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function toHtml(v: unknown): string {
  if (v instanceof Safe) return v.value;
  if (Array.isArray(v)) return v.map(toHtml).join('');
  if (v === null || v === undefined || v === false) return '';
  if (typeof v === 'string') return escape(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return escape(String(v));
  return escape(JSON.stringify(v) ?? '');
}

/** Tagged template for HTML: interpolations are escaped unless they come from `h` themselves. */
function h(strings: TemplateStringsArray, ...values: unknown[]): Safe {
  let out = strings[0] ?? '';
  values.forEach((v, i) => (out += toHtml(v) + (strings[i + 1] ?? '')));
  return new Safe(out);
}

function money(amount: number | null, currency: string): string {
  if (amount === null) return 'n/a';
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: 0 }).format(amount);
  } catch {
    return `${amount.toFixed(0)} ${currency}`;
  }
}

const score = (x: number) => x.toFixed(1);
const signed = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(1)}`;
const day = (iso: string) => iso.slice(0, 10);

const FOOTER_TEXT = (ws: string) => `\n--\nCustomer Health Service, workspace ${ws}. Change these e-mails in the workspace's notification settings.\n`;
const layout = (ws: string, title: string, body: Safe) => h`<!doctype html>
<html><body style="font-family: -apple-system, Segoe UI, Helvetica, Arial, sans-serif; color: #1f2933; max-width: 640px">
<h2 style="margin-bottom: 4px">${title}</h2>
${body}
<p style="color: #7b8794; font-size: 12px; margin-top: 24px">Customer Health Service, workspace ${ws}. Change these e-mails in the workspace's notification settings.</p>
</body></html>`;

function evidenceText(items: EvidenceItem[]): string {
  if (items.length === 0) return '  (no interaction stands out)\n';
  return items.map((e) => `  - ${day(e.occurredAt)} "${e.subject || '(no subject)'}" from ${e.from} (sentiment ${e.sentiment.toFixed(2)})\n`).join('');
}
const evidenceHtml = (items: EvidenceItem[]) =>
  items.length === 0
    ? h`<p><em>No interaction stands out.</em></p>`
    : h`<ul>${items.map((e) => h`<li>${day(e.occurredAt)} “${e.subject || '(no subject)'}” from ${e.from} (sentiment ${e.sentiment.toFixed(2)})</li>`)}</ul>`;

export function renderScoreDrop(a: ScoreDropAlert, ctx: { workspaceId: string; currency: string }): Rendered {
  const t = a.trigger;
  const against = (c: ScoreDropAlert['comparisons'][number]) =>
    `${c.days === 1 ? 'a day' : 'a week'} earlier (${c.date}): ${score(c.score)}, ${c.dropPct >= 0 ? 'down' : 'up'} ${Math.abs(c.dropPct).toFixed(1)}%`;
  const subject = `Score drop: ${a.clientName} fell ${t.dropPct.toFixed(1)}% to ${score(a.score)}`;
  const text =
    `${a.clientName} (${a.domain}) scored ${score(a.score)} on ${a.date}, ` +
    `${t.dropPoints.toFixed(1)} points (${t.dropPct.toFixed(1)}%) below ${t.days === 1 ? 'the day before' : 'a week before'}.\n\n` +
    `Compared with:\n${a.comparisons.map((c) => `  - ${against(c)}\n`).join('')}\n` +
    `Why: ${a.reasonText}\n\n` +
    `Evidence:\n${evidenceText(a.evidence)}\n` +
    `MRR: ${money(a.mrr, ctx.currency)}${a.csmOwner ? `   CSM: ${a.csmOwner}` : ''}\n` +
    `Client id: ${a.clientId}  (GET /api/clients/${a.clientId}?workspaceId=${ctx.workspaceId})\n` +
    FOOTER_TEXT(ctx.workspaceId);
  const html = layout(
    ctx.workspaceId,
    subject,
    h`
<p><strong>${a.clientName}</strong> (${a.domain}) scored <strong>${score(a.score)}</strong> on ${a.date},
${t.dropPoints.toFixed(1)} points (${t.dropPct.toFixed(1)}%) below ${t.days === 1 ? 'the day before' : 'a week before'}.</p>
<ul>${a.comparisons.map((c) => h`<li>${against(c)}</li>`)}</ul>
<p><strong>Why:</strong> ${a.reasonText}</p>
<p><strong>Evidence</strong></p>
${evidenceHtml(a.evidence)}
<p>MRR: ${money(a.mrr, ctx.currency)}${a.csmOwner ? h` · CSM: ${a.csmOwner}` : ''}<br>
Client id: <code>${a.clientId}</code></p>`,
  );
  return { subject, text, html: html.value };
}

const SIGNAL_TITLE: Record<RiskSignalAlert['signal'], string> = {
  churn_intent: 'says they may leave',
  escalation: 'is escalating',
};

export function renderRiskSignal(a: RiskSignalAlert, ctx: { workspaceId: string; currency: string }): Rendered {
  const subject = `Churn risk: ${a.clientName} ${SIGNAL_TITLE[a.signal]} (score ${score(a.score)})`;
  const what = a.text.charAt(0).toUpperCase() + a.text.slice(1);
  const text =
    `${a.clientName} (${a.domain}) ${SIGNAL_TITLE[a.signal]}: ${a.text}.

` +
    `Score on ${a.date}: ${score(a.score)}.

` +
    `The messages:\n${evidenceText(a.evidence)}\n` +
    `MRR: ${money(a.mrr, ctx.currency)}${a.csmOwner ? `   CSM: ${a.csmOwner}` : ''}\n` +
    `Client id: ${a.clientId}  (GET /api/clients/${a.clientId}?workspaceId=${ctx.workspaceId})\n` +
    FOOTER_TEXT(ctx.workspaceId);
  const html = layout(
    ctx.workspaceId,
    subject,
    h`
<p><strong>${a.clientName}</strong> (${a.domain}) ${SIGNAL_TITLE[a.signal]}.</p>
<p><strong>${what}.</strong> Score on ${a.date}: ${score(a.score)}.</p>
<p><strong>The messages</strong></p>
${evidenceHtml(a.evidence)}
<p>MRR: ${money(a.mrr, ctx.currency)}${a.csmOwner ? h` · CSM: ${a.csmOwner}` : ''}<br>
Client id: <code>${a.clientId}</code></p>`,
  );
  return { subject, text, html: html.value };
}

export function renderRenewal(a: RenewalAlert, ctx: { workspaceId: string; currency: string }): Rendered {
  const when = a.daysUntil === 0 ? 'today' : a.daysUntil === 1 ? 'tomorrow' : `in ${a.daysUntil} days`;
  const subject = `Renewal ${when}: ${a.clientName} on ${a.renewalDate}${a.atRisk ? ' (at risk)' : ''}`;
  const status = a.atRisk ? `AT RISK: score ${score(a.score)} is below the threshold ${a.threshold}.` : `Score ${score(a.score)} (threshold ${a.threshold}).`;
  const text =
    `${a.clientName} (${a.domain}) renews on ${a.renewalDate}, ${when}.\n\n` +
    `MRR: ${money(a.mrr, ctx.currency)}\n${status}\n` +
    (a.reason ? `Why: ${a.reason.text}\n` : '') +
    (a.csmOwner ? `CSM: ${a.csmOwner}\n` : '') +
    `Client id: ${a.clientId}  (GET /api/clients/${a.clientId}?workspaceId=${ctx.workspaceId})\n` +
    FOOTER_TEXT(ctx.workspaceId);
  const html = layout(
    ctx.workspaceId,
    subject,
    h`
<p><strong>${a.clientName}</strong> (${a.domain}) renews on <strong>${a.renewalDate}</strong>, ${when}.</p>
<p>MRR: ${money(a.mrr, ctx.currency)}<br>
${a.atRisk ? h`<strong style="color: #c92a2a">${status}</strong>` : status}</p>
${a.reason ? h`<p><strong>Why:</strong> ${a.reason.text}</p>` : ''}
<p>${a.csmOwner ? h`CSM: ${a.csmOwner}<br>` : ''}Client id: <code>${a.clientId}</code></p>`,
  );
  return { subject, text, html: html.value };
}

const more = (shown: number, total: number) => (total > shown ? `  … and ${total - shown} more\n` : '');
const moreHtml = (shown: number, total: number) => (total > shown ? h`<p>… and ${total - shown} more</p>` : '');

function changeLine(c: DigestClientChange, currency: string): string {
  const move = c.from === null ? `now ${score(c.to)}` : `${score(c.from)} → ${score(c.to)} (${signed(c.delta ?? 0)})`;
  return `${c.name}: ${move}, MRR ${money(c.mrr, currency)}. ${c.reasonText}`;
}

export function renderDigest(d: Digest, ctx: { workspaceId: string; workspaceName: string }): Rendered {
  const cur = d.currency;
  const title = d.kind === 'daily' ? 'Daily digest' : 'Weekly digest';
  const days = d.fromDay === d.toDay ? d.toDay : `${d.fromDay} to ${d.toDay}`;
  const subject = `${title} for ${ctx.workspaceName} (${d.period}): ${d.newRisksTotal} new at risk, ${money(d.figures.mrrAtRisk, cur)} MRR at risk`;
  const f = d.figures;
  const figuresText =
    `  Clients: ${f.clients}, average score ${score(f.avgScore)} (${signed(f.change7)} over 7 days)\n` +
    `  At risk (score below ${f.threshold}): ${f.atRiskCount} clients, ${money(f.mrrAtRisk, cur)} MRR at risk of ${money(f.mrrTotal, cur)}\n` +
    `  Renewals in the next 30 days: ${f.renewals30d}, worth ${money(f.renewals30dValue, cur)} MRR\n`;
  const section = (heading: string, lines: string[], tail = '') =>
    `${heading}\n${lines.length ? lines.map((l) => `  - ${l}\n`).join('') : '  none\n'}${tail}\n`;
  const renewalLine = (r: Digest['renewals'][number]) =>
    `${r.renewalDate} (${r.daysUntil} d) ${r.name}: MRR ${money(r.mrr, cur)}, score ${score(r.score)}${r.atRisk ? ' AT RISK' : ''}${r.isNew ? ' [new]' : ''}`;
  const jobLine = (j: Digest['failedJobs'][number]) => `${j.kind} of ${j.source} failed at ${j.failedAt}${j.error ? `: ${j.error}` : ''} (job ${j.jobId})`;
  const reauthLine = (i: Digest['needsReauth'][number]) =>
    `${i.provider}${i.accountEmail ? ` (${i.accountEmail})` : ''} needs to be connected again since ${i.since}${i.lastError ? `: ${i.lastError}` : ''}`;
  const text =
    `${title} for ${ctx.workspaceName}: changes over ${days} (UTC days), figures as of ${d.asOf}.\n\n` +
    `Where things stand\n${figuresText}\n` +
    section(
      'New risks (fell below the threshold)',
      d.newRisks.map((c) => changeLine(c, cur)),
      more(d.newRisks.length, d.newRisksTotal),
    ) +
    section(
      `Biggest movers (moved ${MOVER_MIN_CHANGE} points or more)`,
      d.movers.map((c) => changeLine(c, cur)),
      more(d.movers.length, d.moversTotal),
    ) +
    section(`Renewals in the next ${d.renewalsAheadDays} days`, d.renewals.map(renewalLine), more(d.renewals.length, d.renewalsTotal)) +
    section('Ingestion problems', [...d.failedJobs.map(jobLine), ...d.needsReauth.map(reauthLine)]) +
    FOOTER_TEXT(ctx.workspaceId);

  const list = (items: string[]) => (items.length ? h`<ul>${items.map((i) => h`<li>${i}</li>`)}</ul>` : h`<p><em>None.</em></p>`);
  const html = layout(
    ctx.workspaceId,
    subject,
    h`
<p>Changes over ${days} (UTC days); figures as of ${d.asOf}.</p>
<h3>Where things stand</h3>
<table cellpadding="4" style="border-collapse: collapse">
<tr><td>Clients</td><td>${f.clients}</td></tr>
<tr><td>Average score</td><td>${score(f.avgScore)} (${signed(f.change7)} over 7 days)</td></tr>
<tr><td>At risk (below ${f.threshold})</td><td>${f.atRiskCount}</td></tr>
<tr><td>MRR at risk</td><td><strong>${money(f.mrrAtRisk, cur)}</strong> of ${money(f.mrrTotal, cur)}</td></tr>
<tr><td>Renewals in 30 days</td><td>${f.renewals30d}, worth ${money(f.renewals30dValue, cur)}</td></tr>
</table>
<h3>New risks</h3>
${list(d.newRisks.map((c) => changeLine(c, cur)))}${moreHtml(d.newRisks.length, d.newRisksTotal)}
<h3>Biggest movers</h3>
${list(d.movers.map((c) => changeLine(c, cur)))}${moreHtml(d.movers.length, d.moversTotal)}
<h3>Renewals in the next ${d.renewalsAheadDays} days</h3>
${list(d.renewals.map(renewalLine))}${moreHtml(d.renewals.length, d.renewalsTotal)}
<h3>Ingestion problems</h3>
${list([...d.failedJobs.map(jobLine), ...d.needsReauth.map(reauthLine)])}`,
  );
  return { subject, text, html: html.value };
}
