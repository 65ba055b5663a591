/**
 * Once per `vitest run`: names this run's PostgreSQL test databases (each test file gets one of
 * its own, see packages/core/src/store/testing.ts) and drops them all when the run ends, so a
 * run leaves nothing behind and two runs on one server never touch each other's databases.
 */
import { randomBytes } from 'node:crypto';
import { dropTestRunDatabases, TEST_PG_RUN_ENV } from './packages/core/src/store/testing.js';

export function setup(): () => Promise<void> {
  const run = `chs_t${randomBytes(4).toString('hex')}`;
  process.env[TEST_PG_RUN_ENV] = run;
  return async () => {
    try {
      await dropTestRunDatabases(run);
    } catch (err) {
      // Locally without a server there is nothing to drop; in CI the server must answer.
      if (process.env.CI === 'true') throw err;
    }
  };
}
