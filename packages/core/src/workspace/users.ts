/** Users of a workspace. `profile.*` of the settings lives here, on the user a key belongs to. */
import type { Selectable } from 'kysely';
import { ChsError } from '../errors.js';
import type { Db } from '../store/database.js';
import type { UsersTable } from '../store/schema.js';
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

export interface ProfilePatch {
  name?: string;
  email?: string;
  title?: string;
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
  if (patch.email !== undefined) {
    const email = patch.email.trim().toLowerCase();
    if (!isValidEmail(email)) throw new ChsError('INVALID_INPUT', `profile.email is not a valid e-mail address: ${patch.email}`);
    if (email !== user.email) {
      const taken = await db.selectFrom('users').select('id').where('workspace_id', '=', user.workspaceId).where('email', '=', email).executeTakeFirst();
      if (taken) throw new ChsError('CONFLICT', `another user of the workspace already has the address ${email}`);
    }
    set.email = email;
  }
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
