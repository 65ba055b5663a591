/**
 * A local fake of the Gmail API and Google's token endpoint over a real socket, for end-to-end
 * tests of `chs sync` and the job runner, and for the benchmark. It answers in the real shapes
 * (paths, paging tokens, error envelopes) for the calls the connector makes:
 *
 *   GET  /o/oauth2/v2/auth                        the consent screen, answered at once: 302 to the
 *                                                 loopback redirect_uri with a code (or error=access_denied)
 *   POST /token                                   grant_type=authorization_code (PKCE S256 checked),
 *                                                 refresh_token, or the JWT bearer grant of a service
 *                                                 account with domain-wide delegation (RS256 signature
 *                                                 checked with its public key, iss, aud, scope, sub, exp)
 *   POST /revoke                                  token (query or form): a refresh token takes every
 *                                                 access token with it; unknown → 400 invalid_token
 *   GET  /gmail/v1/users/me/profile               1 unit
 *   GET  /gmail/v1/users/me/messages              5 units; q `after:<s> before:<s>`, newest first
 *   GET  /gmail/v1/users/me/messages/{id}         5 units; format=raw
 *   GET  /gmail/v1/users/me/history               2 units; historyTypes=messageAdded
 *
 * One mailbox per server. Point the connector at it with `apiUrl: server.apiUrl` and
 * `tokenUrl: server.tokenUrl` (or CHS_GOOGLE_API_URL / CHS_GOOGLE_TOKEN_URL for the CLI).
 */
import { createHash, createVerify } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeGmailMessage {
  id: string;
  threadId?: string;
  /** RFC 5322 bytes. */
  raw: Buffer | string;
  /** Epoch ms (Gmail's `internalDate`). */
  internalDate: number;
  labelIds?: string[];
}

export interface FakeGmailOptions {
  messages?: FakeGmailMessage[];
  emailAddress?: string;
  /** Access tokens accepted from the start. Default ['fake-access-token']. */
  accessTokens?: string[];
  /** The refresh token the token endpoint accepts. Default 'fake-refresh-token'. */
  refreshToken?: string;
  /** Lifetime of refreshed access tokens. Default 3600 s. */
  tokenLifetimeSeconds?: number;
  /** Per-user quota, as Gmail: 15,000 units per minute. Default off. */
  quota?: { units: number; windowMs: number } | false;
  /** Port; default 0 (any free port). */
  port?: number;
  /** Host; default 127.0.0.1. */
  host?: string;
  /** The OAuth client the consent flow must use. Default 'fake-client-id' / 'fake-client-secret'. */
  oauthClient?: { id: string; secret: string };
  /** What the user does on the consent screen. Default 'grant'. */
  consent?: 'grant' | 'deny';
  /**
   * Service accounts granted domain-wide delegation for `gmail.readonly` (the admin console's
   * "API controls"): their address and the public key of their private key (PEM). Default none.
   */
  serviceAccounts?: Array<{ clientEmail: string; publicKey: string }>;
}

export interface FakeGmailStats {
  requests: number;
  byPath: Record<string, number>;
  /** Codes exchanged for tokens (each verified against its PKCE challenge). */
  codeExchanges: number;
  tokenRefreshes: number;
  /** Access tokens issued to a service account for a delegated user (JWT bearer grant). */
  jwtGrants: number;
  /** Tokens revoked at the revoke endpoint. */
  revocations: number;
  throttled: number;
  unitsUsed: number;
}

