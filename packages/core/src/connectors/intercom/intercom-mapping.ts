/**
 * Intercom objects → engine records, and the sync cursor. Intercom timestamps are epoch seconds.
 */
import { FREE_EMAIL_DOMAINS } from '../../util/free-email-domains.generated.js';
import type { ActivityRecord, CompanyRecord, ContactRecord, Cursor } from '../types.js';
import { htmlToText, normaliseDomain } from '../text.js';

interface IcAuthor {
  type?: string;
  id?: string;
  name?: string | null;
  email?: string | null;
}

export interface IcContact {
  type: 'contact';
  id: string;
  role?: string;
  email?: string | null;
  email_domain?: string | null;
  name?: string | null;
  updated_at: number;
  custom_attributes?: Record<string, unknown>;
  companies?: { data?: Array<{ id: string }> };
}

export interface IcCompany {
  type: 'company';
  id: string;
  name?: string | null;
  website?: string | null;
  monthly_spend?: number | null;
}

export interface IcConversationSummary {
  id: string;
  updated_at: number;
}

export interface IcConversation {
  id: string;
  title?: string | null;
  created_at: number;
  updated_at: number;
  source?: { type?: string; delivered_as?: string; subject?: string | null; body?: string | null; author?: IcAuthor };
  contacts?: { contacts?: Array<{ id: string }> };
  conversation_parts?: { conversation_parts?: Array<{ part_type?: string; body?: string | null; author?: IcAuthor }> };
}

export interface SearchPage<T> {
  total_count?: number;
  pages?: { next?: { starting_after?: string | null } | null };
  data?: T[];
  conversations?: T[];
}

export const IC_STREAMS = ['contacts', 'conversations'] as const;
type IcStream = (typeof IC_STREAMS)[number];

/**
 * Per stream: `since` (epoch s) is the highest `updated_at` read; `seen` the ids read near it
 * with the `updated_at` they had, so the overlapping re-read of the next sync skips them unless
 * they changed again. `current` is the stream being read and its next page.
 */
export interface IntercomCursor {
  v: 1;
  streams: Partial<Record<IcStream, { since: number; seen: Record<string, number> }>>;
  current?: {
    stream: IcStream;
    from: number;
    startingAfter: string;
    high: number;
    seen: Record<string, number>;
    /** Search rows of this window listed before `startingAfter` (absent in cursors written before it was kept). */
    listed?: number;
  };
}

export function parseIntercomCursor(c: Cursor | undefined): IntercomCursor | undefined {
  if (!c || c['v'] !== 1 || typeof c['streams'] !== 'object' || c['streams'] === null) return undefined;
  // Shapes written by this connector only; a foreign cursor is simply not ours.
  return c as unknown as IntercomCursor;
}

const FREE = new Set<string>(FREE_EMAIL_DOMAINS);
const CUSTOMER = new Set(['user', 'lead', 'contact']);

const lc = (s: string | null | undefined) => (s ?? '').trim().toLowerCase();

/** A company's domains: its website's, else the non-free-mail domains of its contacts. */
export function mapCompany(c: IcCompany, contactDomains: Iterable<string>): CompanyRecord {
  const site = normaliseDomain(c.website ?? '');
  const domains = site ? [site] : [...new Set([...contactDomains].map(normaliseDomain).filter((d) => d !== '' && !FREE.has(d)))];
  const out: CompanyRecord = { kind: 'company', providerId: c.id, name: (c.name ?? '').trim(), domains };
  if (typeof c.monthly_spend === 'number' && c.monthly_spend > 0) out.mrr = c.monthly_spend;
  return out;
}

export function mapContact(c: IcContact, company: CompanyRecord | undefined): ContactRecord {
  const out: ContactRecord = {
    kind: 'contact',
    providerId: c.id,
    email: lc(c.email),
    name: (c.name ?? '').trim(),
    title: typeof c.custom_attributes?.['job_title'] === 'string' ? c.custom_attributes['job_title'] : '',
  };
  if (company) {
    out.companyProviderId = company.providerId;
    if (company.domains[0]) out.companyDomain = company.domains[0];
  }
  return out;
}

/** A conversation → support_ticket; the text holds only what the customer wrote. */
export function mapConversation(c: IcConversation): ActivityRecord {
  const customerTexts: string[] = [];
  const emails = new Set<string>();
  const src = c.source;
  if (src?.author && CUSTOMER.has(src.author.type ?? '')) {
    if (src.body) customerTexts.push(htmlToText(src.body));
    if (src.author.email) emails.add(lc(src.author.email));
  }
  for (const p of c.conversation_parts?.conversation_parts ?? []) {
    if (!p.author || !CUSTOMER.has(p.author.type ?? '')) continue;
    if (p.author.email) emails.add(lc(p.author.email));
    // Notes are teammates' private remarks; only customer comments carry the customer's words.
    if (p.body && (p.part_type === 'comment' || p.part_type === 'open')) customerTexts.push(htmlToText(p.body));
  }
  const inbound = src?.delivered_as === 'customer_initiated' || CUSTOMER.has(src?.author?.type ?? '');
  return {
    kind: 'activity',
    providerId: c.id,
    type: 'support_ticket',
    occurredAt: new Date(c.created_at * 1000).toISOString(),
    subject: htmlToText(src?.subject || c.title || ''),
    text: customerTexts.filter(Boolean).join('\n\n'),
    fromEmail: lc(src?.author?.email),
    toEmails: [],
    direction: inbound ? 'inbound' : 'outbound',
    opened: null,
    contactEmails: [...emails].filter(Boolean),
    contactProviderIds: (c.contacts?.contacts ?? []).map((x) => x.id),
    threadId: `intercom:${c.id}`,
  };
}
