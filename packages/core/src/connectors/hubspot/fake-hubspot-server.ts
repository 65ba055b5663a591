/**
 * A local fake of a HubSpot public app's OAuth and of the CRM reads a sync makes, over a real
 * socket, for end-to-end tests of the install flows (HTTP and `chs connect hubspot`) and of whole
 * syncs through `chs serve`. It answers in HubSpot's shapes (paths, form fields, property values
 * as strings, paging, error bodies; docs/connectors.md, the shared provider reference):
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
 *   POST /crm/v3/objects/{type}/search         companies, contacts, emails, meetings, calls, notes, deals:
 *                                              filterGroups (OR of ANDed filters: EQ NEQ LT LTE GT
 *                                              GTE BETWEEN IN NOT_IN HAS_PROPERTY NOT_HAS_PROPERTY;
 *                                              dates compared as epoch ms), sorts, properties (the
 *                                              asked ones, null when unset, plus hs_object_id,
 *                                              createdate and the last-modified one), `limit` (≤ 200),
 *                                              `after` (an offset; 400 past 10,000 results), `total`
 *                                              (every hit, whatever the limit); any other type: none
 *   POST /crm/v4/associations/{from}/{to}/batch/read
 *                                              {inputs: [{id}]} → {status: COMPLETE, results: [{from:
 *                                              {id}, to: [{toObjectId, associationTypes}]}]}; an input
 *                                              with none is an error of a 207 (NO_ASSOCIATIONS_FOUND).
 *                                              Deal → company: type 341, and 5 ("Primary") for the
 *                                              deal's primary company
 *   GET  /crm/v3/pipelines/deals/{pipelineId}  {id, label, displayOrder, stages: [{id, label,
 *                                              displayOrder, metadata: {isClosed: "true"|"false",
 *                                              probability: "1.0"…}, createdAt, updatedAt, archived,
 *                                              writePermissions}], createdAt, updatedAt, archived};
 *                                              an unknown id 404 OBJECT_NOT_FOUND
 *   POST /crm/v3/objects/contacts/batch/read   {inputs: [{id}], properties} → the contacts; unknown
 *                                              ids are errors of a 207 (OBJECT_NOT_FOUND)
 *   GET  /crm/v3/owners/                       the owners, paged by `limit` / `after`
 *
 * CRM calls need a live access token: a private app's (`accessTokens`, never expiring) or one the
 * token endpoint issued; an unknown one is 401 INVALID_AUTHENTICATION, one past its 30 minutes (or
 * after `expireAccessTokens()`) 401 EXPIRED_AUTHENTICATION. `delayMs` makes every CRM call take
 * that long (a sync then lasts long enough to watch); `rateLimit` answers what goes over it with
 * HubSpot's 429 TEN_SECONDLY_ROLLING and a Retry-After.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeHubSpotCompany {
  id: string;
  name: string;
  domain: string;
  /** ISO 8601: `hs_lastmodifieddate`. */
  updatedAt: string;
  /** `hubspot_owner_id`: one of the owners' ids. */
  ownerId?: string;
  /** Further properties as HubSpot sends them (strings), e.g. `mrr`, `renewal_date`, `hs_additional_domains`. */
  properties?: Record<string, string | null>;
}

export interface FakeHubSpotContact {
  id: string;
  email: string | null;
  firstName?: string;
  lastName?: string;
  jobTitle?: string;
  /** `associatedcompanyid`: the contact's primary company. */
  companyId?: string;
  /** ISO 8601: `lastmodifieddate` (contacts name it so). */
  updatedAt: string;
}

export type FakeHubSpotEngagementType = 'emails' | 'meetings' | 'calls' | 'notes';

export interface FakeHubSpotEngagement {
  type: FakeHubSpotEngagementType;
  id: string;
  /** ISO 8601: `hs_timestamp`, when it happened. */
  timestamp: string;
  /** ISO 8601: `hs_lastmodifieddate`. */
  updatedAt: string;
  /** `hs_email_subject`, `hs_meeting_title`, `hs_call_title`. */
  subject?: string;
  /** `hs_email_text`, `hs_meeting_body`, `hs_call_body`, `hs_note_body`. */
  body?: string;
  /** Emails: `INCOMING_EMAIL` or `EMAIL`; calls: `INBOUND` or `OUTBOUND`. Default outbound. */
  direction?: 'inbound' | 'outbound';
  /** Emails: the `hs_email_headers` addresses. */
  from?: string;
  to?: string[];
  /** Associated companies and contacts (v4 associations). */
  companyIds?: string[];
  contactIds?: string[];
  /** Further properties as HubSpot sends them (strings), e.g. `hs_email_open_count`. */
  properties?: Record<string, string | null>;
}

