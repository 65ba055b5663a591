/**
 * Who may be the sender (`notifications.emailFrom`) of a workspace's mail. Without a rule, a key
 * holder could have the server send mail "from" any address at all; so the sender must be on one
 * of the workspace's own domains (`workspace_domains`: the workspace domain and any other domain
 * its staff write from) or one of their subdomains, or on the operator's allow-list (the runner's
 * CHS_EMAIL_FROM_ALLOWLIST), whose entries are domains (subdomains included) or whole addresses.
 */
import { ChsError } from '../errors.js';
import type { Db } from '../store/database.js';

/** `domain` is `base` or a subdomain of it (both lower-case). */
function withinDomain(domain: string, base: string): boolean {
  return domain === base || domain.endsWith(`.${base}`);
}

/** Whether `address` may send for a workspace with these own domains and this allow-list. */
export function isSenderAllowed(address: string, ownDomains: readonly string[], allowList: readonly string[] = []): boolean {
  const email = address.trim().toLowerCase();
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1) return false;
  const domain = email.slice(at + 1).replace(/\.$/, '');
  for (const d of ownDomains) if (withinDomain(domain, d.toLowerCase())) return true;
  for (const raw of allowList) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry.includes('@') ? entry === email : withinDomain(domain, entry)) return true;
  }
  return false;
}

/** The workspace's own domains (its id first). */
export async function workspaceOwnDomains(db: Db, workspaceId: string): Promise<string[]> {
  const rows = await db.selectFrom('workspace_domains').select('domain').where('workspace_id', '=', workspaceId).execute();
  const domains = rows.map((r) => r.domain);
  return domains.includes(workspaceId) ? domains : [workspaceId, ...domains];
}

/** SENDER_NOT_ALLOWED unless `address` may send for the workspace. */
export async function assertSenderAllowed(db: Db, workspaceId: string, address: string, allowList: readonly string[] = []): Promise<void> {
  const own = await workspaceOwnDomains(db, workspaceId);
  if (isSenderAllowed(address, own, allowList)) return;
  throw new ChsError(
    'SENDER_NOT_ALLOWED',
    `notifications.emailFrom ${address} is not on the workspace's domains (${own.join(', ')}) or their subdomains` +
      (allowList.length > 0 ? ', nor on the operator allow-list' : '; an operator can allow other senders with CHS_EMAIL_FROM_ALLOWLIST'),
    { details: { ownDomains: own } },
  );
}

/**
 * The sender to use for mail the scheduler sends on its own: `address` when allowed, else the
 * default `notifications@<workspace>` (a value stored before senders were checked, or allowed by
 * an allow-list entry since removed, must not keep sending "from" a foreign domain).
 */
export async function effectiveSender(
  db: Db,
  workspaceId: string,
  address: string,
  allowList: readonly string[] = [],
): Promise<{ from: string; replaced: boolean }> {
  if (isSenderAllowed(address, await workspaceOwnDomains(db, workspaceId), allowList)) return { from: address, replaced: false };
  return { from: `notifications@${workspaceId}`, replaced: true };
}
