/**
 * Test support: the local Redis (127.0.0.1:6379, or CHS_TEST_REDIS_URL). In CI (`CI=true`) Redis
 * is required: its absence is a failure, not a skip. Elsewhere, when no server answers, Redis
 * cases are left out with a printed message.
 */
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.CHS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let available: Promise<boolean> | undefined;

export function redisAvailable(): Promise<boolean> {
  available ??= (async () => {
    const r = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 2000, retryStrategy: () => null });
    r.on('error', () => undefined);
    try {
      await r.connect();
      await r.ping();
      return true;
    } catch (err) {
      if (process.env.CI === 'true') throw new Error(`Redis is required in CI but ${TEST_REDIS_URL} did not answer: ${(err as Error).message}`);
      console.warn(`[chs tests] Redis at ${TEST_REDIS_URL} did not answer; Redis cases are left out locally (they run in CI).`);
      return false;
    } finally {
      r.disconnect();
    }
  })();
  return available;
}
