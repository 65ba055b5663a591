/**
 * Is the store ready to serve? Reachable (a read answers within a budget) and migrated (every
 * migration this build ships has run). `GET /api/ready` answers 503 otherwise, so a load balancer
 * stops sending traffic to a runner whose database went away or is behind.
 */
import { Migrator } from 'kysely';
import { migrations } from './migrations/index.js';
import type { Store } from './database.js';

export interface StoreReadiness {
  /** Reachable and migrated. */
  ok: boolean;
  reachable: boolean;
  /** Migrations of this build not yet run (empty when migrated; empty too when unreachable). */
  pendingMigrations: string[];
  /** Why not ready, in words safe to show (no credentials). */
  problem?: string;
}

/** Default budget for the check: a probe must answer even when the database hangs. */
export const READINESS_TIMEOUT_MS = 2_000;

export async function checkStoreReadiness(store: Store, timeoutMs: number = READINESS_TIMEOUT_MS): Promise<StoreReadiness> {
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrations },
    ...(store.schema ? { migrationTableSchema: store.schema } : {}),
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const infos = await Promise.race([migrator.getMigrations(), timeout]);
    const pending = infos.filter((m) => m.executedAt === undefined).map((m) => m.name);
    return pending.length === 0
      ? { ok: true, reachable: true, pendingMigrations: [] }
      : { ok: false, reachable: true, pendingMigrations: pending, problem: `${pending.length} migration(s) not run: ${pending.join(', ')}` };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, reachable: false, pendingMigrations: [], problem: `database unreachable: ${message}` };
  } finally {
    clearTimeout(timer);
  }
}
