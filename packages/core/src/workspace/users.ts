/**
 * Users of a workspace. `profile.*` of the settings lives here, on the user a key belongs to.
 *
 * A user's address is where alerts and digests go, so a change of it through the API is not taken
 * on the caller's word: `requestEmailChange` keeps the new address aside with a single-use token
 * (only its hash stored) that expires, to be mailed to the NEW address; `confirmEmailChange` with
 * that token makes it the address. Until then `email` stays the confirmed one.
 */
import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import { ChsError } from '../errors.js';
import type { Db } from '../store/database.js';
import type { UsersTable } from '../store/schema.js';
import { sha256Hex } from '../util/ids.js';
import type { User } from './types.js';

/** A pragmatic address check (one `@`, a dotted domain, no spaces); real validation is delivery. */
const EMAIL = /^[^\s@"<>()[\],;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

export function isValidEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

export function toUser(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    email: row.email,
    name: row.name,
    title: row.title,
    role: row.role,
    hasCompletedOnboarding: row.has_completed_onboarding === 1,
    createdAt: row.created_at,
    lastLoginAt: row.last_login_at,
    pendingEmail: row.pending_email,
    pendingEmailExpiresAt: row.pending_email_expires_at,
  };
}

export async function getUser(db: Db, userId: string): Promise<User | null> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  return row ? toUser(row) : null;
}

/** The workspace's owner (the earliest `owner`, else the earliest user), or null. */
export async function getOwner(db: Db, workspaceId: string): Promise<User | null> {
  const rows = await db.selectFrom('users').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('id').execute();
  const row = rows.find((r) => r.role === 'owner') ?? rows[0];
  return row ? toUser(row) : null;
}

/** Roles that administer a workspace: they are told when something of it needs a person (a webhook endpoint disabled). */
export const ADMIN_ROLES: readonly string[] = Object.freeze(['owner', 'admin']);

/** The workspace's administrators (ADMIN_ROLES), earliest first; the owner (getOwner) when none has such a role. */
export async function listWorkspaceAdmins(db: Db, workspaceId: string): Promise<User[]> {
  const rows = await db
    .selectFrom('users')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('role', 'in', [...ADMIN_ROLES])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  if (rows.length > 0) return rows.map(toUser);
  const owner = await getOwner(db, workspaceId);
  return owner ? [owner] : [];
}

export interface ProfilePatch {
  name?: string;
  /** Set at once, unconfirmed: for trusted callers only. The API goes through requestEmailChange. */
  email?: string;
  title?: string;
}

/** The address lower-cased, or INVALID_INPUT; CONFLICT when another user of the workspace has it. */
async function checkNewEmail(db: Db, user: User, input: string): Promise<string> {
  const email = input.trim().toLowerCase();
  if (!isValidEmail(email)) throw new ChsError('INVALID_INPUT', `profile.email is not a valid e-mail address: ${input}`);
  if (email !== user.email) {
    const taken = await db
      .selectFrom('users')
      .select('id')
      .where('workspace_id', '=', user.workspaceId)
      .where('email', '=', email)
      .where('id', '!=', user.id)
      .executeTakeFirst();
    if (taken) throw new ChsError('CONFLICT', `another user of the workspace already has the address ${email}`);
  }
  return email;
}

/** How long an e-mail confirmation token is accepted. */
export const EMAIL_CONFIRMATION_TTL_MS = 24 * 3_600_000;
const CONFIRMATION_PREFIX = 'ec_';
const CONFIRMATION_SHAPE = /^ec_[A-Za-z0-9_-]{32}$/;

export type EmailChangeRequest =
  /** The address asked for is the confirmed one: nothing to confirm (a pending change is dropped). */
  | { status: 'unchanged'; email: string }
  /** Kept aside until `token` comes back; mail the token to `email`, nowhere else. */
  | { status: 'pending'; email: string; token: string; expiresAt: string };

/**
 * Asks to change a user's address: the new one is kept aside with a fresh single-use token that
 * expires after `ttlMs` (default 24 h); the previous pending change, if any, is replaced (its token
 * dies). The caller mails the token to the new address. INVALID_INPUT, CONFLICT, NOT_FOUND.
 */