/** A stage of a deal pipeline: closed won is `isClosed` with probability 1, closed lost with 0. */
export interface FakeHubSpotStage {
  id: string;
  label: string;
  isClosed: boolean;
  /** 0..1. */
  probability: number;
}

/** A deal pipeline (its stages in order), as `GET /crm/v3/pipelines/deals/{id}` lists it. */
export interface FakeHubSpotPipeline {
  /** `default`, or the number HubSpot gives a pipeline. */
  id: string;
  label: string;
  stages: FakeHubSpotStage[];
}

/** A deal, as the deal search and the v4 associations serve it. */
export interface FakeHubSpotDeal {
  id: string;
  /** `dealname`. Default `Deal <id>`. */
  name?: string;
  /** `pipeline`: a pipeline's id. */
  pipeline: string;
  /** `dealstage`: a stage id of that pipeline (`hs_is_closed`, `hs_is_closed_won` follow from it). */
  stage: string;
  /** ISO 8601: `closedate`; null when unset. */
  closeDate?: string | null;
  /** ISO 8601: `hs_lastmodifieddate`. */
  updatedAt: string;
  /** Associated companies (v4); `primaryCompanyId` (one of them) is the primary one. */
  companyIds?: string[];
  primaryCompanyId?: string;
  /** Further properties as HubSpot sends them (strings), e.g. `amount`. */
  properties?: Record<string, string | null>;
}

export interface FakeHubSpotOwner {
  id: string;
  email: string;
  firstName?: string;
  lastName?: string;
}

export interface FakeHubSpotOptions {
  /** The public app. Default id 'fake-app-id', secret 'fake-app-secret'. */
  app?: { clientId: string; clientSecret: string };
  /** The app's redirect URLs (its Auth settings); the install screen refuses any other. Default: any. */
  redirectUrls?: string[];
  /** Private-app access tokens the CRM accepts from the start (they do not expire). Default none. */
  accessTokens?: string[];
  companies?: FakeHubSpotCompany[];
  contacts?: FakeHubSpotContact[];
  /** Emails, meetings, calls and notes, each associated with its companies and contacts. */
  engagements?: FakeHubSpotEngagement[];
  owners?: FakeHubSpotOwner[];
  /** Deal pipelines (`GET /crm/v3/pipelines/deals/{id}`). Default none. */
  pipelines?: FakeHubSpotPipeline[];
  /** Deals, each associated with its companies. Default none. */
  deals?: FakeHubSpotDeal[];
  /** What the user does on the install screen. Default 'grant'. */
  consent?: 'grant' | 'deny';
  /** Every CRM call is answered this long after it arrived (ms); OAuth is not. Default 0. */
  delayMs?: number;
  /**
   * HubSpot's burst limit: at most `max` CRM calls per rolling `intervalMs`; the next one is a 429
   * TEN_SECONDLY_ROLLING with Retry-After (seconds) and the X-HubSpot-RateLimit-* headers. Default off.
   */
  rateLimit?: { max: number; intervalMs: number };
}

