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
  const app = await buildApp({ engine, config, logger: createLogger({ level: config.logLevel }), ...rest });
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
