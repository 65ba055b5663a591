import type { ParsedMessage } from '../interfaces.js';

/** Why a message is not a conversation; counted per reason in the ingestion summary. */
export type FilterReason = 'bulk' | 'list' | 'auto_reply' | 'bounce' | 'no_reply' | 'calendar' | 'blocklist';

export const FILTER_REASONS: readonly FilterReason[] = ['bulk', 'list', 'auto_reply', 'bounce', 'no_reply', 'calendar', 'blocklist'];

/** Per-workspace filter settings. */
export interface FilterRules {
  /** Domains (each covering its subdomains) or full addresses whose mail is dropped; case-insensitive. */
  blocklist: string[];
}

/** `evidence` says what showed it, in a few words (`List-Unsubscribe header`, `sender no-reply@`…). */
export type FilterDecision = { keep: true } | { keep: false; reason: FilterReason; evidence: string };

/** Gmail's category labels for machine mail (Google Takeout `X-Gmail-Labels`). */
const GMAIL_BULK_CATEGORIES = new Set(['category promotions', 'category social', 'category updates', 'category forums']);

/**
 * Sender local parts that never belong to a person answering. `support@`, `info@`, `sales@`,
 * `help@` are deliberately absent: customers and their teams write from those.
 */
const NO_REPLY_LOCAL =
  /^(?:no[-_.]?reply|do[-_.]?not[-_.]?reply|dont[-_.]?reply|nobody|mailer[-_.]daemon|postmaster|notifications?|notify|alerts?|bounces?|news(?:letter)?s?|automated|auto[-_.]?confirm|receipts?|invoices?|statements?|calendar(?:[-_.]notifications?)?|reminders?|e[-_.]?delivery|e[-_.]?statements?|e[-_.]?bills?|notices?|confirmations?)(?:[-_.+].*)?$/;

/** A sender whose address itself says it is list or campaign machinery (`unsubscribe-i@`, `x.bounce@`, `mailer123@`). */
const MACHINE_WORD_LOCAL = /(?:unsubscribe|bounce|mailer|mailings?|newsletter|campaign)/;

/**
 * Senders that are mailing-list software or a publication desk, never a person answering:
 * `owner-list@` and `list-request@` (Majordomo, Mailman), `webmaster@`, `subscriptions@`.
 */
const LIST_SOFTWARE_LOCAL =
  /^(?:owner-.+|.+-request|.+-owner|listserv|majordomo|mailman|lists?|webmaster|subscriptions?|subscribe|digest|e?news(?:letter)?s?(?:[-_.].*)?|.+[-_.]news(?:letter)?s?|updates?|marketing|promo(?:tions?)?|offers?|deals|specials|announce(?:ments?)?|email[-_.]announcements?)$/;

/**
 * A machine-made sender address: VERP and tracking locals with long digit runs or several numeric
 * groups (`bounce-932653@`, `42.8997.6e-2aajoy@`, `customerservice.1556092.29223.0@`), or a
 * 30-character-plus local part. A person's work address has none of these.
 */
function machineSender(local: string): boolean {
  if (local.length >= 30) return true;
  if (/\d{5,}/.test(local)) return true;
  let groups = 0;
  for (const part of local.split(/[-_.+=]/)) if (/^\d+$/.test(part)) groups += 1;
  return groups >= 2 || /^(?:bounces?|return|msprvs\d*|prvs|btv1|reply)[-_.+=]/.test(local);
}

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
  const local = sender.slice(0, sender.lastIndexOf('@'));
  const drop = (reason: FilterReason, evidence: string): FilterDecision => ({ keep: false, reason, evidence });
  if (sender !== '' && blocked(sender, rules)) return drop('blocklist', `sender ${sender} is blocklisted`);
  if (s.deliveryReport) return drop('bounce', 'a delivery status report');
  if (BOUNCE_SUBJECT.test(msg.subject)) return drop('bounce', 'a bounce subject');
  if (s.autoSubmitted) return drop('auto_reply', 'Auto-Submitted header');
  if (s.autoReplyHeader) return drop('auto_reply', 'an auto-reply header');
  if (s.precedence === 'auto_reply') return drop('auto_reply', 'Precedence: auto_reply');
  if (AUTO_REPLY_SUBJECT.test(msg.subject)) return drop('auto_reply', 'an out-of-office subject');
  if (s.listId) return drop('list', 'List-Id header');
  if (s.precedence === 'list') return drop('list', 'Precedence: list');
  if (s.listUnsubscribe) return drop('bulk', 'List-Unsubscribe header');
  if (s.precedence === 'bulk' || s.precedence === 'junk') return drop('bulk', `Precedence: ${s.precedence}`);
  const category = s.gmailLabels.find((l) => GMAIL_BULK_CATEGORIES.has(l.toLowerCase()));
  if (category) return drop('bulk', `Gmail ${category}`);
  if (s.espHeader) return drop('bulk', `bulk-sender header ${s.espHeader}`);
  if (s.calendar) return drop('calendar', 'a calendar invitation (text/calendar)');
  if (local !== '') {
    if (NO_REPLY_LOCAL.test(local)) return drop('no_reply', `sender ${local}@`);
    if (LIST_SOFTWARE_LOCAL.test(local)) return drop('list', `sender ${local}@`);
    if (MACHINE_WORD_LOCAL.test(local)) return drop('bulk', `sender ${local.slice(0, 40)}@`);
    if (machineSender(local)) return drop('bulk', `machine-made sender ${local.slice(0, 40)}@`);
  }
  return { keep: true };
}

