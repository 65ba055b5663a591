/**
 * Embedding: another Fastify service builds the API from the runner's package entry (index.ts, what
 * `@chs/runner` exports) with its own engine and config, and mounts it on its own server under /api.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, createWorkspace, type Engine } from '@chs/core';
import { API_PREFIX, buildApp, loadConfig, type AppDeps } from './index.js';

describe('the API mounted in another Fastify service', () => {
  const host = Fastify();
  let engine: Engine;
  let base = '';
  let key = '';

  beforeAll(async () => {
    engine = await createEngine({ database: ':memory:' });
    const created = await createWorkspace(engine.store.db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
    key = created.apiKey.key;
    const config = loadConfig({ CHS_DATABASE_URL: ':memory:', CHS_DATA_DIR: mkdtempSync(join(tmpdir(), 'chs-embed-')), CHS_LOG_LEVEL: 'silent' });
    const deps: AppDeps = { engine, config };
    const api = await buildApp(deps);
    await api.ready();
    // The host keeps its own routes and hands everything under /api to the API's router.
    host.get('/hello', () => ({ from: 'host' }));
    host.all(`${API_PREFIX}/*`, (request, reply) => {
      reply.hijack();
      api.routing(request.raw, reply.raw);
    });
    host.addHook('onClose', async () => api.close());
    await host.listen({ port: 0, host: '127.0.0.1' });
    const address = host.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(async () => {
    await host.close();
    await engine.close();
  });

  it('serves its own routes and the API side by side', async () => {
    expect(await (await fetch(`${base}/hello`)).json()).toEqual({ from: 'host' });
    const health = await fetch(`${base}/api/health`);
    expect(health.status).toBe(200);
  });

  it('answers an authenticated read and refuses a request without a key', async () => {
    const settings = await fetch(`${base}/api/settings?workspaceId=acme.com`, { headers: { authorization: `Bearer ${key}` } });
    expect(settings.status).toBe(200);
    const body = (await settings.json()) as { workspace?: { workspaceName?: string } };
    expect(body.workspace?.workspaceName).toBe('Acme');
    const anonymous = await fetch(`${base}/api/settings?workspaceId=acme.com`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { code?: string }).code).toBe('AUTH_INVALID_KEY');
  });
});
