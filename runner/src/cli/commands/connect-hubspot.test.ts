/**
 * `chs connect hubspot` for a public app (OAuth): the client id, the client secret from a file and
 * the install's refresh token from the environment; a first 30-minute access token is fetched at
 * once (HubSpot's token endpoint, nock, the real @hubspot/api-client), stored encrypted with its
 * expiry; a refresh token HubSpot refuses is a clear OAUTH_FAILED and nothing is stored. A
 * private-app token alone still connects as before. `--renewal-pipeline` maps the pipeline whose
 * closed deals are renewal outcomes, with the connection or alone on the one the workspace has.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, createWorkspace, getHubSpotSettings, getIntegrationCredentials, integrationStatus, loadOrCreateSecretKey } from '@chs/core';
import { main } from '../main.js';
import { captureContext } from '../testing.js';

const API = 'https://api.hubapi.com';

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => {
  nock.cleanAll();
  process.exitCode = undefined;
});

async function setup(): Promise<{ db: string; dir: string; secretFile: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'chs-connect-hubspot-'));
  const db = join(dir, 'chs.db');
  const engine = await createEngine({ database: db });
  await createWorkspace(engine.store.db, { domain: 'acme.test', name: 'Acme', ownerEmail: 'ana@acme.test' });
  await engine.close();
  const secretFile = join(dir, 'client-secret');
  writeFileSync(secretFile, 'app-secret-xyz\n', { mode: 0o600 });
  return { db, dir, secretFile };
}

describe('chs connect hubspot (public app)', () => {
  it('fetches a first access token with the refresh token and stores the app tokens encrypted, with their expiry', async () => {
    const { db, dir, secretFile } = await setup();
    let form: Record<string, string> = {};
    nock(API)
      .post('/oauth/v1/token', (b: Record<string, string>) => ((form = { ...b }), true))
      .reply(200, { token_type: 'bearer', access_token: 'CJT-first', refresh_token: 'rt-1', expires_in: 1800 });
    const env = { CHS_DATA_DIR: dir, CHS_CONNECT_REFRESH_TOKEN: 'rt-1' };
    const { ctx, stdout, stderr } = captureContext(env);
    const code = await main(
      ['node', 'chs', '--db', db, 'connect', 'hubspot', '--workspace', 'acme.test', '--client-id', 'app-1', '--client-secret-file', secretFile],
      ctx,
    );
    expect(code, stderr.text).toBe(0);
    expect(form).toEqual({ grant_type: 'refresh_token', refresh_token: 'rt-1', client_id: 'app-1', client_secret: 'app-secret-xyz' });
    expect(stdout.text).toContain('Connected hubspot for acme.test.');
    expect(`${stdout.text}${stderr.text}`).not.toMatch(/CJT-first|rt-1|app-secret-xyz/);

    const engine = await createEngine({ database: db });
    try {
      const creds = await getIntegrationCredentials(engine.store.db, loadOrCreateSecretKey(dir), 'acme.test', 'hubspot');
      expect(creds).toMatchObject({ accessToken: 'CJT-first', refreshToken: 'rt-1', clientId: 'app-1', clientSecret: 'app-secret-xyz' });
      const status = await integrationStatus(engine.store.db, 'acme.test', 'hubspot');
      expect(status).toMatchObject({ connected: true, hasRefresh: true });
      expect(Date.parse(status.expiresAt ?? '') - Date.now()).toBeGreaterThan(29 * 60_000);
    } finally {
      await engine.close();
    }
  });

  it('a refresh token HubSpot refuses: OAUTH_FAILED, nothing stored; half of the app flags is refused', async () => {
    const { db, dir, secretFile } = await setup();
    nock(API).post('/oauth/v1/token').reply(400, { status: 'BAD_REFRESH_TOKEN', message: 'missing or invalid refresh token', correlationId: 'c1' });
    const bad = captureContext({ CHS_DATA_DIR: dir, CHS_CONNECT_REFRESH_TOKEN: 'rt-dead' });
    expect(
      await main(
        ['node', 'chs', '--db', db, 'connect', 'hubspot', '--workspace', 'acme.test', '--client-id', 'app-1', '--client-secret-file', secretFile],
        bad.ctx,
      ),
    ).toBe(1);
    expect(bad.stderr.text).toMatch(/HubSpot refused the refresh token \(BAD_REFRESH_TOKEN \(missing or invalid refresh token\)\) \[OAUTH_FAILED\]/);

    const half = captureContext({ CHS_DATA_DIR: dir, CHS_CONNECT_REFRESH_TOKEN: 'rt-1' });
    expect(await main(['node', 'chs', '--db', db, 'connect', 'hubspot', '--workspace', 'acme.test', '--client-id', 'app-1'], half.ctx)).toBe(1);
    expect(half.stderr.text).toMatch(/--client-id, a client secret and a refresh token together/);

    const engine = await createEngine({ database: db });
    try {
      expect((await integrationStatus(engine.store.db, 'acme.test', 'hubspot')).connected).toBe(false);
    } finally {
      await engine.close();
    }
  });
});

describe('chs connect hubspot --renewal-pipeline', () => {
  it('maps the renewal pipeline as it connects, alone on the connection it has, and --no-renewal-pipeline unmaps it', async () => {
    const { db, dir } = await setup();
    const run = async (args: string[], env: Record<string, string> = {}) => {
      const c = captureContext({ CHS_DATA_DIR: dir, ...env });
      const code = await main(['node', 'chs', '--db', db, 'connect', ...args], c.ctx);
      return { code, out: c.stdout.text, err: c.stderr.text };
    };
    const settings = async () => {
      const engine = await createEngine({ database: db });
      try {
        return await getHubSpotSettings(engine.store.db, 'acme.test');
      } finally {
        await engine.close();
      }
    };
    // Settings alone before HubSpot is connected: there is nothing to set them on.
    const early = await run(['hubspot', '--workspace', 'acme.test', '--renewal-pipeline', '31415926']);
    expect(early.code).toBe(1);
    expect(early.err).toMatch(/INTEGRATION_NOT_CONNECTED/);

    const connected = await run(['hubspot', '--workspace', 'acme.test', '--renewal-pipeline', '31415926'], { CHS_CONNECT_ACCESS_TOKEN: 'pat-na1-x' });
    expect(connected.code, connected.err).toBe(0);
    expect(connected.out).toContain('Connected hubspot for acme.test.');
    expect(connected.out).toContain('HubSpot renewal pipeline for acme.test: 31415926');
    expect(await settings()).toEqual({ renewalPipelineId: '31415926' });

    // A reconnect without the flag keeps it; the flag alone changes it without touching the token.
    expect((await run(['hubspot', '--workspace', 'acme.test'], { CHS_CONNECT_ACCESS_TOKEN: 'pat-na1-y' })).code).toBe(0);
    expect(await settings()).toEqual({ renewalPipelineId: '31415926' });
    const alone = await run(['hubspot', '--workspace', 'acme.test', '--renewal-pipeline', 'default', '--json']);
    expect(alone.code, alone.err).toBe(0);
    expect(JSON.parse(alone.out)).toEqual({ provider: 'hubspot', workspaceId: 'acme.test', renewalPipelineId: 'default' });
    const engine = await createEngine({ database: db });
    try {
      expect(await getIntegrationCredentials(engine.store.db, loadOrCreateSecretKey(dir), 'acme.test', 'hubspot')).toEqual({ accessToken: 'pat-na1-y' });
    } finally {
      await engine.close();
    }

    const unmapped = await run(['hubspot', '--workspace', 'acme.test', '--no-renewal-pipeline']);
    expect(unmapped.code, unmapped.err).toBe(0);
    expect(unmapped.out).toContain('none (no deal is read');
    expect(await settings()).toEqual({ renewalPipelineId: null });

    expect((await run(['hubspot', '--workspace', 'acme.test', '--renewal-pipeline', 'two words'])).err).toMatch(/INVALID_INPUT/);
    expect((await run(['intercom', '--workspace', 'acme.test', '--renewal-pipeline', '1'], { CHS_CONNECT_ACCESS_TOKEN: 't' })).err).toMatch(
      /--renewal-pipeline applies to hubspot only/,
    );
  });
});