/**
 * What only mass mail says at its foot: an unsubscribe or removal line, "you are receiving this
 * because…". One is enough. The weak ones (a privacy policy, "click here", "view it in your
 * browser", "forward to a friend", "all rights reserved") count when two different ones appear.
 * A client who writes "we will not renew our subscription" matches none of them.
 */
const STRONG_FOOTER =
  /\b(?:unsubscribe|opt[- ]?out\b|to be removed from|remove (?:yourself|me|your (?:e-?mail|name|address)) from|you (?:are|were) receiving this|you (?:have )?received (?:this|these)(?: [\w-]+){0,3} because|you (?:have )?received this (?:e-?mail|message|newsletter) as (?:a|an) (?:[\w-]+ ){0,3}(?:member|subscriber|customer|user|registrant)|to cancel delivery|(?:rather|prefer) not (?:to )?(?:hear from (?:me|us)|receive (?:(?:these|this|such|our|any)\b|(?:[\w.&'’()-]+ ){0,5}(?:e-?mails?|newsletters?|mailings?|messages|offers|notices|communications|promotions)\b))|if you (?:do not|don['’]t) (?:wish|want) to receive|you (?:are|have) subscribed as\b|you (?:have |are )?subscribed to (?:the |our |this )?(?:[\w.&'’-]+ ){0,4}(?:newsletters?|mailing list|e-?mail list|e-?mails|alerts)\b|this (?:article|story|page|link) (?:was|has been) (?:sent|e-?mailed|forwarded) to you by|take you off (?:my|our) (?:mailing )?list|reply (?:with )?["“']?(?:stop|unsubscribe|remove)\b|(?:manage|update) your (?:e-?mail |subscription |communication )?(?:preferences|subscriptions?)|no longer wish to receive|this (?:e-?mail|message) was sent to \S+@|sent to you because you|you have been subscribed|this is an automated (?:e-?mail|message|notification)|(?:please )?do not reply to this (?:e-?mail|message)|^\s*dear (?:valued )?(?:[a-z][\w&.'-]* ){0,4}(?:customer|client|member|subscriber|cardholder|account ?holder|shopper)s?\s*[:,])/im;
const WEAK_FOOTER =
  /\b(privacy policy|click here|view (?:it|this(?: e-?mail| message)?) (?:online|in (?:your|a) (?:web )?browser)|forward (?:this|it) to a friend|all rights reserved|terms of use|mailing list|e-?mail preferences)\b/gi;
/**
 * How much of the text the footer check reads: the head (a "view it in your browser" line) and the
 * foot (the unsubscribe block), so a long newsletter costs no more than a short one.
 */
const FOOTER_HEAD = 1500;
const FOOTER_TAIL = 3000;

/**
 * The body-level check, run on a message the header check kept: mass mail without any bulk header
 * (older senders, the Enron era, sloppy ESPs) still carries its unsubscribe footer. Quoted lines
 * (`>`) are not read: a client answering our newsletter still writes to us.
 */
export function classifyBody(text: string): FilterDecision {
  const scanned = text.length > FOOTER_HEAD + FOOTER_TAIL ? `${text.slice(0, FOOTER_HEAD)}\n${text.slice(-FOOTER_TAIL)}` : text;
  const own = scanned.replace(/^[ \t]*>.*$/gm, '');
  const strong = STRONG_FOOTER.exec(own);
  if (strong) return { keep: false, reason: 'bulk', evidence: `footer: "${strong[0].toLowerCase()}"` };
  const weak = new Set<string>();
  for (const m of own.matchAll(WEAK_FOOTER)) weak.add(m[1]!.toLowerCase());
  if (weak.size >= 2) return { keep: false, reason: 'bulk', evidence: `footer: ${[...weak].slice(0, 3).join(', ')}` };
  return { keep: true };
}
