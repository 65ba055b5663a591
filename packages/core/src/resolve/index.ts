export { registrableDomain, isFreeMailDomain, hostOf, hostWithin } from './domains.js';
export { Resolver, type ResolveRules, type Resolution, type ResolvedParticipant } from './resolve.js';
