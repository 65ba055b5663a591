/**
 * Resolution of one parsed message against a workspace: its direction, and the client domains
 * and contacts it touches. Pure: the caller maps domains to client ids and addresses to contacts.
 */
import type { Address, Direction, ParsedMessage } from '../interfaces.js';
import { hostOf, hostWithin, isFreeMailDomain, registrableDomain } from './domains.js';
import type { DomainRole } from './discovery.js';

export interface ResolveRules {
  /** The workspace's own registrable domains (staff mail). */
  ownDomains: readonly string[];
  /** Blocklisted domains (covering subdomains) and addresses. */
  blocklist: readonly string[];
}

export interface ResolvedParticipant {
  email: string;
  name: string;
  /** Registrable domain: the client's key. */
  domain: string;
}

export type Resolution =
  | {
      kind: 'interaction';
      direction: Exclude<Direction, 'internal'>;
      clientDomains: string[];
      /** The part each of clientDomains plays in this message (same order): discovery.ts. */
      roles: DomainRole[];
      participants: ResolvedParticipant[];
      /** Written to our people directly: inbound, one of us in To, few recipients (only such mail waits for our reply). */
      addressed: boolean;
    }
  | { kind: 'skip'; reason: 'internal' | 'no_client' };

/** More recipients than this (To and Cc) make a message mass mail, not a person-to-person one. */
const MAX_PERSONAL_RECIPIENTS = 10;
/** Our own message to more external domains than this is a mass send, not a conversation with each. */
const MAX_OUTBOUND_DOMAINS = 3;

/**
 * Role addresses (RFC 2142 and common practice): a company's desk, not a person. Mail from them
 * is stored for a client we have, but does not make one on its own.
 */
const ROLE_LOCAL =
  /^(?:info|information|sales|contact|contactus|contact-us|hello|hi|team|support|help|helpdesk|service|services|customerservice|customer[-_.]service|customercare|care|admin|administrator|office|enquiries|enquiry|inquiries|inquiry|billing|accounts|accounting|finance|hr|jobs|careers|recruiting|press|media|pr|feedback|events|membership|members|orders?|reservations?|bookings?|editor|editors|reports?|travel|mail|email|webinars?|community|partners?|general|reception|frontdesk|shop|store|research|subscribers?|publications?|memberservices|clientservices)(?:[-_.].*)?$/;

/** Whether an address's local part is a role (info@, sales@…) rather than a person. */
export function isRoleAddress(email: string): boolean {
  const local = email.slice(0, email.lastIndexOf('@')).replace(/\+.*$/, '');
  return ROLE_LOCAL.test(local);
}

/**
 * Display names that name a desk, not a person: "ENL Member Services", "Customer Care", "Acme
 * Help Desk", "LL Bean Newsletter". The address of such a desk is often a code (`ecenter@`,
 * `cs4@`), so its name is what shows it.
 */
const DESK_NAME =
  /\b(?:(?:member|customer|client|subscriber|guest|reader|account) (?:services?|care|support|relations)|help ?desk|support team|billing (?:department|team)|newsletters?)\b/i;

/** Whether a sender is a desk (a role address, or a desk's display name) rather than a person. */
export function isRoleSender(sender: Address): boolean {
  return isRoleAddress(sender.email) || DESK_NAME.test(sender.name);
}

export class Resolver {
  readonly #own: readonly string[];
  readonly #blockedDomains: readonly string[];
  readonly #blockedAddresses: ReadonlySet<string>;

  constructor(rules: ResolveRules) {
    this.#own = rules.ownDomains.map((d) => d.toLowerCase());
    this.#blockedDomains = rules.blocklist.filter((e) => !e.includes('@')).map((e) => e.toLowerCase());
    this.#blockedAddresses = new Set(rules.blocklist.filter((e) => e.includes('@')).map((e) => e.toLowerCase()));
  }

  isOwn(address: string): boolean {
    const host = hostOf(address);
    return this.#own.some((d) => hostWithin(host, d));
  }

  isBlocked(address: string): boolean {
    if (this.#blockedAddresses.has(address)) return true;
    const host = hostOf(address);
    return this.#blockedDomains.some((d) => hostWithin(host, d));
  }

  /** A client-eligible participant, or null (own staff, free mail, blocklisted, junk). */
  external(a: Address): ResolvedParticipant | null {
    if (!a.email.includes('@') || this.isOwn(a.email) || this.isBlocked(a.email)) return null;
    const domain = registrableDomain(a.email);
    if (!domain || isFreeMailDomain(domain) || this.#own.includes(domain)) return null;
    return { email: a.email, name: a.name, domain };
  }

  resolve(msg: Pick<ParsedMessage, 'from' | 'to' | 'cc'>): Resolution {
    const everyone = [...(msg.from ? [msg.from] : []), ...msg.to, ...msg.cc];
    const fromOwn = msg.from ? this.isOwn(msg.from.email) : false;
    const allOwn = everyone.length > 0 && everyone.every((a) => this.isOwn(a.email));
    if (allOwn) return { kind: 'skip', reason: 'internal' };

    const seen = new Set<string>();
    const participants: ResolvedParticipant[] = [];
    for (const a of everyone) {
      if (seen.has(a.email)) continue;
      seen.add(a.email);
      const p = this.external(a);
      if (p) participants.push(p);
    }
    const clientDomains = [...new Set(participants.map((p) => p.domain))];
    if (clientDomains.length === 0) return { kind: 'skip', reason: 'no_client' };

    const recipients = new Set([...msg.to, ...msg.cc].map((a) => a.email));
    const roles = new Map<string, DomainRole>();
    let addressed = false;
    if (fromOwn) {
      // Our message: a conversation with each recipient's company, unless it went to many
      // companies at once, or to a circle of personal addresses (a joke forwarded to friends).
      const external = [...recipients].filter((e) => e.includes('@') && !this.isOwn(e));
      const personal = external.filter((e) => isFreeMailDomain(registrableDomain(e) ?? '')).length;
      const broadcast =
        clientDomains.length > MAX_OUTBOUND_DOMAINS ||
        external.length > MAX_PERSONAL_RECIPIENTS ||
        (personal > 0 && (personal >= 2 || clientDomains.length >= 2));
      for (const d of clientDomains) roles.set(d, broadcast ? 'mass_mail' : 'wrote_to');
    } else {
      // Their message: the sender's company is in a conversation with us when a person there
      // wrote to one of us directly; everyone else on it is a co-recipient.
      const from = msg.from;
      const sender = from ? this.external(from) : null;
      const toUs = msg.to.some((a) => this.isOwn(a.email));
      const few = recipients.size <= MAX_PERSONAL_RECIPIENTS;
      addressed = toUs && few;
      for (const d of clientDomains) roles.set(d, 'co_recipient');
      if (sender && from) {
        const role: DomainRole = !few ? 'mass_mail' : isRoleSender(from) ? 'role_sender' : toUs ? 'direct' : 'cc_only';
        roles.set(sender.domain, role);
      }
    }
    return {
      kind: 'interaction',
      direction: fromOwn ? 'outbound' : 'inbound',
      clientDomains,
      roles: clientDomains.map((d) => roles.get(d) ?? 'co_recipient'),
      participants,
      addressed,
    };
  }
}
