/**
 * The dashboard (`dashboard/`, built into dashboard/dist by `npm ci`) served by `chs serve` at
 * `/`, from this host only: no CDN, nothing fetched at run time.
 *
 * - Its files (`/index.html`, `/assets/<hashed>.js|css`) by @fastify/static, one route per file
 *   found at start-up (no wildcard: nothing outside the folder can be asked for). They need no
 *   key (the page signs in from the URL fragment, which browsers never send), and are counted
 *   per address like every request without a key. Hashed assets are cached for a year.
 * - Client routes (`/clients/…`, `/settings`): a browser's GET of a path outside `/api`,
 *   `/metrics` and `/assets` that asks for HTML answers index.html (the not-found handler, so the
 *   API's unknown paths, and every request not asking for HTML, keep the JSON 404).
 * - The page's headers: a strict Content-Security-Policy (scripts and connections to this origin
 *   only), no referrer, no framing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** dashboard/dist beside this package in a clone (the same from runner/src/http, runner/dist/http and runner/dist/bundle). */
const CLONE_DASHBOARD_DIR = fileURLToPath(new URL('../../../dashboard/dist/', import.meta.url));
/** The copy `npm pack` puts in the published package (scripts/pack-dashboard.mjs): runner/dist/dashboard. */
const PACKED_DASHBOARD_DIR = fileURLToPath(new URL('../dashboard/', import.meta.url));

/** The dashboard `chs serve` serves: the clone's build when there is one (always the fresh one), else the published copy; undefined when neither is built. */
export function findDashboard(): string | undefined {
  return [CLONE_DASHBOARD_DIR, PACKED_DASHBOARD_DIR].find(dashboardBuilt);
}

const DASHBOARD_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** True when `dir` holds a built dashboard. */
function dashboardBuilt(dir: string): boolean {
  return existsSync(join(dir, 'index.html'));
}

/** Paths that are never the page: the API, the metrics, and missing assets. */
const NOT_THE_PAGE = /^\/(api|metrics|assets)(\/|$)/;

/**
 * Registers the dashboard's files and returns the not-found handler that answers index.html to a
 * browser navigating to a client route, and `fallback` to everything else.
 */
export async function registerDashboard(
  app: FastifyInstance,
  dir: string,
  fallback: (request: FastifyRequest, reply: FastifyReply) => void,
): Promise<(request: FastifyRequest, reply: FastifyReply) => void> {
  const index = readFileSync(join(dir, 'index.html'));
  await app.register(async (scope) => {
    // Only the routes of this scope: no key, and not in the OpenAPI document.
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config ?? {}), public: true };
      route.schema = { ...(route.schema ?? {}), hide: true };
    });
    await scope.register(fastifyStatic, {
      root: dir,
      wildcard: false,
      index: false,
      serveDotFiles: false,
      cacheControl: false,
      setHeaders: (res, path) => {
        const immutable = /[\\/]assets[\\/]/.test(path);
        res.setHeader('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
        if (path.endsWith('.html')) for (const [k, v] of Object.entries(DASHBOARD_HEADERS)) res.setHeader(k, v);
      },
    });
  });
  return (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const wantsPage =
      (request.method === 'GET' || request.method === 'HEAD') && !NOT_THE_PAGE.test(path) && (request.headers.accept ?? '').includes('text/html');
    if (!wantsPage) return fallback(request, reply);
    void reply
      .status(200)
      .headers({ ...DASHBOARD_HEADERS, 'cache-control': 'no-cache' })
      .type('text/html; charset=utf-8')
      .send(index);
  };
}
