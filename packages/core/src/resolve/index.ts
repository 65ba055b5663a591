export { registrableDomain, isFreeMailDomain, hostOf, hostWithin } from './domains.js';
export { Resolver, type ResolveRules, type Resolution, type ResolvedParticipant } from './resolve.js';
export {
  DISCOVERY_POLICIES,
  DEFAULT_DISCOVERY_POLICY,
  DOMAIN_ROLES,
  isDiscoveryPolicy,
  discoveryText,
  type DiscoveryPolicy,
  type DomainRole,
  type DiscoveryReason,
} from './discovery.js';
