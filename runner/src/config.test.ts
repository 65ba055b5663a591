import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS } from '@chs/core';
import { loadConfig, loadSecretInputs } from './config.js';

const PG = 'postgres://chs@db.internal:5432/chs';

describe('scale-out settings in the config', () => {
  it('CHS_PG_POOL_SIZE: default 10, a positive integer, more than the job concurrency on PostgreSQL', () => {
    expect(loadConfig({ CHS_DATABASE_URL: PG }).pgPoolSize).toBe(10);
    expect(loadConfig({ CHS_DATABASE_URL: PG, CHS_PG_POOL_SIZE: '25' }).pgPoolSize).toBe(25);
    expect(() => loadConfig({ CHS_DATABASE_URL: PG, CHS_PG_POOL_SIZE: '0' })).toThrow(/CHS_PG_POOL_SIZE must be a positive integer/);
    expect(() => loadConfig({ CHS_DATABASE_URL: PG, CHS_PG_POOL_SIZE: 'ten' })).toThrow(/CHS_PG_POOL_SIZE/);
    // Two jobs could hold both connections for a whole batch and starve HTTP.
    expect(() => loadConfig({ CHS_DATABASE_URL: PG, CHS_PG_POOL_SIZE: '2', CHS_JOB_CONCURRENCY: '2' })).toThrow(/greater than CHS_JOB_CONCURRENCY \(2\)/);
    expect(loadConfig({ CHS_DATABASE_URL: PG, CHS_PG_POOL_SIZE: '3', CHS_JOB_CONCURRENCY: '2' }).pgPoolSize).toBe(3);
    // SQLite has no pool: the setting is not checked against the concurrency there.
    expect(loadConfig({ CHS_DATABASE_URL: '/tmp/x/chs.db', CHS_PG_POOL_SIZE: '1' }).pgPoolSize).toBe(1);
  });

  it('CHS_REDIS_URL is kept as given; absent or empty means per-runner counters', () => {
    expect(loadConfig({ CHS_REDIS_URL: 'redis://cache:6379/2' }).redisUrl).toBe('redis://cache:6379/2');
    expect(loadConfig({ CHS_REDIS_URL: '' }).redisUrl).toBeUndefined();
    expect(loadConfig({}).redisUrl).toBeUndefined();
  });

  it('CHS_MAX_API_KEYS, CHS_RATE_LIMIT_WORKSPACE_PER_MINUTE and CHS_EMAIL_FROM_ALLOWLIST: defaults and checks', () => {
    const d = loadConfig({});
    expect(d.maxApiKeys).toBe(20);
    expect(d.rateLimits.perWorkspaceMinute).toBe(300);
    expect(d.emailFromAllowList).toEqual([]);
    const c = loadConfig({
      CHS_MAX_API_KEYS: '5',
      CHS_RATE_LIMIT_WORKSPACE_PER_MINUTE: '120',
      CHS_EMAIL_FROM_ALLOWLIST: ' Mailer.Vendor.io, bot@relay.net  alerts.example.org ',
    });
    expect(c.maxApiKeys).toBe(5);
    expect(c.rateLimits.perWorkspaceMinute).toBe(120);
    expect(c.emailFromAllowList).toEqual(['mailer.vendor.io', 'bot@relay.net', 'alerts.example.org']);
    expect(() => loadConfig({ CHS_MAX_API_KEYS: '0' })).toThrow(/CHS_MAX_API_KEYS must be a positive integer/);
    expect(() => loadConfig({ CHS_RATE_LIMIT_WORKSPACE_PER_MINUTE: '-1' })).toThrow(/CHS_RATE_LIMIT_WORKSPACE_PER_MINUTE/);
    for (const bad of ['*', 'vendor', 'x@', '@vendor.io', 'http://vendor.io', '*.vendor.io']) {
      expect(() => loadConfig({ CHS_EMAIL_FROM_ALLOWLIST: bad }), bad).toThrow(/CHS_EMAIL_FROM_ALLOWLIST entries must be domains/);
    }
  });
});

