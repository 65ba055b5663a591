/**
 * Test support: the local Redis (127.0.0.1:6379, or CHS_TEST_REDIS_URL). In CI (`CI=true`) Redis
 * is required: its absence is a failure, not a skip. Elsewhere, when no server answers, Redis
 * cases are left out with a printed message.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.CHS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let available: Promise<boolean> | undefined;

export function redisAvailable(): Promise<boolean> {
  available ??= (async () => {
    const r = new Redis(TEST_REDIS_URL, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      connectTimeout: 2000,
      retryStrategy: () => null,
    });
    r.on('error', () => undefined);
    try {
      await r.connect();
      await r.ping();
      return true;
    } catch (err) {
      if (process.env.CI === 'true') throw new Error(`Redis is required in CI but ${TEST_REDIS_URL} did not answer: ${(err as Error).message}`, { cause: err });
      console.warn(`[chs tests] Redis at ${TEST_REDIS_URL} did not answer; Redis cases are left out locally (they run in CI).`);
      return false;
    } finally {
      r.disconnect();
    }
  })();
  return available;
}

/**
 * A TCP proxy in front of the test Redis, so a test can make "Redis" go away, hang or come back
 * without touching the shared server: `stop()` closes the port and every connection (connection
 * refused), `blackhole()` keeps accepting but never forwards or answers (a hung server), `start()`
 * on the same port brings it back.
 */
export class RedisProxy {
  readonly #target: { host: string; port: number };
  readonly #clients = new Set<Socket>();
  readonly #upstreams = new Set<Socket>();
  #server: Server | undefined;
  #blackhole = false;
  port = 0;

  constructor(targetUrl: string = TEST_REDIS_URL) {
    const u = new URL(targetUrl);
    this.#target = { host: u.hostname, port: Number(u.port || 6379) };
  }

  /** Listens on `port` (default: a free one, or the previous one when restarting). Resolves to the port. */
  async start(port = this.port): Promise<number> {
    this.#blackhole = false;
    const server = createServer((client) => {
      this.#clients.add(client);
      client.on('close', () => this.#clients.delete(client));
      client.on('error', () => client.destroy());
      if (this.#blackhole) {
        client.resume();
        return;
      }
      const upstream = connect(this.#target.port, this.#target.host);
      this.#upstreams.add(upstream);
      upstream.on('close', () => {
        this.#upstreams.delete(upstream);
        if (!this.#blackhole) client.destroy();
      });
      upstream.on('error', () => upstream.destroy());
      client.on('close', () => upstream.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.#server = server;
    this.port = (server.address() as AddressInfo).port;
    return this.port;
  }

  /** Redis gone: the port refuses connections and every open one is cut. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const s of [...this.#clients, ...this.#upstreams]) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Redis hung: connections stay open (new ones are accepted) but nothing is forwarded or answered. */
  blackhole(): void {
    this.#blackhole = true;
    for (const client of this.#clients) {
      client.unpipe();
      client.resume();
    }
    for (const u of this.#upstreams) {
      u.unpipe();
      u.destroy();
    }
  }
}
