/**
 * API keys. A full key is `sk-` + 32 random bytes in base64url (43 characters). Only its SHA-256
 * hash and a masked preview are stored; the full key exists once, in the creation result.
 *
 * Verification is one lookup on the unique `key_hash` index with `is_active = 1`. `ApiKeyVerifier`
 * keeps positive answers only while the store's data version is unchanged (any write by any
 * connection changes it), so a key deleted or deactivated by any process sharing the database is
 * still refused on its very next request.
 */
import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import { ChsError } from '../errors.js';
import type { Db, Store } from '../store/database.js';
import type { ApiKeysTable } from '../store/schema.js';
import { newId, sha256Hex } from '../util/ids.js';
import type { ApiKey, CreatedApiKey } from './types.js';
import { getOwner } from './users.js';

export const API_KEY_PREFIX = 'sk-';
/** Random bytes in a new key. */
const KEY_BYTES = 32;
/** `sk-` then base64url; anything else cannot be a key of ours and is refused without a query. */
const KEY_SHAPE = /^sk-[A-Za-z0-9_-]{43,128}$/;
/** Longest key name accepted. */
export const API_KEY_NAME_MAX = 100;
/** Active keys a workspace may hold when the caller sets no cap (`CHS_MAX_API_KEYS`). */
export const DEFAULT_MAX_ACTIVE_KEYS = 20;
/** `createdBy` of a key made on the command line or by the library rather than by a key's request. */
export const CREATED_BY_CLI = 'cli';

/** A new full key: `sk-` + 32 random bytes, base64url. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(KEY_BYTES).toString('base64url');
}

/** SHA-256 hex of the full key: what the store keeps. */
export function hashApiKey(fullKey: string): string {
  return sha256Hex(fullKey);
}

/** `sk-` + the first 4 and the last 4 random characters: enough to tell keys apart, useless to an attacker. */
export function maskApiKey(fullKey: string): string {
  const body = fullKey.startsWith(API_KEY_PREFIX) ? fullKey.slice(API_KEY_PREFIX.length) : fullKey;
  return `${API_KEY_PREFIX}${body.slice(0, 4)}…${body.slice(-4)}`;
}

export function looksLikeApiKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}

function toApiKey(row: Selectable<ApiKeysTable>): ApiKey {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    userId: row.user_id,
    name: row.name,
    preview: row.key_preview,
    isActive: row.is_active === 1,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    createdBy: row.created_by,
  };
}

export interface CreateApiKeyInput {
  workspaceId: string;
  /** The user whose permissions the key carries. Default: the workspace's owner. */
  userId?: string;
  name: string;
  /** Who makes it: the id of the calling key, or `cli` (CREATED_BY_CLI). Default `cli`. */
  createdBy?: string;
  /**
   * Most active keys the workspace may hold; creating one more is KEY_LIMIT_REACHED.
   * Default DEFAULT_MAX_ACTIVE_KEYS (20).
   */
  maxActive?: number;
  /** Default: the wall clock. */
  now?: Date;
}

/**
 * Creates an active key; the result carries the full key, once. INVALID_INPUT (name),
 * WORKSPACE_NOT_FOUND, NOT_FOUND (user), KEY_LIMIT_REACHED (the workspace's cap of active keys).
 *
 * The count and the insert run in one transaction that first writes the workspace's row, so two
 * creations racing for the last free slot (two runners, PostgreSQL) are serialised: one gets it.
 */
export async function createApiKey(db: Db, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  return db.isTransaction ? createInTransaction(db, input) : db.transaction().execute((trx) => createInTransaction(trx, input));
}

