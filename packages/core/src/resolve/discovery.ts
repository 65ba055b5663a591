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
 * - `cc_only`: a person there wrote to others and copied us (or bcc'd us);
 * - `mass_mail`: a person there wrote to a long list we are on;
 * - `role_sender`: the sender is a role address (info@, sales@, team@…), not a person;
 * - `co_recipient`: named only as a recipient of somebody else's message.
 */
export const DOMAIN_ROLES = ['wrote_to', 'direct', 'cc_only', 'mass_mail', 'role_sender', 'co_recipient'] as const;
export type DomainRole = (typeof DOMAIN_ROLES)[number];

/**
 * Why a client row exists or is suggested: a mail role; `personal` (conversations, but they read
 * as a friend's notes, not work); `pitch` (they only pitch us, as vendors do); `policy` (conversations, but the workspace takes clients from
 * the CRM only); or a non-mail source.
 */
export type DiscoveryReason = DomainRole | 'personal' | 'pitch' | 'policy' | 'crm' | 'manual';

/** What a message is about (score/personal.ts). */
export type Topic = 'work' | 'personal' | 'pitch' | 'unclear';

/** What the stored mail shows of one domain: its conversations, and what they are about. */
export interface DomainEvidence {
  /** Messages in which it plays `wrote_to` or `direct`. */
  conversations: number;
  /** Of those, the ones a person there wrote to us directly (`direct`). */
  direct: number;
  /** Of those, the ones that read as work, as personal notes and as sales pitches. */
  work: number;
  personal: number;
  pitch: number;
  /** Messages in which it plays any role but `co_recipient` (someone there wrote, or we wrote to them). */
  senders: number;
}

export function emptyEvidence(): DomainEvidence {
  return { conversations: 0, direct: 0, work: 0, personal: 0, pitch: 0, senders: 0 };
}

export function addEvidence(e: DomainEvidence, role: DomainRole, topic: Topic): void {
  if (role !== 'co_recipient') e.senders += 1;
  if (role !== 'wrote_to' && role !== 'direct') return;
  e.conversations += 1;
  if (role === 'direct') e.direct += 1;
  if (topic === 'work') e.work += 1;
  else if (topic === 'personal') e.personal += 1;
  else if (topic === 'pitch') e.pitch += 1;
}

/**
 * Whether a domain's evidence makes it a scored client under `policy`, and if not, why (null:
 * the strongest role it was seen in says it). `conversations`: a conversation with it whose
 * messages about work are at least as many as the personal notes and sales pitches (a friend
 * writing from the office is not his employer's voice, a vendor's sequence is not a client's),
 * and that shows work or was started by them: a person
 * there writing to us directly with nothing personal in it ("thanks, all good with order 3")
 * qualifies, our own one-line forward to a friend's work address does not.
 * `every_sender`: anyone there wrote, or we wrote to them. `crm_only`: never from mail.
 */
export function discoveryVerdict(e: DomainEvidence, policy: DiscoveryPolicy): { qualifies: boolean; reason: DiscoveryReason | null } {
  const notWork = e.personal + e.pitch;
  const conversation = e.work >= notWork && (e.work > 0 || (e.direct > 0 && notWork === 0));
  const why: DiscoveryReason | null = e.conversations === 0 ? null : e.pitch > e.personal ? 'pitch' : 'personal';
  switch (policy) {
    case 'crm_only':
      return { qualifies: false, reason: conversation ? 'policy' : why };
    case 'conversations':
      return conversation ? { qualifies: true, reason: null } : { qualifies: false, reason: why };
    case 'every_sender':
      return e.senders > 0 ? { qualifies: true, reason: null } : { qualifies: false, reason: null };
  }
}

/** The stronger of two roles (lower index in DOMAIN_ROLES). */
export function strongerRole(a: DomainRole, b: DomainRole): DomainRole {
  return DOMAIN_ROLES.indexOf(a) <= DOMAIN_ROLES.indexOf(b) ? a : b;
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
    case 'pitch':
      return 'only sales pitches to us, never a conversation';
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
