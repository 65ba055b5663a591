/**
 * A local fake of the Intercom REST API (version 2.11) over a real socket, for end-to-end tests of
 * whole syncs through `chs serve` (CHS_INTERCOM_API_URL) and for benchmarks. It answers the calls
 * the connector makes in Intercom's shapes (the 2.11 OpenAPI description and the shared provider
 * reference):
 *
 *   POST /contacts/search             {query, pagination: {per_page ≤ 150, starting_after}} →
 *                                     {type: "list", data, total_count, pages: {type: "pages", page,
 *                                     per_page, total_pages, next?: {page, starting_after}}}
 *   POST /conversations/search        the same → {type: "conversation.list", conversations, …}
 *                                     (no conversation_parts, as the real list)
 *   GET  /conversations/{id}          the conversation with its parts (the 500 most recent);
 *                                     `display_as=plaintext` gives the bodies as text
 *   GET  /companies/{id}              the company; unknown: 404 company_not_found
 *
 * A query is a single filter `{field, operator, value}` or `{operator: AND|OR, value: [...]}`
 * (nested at most twice): `=` `!=` `IN` `NIN` `>` `<` `>=` `<=` `~` `!~` `^` `$`. Date fields
 * (`created_at`, `updated_at`) take `=`, `>` and `<` only (others are a 400); on contacts they match
 * by calendar day (UTC here, the workspace's time zone at Intercom): `>` from the start of the next
 * day, `<` before the start of the day. Rows come oldest change first; `starting_after` is an
 * opaque base64 cursor (the last row's `[updated_at ms, id, page]`, as Intercom's look).
 *
 * Every call needs `Authorization: Bearer <one of accessTokens>` (else 401 `unauthorized`) and
 * `Accept: application/json` (else 406). Errors are `{type: "error.list", request_id, errors:
 * [{code, message}]}`. `delayMs` makes every call take that long (a sync then lasts long enough to
 * watch); `rateLimit` sends X-RateLimit-Limit / -Remaining / -Reset (epoch seconds) and answers
 * what goes over a window with 429 `rate_limit_exceeded`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeIntercomCompany {
  /** Intercom's id. */
  id: string;
  name: string;
  /** Often absent at Intercom: the connector then takes the domain of the company's contacts. */
  website?: string | null;
  monthlySpend?: number;
  /** `company_id`: the id the workspace gave it. Default `crm-<id>`. */
  companyId?: string;
  /** Epoch seconds. Default 1700000000. */
  createdAt?: number;
}

export interface FakeIntercomContact {
  id: string;
  email: string | null;
  name?: string | null;
  /** Default 'user'. */
  role?: 'user' | 'lead';
  /** Epoch seconds. */
  updatedAt: number;
  /** Epoch seconds. Default `updatedAt`. */
  createdAt?: number;
  /** The companies it belongs to (the first 10 are embedded, as Intercom's). */
  companyIds?: string[];
  /** custom_attributes.job_title. */
  jobTitle?: string;
}

export interface FakeIntercomPart {
  /** A contact's id (the customer writes), or 'admin' (a teammate). */
  by: string;
  body: string;
  /** Default 'comment'. */
  partType?: 'comment' | 'note' | 'open' | 'close' | 'assignment';
  /** Epoch seconds. Default the conversation's updatedAt. */
  createdAt?: number;
}

export interface FakeIntercomConversation {
  id: string;
  /** Epoch seconds. */
  createdAt: number;
  /** Epoch seconds. */
  updatedAt: number;
  title?: string | null;
  /** The first message: its author (a contact's id, or 'admin'), subject and HTML body. */
  source: { by: string; body: string; subject?: string; type?: 'conversation' | 'email' };
  /** The contacts in it. Default the source's author when it is a contact. */
  contactIds?: string[];
  parts?: FakeIntercomPart[];
  /** Default 'open'. */
  state?: 'open' | 'closed' | 'snoozed';
}

export interface FakeIntercomOptions {
  contacts?: FakeIntercomContact[];
  companies?: FakeIntercomCompany[];
  conversations?: FakeIntercomConversation[];
  /** Bearer tokens accepted. Default ['fake-intercom-token']. */
  accessTokens?: string[];
  /** The teammate who answers ('admin' in parts). Default Alice Example, alice@acme.test. */
  admin?: { id: string; name: string; email: string };
  /** Every call is answered this long after it arrived (ms). Default 0. */
  delayMs?: number;
  /** At most `limit` calls per fixed window of `windowMs` (Intercom: 1,666 per 10 s). Default off (and no X-RateLimit headers). */
  rateLimit?: { limit: number; windowMs: number };
}