/** A no-op write that holds the workspace row's lock until the transaction ends; false when there is no such workspace. */
async function lockWorkspace(trx: Db, workspaceId: string): Promise<boolean> {
  const r = await trx
    .updateTable('workspaces')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

async function createInTransaction(db: Db, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  const name = input.name.trim();
  if (name === '' || name.length > API_KEY_NAME_MAX) {
    throw new ChsError('INVALID_INPUT', `a key name must be 1 to ${API_KEY_NAME_MAX} characters`);
  }
  if (!(await lockWorkspace(db, input.workspaceId))) throw new ChsError('WORKSPACE_NOT_FOUND', `workspace ${input.workspaceId} does not exist`);
  const maxActive = input.maxActive ?? DEFAULT_MAX_ACTIVE_KEYS;
  const active = await countActiveApiKeys(db, input.workspaceId);
  if (active >= maxActive) {
    throw new ChsError(
      'KEY_LIMIT_REACHED',
      `workspace ${input.workspaceId} already has ${active} active API keys (at most ${maxActive}); delete or revoke one first`,
      { details: { active, maxActive } },
    );
  }
  let userId = input.userId;
  if (userId === undefined) {
    const owner = await getOwner(db, input.workspaceId);
    if (!owner) throw new ChsError('NOT_FOUND', `workspace ${input.workspaceId} has no user to own a key`);
    userId = owner.id;
  } else {
    const user = await db.selectFrom('users').select('id').where('id', '=', userId).where('workspace_id', '=', input.workspaceId).executeTakeFirst();
    if (!user) throw new ChsError('NOT_FOUND', `user ${userId} is not in workspace ${input.workspaceId}`);
  }
  const key = generateApiKey();
  const row = {
    id: newId('key'),
    workspace_id: input.workspaceId,
    user_id: userId,
    name,
    key_hash: hashApiKey(key),
    key_preview: maskApiKey(key),
    is_active: 1,
    created_at: (input.now ?? new Date()).toISOString(),
    last_used_at: null,
    created_by: input.createdBy ?? CREATED_BY_CLI,
  };
  await db.insertInto('api_keys').values(row).execute();
  return { ...toApiKey(row), key };
}

/** The workspace's keys, oldest first, masked. */
export async function listApiKeys(db: Db, workspaceId: string): Promise<ApiKey[]> {
  const rows = await db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('id').execute();
  return rows.map(toApiKey);
}

export async function getApiKey(db: Db, workspaceId: string, keyId: string): Promise<ApiKey | null> {
  const row = await db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', keyId).executeTakeFirst();
  return row ? toApiKey(row) : null;
}

/** How many active keys the workspace holds (what the cap counts). */
export async function countActiveApiKeys(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('is_active', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Revokes every active key of the workspace at once (the caller's too): each is made inactive,
 * so it is refused on its next request by every runner, and stays listed (inactive, with its
 * `lastUsedAt` and `createdBy`) as the record of what existed; DELETE removes it for good.
 * Resolves to the ids revoked.
 */
export async function revokeAllApiKeys(db: Db, workspaceId: string): Promise<string[]> {
  const run = async (trx: Db): Promise<string[]> => {
    // Serialised with createApiKey: a key made meanwhile is either revoked here or made after.
    await lockWorkspace(trx, workspaceId);
    const rows = await trx
      .selectFrom('api_keys')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('is_active', '=', 1)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    if (rows.length > 0) await trx.updateTable('api_keys').set({ is_active: 0 }).where('workspace_id', '=', workspaceId).where('is_active', '=', 1).execute();
    return rows.map((r) => r.id);
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

/** Deletes a key for good. KEY_NOT_FOUND when the workspace has no such key. */
export async function deleteApiKey(db: Db, workspaceId: string, keyId: string): Promise<void> {
  const result = await db.deleteFrom('api_keys').where('workspace_id', '=', workspaceId).where('id', '=', keyId).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw new ChsError('KEY_NOT_FOUND', `API key ${keyId} does not exist in workspace ${workspaceId}`);
}

/** Activates or deactivates a key; an inactive key is refused like a deleted one but can come back. */
export async function setApiKeyActive(db: Db, workspaceId: string, keyId: string, active: boolean): Promise<ApiKey> {
  const result = await db
    .updateTable('api_keys')
    .set({ is_active: active ? 1 : 0 })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', keyId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new ChsError('KEY_NOT_FOUND', `API key ${keyId} does not exist in workspace ${workspaceId}`);
  const key = await getApiKey(db, workspaceId, keyId);
  if (!key) throw new ChsError('KEY_NOT_FOUND', `API key ${keyId} does not exist in workspace ${workspaceId}`);
  return key;
}

/**
 * The active key matching a full key, or null (unknown, malformed, deleted or inactive).
 * Always asks the database (one indexed lookup): see the module comment for why.
 */
export async function verifyApiKey(db: Db, fullKey: string): Promise<ApiKey | null> {
  if (!looksLikeApiKey(fullKey)) return null;
  return activeKeyByHash(db, hashApiKey(fullKey));
}

async function activeKeyByHash(db: Db, keyHash: string): Promise<ApiKey | null> {
  const row = await db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).where('is_active', '=', 1).executeTakeFirst();
  return row ? toApiKey(row) : null;
}

/** Keys remembered by an `ApiKeyVerifier` at most (all forgotten at once beyond). */
const VERIFIED_KEYS_MAX = 10_000;

/**
 * `verifyApiKey` for a server: a key found active is remembered (by its hash) for as long as
 * `store.dataVersion()` stays the same, that is until anything in the database is written, by
 * this process or another sharing it; then every key is looked up again. Unknown keys are never
 * remembered (a caller trying keys cannot grow the memory). Without a data version (PostgreSQL)
 * every call is a lookup.
 */
export class ApiKeyVerifier {
  readonly #store: Pick<Store, 'db' | 'dataVersion'>;
  readonly #active = new Map<string, ApiKey>();
  #version: string | undefined;

  constructor(store: Pick<Store, 'db' | 'dataVersion'>) {
    this.#store = store;
  }

  /**
   * The active key, or null. `version`: the store's data version as the caller's request arrived,
   * when it has read it already (one read per request); default: read now.
   */
  async verify(fullKey: string, version: string | undefined = this.#store.dataVersion()): Promise<ApiKey | null> {
    if (!looksLikeApiKey(fullKey)) return null;
    const keyHash = hashApiKey(fullKey);
    if (version === undefined) return activeKeyByHash(this.#store.db, keyHash);
    if (version === this.#version) {
      const known = this.#active.get(keyHash);
      if (known) return known;
    }
    // Read after `version` was: the answer holds for it if nothing was written since.
    const key = await activeKeyByHash(this.#store.db, keyHash);
    if (key && this.#store.dataVersion() === version) {
      if (version !== this.#version) {
        this.#active.clear();
        this.#version = version;
      }
      if (this.#active.size >= VERIFIED_KEYS_MAX) this.#active.clear();
      this.#active.set(keyHash, key);
    }
    return key;
  }
}
