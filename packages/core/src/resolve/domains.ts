import { createRequire } from 'node:module';
import { getDomain } from 'tldts';
import { FREE_EMAIL_DOMAINS } from '../util/free-email-domains.generated.js';
import { ISP_DOMAINS } from './isp-domains.js';

const require = createRequire(import.meta.url);
/**
 * Consumer mail: two maintained lists of free and disposable mail providers (free-email-domains',
 * copied into our code by scripts/refresh-free-mail.mjs because its package downloads at install
 * time; email-providers', which ships its data), and the ISPs and consumer providers they miss
 * (isp-domains.ts). Personal addresses: never a client's domain.
 */
const FREE_MAIL: ReadonlySet<string> = new Set([
  ...FREE_EMAIL_DOMAINS,
  ...(require('email-providers/all.json') as string[]),
  ...ISP_DOMAINS.map((d) => getDomain(d) ?? d),
]);

/** The registrable domain (eTLD+1) of a host or address, lower-cased; null for IPs, bare hosts, junk. */
export function registrableDomain(hostOrAddress: string): string | null {
  const at = hostOrAddress.lastIndexOf('@');
  const host = (at >= 0 ? hostOrAddress.slice(at + 1) : hostOrAddress).trim().toLowerCase().replace(/\.$/, '');
  if (!host || host.includes(' ')) return null;
  return getDomain(host) ?? null;
}

/** The host part of an address, lower-cased. */
export function hostOf(address: string): string {
  const at = address.lastIndexOf('@');
  return (at >= 0 ? address.slice(at + 1) : address).trim().toLowerCase().replace(/\.$/, '');
}

/** Whether a registrable domain is a free, disposable or ISP mail provider: personal addresses, never a client. */
export function isFreeMailDomain(domain: string): boolean {
  return FREE_MAIL.has(domain);
}

/** True when `host` is `domain` or one of its subdomains. */
export function hostWithin(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}