export interface FakeHubSpotStats {
  /** Codes exchanged for tokens (client, secret, redirect URI and code all checked). */
  codeExchanges: number;
  tokenRefreshes: number;
  /** Token requests refused, by HubSpot's status (BAD_AUTH_CODE…). */
  refusals: Record<string, number>;
  crmCalls: number;
  /** CRM calls by route, e.g. `POST /crm/v3/objects/{type}/search`. */
  byRoute: Record<string, number>;
  /** Searches asking for one result (the connector's up-front counts). */
  counts: number;
  /** Searches by object type, e.g. `deals` (counts included). */
  searches: Record<string, number>;
  /** CRM calls answered 429. */
  throttled: number;
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
  /** Every CRM call from now on takes `ms`. */
  setDelay(ms: number): void;
  /** Changes a deal as a user would in HubSpot (its stage, close date, pipeline…); give `updatedAt`, the change's time. */
  updateDeal(id: string, patch: Partial<Omit<FakeHubSpotDeal, 'id'>> & { updatedAt: string }): void;
  /** Every access token issued so far is past its 30 minutes (401 EXPIRED_AUTHENTICATION) until refreshed. */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

const TOKEN_LIFETIME_S = 1800;
/** Search: at most this many results per page, and this many per query. */
const SEARCH_LIMIT_MAX = 200;
const SEARCH_RESULT_CAP = 10_000;
const OBJECT_TYPES = ['companies', 'contacts', 'emails', 'meetings', 'calls', 'notes', 'deals'] as const;
type ObjectType = (typeof OBJECT_TYPES)[number];
/** HUBSPOT_DEFINED association type ids, engagement → company / contact. */
const ASSOCIATION_TYPE_IDS: Record<FakeHubSpotEngagementType, { companies: number; contacts: number }> = {
  emails: { companies: 186, contacts: 198 },
  meetings: { companies: 188, contacts: 200 },
  calls: { companies: 182, contacts: 194 },
  notes: { companies: 190, contacts: 202 },
};
/** HUBSPOT_DEFINED deal → company: unlabeled, and the deal's primary company. */
const DEAL_TO_COMPANY = 341;
const PRIMARY_DEAL_TO_COMPANY = 5;
/** The properties a search returns when it names none. */
const DEFAULT_PROPERTIES: Record<ObjectType, string[]> = {
  companies: ['name', 'domain', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  contacts: ['firstname', 'lastname', 'email', 'createdate', 'lastmodifieddate', 'hs_object_id'],
  emails: ['hs_createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  meetings: ['hs_createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  calls: ['hs_createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  notes: ['hs_createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  deals: ['amount', 'closedate', 'createdate', 'dealname', 'dealstage', 'hs_lastmodifieddate', 'hs_object_id', 'pipeline'],
};
const DATE_PROPERTIES = new Set(['hs_lastmodifieddate', 'lastmodifieddate', 'createdate', 'hs_createdate', 'hs_timestamp', 'closedate']);
/** Objects whose creation date is `createdate` (the others' is `hs_createdate`). */
const CREATEDATE_TYPES: readonly string[] = ['companies', 'contacts', 'deals'];

/** An object as the CRM holds it: every property a string (or null), as on the wire. */
interface CrmObject {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
}

interface Filter {
  propertyName: string;
  operator: string;
  value?: string | number;
  highValue?: string | number;
  values?: Array<string | number>;
}

interface SearchRequest {
  filterGroups?: Array<{ filters?: Filter[] }>;
  sorts?: Array<{ propertyName: string; direction?: string } | string>;
  properties?: string[];
  limit?: number;
  after?: string;
}

const lastModified = (type: ObjectType) => (type === 'contacts' ? 'lastmodifieddate' : 'hs_lastmodifieddate');

function companyObject(c: FakeHubSpotCompany): CrmObject {
  return {
    id: c.id,
    properties: {
      name: c.name,
      domain: c.domain,
      hubspot_owner_id: c.ownerId ?? null,
      ...c.properties,
      createdate: c.updatedAt,
      hs_lastmodifieddate: c.updatedAt,
      hs_object_id: c.id,
    },
    createdAt: c.updatedAt,
    updatedAt: c.updatedAt,
  };
}

function contactObject(c: FakeHubSpotContact): CrmObject {
  return {
    id: c.id,
    properties: {
      email: c.email,
      firstname: c.firstName ?? null,
      lastname: c.lastName ?? null,
      jobtitle: c.jobTitle ?? null,
      associatedcompanyid: c.companyId ?? null,
      createdate: c.updatedAt,
      lastmodifieddate: c.updatedAt,
      hs_object_id: c.id,
    },
    createdAt: c.updatedAt,
    updatedAt: c.updatedAt,
  };
}

function engagementObject(e: FakeHubSpotEngagement): CrmObject {
  const inbound = e.direction === 'inbound';
  const own: Record<string, string | null> = {};
  switch (e.type) {
    case 'emails':
      Object.assign(own, {
        hs_email_subject: e.subject ?? null,
        hs_email_text: e.body ?? null,
        hs_email_html: null,
        hs_email_direction: inbound ? 'INCOMING_EMAIL' : 'EMAIL',
        hs_email_status: inbound ? null : 'SENT',
        hs_email_headers: JSON.stringify({ from: { email: e.from ?? '' }, to: (e.to ?? []).map((email) => ({ email })), cc: [], bcc: [] }),
        hs_email_open_count: null,
      });
      break;
    case 'meetings':
      Object.assign(own, {
        hs_meeting_title: e.subject ?? null,
        hs_meeting_body: e.body ?? null,
        hs_internal_meeting_notes: null,
        hs_meeting_outcome: 'COMPLETED',
      });
      break;
    case 'calls':
      Object.assign(own, { hs_call_title: e.subject ?? null, hs_call_body: e.body ?? null, hs_call_direction: inbound ? 'INBOUND' : 'OUTBOUND' });
      break;
    case 'notes':
      Object.assign(own, { hs_note_body: e.body ?? null });
      break;
  }
  return {
    id: e.id,
    properties: {
      ...own,
      ...e.properties,
      hs_timestamp: e.timestamp,
      hs_createdate: e.timestamp,
      hs_lastmodifieddate: e.updatedAt,
      hs_object_id: e.id,
    },
    createdAt: e.timestamp,
    updatedAt: e.updatedAt,
  };
}

/** A deal as the CRM holds it: `hs_is_closed` and `hs_is_closed_won` calculated from its stage, as HubSpot does. */
function dealObject(d: FakeHubSpotDeal, pipelines: readonly FakeHubSpotPipeline[], createdAt: string): CrmObject {
  const stage = pipelines.find((p) => p.id === d.pipeline)?.stages.find((st) => st.id === d.stage);
  return {
    id: d.id,
    properties: {
      dealname: d.name ?? `Deal ${d.id}`,
      amount: null,
      ...d.properties,
      pipeline: d.pipeline,
      dealstage: d.stage,
      closedate: d.closeDate ?? null,
      hs_is_closed: stage ? String(stage.isClosed) : 'false',
      hs_is_closed_won: stage ? String(stage.isClosed && stage.probability >= 1) : 'false',
      createdate: createdAt,
      hs_lastmodifieddate: d.updatedAt,
      hs_object_id: d.id,
    },
    createdAt,
    updatedAt: d.updatedAt,
  };
}

/** A pipeline as `GET /crm/v3/pipelines/deals/{id}` answers it: metadata values are strings. */
function pipelineView(p: FakeHubSpotPipeline): Record<string, unknown> {
  const at = '2023-01-01T00:00:00.000Z';
  return {
    id: p.id,
    label: p.label,
    displayOrder: 0,
    stages: p.stages.map((st, i) => ({
      id: st.id,
      label: st.label,
      displayOrder: i,
      metadata: { isClosed: String(st.isClosed), probability: st.probability.toFixed(1) },
      createdAt: at,
      updatedAt: at,
      archived: false,
      writePermissions: 'CRM_PERMISSIONS_ENFORCEMENT',
    })),
    createdAt: at,
    updatedAt: at,
    archived: false,
  };
}

/** A property value as a number to compare: epoch ms for dates, else the number it spells; undefined when neither. */
function comparable(property: string, v: string | number | null | undefined): number | undefined {
  if (v === null || v === undefined || v === '') return undefined;
  if (typeof v === 'number') return v;
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (DATE_PROPERTIES.has(property)) {
    const t = Date.parse(v);
    return Number.isFinite(t) ? t : undefined;
  }
  return undefined;
}

function matches(o: CrmObject, f: Filter): boolean {
  const raw = o.properties[f.propertyName];
  const has = raw !== null && raw !== undefined && raw !== '';
  const cmp = (value: string | number | undefined): number | undefined => {
    const a = comparable(f.propertyName, raw);
    const b = comparable(f.propertyName, value);
    if (a !== undefined && b !== undefined) return a - b;
    if (!has || value === undefined) return undefined;
    return String(raw).localeCompare(String(value));
  };
  const eq = (value: string | number | undefined) => cmp(value) === 0 || (has && String(raw).toLowerCase() === String(value).toLowerCase());
  switch (f.operator) {
    case 'HAS_PROPERTY':
      return has;
    case 'NOT_HAS_PROPERTY':
      return !has;
    case 'EQ':
      return eq(f.value);
    case 'NEQ':
      return !eq(f.value);
    case 'IN':
      return (f.values ?? []).some(eq);
    case 'NOT_IN':
      return !(f.values ?? []).some(eq);
    case 'LT':
      return (cmp(f.value) ?? 0) < 0 && has;
    case 'LTE':
      return (cmp(f.value) ?? 1) <= 0 && has;
    case 'GT':
      return (cmp(f.value) ?? 0) > 0 && has;
    case 'GTE':
      return (cmp(f.value) ?? -1) >= 0 && has;
    case 'BETWEEN':
      return has && (cmp(f.value) ?? -1) >= 0 && (cmp(f.highValue) ?? 1) <= 0;
    default:
      return false;
  }
}

const OPERATORS = new Set(['EQ', 'NEQ', 'LT', 'LTE', 'GT', 'GTE', 'BETWEEN', 'IN', 'NOT_IN', 'HAS_PROPERTY', 'NOT_HAS_PROPERTY']);

export async function startFakeHubSpotServer(opts: FakeHubSpotOptions = {}): Promise<FakeHubSpotServer> {
  const app = opts.app ?? { clientId: 'fake-app-id', clientSecret: 'fake-app-secret' };
  let consent = opts.consent ?? 'grant';
  let delayMs = opts.delayMs ?? 0;
  const objects: Record<ObjectType, CrmObject[]> = {
    companies: (opts.companies ?? []).map(companyObject),
    contacts: (opts.contacts ?? []).map(contactObject),
    emails: [],
    meetings: [],
    calls: [],
    notes: [],
    deals: [],
  };
  const pipelines = [...(opts.pipelines ?? [])];
  const deals = new Map((opts.deals ?? []).map((d) => [d.id, { ...d }]));
  /** Deal id → its primary company. */
  const primaryCompany = new Map<string, string>();
  /** Puts a deal (new or changed) in the CRM, with its company associations. */
  const putDeal = (d: FakeHubSpotDeal) => {
    const was = objects.deals.findIndex((o) => o.id === d.id);
    const o = dealObject(d, pipelines, was >= 0 ? objects.deals[was]!.createdAt : d.updatedAt);
    if (was >= 0) objects.deals[was] = o;
    else objects.deals.push(o);
    for (const key of ['deals/companies', 'companies/deals']) {
      const byId = associations.get(key);
      if (!byId) continue;
      if (key === 'deals/companies') byId.delete(d.id);
      else
        for (const [c, list] of byId)
          byId.set(
            c,
            list.filter((x) => x !== d.id),
          );
    }
    for (const c of d.companyIds ?? []) {
      associate('deals', d.id, 'companies', c);
      associate('companies', c, 'deals', d.id);
    }
    if (d.primaryCompanyId !== undefined) primaryCompany.set(d.id, d.primaryCompanyId);
    else primaryCompany.delete(d.id);
  };
  /** `${from}/${to}` → from id → associated ids (both ways, as HubSpot keeps them). */
  const associations = new Map<string, Map<string, string[]>>();
  const associate = (from: string, fromId: string, to: string, toId: string) => {
    const key = `${from}/${to}`;
    if (!associations.has(key)) associations.set(key, new Map());
    const byId = associations.get(key)!;
    const list = byId.get(fromId) ?? [];
    if (!list.includes(toId)) byId.set(fromId, [...list, toId]);
  };
  for (const e of opts.engagements ?? []) {
    objects[e.type].push(engagementObject(e));
    for (const c of e.companyIds ?? []) {
      associate(e.type, e.id, 'companies', c);
      associate('companies', c, e.type, e.id);
    }
    for (const c of e.contactIds ?? []) {
      associate(e.type, e.id, 'contacts', c);
      associate('contacts', c, e.type, e.id);
    }
  }
  for (const c of opts.contacts ?? []) {
    if (c.companyId === undefined) continue;
    associate('contacts', c.id, 'companies', c.companyId);
    associate('companies', c.companyId, 'contacts', c.id);
  }
  for (const d of deals.values()) putDeal(d);
  const contactsById = new Map(objects.contacts.map((c) => [c.id, c]));
  const owners = [...(opts.owners ?? [])];
  /** Issued codes: the redirect URI each was issued for; deleted when exchanged. */
  const codes = new Map<string, string>();
  const refreshTokens = new Set<string>();
  /** Access token → when it expires (epoch ms). */
  const accessTokens = new Map<string, number>((opts.accessTokens ?? []).map((t) => [t, Number.POSITIVE_INFINITY]));
  const stats: FakeHubSpotStats = { codeExchanges: 0, tokenRefreshes: 0, refusals: {}, crmCalls: 0, byRoute: {}, counts: 0, searches: {}, throttled: 0 };
  let lastInstall: Record<string, string> | undefined;
  /** When the CRM calls of the rolling window arrived (epoch ms). */
  let window: number[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json;charset=utf-8', ...headers });
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
  const error = (res: ServerResponse, status: number, category: string, message: string, extra: Record<string, unknown> = {}) =>
    json(res, status, { status: 'error', message, correlationId: randomUUID(), category, ...extra });

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

  /** The object as a search or batch read returns it: the asked properties (null when unset) and the defaults. */
  function view(type: ObjectType, o: CrmObject, asked: string[] | undefined): Record<string, unknown> {
    const names =
      asked && asked.length > 0
        ? [...new Set([...asked, 'hs_object_id', CREATEDATE_TYPES.includes(type) ? 'createdate' : 'hs_createdate', lastModified(type)])]
        : DEFAULT_PROPERTIES[type];
    const properties: Record<string, string | null> = {};
    for (const n of names) properties[n] = o.properties[n] ?? (n === 'createdate' ? o.createdAt : null);
    return { id: o.id, properties, createdAt: o.createdAt, updatedAt: o.updatedAt, archived: false };
  }

  function search(type: ObjectType, body: string, res: ServerResponse): void {
    let r: SearchRequest;
    try {
      r = JSON.parse(body || '{}') as SearchRequest;
    } catch {
      return error(res, 400, 'VALIDATION_ERROR', 'Invalid input JSON');
    }
    const limit = r.limit ?? 10;
    if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT_MAX)
      return error(res, 400, 'VALIDATION_ERROR', `Invalid input JSON: limit must be between 1 and ${SEARCH_LIMIT_MAX}`);
    const groups = (r.filterGroups ?? []).map((g) => g.filters ?? []);
    const bad = groups.flat().find((f) => !OPERATORS.has(f.operator));
    if (bad) return error(res, 400, 'VALIDATION_ERROR', `Unknown operator ${bad.operator}`);
    if (limit === 1) stats.counts++;
    stats.searches[type] = (stats.searches[type] ?? 0) + 1;
    let hits = objects[type].filter((o) => groups.length === 0 || groups.some((g) => g.every((f) => matches(o, f))));
    const sorts = (r.sorts ?? []).map((s) =>
      typeof s === 'string' ? { propertyName: s.replace(/^-/, ''), direction: s.startsWith('-') ? 'DESCENDING' : 'ASCENDING' } : s,
    );
    hits = [...hits].sort((a, b) => {
      for (const s of sorts) {
        const [x, y] = [a.properties[s.propertyName], b.properties[s.propertyName]];
        const [nx, ny] = [comparable(s.propertyName, x), comparable(s.propertyName, y)];
        const d = nx !== undefined && ny !== undefined ? nx - ny : String(x ?? '').localeCompare(String(y ?? ''));
        if (d !== 0) return s.direction === 'DESCENDING' ? -d : d;
      }
      // Ties (and no sorts): by id, as HubSpot's own order.
      return Number(a.id) - Number(b.id) || a.id.localeCompare(b.id);
    });
    const from = Number(r.after ?? 0);
    if (!Number.isInteger(from) || from < 0) return error(res, 400, 'VALIDATION_ERROR', `Invalid after: ${r.after}`);
    if (from >= SEARCH_RESULT_CAP)
      return error(res, 400, 'VALIDATION_ERROR', `There was a problem with the request: paging is limited to the first ${SEARCH_RESULT_CAP} results`);
    const page = hits.slice(from, Math.min(from + limit, SEARCH_RESULT_CAP));
    const next = from + page.length < Math.min(hits.length, SEARCH_RESULT_CAP) ? String(from + page.length) : undefined;
    json(res, 200, {
      total: hits.length,
      results: page.map((o) => view(type, o, r.properties)),
      ...(next ? { paging: { next: { after: next, link: `/crm/v3/objects/${type}/search?after=${next}` } } } : {}),
    });
  }

  const batchTimes = () => {
    const at = new Date().toISOString();
    return { startedAt: at, completedAt: at };
  };
  const inputIds = (body: string): string[] | undefined => {
    try {
      const r = JSON.parse(body || '{}') as { inputs?: Array<{ id?: unknown }> };
      return (r.inputs ?? []).map((i) => String(i.id));
    } catch {
      return undefined;
    }
  };

  function associationsRead(from: string, to: string, body: string, res: ServerResponse): void {
    const ids = inputIds(body);
    if (!ids) return error(res, 400, 'VALIDATION_ERROR', 'Invalid input JSON');
    const byId = associations.get(`${from}/${to}`);
    const typeIds =
      (OBJECT_TYPES as readonly string[]).includes(from) && from in ASSOCIATION_TYPE_IDS ? ASSOCIATION_TYPE_IDS[from as FakeHubSpotEngagementType] : undefined;
    const typeId = typeIds && (to === 'companies' || to === 'contacts') ? typeIds[to] : from === 'deals' && to === 'companies' ? DEAL_TO_COMPANY : 1;
    const results: unknown[] = [];
    const errors: unknown[] = [];
    for (const id of [...new Set(ids)]) {
      const found = byId?.get(id) ?? [];
      if (found.length === 0) {
        errors.push({
          status: 'error',
          category: 'OBJECT_NOT_FOUND',
          subCategory: 'crm.associations.NO_ASSOCIATIONS_FOUND',
          message: `No ${to} is associated with ${from} ${id}.`,
          context: { fromObjectId: [id] },
        });
        continue;
      }
      const primary = from === 'deals' && to === 'companies' ? primaryCompany.get(id) : undefined;
      results.push({
        from: { id },
        to: found.map((toId) => ({
          toObjectId: Number(toId),
          associationTypes: [
            ...(toId === primary ? [{ category: 'HUBSPOT_DEFINED', typeId: PRIMARY_DEAL_TO_COMPANY, label: 'Primary' }] : []),
            { category: 'HUBSPOT_DEFINED', typeId, label: null },
          ],
        })),
      });
    }
    json(res, errors.length ? 207 : 200, { status: 'COMPLETE', results, ...(errors.length ? { numErrors: errors.length, errors } : {}), ...batchTimes() });
  }

  function contactsRead(body: string, res: ServerResponse): void {
    const ids = inputIds(body);
    if (!ids) return error(res, 400, 'VALIDATION_ERROR', 'Invalid input JSON');
    const asked = (JSON.parse(body) as { properties?: string[] }).properties;
    const results: unknown[] = [];
    const missing: string[] = [];
    for (const id of [...new Set(ids)]) {
      const c = contactsById.get(id);
      if (c) results.push(view('contacts', c, asked));
      else missing.push(id);
    }
    const errors = missing.length
      ? [
          {
            status: 'error',
            category: 'OBJECT_NOT_FOUND',
            message: 'Could not get some CONTACT objects, they may be deleted or not exist.',
            context: { ids: missing },
          },
        ]
      : [];
    json(res, errors.length ? 207 : 200, { status: 'COMPLETE', results, ...(errors.length ? { numErrors: errors.length, errors } : {}), ...batchTimes() });
  }

  function ownersPage(q: URLSearchParams, res: ServerResponse): void {
    const limit = Math.min(500, Math.max(1, Number(q.get('limit') ?? 100) || 100));
    const from = Number(q.get('after') ?? 0) || 0;
    const page = owners.slice(from, from + limit);
    const next = from + page.length < owners.length ? String(from + page.length) : undefined;
    json(res, 200, {
      results: page.map((o) => ({
        id: o.id,
        email: o.email,
        firstName: o.firstName ?? '',
        lastName: o.lastName ?? '',
        userId: Number(o.id) || 1,
        createdAt: '2023-01-01T00:00:00Z',
        updatedAt: '2024-01-01T00:00:00Z',
        archived: false,
        type: 'PERSON',
      })),
      ...(next ? { paging: { next: { after: next, link: `/crm/v3/owners/?after=${next}` } } } : {}),
    });
  }

  /** Over the burst limit: the 429 to answer (with its headers); undefined when the call may go. */
  function throttle(): Record<string, string> | undefined {
    const limit = opts.rateLimit;
    if (!limit) return undefined;
    const now = Date.now();
    window = window.filter((t) => t > now - limit.intervalMs);
    const headers = { 'x-hubspot-ratelimit-max': String(limit.max), 'x-hubspot-ratelimit-interval-milliseconds': String(limit.intervalMs) };
    if (window.length >= limit.max) {
      const waitMs = window[0]! + limit.intervalMs - now;
      return { ...headers, 'x-hubspot-ratelimit-remaining': '0', 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) };
    }
    window.push(now);
    return undefined;
  }

  function crm(req: IncomingMessage, url: URL, body: string, res: ServerResponse): void {
    const path = url.pathname;
    stats.crmCalls++;
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const expires = accessTokens.get(bearer);
    if (expires === undefined) return error(res, 401, 'INVALID_AUTHENTICATION', 'Authentication credentials not found.');
    if (expires <= Date.now())
      return error(
        res,
        401,
        'EXPIRED_AUTHENTICATION',
        `The OAuth token used to make this call expired ${Math.ceil((Date.now() - expires) / 1000)} second(s) ago.`,
      );
    const limited = throttle();
    if (limited) {
      stats.throttled++;
      return json(
        res,
        429,
        {
          status: 'error',
          message: 'You have reached your ten_secondly_rolling limit.',
          errorType: 'RATE_LIMIT',
          correlationId: randomUUID(),
          policyName: 'TEN_SECONDLY_ROLLING',
          requestId: randomUUID(),
        },
        limited,
      );
    }
    const route = (name: string) => void (stats.byRoute[name] = (stats.byRoute[name] ?? 0) + 1);
    if (req.method === 'GET' && path === '/crm/v3/owners/') {
      route('GET /crm/v3/owners/');
      return ownersPage(url.searchParams, res);
    }
    const pipelineOf = /^\/crm\/v3\/pipelines\/deals\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && pipelineOf) {
      route('GET /crm/v3/pipelines/{objectType}/{pipelineId}');
      const id = decodeURIComponent(pipelineOf[1]!);
      const p = pipelines.find((x) => x.id === id);
      if (!p) return error(res, 404, 'OBJECT_NOT_FOUND', `Unable to find pipeline ${id} for object type 0-3`);
      return json(res, 200, pipelineView(p));
    }
    const searchOf = /^\/crm\/v3\/objects\/([a-z_0-9-]+)\/search$/.exec(path);
    if (req.method === 'POST' && searchOf) {
      route('POST /crm/v3/objects/{type}/search');
      const type = searchOf[1]!;
      if ((OBJECT_TYPES as readonly string[]).includes(type)) return search(type as ObjectType, body, res);
      return json(res, 200, { total: 0, results: [] });
    }
    const assoc = /^\/crm\/v4\/associations\/([a-z_0-9-]+)\/([a-z_0-9-]+)\/batch\/read$/.exec(path);
    if (req.method === 'POST' && assoc) {
      route('POST /crm/v4/associations/{from}/{to}/batch/read');
      return associationsRead(assoc[1]!, assoc[2]!, body, res);
    }
    if (req.method === 'POST' && path === '/crm/v3/objects/contacts/batch/read') {
      route('POST /crm/v3/objects/contacts/batch/read');
      return contactsRead(body, res);
    }
    error(res, 404, 'OBJECT_NOT_FOUND', `no route for ${req.method} ${path}`);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'GET' && url.pathname === '/oauth/authorize') return install(url.searchParams, res);
      if (req.method === 'POST' && url.pathname === '/oauth/v1/token') return token(new URLSearchParams(body), res);
      if (delayMs <= 0) return crm(req, url, body, res);
      const t = setTimeout(() => {
        timers.delete(t);
        crm(req, url, body, res);
      }, delayMs);
      timers.add(t);
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
    setDelay: (ms) => void (delayMs = ms),
    updateDeal: (id, patch) => {
      const d = deals.get(id);
      if (!d) throw new Error(`fake HubSpot: no deal ${id}`);
      const next = { ...d, ...patch };
      deals.set(id, next);
      putDeal(next);
    },
    expireAccessTokens: () => {
      for (const [t, at] of accessTokens) if (at !== Number.POSITIVE_INFINITY) accessTokens.set(t, Date.now() - 75_000);
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