describe('store and secret settings', () => {
  it('CHS_SQLITE_BUSY_TIMEOUT_MS: default 5000, a whole number of milliseconds (0: do not wait)', () => {
    expect(loadConfig({}).sqliteBusyTimeoutMs).toBe(5000);
    expect(loadConfig({ CHS_SQLITE_BUSY_TIMEOUT_MS: '250' }).sqliteBusyTimeoutMs).toBe(250);
    expect(loadConfig({ CHS_SQLITE_BUSY_TIMEOUT_MS: '0' }).sqliteBusyTimeoutMs).toBe(0);
    expect(() => loadConfig({ CHS_SQLITE_BUSY_TIMEOUT_MS: '-1' })).toThrow(/CHS_SQLITE_BUSY_TIMEOUT_MS must be a whole number of milliseconds/);
    expect(() => loadConfig({ CHS_SQLITE_BUSY_TIMEOUT_MS: '5s' })).toThrow(/CHS_SQLITE_BUSY_TIMEOUT_MS/);
  });

  it('keeps the secrets given to chs connect / chs secrets rotate out of the shared config', () => {
    const env = { CHS_CONNECT_ACCESS_TOKEN: 'tok-a', CHS_CONNECT_REFRESH_TOKEN: 'tok-r', CHS_CONNECT_CLIENT_SECRET: 'tok-c', CHS_NEW_SECRET_KEY: 'tok-k' };
    expect(loadSecretInputs(env)).toEqual({ accessToken: 'tok-a', refreshToken: 'tok-r', clientSecret: 'tok-c', newSecretKey: 'tok-k' });
    expect(loadSecretInputs({ CHS_CONNECT_ACCESS_TOKEN: '' }).accessToken).toBeUndefined();
    expect(JSON.stringify(loadConfig(env))).not.toMatch(/tok-/);
  });
});

