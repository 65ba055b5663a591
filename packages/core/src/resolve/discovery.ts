/**
 * Who becomes a client (docs/client-discovery.md). Companies from the CRM or from
 * `chs clients import` always are. From mail, a domain becomes a scored client only through a
 * real conversation: we wrote to someone there, or someone there wrote person to person to our
 * people directly. Every other external domain a message names is kept as a *suggested* client:
 * its mail is stored and counted, it is not scored, and the team accepts or ignores it.
 * Pure: the resolver tells each domain's role in one message; the writer applies the policy.
 */

/** The workspace setting `clientDiscovery`. */
export const DISCOVERY_POLICIES = ['crm_only', 'conversations', 'every_sender'] as const;
export type DiscoveryPolicy = (typeof DISCOVERY_POLICIES)[number];
export const DEFAULT_DISCOVERY_POLICY: DiscoveryPolicy = 'conversations';

export function isDiscoveryPolicy(x: unknown): x is DiscoveryPolicy {
  return typeof x === 'string' && (DISCOVERY_POLICIES as readonly string[]).includes(x);
}

/**
 * The part an external domain plays in one (non-automated) message, strongest first:
 * - `wrote_to`: one of our people wrote to someone there (To or Cc of our own message, to a few
 *   domains: a mass send of ours is not a conversation with each recipient);
 * - `direct`: a person there wrote to our people directly (one of us in To, few recipients);
 * - `personal`: either of those, but the message reads as a personal note (a friend writing
 *   from the office: weekend plans, a game, jokes), not work (score/personal.ts);
 * - `cc_only`: a person there wrote to others and copied us (or bcc'd us);
 * - `mass_mail`: a person there wrote to a long list we are on;
 * - `role_sender`: the sender is a role address (info@, sales@, team@…), not a person;
 * - `co_recipient`: named only as a recipient of somebody else's message.
 */
export const DOMAIN_ROLES = ['wrote_to', 'direct', 'personal', 'cc_only', 'mass_mail', 'role_sender', 'co_recipient'] as const;
export type DomainRole = (typeof DOMAIN_ROLES)[number];

/** Why a client row exists or is suggested: a mail role, the policy, or a non-mail source. */
export type DiscoveryReason = DomainRole | 'policy' | 'crm' | 'manual';

/** The stronger of two roles (lower index in DOMAIN_ROLES). */
export function strongerRole(a: DomainRole, b: DomainRole): DomainRole {
  return DOMAIN_ROLES.indexOf(a) <= DOMAIN_ROLES.indexOf(b) ? a : b;
}

/** Whether mail in which a domain plays `role` makes it a scored client under `policy`. */
export function roleQualifies(role: DomainRole, policy: DiscoveryPolicy): boolean {
  switch (policy) {
    case 'crm_only':
      return false;
    case 'conversations':
      return role === 'wrote_to' || role === 'direct';
    case 'every_sender':
      return role !== 'co_recipient';
  }
}

/** The reason a suggestion is shown with, in plain words. */
export function discoveryText(reason: string | null): string {
  switch (reason) {
    case 'wrote_to':
      return 'we wrote to them';
    case 'direct':
      return 'a person there wrote to us directly';
    case 'personal':
      return 'only personal mail (friends, family, social plans), no work';
    case 'cc_only':
      return 'they wrote to others and copied us; we never wrote to them';
    case 'mass_mail':
      return 'they only wrote to long recipient lists we were on';
    case 'role_sender':
      return 'only role addresses (info@, sales@…) wrote from there, never a person';
    case 'co_recipient':
      return "only named as a co-recipient of someone else's mail";
    case 'policy':
      return 'a conversation, but the workspace only takes clients from the CRM';
    case 'crm':
      return 'from the CRM';
    case 'manual':
      return 'added by hand';
    default:
      return 'unknown';
  }
}