export interface FakeIntercomStats {
  requests: number;
  /** Calls by route, e.g. `POST /contacts/search`, `GET /conversations/{id}`. */
  byRoute: Record<string, number>;
  /** Searches of one row per page (the connector's up-front counts). */
  counts: number;
  /** Calls answered 401. */
  unauthorized: number;
  throttled: number;
  /** The Intercom-Version headers seen, with how often. */
  versions: Record<string, number>;
}

export interface FakeIntercomServer {
  /** `http://127.0.0.1:<port>`: the API root (CHS_INTERCOM_API_URL). */
  readonly apiUrl: string;
  readonly stats: FakeIntercomStats;
  /** Every call from now on takes `ms`. */
  setDelay(ms: number): void;
  close(): Promise<void>;
}

const PER_PAGE_MAX = 150;
const PARTS_MAX = 500;
const EMBEDDED_COMPANIES_MAX = 10;
const DATE_FIELDS = new Set(['created_at', 'updated_at', 'signed_up_at', 'last_seen_at', 'waiting_since', 'snoozed_until']);
const DAY_S = 86_400;

type Json = Record<string, unknown>;

interface SingleFilter {
  field: string;
  operator: string;
  value: unknown;
}
interface CompoundFilter {
  operator: 'AND' | 'OR';
  value: Query[];
}
type Query = SingleFilter | CompoundFilter;

/** A query Intercom refuses: the message of its 400. */
class QueryError extends Error {}

const stripHtml = (html: string) =>
  html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*<p>/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();

const cursorOf = (row: { updated_at: number; id: string }, page: number) =>
  Buffer.from(JSON.stringify([row.updated_at * 1000, row.id, page])).toString('base64');

function parseCursor(t: string): { updatedMs: number; id: string; page: number } | undefined {
  try {
    const v = JSON.parse(Buffer.from(t, 'base64').toString('utf8')) as unknown;
    if (Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'string' && typeof v[2] === 'number') return { updatedMs: v[0], id: v[1], page: v[2] };
  } catch {
    // not one of ours
  }
  return undefined;
}

/** The value of a (dotted) field of a row; arrays stay arrays. */
function fieldOf(row: Json, field: string): unknown {
  let v: unknown = row;
  for (const k of field.split('.')) v = v !== null && typeof v === 'object' ? (v as Json)[k] : undefined;
  return v;
}

/** Does `row` match `q`? `dayGranular`: date fields compare by UTC day (contacts). */
function matches(row: Json, q: Query, dayGranular: boolean, depth = 0): boolean {
  if (q.operator === 'AND' || q.operator === 'OR') {
    if (depth >= 2) throw new QueryError('Search queries can be nested at most 2 levels deep');
    const parts = (q as CompoundFilter).value;
    if (!Array.isArray(parts) || parts.length === 0) throw new QueryError(`${q.operator} needs an array of filters`);
    if (parts.length > 15) throw new QueryError('At most 15 filters per AND/OR group');
    return q.operator === 'AND' ? parts.every((p) => matches(row, p, dayGranular, depth + 1)) : parts.some((p) => matches(row, p, dayGranular, depth + 1));
  }
  const f = q as SingleFilter;
  if (typeof f.field !== 'string') throw new QueryError('A filter needs a field');
  const actual = fieldOf(row, f.field);
  const isDate = DATE_FIELDS.has(f.field);
  if (isDate && !['=', '>', '<'].includes(f.operator)) throw new QueryError(`The operator ${f.operator} is not supported on the date field ${f.field}`);
  if (isDate) {
    const v = Number(f.value);
    if (!Number.isFinite(v)) throw new QueryError(`${f.field} takes a UNIX timestamp`);
    if (typeof actual !== 'number') return false;
    if (!dayGranular) return f.operator === '=' ? actual === v : f.operator === '>' ? actual > v : actual < v;
    const dayStart = Math.floor(v / DAY_S) * DAY_S;
    if (f.operator === '>') return actual >= dayStart + DAY_S;
    if (f.operator === '<') return actual < dayStart;
    return actual >= dayStart && actual < dayStart + DAY_S;
  }
  const values = Array.isArray(actual) ? actual : [actual];
  // Strings, numbers and booleans compare as lower-cased text; anything else matches nothing.
  const text = (a: unknown) => (typeof a === 'string' || typeof a === 'number' || typeof a === 'boolean' ? String(a).toLowerCase() : '');
  const same = (a: unknown, b: unknown) => a !== null && a !== undefined && text(a) === text(b);
  const needle = text(f.value);
  switch (f.operator) {
    case '=':
      return f.value === null ? values.every((a) => a === null || a === undefined) : values.some((a) => same(a, f.value));
    case '!=':
      return f.value === null ? values.some((a) => a !== null && a !== undefined) : !values.some((a) => same(a, f.value));
    case 'IN':
    case 'NIN': {
      if (!Array.isArray(f.value)) throw new QueryError(`${f.operator} takes an array`);
      const hit = values.some((a) => (f.value as unknown[]).some((b) => same(a, b)));
      return f.operator === 'IN' ? hit : !hit;
    }
    case '>':
    case '<':
    case '>=':
    case '<=': {
      const [a, b] = [Number(actual), Number(f.value)];
      if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
      return f.operator === '>' ? a > b : f.operator === '<' ? a < b : f.operator === '>=' ? a >= b : a <= b;
    }
    case '~':
      return values.some((a) => text(a).includes(needle));
    case '!~':
      return !values.some((a) => text(a).includes(needle));
    case '^':
      return values.some((a) => text(a).startsWith(needle));
    case '$':
      return values.some((a) => text(a).endsWith(needle));
    default:
      throw new QueryError(`Unknown operator ${String(f.operator)}`);
  }
}