describe('the HTTP sign-in settings', () => {
  it('CHS_PUBLIC_URL: an http(s) URL, trailing slash dropped; CHS_GOOGLE_CLIENT_ID and _SECRET go together; CHS_GOOGLE_REVOKE_URL', () => {
    expect(loadConfig({}).publicUrl).toBeUndefined();
    expect(loadConfig({ CHS_PUBLIC_URL: 'https://health.example.com/' }).publicUrl).toBe('https://health.example.com');
    expect(loadConfig({ CHS_PUBLIC_URL: 'http://10.0.0.5:8080/chs//' }).publicUrl).toBe('http://10.0.0.5:8080/chs');
    for (const bad of ['health.example.com', 'ftp://x.example', 'https://x.example/?a=1', 'https://u:p@x.example']) {
      expect(() => loadConfig({ CHS_PUBLIC_URL: bad }), bad).toThrow(/CHS_PUBLIC_URL/);
    }
    expect(loadConfig({}).googleOAuth).toBeUndefined();
    expect(loadConfig({ CHS_GOOGLE_CLIENT_ID: 'id.apps.googleusercontent.com', CHS_GOOGLE_CLIENT_SECRET: 's' }).googleOAuth).toEqual({
      clientId: 'id.apps.googleusercontent.com',
      clientSecret: 's',
    });
    expect(() => loadConfig({ CHS_GOOGLE_CLIENT_ID: 'id' })).toThrow(/go together/);
    expect(loadConfig({ CHS_GOOGLE_REVOKE_URL: 'http://127.0.0.1:9/revoke' }).providers.googleRevoke).toBe('http://127.0.0.1:9/revoke');
  });

  it('CHS_HUBSPOT_CLIENT_ID and _SECRET: the public app of the HubSpot install, both or neither (the secret never in the message); CHS_HUBSPOT_AUTH_URL', () => {
    expect(loadConfig({}).hubspotOAuth).toBeUndefined();
    expect(loadConfig({ CHS_HUBSPOT_CLIENT_ID: 'app-id', CHS_HUBSPOT_CLIENT_SECRET: 'app-secret' }).hubspotOAuth).toEqual({
      clientId: 'app-id',
      clientSecret: 'app-secret',
    });
    expect(() => loadConfig({ CHS_HUBSPOT_CLIENT_ID: 'app-id' })).toThrow(/CHS_HUBSPOT_CLIENT_ID and CHS_HUBSPOT_CLIENT_SECRET go together/);
    const err = (() => {
      try {
        loadConfig({ CHS_HUBSPOT_CLIENT_SECRET: 'secret-xyz' });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err?.message).toMatch(/go together/);
    expect(err?.message).not.toContain('secret-xyz');
    // Independent of Google's.
    expect(loadConfig({ CHS_HUBSPOT_CLIENT_ID: 'a', CHS_HUBSPOT_CLIENT_SECRET: 'b' }).googleOAuth).toBeUndefined();
    expect(loadConfig({ CHS_HUBSPOT_AUTH_URL: 'http://127.0.0.1:9/oauth/authorize' }).providers.hubspotAuth).toBe('http://127.0.0.1:9/oauth/authorize');
  });
});

describe('webhook settings', () => {
  it('defaults: public https targets only, 15 s per attempt, 8 at once, 1 s poll, the core retry schedule, disabled after 5 days', () => {
    const w = loadConfig({}).webhooks;
    expect(w).toEqual({
      allowPrivate: false,
      allowHttp: false,
      timeoutMs: 15_000,
      concurrency: 8,
      pollMs: 1000,
      retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
      disableAfterMs: 5 * 86_400_000,
    });
    expect(Object.isFrozen(w)).toBe(true);
  });

  it('CHS_WEBHOOKS_ALLOW_PRIVATE=1 allows private targets and http; CHS_WEBHOOKS_ALLOW_HTTP=1 allows http alone; anything but 1/0/true/false fails', () => {
    expect(loadConfig({ CHS_WEBHOOKS_ALLOW_PRIVATE: '1' }).webhooks).toMatchObject({ allowPrivate: true, allowHttp: true });
    expect(loadConfig({ CHS_WEBHOOKS_ALLOW_HTTP: '1' }).webhooks).toMatchObject({ allowPrivate: false, allowHttp: true });
    expect(loadConfig({ CHS_WEBHOOKS_ALLOW_PRIVATE: 'true', CHS_WEBHOOKS_ALLOW_HTTP: '0' }).webhooks).toMatchObject({ allowPrivate: true, allowHttp: true });
    expect(loadConfig({ CHS_WEBHOOKS_ALLOW_PRIVATE: '0', CHS_WEBHOOKS_ALLOW_HTTP: '' }).webhooks).toMatchObject({ allowPrivate: false, allowHttp: false });
    expect(() => loadConfig({ CHS_WEBHOOKS_ALLOW_PRIVATE: 'yes' })).toThrow(/CHS_WEBHOOKS_ALLOW_PRIVATE must be 1 or 0/);
    expect(() => loadConfig({ CHS_WEBHOOKS_ALLOW_HTTP: 'on' })).toThrow(/CHS_WEBHOOKS_ALLOW_HTTP must be 1 or 0/);
  });

  it('CHS_WEBHOOK_TIMEOUT_MS, _CONCURRENCY, _POLL_MS, _DISABLE_AFTER_MS: positive integers; _RETRY_SCHEDULE_MS: comma-separated milliseconds', () => {
    const w = loadConfig({
      CHS_WEBHOOK_TIMEOUT_MS: '2000',
      CHS_WEBHOOK_CONCURRENCY: '3',
      CHS_WEBHOOK_POLL_MS: '100',
      CHS_WEBHOOK_DISABLE_AFTER_MS: '60000',
      CHS_WEBHOOK_RETRY_SCHEDULE_MS: '200, 500,1000',
    }).webhooks;
    expect(w).toMatchObject({ timeoutMs: 2000, concurrency: 3, pollMs: 100, disableAfterMs: 60_000, retryScheduleMs: [200, 500, 1000] });
    for (const name of ['CHS_WEBHOOK_TIMEOUT_MS', 'CHS_WEBHOOK_CONCURRENCY', 'CHS_WEBHOOK_POLL_MS', 'CHS_WEBHOOK_DISABLE_AFTER_MS']) {
      expect(() => loadConfig({ [name]: '0' }), name).toThrow(new RegExp(`${name} must be a positive integer`));
      expect(() => loadConfig({ [name]: '1.5' }), name).toThrow(new RegExp(name));
    }
    for (const bad of ['5s,10s', '100,,200', '-1', '100;200']) {
      expect(() => loadConfig({ CHS_WEBHOOK_RETRY_SCHEDULE_MS: bad }), bad).toThrow(/CHS_WEBHOOK_RETRY_SCHEDULE_MS must be comma-separated whole numbers/);
    }
  });
});