export async function requestEmailChange(db: Db, userId: string, input: string, options: { now?: Date; ttlMs?: number } = {}): Promise<EmailChangeRequest> {
  const user = await getUser(db, userId);
  if (!user) throw new ChsError('NOT_FOUND', `user ${userId} does not exist`);
  const email = await checkNewEmail(db, user, input);
  if (email === user.email) {
    await db
      .updateTable('users')
      .set({ pending_email: null, pending_email_token_hash: null, pending_email_expires_at: null })
      .where('id', '=', userId)
      .execute();
    return { status: 'unchanged', email };
  }
  const token = CONFIRMATION_PREFIX + randomBytes(24).toString('base64url');
  const expiresAt = new Date((options.now ?? new Date()).getTime() + (options.ttlMs ?? EMAIL_CONFIRMATION_TTL_MS)).toISOString();
  await db
    .updateTable('users')
    .set({ pending_email: email, pending_email_token_hash: sha256Hex(token), pending_email_expires_at: expiresAt })
    .where('id', '=', userId)
    .execute();
  return { status: 'pending', email, token, expiresAt };
}

/**
 * Confirms a pending address change with its token: the new address becomes the user's, the token
 * is spent. CONFIRMATION_INVALID for a token that is malformed, unknown in the workspace, already
 * used, replaced or expired; CONFLICT if another user took the address meanwhile.
 */
export async function confirmEmailChange(db: Db, workspaceId: string, token: string, now: Date = new Date()): Promise<User> {
  const invalid = () => new ChsError('CONFIRMATION_INVALID', 'the confirmation token is unknown, already used, replaced by a newer one, or expired');
  const candidate = token.trim();
  if (!CONFIRMATION_SHAPE.test(candidate)) throw invalid();
  const row = await db
    .selectFrom('users')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('pending_email_token_hash', '=', sha256Hex(candidate))
    .executeTakeFirst();
  if (!row || row.pending_email === null || row.pending_email_expires_at === null || row.pending_email_expires_at <= now.toISOString()) throw invalid();
  const user = toUser(row);
  const email = await checkNewEmail(db, user, row.pending_email);
  // Compare-and-set on the token: two confirmations racing spend it once.
  const r = await db
    .updateTable('users')
    .set({ email, pending_email: null, pending_email_token_hash: null, pending_email_expires_at: null })
    .where('id', '=', user.id)
    .where('pending_email_token_hash', '=', sha256Hex(candidate))
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) throw invalid();
  return { ...user, email, pendingEmail: null, pendingEmailExpiresAt: null };
}

/** Partial update of a user's profile. CONFLICT when another user of the workspace has the address. */
export async function updateUserProfile(db: Db, userId: string, patch: ProfilePatch): Promise<User> {
  const user = await getUser(db, userId);
  if (!user) throw new ChsError('NOT_FOUND', `user ${userId} does not exist`);
  const set: Partial<Pick<UsersTable, 'name' | 'email' | 'title'>> = {};
  if (patch.name !== undefined) {
    if (patch.name.trim() === '') throw new ChsError('INVALID_INPUT', 'profile.name must not be empty');
    set.name = patch.name.trim();
  }
  if (patch.title !== undefined) set.title = patch.title.trim();
  if (patch.email !== undefined) set.email = await checkNewEmail(db, user, patch.email);
  if (Object.keys(set).length > 0) await db.updateTable('users').set(set).where('id', '=', userId).execute();
  return { ...user, ...set };
}

/** Marks the user onboarded (idempotent). */
export async function completeOnboarding(db: Db, userId: string): Promise<User> {
  const result = await db.updateTable('users').set({ has_completed_onboarding: 1 }).where('id', '=', userId).executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new ChsError('NOT_FOUND', `user ${userId} does not exist`);
  const user = await getUser(db, userId);
  if (!user) throw new ChsError('NOT_FOUND', `user ${userId} does not exist`);
  return user;
}