export async function startFakeIntercomServer(opts: FakeIntercomOptions = {}): Promise<FakeIntercomServer> {
  const tokens = new Set(opts.accessTokens ?? ['fake-intercom-token']);
  const admin = opts.admin ?? { id: '991267715', name: 'Alice Example', email: 'alice@acme.test' };
  let delayMs = opts.delayMs ?? 0;
  const companies = new Map((opts.companies ?? []).map((c) => [c.id, c]));
  const contacts = new Map((opts.contacts ?? []).map((c) => [c.id, c]));
  const stats: FakeIntercomStats = { requests: 0, byRoute: {}, counts: 0, unauthorized: 0, throttled: 0, versions: {} };
  const timers = new Set<NodeJS.Timeout>();
  let windowStart = 0;
  let windowUsed = 0;

  function companyJson(c: FakeIntercomCompany): Json {
    const users = [...contacts.values()].filter((x) => x.companyIds?.includes(c.id)).length;
    return {
      type: 'company',
      id: c.id,
      company_id: c.companyId ?? `crm-${c.id}`,
      app_id: 'fakeapp1',
      name: c.name,
      website: c.website ?? null,
      industry: null,
      size: null,
      created_at: c.createdAt ?? 1700000000,
      updated_at: c.createdAt ?? 1700000000,
      remote_created_at: null,
      last_request_at: null,
      monthly_spend: c.monthlySpend ?? 0,
      session_count: 0,
      user_count: users,
      plan: {},
      custom_attributes: {},
      tags: { type: 'tag.list', tags: [] },
      segments: { type: 'segment.list', segments: [] },
    };
  }

  function contactJson(c: FakeIntercomContact): Json {
    const ids = c.companyIds ?? [];
    const email = c.email ?? null;
    return {
      type: 'contact',
      id: c.id,
      external_id: null,
      workspace_id: 'fakeapp1',
      role: c.role ?? 'user',
      email,
      email_domain: email?.includes('@') ? email.split('@')[1]!.toLowerCase() : null,
      phone: null,
      formatted_phone: null,
      name: c.name ?? null,
      owner_id: null,
      has_hard_bounced: false,
      marked_email_as_spam: false,
      unsubscribed_from_emails: false,
      created_at: c.createdAt ?? c.updatedAt,
      updated_at: c.updatedAt,
      signed_up_at: null,
      last_seen_at: null,
      last_replied_at: null,
      last_contacted_at: null,
      last_email_opened_at: null,
      last_email_clicked_at: null,
      custom_attributes: c.jobTitle !== undefined ? { job_title: c.jobTitle } : {},
      avatar: null,
      tags: { type: 'list', data: [], url: `/contacts/${c.id}/tags`, total_count: 0, has_more: false },
      notes: { type: 'list', data: [], url: `/contacts/${c.id}/notes`, total_count: 0, has_more: false },
      companies: {
        type: 'list',
        data: ids.slice(0, EMBEDDED_COMPANIES_MAX).map((id) => ({ type: 'company', id, url: `/companies/${id}` })),
        url: `/contacts/${c.id}/companies`,
        total_count: ids.length,
        has_more: ids.length > EMBEDDED_COMPANIES_MAX,
      },
      location: { type: 'location', country: null, region: null, city: null, country_code: null, continent_code: null },
      social_profiles: { type: 'list', data: [] },
    };
  }

  function author(by: string): Json {
    if (by === 'admin') return { type: 'admin', id: admin.id, name: admin.name, email: admin.email };
    const c = contacts.get(by);
    return { type: c?.role ?? 'user', id: by, name: c?.name ?? null, email: c?.email ?? null };
  }

  /** A conversation as the search lists it (no parts), or in full (`parts`, bodies as text with `plain`). */
  function conversationJson(c: FakeIntercomConversation, full?: { plain: boolean }): Json {
    const body = (html: string) => (full?.plain ? stripHtml(html) : html);
    const contactIds = c.contactIds ?? (c.source.by === 'admin' ? [] : [c.source.by]);
    const state = c.state ?? 'open';
    const out: Json = {
      type: 'conversation',
      id: c.id,
      title: c.title ?? null,
      created_at: c.createdAt,
      updated_at: c.updatedAt,
      waiting_since: null,
      snoozed_until: null,
      open: state === 'open',
      state,
      read: false,
      priority: 'not_priority',
      admin_assignee_id: Number(admin.id) || null,
      team_assignee_id: null,
      source: {
        type: c.source.type ?? 'conversation',
        id: `4039${c.id}`,
        delivered_as: c.source.by === 'admin' ? 'admin_initiated' : 'customer_initiated',
        subject: c.source.subject ?? '',
        body: body(c.source.body),
        author: author(c.source.by),
        attachments: [],
        url: null,
        redacted: false,
      },
      contacts: { type: 'contact.list', contacts: contactIds.map((id) => ({ type: 'contact', id, external_id: null })) },
      teammates: { type: 'admin.list', admins: [{ type: 'admin', id: admin.id }] },
      first_contact_reply: null,
      tags: { type: 'tag.list', tags: [] },
      statistics: null,
      conversation_rating: null,
      custom_attributes: {},
      sla_applied: null,
      linked_objects: { type: 'list', data: [], total_count: 0, has_more: false },
      ai_agent: null,
      ai_agent_participated: false,
    };
    if (full) {
      const parts = (c.parts ?? []).slice(-PARTS_MAX);
      out.conversation_parts = {
        type: 'conversation_part.list',
        conversation_parts: parts.map((p, i) => ({
          type: 'conversation_part',
          id: `${c.id}${String(i + 1).padStart(3, '0')}`,
          part_type: p.partType ?? 'comment',
          body: body(p.body),
          created_at: p.createdAt ?? c.updatedAt,
          updated_at: p.createdAt ?? c.updatedAt,
          notified_at: p.createdAt ?? c.updatedAt,
          assigned_to: null,
          author: author(p.by),
          attachments: [],
          external_id: null,
          redacted: false,
        })),
        total_count: parts.length,
      };
    }
    return out;
  }

  const contactRows = [...contacts.values()].map(contactJson);
  const conversationRows = (opts.conversations ?? []).map((c) => ({ summary: conversationJson(c), conversation: c }));
  const conversationsById = new Map((opts.conversations ?? []).map((c) => [c.id, c]));
  const byId = (a: Json, b: Json) => (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0);
  const byChange = (a: Json, b: Json) => (a.updated_at as number) - (b.updated_at as number) || byId(a, b);
  contactRows.sort(byChange);
  conversationRows.sort((a, b) => byChange(a.summary, b.summary));

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  };
  const errorList = (code: string, message: string) => ({ type: 'error.list', request_id: randomUUID(), errors: [{ code, message }] });

  function search(rows: Json[], key: 'data' | 'conversations', type: string, body: string, dayGranular: boolean): { status: number; body: unknown } {
    let r: { query?: Query; pagination?: { per_page?: number; starting_after?: string | null } };
    try {
      r = JSON.parse(body || '{}') as typeof r;
    } catch {
      return { status: 400, body: errorList('parameter_invalid', 'Request body is not valid JSON') };
    }
    const perPage = r.pagination?.per_page ?? (key === 'data' ? 50 : 20);
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > PER_PAGE_MAX)
      return { status: 400, body: errorList('parameter_invalid', `per_page must be between 1 and ${PER_PAGE_MAX}`) };
    if (perPage === 1) stats.counts++;
    let hits: Json[];
    try {
      hits = r.query ? rows.filter((row) => matches(row, r.query!, dayGranular)) : rows;
    } catch (err) {
      if (err instanceof QueryError) return { status: 400, body: errorList('parameter_invalid', err.message) };
      throw err;
    }
    let from = 0;
    let page = 1;
    const after = r.pagination?.starting_after;
    if (after) {
      const c = parseCursor(after);
      if (!c) return { status: 400, body: errorList('parameter_invalid', 'starting_after is not a valid cursor') };
      // After the row the cursor names, in the listing's order.
      from = hits.findIndex((h) => (h.updated_at as number) * 1000 > c.updatedMs || ((h.updated_at as number) * 1000 === c.updatedMs && String(h.id) > c.id));
      if (from < 0) from = hits.length;
      page = c.page + 1;
    }
    const slice = hits.slice(from, from + perPage);
    const more = from + slice.length < hits.length;
    return {
      status: 200,
      body: {
        type,
        [key]: slice,
        total_count: hits.length,
        pages: {
          type: 'pages',
          page,
          per_page: perPage,
          total_pages: Math.ceil(hits.length / perPage),
          ...(more ? { next: { page: page + 1, starting_after: cursorOf(slice.at(-1) as { updated_at: number; id: string }, page) } } : {}),
        },
      },
    };
  }

  function route(req: IncomingMessage, url: URL, body: string): { name: string; status: number; body: unknown } {
    const path = url.pathname;
    if (req.method === 'POST' && path === '/contacts/search') return { name: 'POST /contacts/search', ...search(contactRows, 'data', 'list', body, true) };
    if (req.method === 'POST' && path === '/conversations/search')
      return {
        name: 'POST /conversations/search',
        ...search(
          conversationRows.map((c) => c.summary),
          'conversations',
          'conversation.list',
          body,
          false,
        ),
      };
    const conversation = /^\/conversations\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && conversation) {
      const c = conversationsById.get(decodeURIComponent(conversation[1]!));
      return c
        ? { name: 'GET /conversations/{id}', status: 200, body: conversationJson(c, { plain: url.searchParams.get('display_as') === 'plaintext' }) }
        : { name: 'GET /conversations/{id}', status: 404, body: errorList('not_found', 'Resource Not Found') };
    }
    const company = /^\/companies\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && company) {
      const c = companies.get(decodeURIComponent(company[1]!));
      return c
        ? { name: 'GET /companies/{id}', status: 200, body: companyJson(c) }
        : { name: 'GET /companies/{id}', status: 404, body: errorList('company_not_found', 'Company Not Found') };
    }
    return { name: `${req.method ?? 'GET'} (unknown)`, status: 404, body: errorList('not_found', 'Resource Not Found') };
  }

  /** The rate-limit headers of this call, and whether it goes over the window. */
  function limit(): { headers: Record<string, string>; over: boolean } {
    const l = opts.rateLimit;
    if (!l) return { headers: {}, over: false };
    const now = Date.now();
    if (now >= windowStart + l.windowMs) {
      windowStart = now - (now % l.windowMs);
      windowUsed = 0;
    }
    const over = windowUsed >= l.limit;
    if (!over) windowUsed++;
    return {
      headers: {
        'x-ratelimit-limit': String(l.limit),
        'x-ratelimit-remaining': String(Math.max(0, l.limit - windowUsed)),
        'x-ratelimit-reset': String(Math.ceil((windowStart + l.windowMs) / 1000)),
      },
      over,
    };
  }

  function answer(req: IncomingMessage, url: URL, body: string, res: ServerResponse): void {
    stats.requests++;
    const version = req.headers['intercom-version'];
    if (typeof version === 'string') stats.versions[version] = (stats.versions[version] ?? 0) + 1;
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!tokens.has(bearer)) {
      stats.unauthorized++;
      return send(res, 401, errorList('unauthorized', 'Access Token Invalid'));
    }
    const accept = req.headers.accept ?? '';
    if (!/application\/json|\*\/\*/.test(accept))
      return send(res, 406, errorList('media_type_not_acceptable', 'The Accept header should send a media type of application/json'));
    const { headers, over } = limit();
    if (over) {
      stats.throttled++;
      return send(res, 429, errorList('rate_limit_exceeded', 'The rate limit for the App has been exceeded'), headers);
    }
    const r = route(req, url, body);
    stats.byRoute[r.name] = (stats.byRoute[r.name] ?? 0) + 1;
    send(res, r.status, r.body, headers);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = Buffer.concat(chunks).toString('utf8');
      if (delayMs <= 0) return answer(req, url, body, res);
      const t = setTimeout(() => {
        timers.delete(t);
        answer(req, url, body, res);
      }, delayMs);
      timers.add(t);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl,
    stats,
    setDelay: (ms) => void (delayMs = ms),
    close: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
