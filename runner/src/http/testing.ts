/**
 * Test support for HTTP tests (ours and other route modules'): a real app on a real socket over
 * a fresh database, with one workspace and its owner's key.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createEngine, createWorkspace, fixedClock, systemClock, type Clock, type Engine } from '@chs/core';
import { defaultTestDialect, dropTestSchema, type TestDialect } from '@chs/core/testing';
import type { RunnerConfig } from '../config.js';
import { createLogger } from './logging.js';
import { buildApp } from './app.js';
import { createMetrics, type AppMetrics } from './metrics.js';
import { checkResponsesAgainstSchemas } from './contract-check.js';
import type { AppDeps } from './types.js';

/** A config for tests: no environment read, a temp data folder, silent logs. */
export function testConfig(overrides: Partial<RunnerConfig> = {}): RunnerConfig {
  return {
    databaseUrl: ':memory:',
    dataDir: mkdtempSync(join(tmpdir(), 'chs-test-')),
    now: undefined,
    secretKey: 'test-secret-key-test-secret-key-32b',
    smtpUrl: undefined,
    redisUrl: undefined,
    logLevel: 'silent',
    rateLimits: { perKeyMinute: 1000, perKeyHour: 10000, perWorkspaceMinute: 10000, perWorkspaceDay: 100000 },
    providers: {},
    ...overrides,
  };
}

export interface TestApp {
  app: FastifyInstance;
  engine: Engine;
  config: RunnerConfig;
  /** `http://127.0.0.1:<port>` (no `/api`). */
  baseUrl: string;
  workspaceId: string;
  /** The owner's first key (full). */
  apiKey: string;
  apiKeyId: string;
  ownerId: string;
  /** The app's Prometheus registry and recorders (given, or made here). */
  metrics: AppMetrics;
  /** fetch against the app; `key` (default: the owner's key, `null` for none) goes in `Authorization: Bearer`. */
  request(path: string, init?: RequestInit & { key?: string | null; json?: unknown }): Promise<Response>;
  /** Answers that did not match their operation's response schema (each was turned into a 500). */
  contractViolations: readonly string[];
  /** Closes the app; fails when any answer did not match the OpenAPI document. */
  close(): Promise<void>;
}

export interface StartTestAppOptions extends Partial<Omit<AppDeps, 'engine' | 'config'>> {
  /** Default: SQLite in memory; a fresh PostgreSQL schema when CHS_TEST_DATABASE=postgres (dropped on close). */
  dialect?: TestDialect;
  config?: Partial<RunnerConfig>;
  /** Default `acme.com`. */
  workspace?: string;
  /** Data clock (CHS_NOW) for the engine. Default: the wall clock. */
  now?: string;
  /** A clock of the test's own (one it moves); wins over `now`. */
  clock?: Clock;
}

export async function startTestApp(options: StartTestAppOptions = {}): Promise<TestApp> {
  const { dialect = defaultTestDialect(), config: overrides, workspace = 'acme.com', now, clock, ...rest } = options;
  const store = await dialect.open();
  const engine = await createEngine({ database: store, clock: clock ?? (now ? fixedClock(now) : systemClock) });
  const config = testConfig(overrides);
  const created = await createWorkspace(engine.store.db, { domain: workspace, name: 'Acme', ownerEmail: `ana@${workspace}`, ownerName: 'Ana Lima' });
  const metrics = rest.metrics ?? createMetrics(engine);
  const app = await buildApp({ engine, config, logger: createLogger({ level: config.logLevel }), ...rest, metrics });
  // Every answer is checked against the response schema of its operation (see contract-check.ts).
  const contract = checkResponsesAgainstSchemas(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    app,
    engine,
    config,
    baseUrl,
    workspaceId: created.workspace.id,
    apiKey: created.apiKey.key,
    apiKeyId: created.apiKey.id,
    ownerId: created.owner.id,
    metrics,
    request(path, init = {}) {
      const { key = created.apiKey.key, json, headers, ...rest } = init;
      const h = new Headers(headers);
      if (key !== null) h.set('authorization', `Bearer ${key}`);
      let body = rest.body;
      if (json !== undefined) {
        h.set('content-type', 'application/json');
        body = JSON.stringify(json);
      }
      return fetch(baseUrl + path, { ...rest, headers: h, ...(body !== undefined ? { body } : {}) });
    },
    contractViolations: contract.violations,
    async close() {
      await app.close();
      await engine.close();
      if (store.schema) await dropTestSchema(store.schema);
      if (contract.violations.length) throw new Error(`answers that do not match the OpenAPI document:\n${contract.violations.join('\n')}`);
    },
  };
}

/** What a browser sends as Accept: an OAuth callback answers it with a page rather than the error body. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** A browser arriving at an OAuth callback. Redirects are followed by hand, so each hop can be checked. */
export const landInBrowser = (url: URL | string): Promise<Response> => fetch(url, { redirect: 'manual', headers: { accept: BROWSER_ACCEPT } });

/** The page a refused OAuth callback answers a browser: its status and HTML checked, its text returned. */
export async function refusalPage(r: Response, status = 400): Promise<string> {
  const type = r.headers.get('content-type') ?? '';
  const text = await r.text();
  if (r.status !== status || !type.startsWith('text/html')) throw new Error(`expected a ${status} HTML page, got ${r.status} ${type}: ${text}`);
  return text;
}

/** `POST /api/integrations/<provider>/authorize` with the owner's key: the consent URL and its expiry. */
export async function authorizeIntegration(t: TestApp, provider: string): Promise<{ url: string; expiresAt: string }> {
  const r = await t.request(`/api/integrations/${provider}/authorize?workspaceId=${t.workspaceId}`, { method: 'POST' });
  if (r.status !== 200) throw new Error(`authorize ${provider}: ${r.status} ${await r.text()}`);
  return (await r.json()) as { url: string; expiresAt: string };
}

/** The browser on a provider's consent (install) screen: where the provider sends it back. */
export async function consentRedirect(url: string): Promise<URL> {
  const r = await fetch(url, { redirect: 'manual' });
  if (r.status !== 302) throw new Error(`the consent screen answered ${r.status}: ${await r.text()}`);
  return new URL(r.headers.get('location') ?? '');
}
