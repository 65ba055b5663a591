/**
 * A local fake of a HubSpot public app's OAuth and of the CRM reads a sync makes, over a real
 * socket, for end-to-end tests of the install flows (HTTP and `chs connect hubspot`). It answers
 * in HubSpot's shapes (paths, form fields, error bodies; docs/connectors.md, the shared provider
 * reference):
 *
 *   GET  /oauth/authorize                      the install screen, answered at once: 302 to the
 *                                              redirect_uri with `code` and `state` (or
 *                                              `error=access_denied`); an unknown client_id or a
 *                                              redirect_uri the app does not list is a 400 page
 *   POST /oauth/v1/token                       form: grant_type=authorization_code (client_id,
 *                                              client_secret, redirect_uri and the single-use code
 *                                              checked) or refresh_token → {token_type: "bearer",
 *                                              refresh_token, access_token, expires_in: 1800};
 *                                              refusals 400 {status: BAD_AUTH_CODE | BAD_CLIENT_ID |
 *                                              BAD_CLIENT_SECRET | MISMATCH_REDIRECT_URI_AUTH_CODE |
 *                                              BAD_REFRESH_TOKEN | BAD_GRANT_TYPE, message, correlationId}
 *   POST /crm/v3/objects/companies/search      the companies, `hs_lastmodifieddate` GTE/LT range, paged
 *   POST /crm/v3/objects/{other}/search        none
 *   GET  /crm/v3/owners/                       none
 *
 * CRM calls need a live access token: an unknown one is 401 INVALID_AUTHENTICATION, one past its
 * 30 minutes (or after `expireAccessTokens()`) 401 EXPIRED_AUTHENTICATION.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeHubSpotCompany {
  id: string;
  name: string;
  domain: string;
  /** ISO 8601. */
  updatedAt: string;
}

export interface FakeHubSpotOptions {
  /** The public app. Default id 'fake-app-id', secret 'fake-app-secret'. */
  app?: { clientId: string; clientSecret: string };
  /** The app's redirect URLs (its Auth settings); the install screen refuses any other. Default: any. */
  redirectUrls?: string[];
  companies?: FakeHubSpotCompany[];
  /** What the user does on the install screen. Default 'grant'. */
  consent?: 'grant' | 'deny';
}

export interface FakeHubSpotStats {
  /** Codes exchanged for tokens (client, secret, redirect URI and code all checked). */
  codeExchanges: number;
  tokenRefreshes: number;
  /** Token requests refused, by HubSpot's status (BAD_AUTH_CODE…). */
  refusals: Record<string, number>;
  crmCalls: number;
}

export interface FakeHubSpotServer {
  /** `http://127.0.0.1:<port>`: the API root (CHS_HUBSPOT_API_URL). */
  readonly apiUrl: string;
  /** The install screen (CHS_HUBSPOT_AUTH_URL; HubSpot's `https://app.hubspot.com/oauth/authorize`). */
  readonly authUrl: string;
  /** What the install screen saw last (its query). */
  readonly lastInstall: Record<string, string> | undefined;
  readonly stats: FakeHubSpotStats;
  setConsent(consent: 'grant' | 'deny'): void;
  /** Every access token issued so far is past its 30 minutes (401 EXPIRED_AUTHENTICATION) until refreshed. */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

const TOKEN_LIFETIME_S = 1800;

export async function startFakeHubSpotServer(opts: FakeHubSpotOptions = {}): Promise<FakeHubSpotServer> {
  const app = opts.app ?? { clientId: 'fake-app-id', clientSecret: 'fake-app-secret' };
  let consent = opts.consent ?? 'grant';
  const companies = [...(opts.companies ?? [])].sort((a, b) => a.updatedAt.localeCompare(b.updatedAt));
  /** Issued codes: the redirect URI each was issued for; deleted when exchanged. */
  const codes = new Map<string, string>();
  const refreshTokens = new Set<string>();
  /** Access token → when it expires (epoch ms). */
  const accessTokens = new Map<string, number>();
  const stats: FakeHubSpotStats = { codeExchanges: 0, tokenRefreshes: 0, refusals: {}, crmCalls: 0 };
  let lastInstall: Record<string, string> | undefined;

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json;charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, status: string, message: string) => {
    stats.refusals[status] = (stats.refusals[status] ?? 0) + 1;
    json(res, 400, { status, message, correlationId: randomUUID(), requestId: randomUUID() });
  };
  const issue = (res: ServerResponse, refreshToken: string) => {
    const accessToken = `CJT-${randomBytes(12).toString('base64url')}`;
    accessTokens.set(accessToken, Date.now() + TOKEN_LIFETIME_S * 1000);
    json(res, 200, { token_type: 'bearer', refresh_token: refreshToken, access_token: accessToken, expires_in: TOKEN_LIFETIME_S });
  };