export interface FakeGmailServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Root for googleapis (`rootUrl`). */
  readonly apiUrl: string;
  /** The OAuth token endpoint. */
  readonly tokenUrl: string;
  /** The consent endpoint (Google's `https://accounts.google.com/o/oauth2/v2/auth`). */
  readonly authUrl: string;
  /** The revoke endpoint (Google's `https://oauth2.googleapis.com/revoke`). */
  readonly revokeUrl: string;
  /** What the consent endpoint saw last (query parameters), for tests to check the request. */
  readonly lastConsent: Record<string, string> | undefined;
  readonly stats: FakeGmailStats;
  /** What the user does on the consent screen from now on. */
  setConsent(consent: 'grant' | 'deny'): void;
  /** Adds a message as newly arrived (a `messageAdded` history record). */
  addMessage(m: FakeGmailMessage): void;
  /** Every access token issued so far stops working (401) until refreshed. */
  expireAccessTokens(): void;
  /** The refresh token is revoked: refreshing answers 400 invalid_grant. */
  revokeRefreshToken(): void;
  /** History before the current history id is forgotten: older `startHistoryId`s get 404. */
  expireHistory(): void;
  /**
   * The next `times` requests whose path matches answer `status` with Gmail's error envelope;
   * `reason` (e.g. `dailyLimitExceeded`) overrides the one the status implies.
   */
  injectFailure(f: { path: RegExp; status: number; times: number; reason?: string }): void;
  close(): Promise<void>;
}

interface Stored {
  id: string;
  threadId: string;
  raw: Buffer;
  internalDate: number;
  labelIds: string[];
  historyId: number;
}

const COST: Record<string, number> = { profile: 1, list: 5, get: 5, history: 2 };

function gmailError(code: number, message: string, reason: string, status: string): object {
  return { error: { code, message, errors: [{ message, domain: code === 403 ? 'usageLimits' : 'global', reason }], status } };
}

