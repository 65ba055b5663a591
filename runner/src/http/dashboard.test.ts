/**
 * The dashboard served at `/` (dashboard.ts): its files without a key, the page for a browser's
 * client route, the JSON 404 for everything else, and the API untouched.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './testing.js';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const PAGE = '<!doctype html><html><head><script type="module" src="/assets/app-1a2b3c.js"></script></head><body><div id="app"></div></body></html>';

describe('the dashboard at /', () => {
  let dir: string;
  let t: TestApp;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chs-dashboard-'));
    mkdirSync(join(dir, 'assets'));
    mkdirSync(join(dir, '.vite'));
    writeFileSync(join(dir, 'index.html'), PAGE);
    writeFileSync(join(dir, 'assets', 'app-1a2b3c.js'), 'console.log("app");\n');
    writeFileSync(join(dir, '.vite', 'manifest.json'), '{}');
    t = await startTestApp({ dashboardDir: dir });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the page at / and its assets without a key, counted per address, the page with a strict policy', async () => {
    const page = await t.request('/', { key: null, headers: HTML });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toBe(PAGE);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('x-ratelimit-limit')).not.toBeNull();

    const asset = await t.request('/assets/app-1a2b3c.js', { key: null });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('x-ratelimit-remaining')).not.toBeNull();
    expect(await asset.text()).toContain('console.log');

    const direct = await t.request('/index.html', { key: null });
    expect(direct.status).toBe(200);
    expect(direct.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('answers the page to a browser on a client route, and the JSON 404 elsewhere', async () => {
    for (const path of ['/clients', '/clients/cli_123', '/settings?tab=keys', '/sources']) {
      const res = await t.request(path, { key: null, headers: HTML });
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toBe(PAGE);
    }
    // Not asking for HTML (curl, fetch), an unknown API path, a missing asset, a dot file, a POST.
    const json404 = async (path: string, init: RequestInit & { key?: string | null } = {}) => {
      const res = await t.request(path, { key: null, ...init });
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { code: string }).code, path).toBe('NOT_FOUND');
    };
    await json404('/clients');
    await json404('/api/nope', { headers: HTML });
    await json404('/assets/gone-000.js', { headers: HTML });
    await json404('/.vite/manifest.json');
    await json404('/../package.json');
    await json404('/clients', { method: 'POST', headers: HTML });
  });

  it('leaves the API as it was: a key is still needed, the OpenAPI document lists no dashboard file', async () => {
    const noKey = await t.request(`/api/clients?workspaceId=${t.workspaceId}`, { key: null, headers: HTML });
    expect(noKey.status).toBe(401);
    expect((await t.request(`/api/clients?workspaceId=${t.workspaceId}`)).status).toBe(200);
    const doc = (await (await t.request('/api/openapi.json', { key: null })).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/'))).toEqual([]);
  });
});
