/**
 * Resolution of one parsed message against a workspace: its direction, and the client domains
 * and contacts it touches. Pure: the caller maps domains to client ids and addresses to contacts.
 */
import type { Address, Direction, ParsedMessage } from '../interfaces.js';
import { hostOf, hostWithin, isFreeMailDomain, registrableDomain } from './domains.js';

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
  | { kind: 'interaction'; direction: Exclude<Direction, 'internal'>; clientDomains: string[]; participants: ResolvedParticipant[] }
  | { kind: 'skip'; reason: 'internal' | 'no_client' };

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
    return { kind: 'interaction', direction: fromOwn ? 'outbound' : 'inbound', clientDomains, participants };
  }
}