/** `after:` / `before:` bounds of a Gmail query, as epoch ms (epoch seconds or YYYY/MM/DD). */
function parseQuery(q: string): { after?: number; before?: number } {
  const out: { after?: number; before?: number } = {};
  for (const m of q.matchAll(/\b(after|before):(\S+)/g)) {
    const v = m[2] ?? '';
    const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v.replace(/\//g, '-') + 'T08:00:00Z');
    if (Number.isFinite(ms)) out[m[1] as 'after' | 'before'] = ms;
  }
  return out;
}

export async function startFakeGmailServer(options: FakeGmailOptions = {}): Promise<FakeGmailServer> {
  let historyId = 1000;
  let oldestHistory = historyId;
  const messages = new Map<string, Stored>();
  const history: Array<{ id: number; messageId: string }> = [];
  const valid = new Set(options.accessTokens ?? ['fake-access-token']);
  let refreshToken: string | undefined = options.refreshToken ?? 'fake-refresh-token';
  const lifetime = options.tokenLifetimeSeconds ?? 3600;
  const quota = options.quota || undefined;
  let windowStart = Date.now();
  let windowUnits = 0;
  let issued = 0;
  const failures: Array<{ path: RegExp; status: number; times: number; reason?: string }> = [];
  const stats: FakeGmailStats = { requests: 0, byPath: {}, codeExchanges: 0, tokenRefreshes: 0, jwtGrants: 0, revocations: 0, throttled: 0, unitsUsed: 0 };
  const client = options.oauthClient ?? { id: 'fake-client-id', secret: 'fake-client-secret' };
  /** Codes handed out by the consent endpoint, single use: what they were issued for. */
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  let lastConsent: Record<string, string> | undefined;
  let consent = options.consent ?? 'grant';
  const issueAccessToken = () => {
    issued += 1;
    const token = `fake-access-${issued}-${Math.random().toString(36).slice(2, 10)}`;
    valid.add(token);
    return token;
  };

  const store = (m: FakeGmailMessage, record: boolean) => {
    historyId += 1;
    const s: Stored = {
      id: m.id,
      threadId: m.threadId ?? m.id,
      raw: Buffer.isBuffer(m.raw) ? m.raw : Buffer.from(m.raw),
      internalDate: m.internalDate,
      labelIds: m.labelIds ?? ['INBOX'],
      historyId,
    };
    messages.set(m.id, s);
    if (record) history.push({ id: historyId, messageId: m.id });
  };
  for (const m of options.messages ?? []) store(m, false);
  oldestHistory = historyId;
  // Newest first, as Gmail lists.
  const sorted = () => [...messages.values()].sort((a, b) => b.internalDate - a.internalDate || (a.id < b.id ? 1 : -1));

  const send = (res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
    res.end(JSON.stringify(body));
  };

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  /** Google's checks of a service account's signed assertion (RFC 7523), with its answers when refused. */
  const checkAssertion = (assertion: string): { status: number; error: string; description: string } | undefined => {
    const [h, p, sig] = assertion.split('.');
    const bad = (description: string) => ({ status: 400, error: 'invalid_grant', description });
    if (!h || !p || !sig) return bad('Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.');
    let header: { alg?: unknown; kid?: unknown };
    let claims: { iss?: unknown; sub?: unknown; aud?: unknown; scope?: unknown; iat?: unknown; exp?: unknown };
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as typeof header;
      claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return bad('Invalid JWT: not base64url JSON.');
    }
    const account = (options.serviceAccounts ?? []).find((a) => a.clientEmail === claims.iss);
    if (!account) return { status: 401, error: 'invalid_client', description: 'The OAuth client was not found.' };
    if (header.alg !== 'RS256' || !createVerify('RSA-SHA256').update(`${h}.${p}`).verify(account.publicKey, Buffer.from(sig, 'base64url'))) {
      return bad('Invalid JWT Signature.');
    }
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number' || claims.exp <= now || claims.iat > now + 60 || claims.exp - claims.iat > 3600) {
      return bad('Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.');
    }
    if (claims.aud !== 'https://oauth2.googleapis.com/token') return bad('Invalid JWT: Failed audience check.');
    if (claims.scope !== 'https://www.googleapis.com/auth/gmail.readonly') {
      return {
        status: 401,
        error: 'unauthorized_client',
        description: 'Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.',
      };
    }
    // Domain-wide delegation: the token is for the user named in `sub`, this mailbox.
    if (typeof claims.sub !== 'string' || claims.sub.toLowerCase() !== (options.emailAddress ?? 'me@fake.test').toLowerCase())
      return bad('Invalid email or User ID');
    return undefined;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname.replace(/\/{2,}/g, '/');
    stats.requests += 1;
    stats.byPath[path.replace(/messages\/[^/]+$/, 'messages/{id}')] = (stats.byPath[path.replace(/messages\/[^/]+$/, 'messages/{id}')] ?? 0) + 1;

    const failure = failures.find((f) => f.times > 0 && f.path.test(path));
    if (failure) {
      failure.times -= 1;
      const reason = failure.reason ?? (failure.status === 429 ? 'rateLimitExceeded' : failure.status >= 500 ? 'backendError' : 'failedPrecondition');
      return send(
        res,
        failure.status,
        gmailError(
          failure.status,
          failure.status >= 500 ? 'Backend Error' : 'Injected failure',
          reason,
          failure.status === 429 ? 'RESOURCE_EXHAUSTED' : 'UNAVAILABLE',
        ),
      );
    }

    if (req.method === 'GET' && path === '/o/oauth2/v2/auth') {
      // Google's checks of an installed app's request, then the user's choice, answered at once.
      const q = Object.fromEntries(url.searchParams);
      lastConsent = q;
      const redirect = q.redirect_uri ?? '';
      if (q.client_id !== client.id || !/^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):\d+/.test(redirect)) {
        res.writeHead(400, { 'content-type': 'text/html' });
        return void res.end('<h1>Error 400: invalid_request</h1><p>redirect_uri_mismatch or unknown client</p>');
      }
      const back = new URL(redirect);
      if (q.state !== undefined) back.searchParams.set('state', q.state);
      if (
        q.response_type !== 'code' ||
        q.code_challenge_method !== 'S256' ||
        !q.code_challenge ||
        q.scope !== 'https://www.googleapis.com/auth/gmail.readonly'
      ) {
        back.searchParams.set('error', 'invalid_request');
      } else if (consent === 'deny') {
        back.searchParams.set('error', 'access_denied');
      } else {
        const code = `4/0fake-${Math.random().toString(36).slice(2, 12)}`;
        codes.set(code, { challenge: q.code_challenge, redirectUri: redirect });
        back.searchParams.set('code', code);
        back.searchParams.set('scope', q.scope);
      }
      res.writeHead(302, { location: back.toString() });
      return void res.end();
    }

    if (req.method === 'POST' && path === '/token') {
      const form = new URLSearchParams(await readBody(req));
      if (form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
        const refused = checkAssertion(form.get('assertion') ?? '');
        if (refused) return send(res, refused.status, { error: refused.error, error_description: refused.description });
        stats.jwtGrants += 1;
        return send(res, 200, { access_token: issueAccessToken(), expires_in: lifetime, token_type: 'Bearer' });
      }
      if (form.get('grant_type') === 'authorization_code') {
        const issuedFor = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? ''); // single use, even when the exchange fails
        const verifier = form.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (form.get('client_id') !== client.id || form.get('client_secret') !== client.secret)
          return send(res, 401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
        if (!issuedFor || issuedFor.redirectUri !== form.get('redirect_uri'))
          return send(res, 400, { error: 'invalid_grant', error_description: 'Malformed auth code.' });
        if (challenge !== issuedFor.challenge) return send(res, 400, { error: 'invalid_grant', error_description: 'Invalid code verifier.' });
        stats.codeExchanges += 1;
        refreshToken = `1//fake-refresh-${Math.random().toString(36).slice(2, 12)}`;
        return send(res, 200, {
          access_token: issueAccessToken(),
          expires_in: lifetime,
          refresh_token: refreshToken,
          scope: 'https://www.googleapis.com/auth/gmail.readonly',
          token_type: 'Bearer',
        });
      }
      if (form.get('grant_type') !== 'refresh_token' || refreshToken === undefined || form.get('refresh_token') !== refreshToken) {
        return send(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
      }
      stats.tokenRefreshes += 1;
      return send(res, 200, {
        access_token: issueAccessToken(),
        expires_in: lifetime,
        scope: 'https://www.googleapis.com/auth/gmail.readonly',
        token_type: 'Bearer',
      });
    }

    if (req.method === 'POST' && path === '/revoke') {
      // Google takes the token in the query (google-auth-library) or the form body.
      const token = url.searchParams.get('token') ?? new URLSearchParams(await readBody(req)).get('token') ?? '';
      if (refreshToken !== undefined && token === refreshToken) {
        refreshToken = undefined;
        valid.clear();
      } else if (valid.has(token)) {
        valid.delete(token);
      } else {
        return send(res, 400, { error: 'invalid_token', error_description: 'Token expired or revoked' });
      }
      stats.revocations += 1;
      return send(res, 200, {});
    }

    const m = /^\/gmail\/v1\/users\/([^/]+)\/(profile|messages|history)(?:\/([^/]+))?$/.exec(path);
    if (!m || req.method !== 'GET') return send(res, 404, gmailError(404, 'Requested entity was not found.', 'notFound', 'NOT_FOUND'));

    const auth = req.headers.authorization ?? '';
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    if (!valid.has(token)) {
      return send(res, 401, {
        error: {
          code: 401,
          message: 'Invalid Credentials',
          errors: [{ domain: 'global', reason: 'authError', message: 'Invalid Credentials', locationType: 'header', location: 'Authorization' }],
          status: 'UNAUTHENTICATED',
        },
      });
    }

    const kind = m[2] === 'profile' ? 'profile' : m[2] === 'history' ? 'history' : m[3] ? 'get' : 'list';
    const cost = COST[kind] ?? 1;
    if (quota) {
      const now = Date.now();
      if (now - windowStart >= quota.windowMs) {
        windowStart = now;
        windowUnits = 0;
      }
      if (windowUnits + cost > quota.units) {
        stats.throttled += 1;
        const retryAfter = Math.max(1, Math.ceil((windowStart + quota.windowMs - now) / 1000));
        return send(
          res,
          429,
          gmailError(
            429,
            "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute per user' of service 'gmail.googleapis.com' for consumer 'project_number:0'.",
            'rateLimitExceeded',
            'RESOURCE_EXHAUSTED',
          ),
          { 'retry-after': String(quota.windowMs < 1000 ? (windowStart + quota.windowMs - now) / 1000 : retryAfter) },
        );
      }
      windowUnits += cost;
    }
    stats.unitsUsed += cost;

    if (kind === 'profile') {
      return send(res, 200, {
        emailAddress: options.emailAddress ?? 'me@fake.test',
        messagesTotal: messages.size,
        threadsTotal: new Set([...messages.values()].map((x) => x.threadId)).size,
        historyId: String(historyId),
      });
    }
    if (kind === 'get') {
      const msg = messages.get(decodeURIComponent(m[3] ?? ''));
      if (!msg) return send(res, 404, gmailError(404, 'Requested entity was not found.', 'notFound', 'NOT_FOUND'));
      const base = {
        id: msg.id,
        threadId: msg.threadId,
        labelIds: msg.labelIds,
        snippet: '',
        sizeEstimate: msg.raw.length,
        historyId: String(msg.historyId),
        internalDate: String(msg.internalDate),
      };
      if (url.searchParams.get('format') === 'raw') return send(res, 200, { ...base, raw: msg.raw.toString('base64url') });
      return send(res, 200, { ...base, payload: { partId: '', mimeType: 'message/rfc822', filename: '', headers: [], body: { size: msg.raw.length } } });
    }
    const maxResults = Math.min(500, Math.max(1, Number(url.searchParams.get('maxResults') ?? 100) || 100));
    const offset = Number(url.searchParams.get('pageToken') ?? 0) || 0;
    if (kind === 'list') {
      const { after, before } = parseQuery(url.searchParams.get('q') ?? '');
      const all = sorted().filter((x) => (after === undefined || x.internalDate >= after) && (before === undefined || x.internalDate < before));
      const page = all.slice(offset, offset + maxResults);
      if (all.length === 0) return send(res, 200, { resultSizeEstimate: 0 });
      return send(res, 200, {
        messages: page.map((x) => ({ id: x.id, threadId: x.threadId })),
        ...(offset + maxResults < all.length ? { nextPageToken: String(offset + maxResults) } : {}),
        resultSizeEstimate: all.length,
      });
    }
    // history
    const start = Number(url.searchParams.get('startHistoryId') ?? NaN);
    if (!Number.isFinite(start) || start < oldestHistory) return send(res, 404, gmailError(404, 'Requested entity was not found.', 'notFound', 'NOT_FOUND'));
    const records = history.filter((h) => h.id > start);
    const page = records.slice(offset, offset + maxResults);
    if (page.length === 0) return send(res, 200, { historyId: String(historyId) });
    return send(res, 200, {
      history: page.map((h) => {
        const msg = messages.get(h.messageId);
        const ref = { id: h.messageId, threadId: msg?.threadId ?? h.messageId };
        return { id: String(h.id), messages: [ref], messagesAdded: [{ message: { ...ref, labelIds: msg?.labelIds ?? ['INBOX'] } }] };
      }),
      ...(offset + maxResults < records.length ? { nextPageToken: String(offset + maxResults) } : {}),
      historyId: String(historyId),
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, gmailError(500, `fake server error: ${String(err)}`, 'backendError', 'INTERNAL')));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const url = `http://${options.host ?? '127.0.0.1'}:${addr.port}`;

  return {
    url,
    apiUrl: `${url}/`,
    tokenUrl: `${url}/token`,
    authUrl: `${url}/o/oauth2/v2/auth`,
    revokeUrl: `${url}/revoke`,
    get lastConsent() {
      return lastConsent;
    },
    stats,
    setConsent: (c) => {
      consent = c;
    },
    addMessage: (msg) => store(msg, true),
    expireAccessTokens: () => valid.clear(),
    revokeRefreshToken: () => {
      refreshToken = undefined;
    },
    expireHistory: () => {
      oldestHistory = historyId;
      history.length = 0;
    },
    injectFailure: (f) => void failures.push({ ...f }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
