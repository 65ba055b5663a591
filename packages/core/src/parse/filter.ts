import type { ParsedMessage } from '../interfaces.js';

/** Why a message is not a conversation; counted per reason in the ingestion summary. */
export type FilterReason = 'bulk' | 'list' | 'auto_reply' | 'bounce' | 'no_reply' | 'blocklist';

export const FILTER_REASONS: readonly FilterReason[] = ['bulk', 'list', 'auto_reply', 'bounce', 'no_reply', 'blocklist'];

/** Per-workspace filter settings. */
export interface FilterRules {
  /** Domains (each covering its subdomains) or full addresses whose mail is dropped; case-insensitive. */
  blocklist: string[];
}

export type FilterDecision = { keep: true } | { keep: false; reason: FilterReason };

/** Gmail's category labels for machine mail (Google Takeout `X-Gmail-Labels`). */
const GMAIL_BULK_CATEGORIES = new Set(['category promotions', 'category social', 'category updates', 'category forums']);

/**
 * Sender local parts that never belong to a person answering. `support@`, `info@`, `sales@`,
 * `help@` are deliberately absent: customers and their teams write from those.
 */
const NO_REPLY_LOCAL =
  /^(?:no[-_.]?reply|do[-_.]?not[-_.]?reply|dont[-_.]?reply|mailer[-_.]daemon|postmaster|notifications?|notify|alerts?|bounces?|news(?:letter)?s?|automated|auto[-_.]?confirm)(?:[-_.+].*)?$/;

/** Only a subject that STARTS like an auto-reply: "Re: our out of office policy" is a conversation. */
const AUTO_REPLY_SUBJECT =
  /^(?:auto(?:matic)?[- ]?reply|autoreply|auto[- ]?response|out of (?:the )?office|ooo\b|abwesenheitsnotiz|r[ée]ponse automatique|respuesta autom[áa]tica)/i;

const BOUNCE_SUBJECT =
  /^(?:undeliver(?:able|ed)|delivery (?:status notification|failure|has failed)|mail delivery (?:failed|failure|subsystem)|returned mail|failure notice|message not delivered)\b/i;

/** Normalised blocklist entries, split by kind, built once per rules object. */
const compiled = new WeakMap<FilterRules, { domains: Set<string>; addresses: Set<string> }>();

function compile(rules: FilterRules): { domains: Set<string>; addresses: Set<string> } {
  let c = compiled.get(rules);
  if (!c) {
    c = { domains: new Set(), addresses: new Set() };
    for (const raw of rules.blocklist) {
      const entry = raw.trim().toLowerCase().replace(/^@/, '').replace(/\.$/, '');
      if (entry === '') continue;
      if (entry.includes('@')) c.addresses.add(entry);
      else c.domains.add(entry);
    }
    compiled.set(rules, c);
  }
  return c;
}

function blocked(email: string, rules: FilterRules): boolean {
  const { domains, addresses } = compile(rules);
  if (addresses.has(email)) return true;
  let domain = email.slice(email.lastIndexOf('@') + 1);
  while (domain !== '') {
    if (domains.has(domain)) return true;
    const dot = domain.indexOf('.');
    if (dot === -1) break;
    domain = domain.slice(dot + 1);
  }
  return false;
}

/**
 * Tells a conversation from everything else. Checks run from the most specific to the most
 * general, so a bounce from `mailer-daemon@` counts as `bounce`, not `no_reply`. Only the SENDER
 * is checked against the blocklist: a client cc'ing a blocked domain is still a conversation.
 */
export function classifyMessage(msg: Pick<ParsedMessage, 'from' | 'subject' | 'signals'>, rules: FilterRules): FilterDecision {
  const s = msg.signals;
  const sender = msg.from?.email ?? '';
  if (sender !== '' && blocked(sender, rules)) return { keep: false, reason: 'blocklist' };
  if (s.deliveryReport || BOUNCE_SUBJECT.test(msg.subject)) return { keep: false, reason: 'bounce' };
  if (s.autoSubmitted || s.autoReplyHeader || s.precedence === 'auto_reply' || AUTO_REPLY_SUBJECT.test(msg.subject)) {
    return { keep: false, reason: 'auto_reply' };
  }
  if (s.listId || s.precedence === 'list') return { keep: false, reason: 'list' };
  if (s.listUnsubscribe || s.precedence === 'bulk' || s.precedence === 'junk' || s.gmailLabels.some((l) => GMAIL_BULK_CATEGORIES.has(l.toLowerCase()))) {
    return { keep: false, reason: 'bulk' };
  }
  if (sender !== '' && NO_REPLY_LOCAL.test(sender.slice(0, sender.lastIndexOf('@')))) {
    return { keep: false, reason: 'no_reply' };
  }
  return { keep: true };
}
