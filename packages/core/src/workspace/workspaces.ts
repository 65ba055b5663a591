/** Workspaces: a tenant identified by its own registrable domain. */
import type { Selectable } from 'kysely';
import { parse } from 'tldts';
import { ChsError } from '../errors.js';
import { defaultSettings } from '../settings/settings.js';
import type { Db } from '../store/database.js';
import type { WorkspacesTable } from '../store/schema.js';
import { newId } from '../util/ids.js';
import { createApiKey } from './api-keys.js';
import type { CreatedApiKey, User, Workspace } from './types.js';
import { isValidEmail, toUser } from './users.js';

/** Plan and billing status of a self-hosted workspace (the API shows the fields; their values here are fixed). */
export const DEFAULT_PLAN = 'self-hosted';
export const DEFAULT_BILLING_STATUS = 'active';

/**
 * The canonical workspace id of a domain: trimmed, lower-cased, and a registrable domain per the
 * Public Suffix List (`acme.com`, `acme.co.uk`). A subdomain, a bare suffix, an IP address or a
 * malformed name is INVALID_DOMAIN (a subdomain's message names its registrable domain).
 */
export function normaliseWorkspaceDomain(input: string): string {
  const domain = input.trim().toLowerCase().replace(/\.$/, '');
  const parsed = parse(domain);
  if (parsed.isIp) throw new ChsError('INVALID_DOMAIN', `a workspace is a domain name, not an IP address: "${input}"`);
  if (!parsed.hostname || parsed.hostname !== domain || !parsed.domain) {
    throw new ChsError('INVALID_DOMAIN', `not a registrable domain name: "${input}" (expected e.g. acme.com)`);
  }
  if (parsed.domain !== domain) {
    throw new ChsError('INVALID_DOMAIN', `"${input}" is a subdomain; use its registrable domain ${parsed.domain}`);
  }
  return domain;
}

function toWorkspace(row: Selectable<WorkspacesTable>): Workspace {
  return { id: row.id, name: row.name, plan: row.plan, billingStatus: row.billing_status, createdAt: row.created_at, updatedAt: row.updated_at };
}

export interface CreateWorkspaceInput {
  /** The workspace's own domain, e.g. `acme.com`; becomes its id. */
  domain: string;
  name: string;
  ownerEmail: string;
  /** Default: the local part of the owner's address. */
  ownerName?: string;
  /** Default: the wall clock. */
  now?: Date;
}

export interface CreatedWorkspace {
  workspace: Workspace;
  owner: User;
  /** The first key, carrying the full key once. */
  apiKey: CreatedApiKey;
}

/**
 * Creates a workspace with its domain row, default settings, owner user and a first API key,
 * in one transaction. INVALID_DOMAIN, INVALID_INPUT (name, e-mail), WORKSPACE_EXISTS.
 */
export async function createWorkspace(db: Db, input: CreateWorkspaceInput): Promise<CreatedWorkspace> {
  const id = normaliseWorkspaceDomain(input.domain);
  const name = input.name.trim();
  if (name === '') throw new ChsError('INVALID_INPUT', 'a workspace name must not be empty');
  const ownerEmail = input.ownerEmail.trim().toLowerCase();
  if (!isValidEmail(ownerEmail)) throw new ChsError('INVALID_INPUT', `not a valid e-mail address: "${input.ownerEmail}"`);
  const ownerName = input.ownerName?.trim() || ownerEmail.slice(0, ownerEmail.indexOf('@'));
  const now = (input.now ?? new Date()).toISOString();

  const exists = async (conn: Db) => (await conn.selectFrom('workspaces').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  if (await exists(db)) throw new ChsError('WORKSPACE_EXISTS', `workspace ${id} already exists`);
  try {
    return await db.transaction().execute(async (trx) => {
      const wsRow = { id, name, plan: DEFAULT_PLAN, billing_status: DEFAULT_BILLING_STATUS, created_at: now, updated_at: now };
      await trx.insertInto('workspaces').values(wsRow).execute();
      await trx.insertInto('workspace_domains').values({ workspace_id: id, domain: id }).execute();
      await trx
        .insertInto('settings')
        .values({ workspace_id: id, data_json: JSON.stringify(defaultSettings(id, name)), updated_at: now })
        .execute();
      const userRow = {
        id: newId('usr'),
        workspace_id: id,
        email: ownerEmail,
        name: ownerName,
        title: '',
        role: 'owner',
        has_completed_onboarding: 0,
        created_at: now,
        last_login_at: null,
        pending_email: null,
        pending_email_token_hash: null,
        pending_email_expires_at: null,
      };
      await trx.insertInto('users').values(userRow).execute();
      const apiKey = await createApiKey(trx, { workspaceId: id, userId: userRow.id, name: 'Default key', ...(input.now ? { now: input.now } : {}) });
      return { workspace: toWorkspace(wsRow), owner: toUser(userRow), apiKey };
    });
  } catch (err) {
    // Two creators racing past the check above: the primary key decides, and the loser hears why.
    if (await exists(db).catch(() => false)) throw new ChsError('WORKSPACE_EXISTS', `workspace ${id} already exists`, { cause: err });
    throw err;
  }
}

/** Every workspace's id, in order (the scheduler's pass). */
export async function listWorkspaceIds(db: Db): Promise<string[]> {
  return (await db.selectFrom('workspaces').select('id').orderBy('id').execute()).map((r) => r.id);
}

export async function getWorkspace(db: Db, workspaceId: string): Promise<Workspace | null> {
  const row = await db.selectFrom('workspaces').selectAll().where('id', '=', workspaceId).executeTakeFirst();
  return row ? toWorkspace(row) : null;
}

/** The workspace, or WORKSPACE_NOT_FOUND. Accepts any case of the domain. */
export async function requireWorkspace(db: Db, workspaceId: string): Promise<Workspace> {
  const ws = await getWorkspace(db, workspaceId.trim().toLowerCase());
  if (!ws) throw new ChsError('WORKSPACE_NOT_FOUND', `workspace ${workspaceId} does not exist (create it with: chs init --workspace <domain> ...)`);
  return ws;
}