  function install(q: URLSearchParams, res: ServerResponse): void {
    lastInstall = Object.fromEntries(q);
    const redirect = q.get('redirect_uri') ?? '';
    const page = (text: string) => {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Authorization error</title><p>${text}</p>`);
    };
    if (q.get('client_id') !== app.clientId) return page('Invalid client_id');
    if (!redirect || (opts.redirectUrls && !opts.redirectUrls.includes(redirect))) return page('The redirect URL does not match the app’s redirect URLs');
    const back = new URL(redirect);
    if (consent === 'deny') {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The user declined to install the app');
    } else {
      const code = randomUUID();
      codes.set(code, redirect);
      back.searchParams.set('code', code);
    }
    const state = q.get('state');
    if (state !== null) back.searchParams.set('state', state);
    res.writeHead(302, { location: back.toString() });
    res.end();
  }

  function token(form: URLSearchParams, res: ServerResponse): void {
    if (form.get('client_id') !== app.clientId) return refuse(res, 'BAD_CLIENT_ID', 'missing or unknown client id');
    if (form.get('client_secret') !== app.clientSecret) return refuse(res, 'BAD_CLIENT_SECRET', 'missing or invalid client secret');
    const grant = form.get('grant_type');
    if (grant === 'authorization_code') {
      const code = form.get('code') ?? '';
      const issuedFor = codes.get(code);
      if (issuedFor === undefined) return refuse(res, 'BAD_AUTH_CODE', 'missing or unknown auth code');
      if (form.get('redirect_uri') !== issuedFor) return refuse(res, 'MISMATCH_REDIRECT_URI_AUTH_CODE', 'redirect_uri does not match initial auth code URL');
      codes.delete(code);
      stats.codeExchanges++;
      const refreshToken = randomUUID();
      refreshTokens.add(refreshToken);
      return issue(res, refreshToken);
    }
    if (grant === 'refresh_token') {
      const refreshToken = form.get('refresh_token') ?? '';
      if (!refreshTokens.has(refreshToken)) return refuse(res, 'BAD_REFRESH_TOKEN', 'missing or invalid refresh token');
      stats.tokenRefreshes++;
      return issue(res, refreshToken);
    }
    refuse(res, 'BAD_GRANT_TYPE', `unknown grant_type ${grant ?? ''}`);
  }

  function crm(req: IncomingMessage, path: string, body: string, res: ServerResponse): void {
    stats.crmCalls++;
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const expires = accessTokens.get(bearer);
    const authError = (message: string, category: string) => json(res, 401, { status: 'error', message, correlationId: randomUUID(), category });
    if (expires === undefined) return authError('Authentication credentials not found.', 'INVALID_AUTHENTICATION');
    if (expires <= Date.now())
      return authError(`The OAuth token used to make this call expired ${Math.ceil((Date.now() - expires) / 1000)} second(s) ago.`, 'EXPIRED_AUTHENTICATION');
    if (req.method === 'GET' && path === '/crm/v3/owners/') return json(res, 200, { results: [] });
    const search = /^\/crm\/v3\/objects\/([a-z_]+)\/search$/.exec(path);
    if (req.method !== 'POST' || !search)
      return json(res, 404, { status: 'error', message: `no route for ${req.method} ${path}`, correlationId: randomUUID() });
    if (search[1] !== 'companies') return json(res, 200, { total: 0, results: [] });
    const r = JSON.parse(body || '{}') as {
      filterGroups?: Array<{ filters?: Array<{ operator: string; value: string }> }>;
      limit?: number;
      after?: string;
    };
    const filters = r.filterGroups?.[0]?.filters ?? [];
    const gte = Number(filters.find((f) => f.operator === 'GTE')?.value ?? 0);
    const lt = Number(filters.find((f) => f.operator === 'LT')?.value ?? Number.MAX_SAFE_INTEGER);
    const all = companies.filter((c) => Date.parse(c.updatedAt) >= gte && Date.parse(c.updatedAt) < lt);
    const from = Number(r.after ?? 0);
    const page = all.slice(from, from + (r.limit ?? 10));
    json(res, 200, {
      total: all.length,
      results: page.map((c) => ({
        id: c.id,
        properties: { name: c.name, domain: c.domain, hs_lastmodifieddate: c.updatedAt, hs_object_id: c.id },
        createdAt: c.updatedAt,
        updatedAt: c.updatedAt,
        archived: false,
      })),
      ...(from + page.length < all.length ? { paging: { next: { after: String(from + page.length) } } } : {}),
    });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'GET' && url.pathname === '/oauth/authorize') return install(url.searchParams, res);
      if (req.method === 'POST' && url.pathname === '/oauth/v1/token') return token(new URLSearchParams(body), res);
      crm(req, url.pathname, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl,
    authUrl: `${apiUrl}/oauth/authorize`,
    get lastInstall() {
      return lastInstall;
    },
    stats,
    setConsent: (c) => void (consent = c),
    expireAccessTokens: () => {
      for (const t of accessTokens.keys()) accessTokens.set(t, Date.now() - 75_000);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
