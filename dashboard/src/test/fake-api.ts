/**
 * Test support: a fake of the API behind `fetch`, answering by method and path with the shapes
 * of the OpenAPI types (so a fixture that drifts from the document fails to compile), and
 * recording every request.
 */
import { vi } from 'vitest';
import type { Answer } from '../lib/api.js';
import type { paths } from '../../../runner/src/http/openapi-types.js';

/** `params`: the values of a route's `:name` segments (`/api/settings/webhooks/:webhookId`). */
type Handler = (
  url: URL,
  init: { method: string; body: unknown; headers: Headers; params: Record<string, string> },
) => { status?: number; body: unknown } | undefined;

export interface FakeApi {
  calls: { method: string; url: URL; body: unknown; auth: string | null }[];
  routes: Map<string, Handler>;
  on(method: string, path: string, handler: Handler): void;
}

/** The handler of a request: an exact route first, else one whose `:name` segments match. */
function findRoute(routes: Map<string, Handler>, method: string, pathname: string): { handler: Handler; params: Record<string, string> } | undefined {
  const exact = routes.get(`${method} ${pathname}`);
  if (exact) return { handler: exact, params: {} };
  const parts = pathname.split('/');
  for (const [key, handler] of routes) {
    const [m, path] = key.split(' ') as [string, string];
    const pattern = path.split('/');
    if (m !== method || pattern.length !== parts.length || !path.includes('/:')) continue;
    const params: Record<string, string> = {};
    if (pattern.every((seg, i) => (seg.startsWith(':') ? ((params[seg.slice(1)] = decodeURIComponent(parts[i]!)), true) : seg === parts[i])))
      return { handler, params };
  }
  return undefined;
}

/** Installs the fake as the global fetch; routes are `${METHOD} ${pathname}` (`:name` segments match any). Unknown: a JSON 404. */
export function installFakeApi(): FakeApi {
  const api: FakeApi = {
    calls: [],
    routes: new Map(),
    on(method, path, handler) {
      this.routes.set(`${method} ${path}`, handler);
    },
  };
  vi.stubGlobal('fetch', async (input: Request | string | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(String(input), init);
    const url = new URL(req.url);
    const text = req.method === 'GET' || req.method === 'HEAD' ? '' : await req.text();
    const body: unknown = text ? JSON.parse(text) : undefined;
    api.calls.push({ method: req.method, url, body, auth: req.headers.get('authorization') });
    const route = findRoute(api.routes, req.method, url.pathname);
    const answer = route?.handler(url, { method: req.method, body, headers: req.headers, params: route.params }) ?? {
      status: 404,
      body: { error: `Route ${req.method} ${url.pathname} not found`, code: 'NOT_FOUND', status: 404 },
    };
    const status = answer.status ?? 200;
    if (status === 204) return new Response(null, { status });
    return new Response(JSON.stringify(answer.body), { status, headers: { 'content-type': 'application/json' } });
  });
  return api;
}

const SETTINGS: Answer<'/api/settings'> = {
  profile: { name: 'Ana Lima', email: 'ana@acme.com', title: 'Head of CS' },
  workspace: {
    workspaceName: 'Acme CS',
    domain: 'acme.com',
    timezone: 'Europe/Paris',
    currency: 'EUR',
    defaultWindowDays: 7,
    riskThreshold: 40,
    dataRetentionDays: 365,
    notifications: {
      channels: { email: true },
      dailyDigest: false,
      weeklyDigest: true,
      alertOnScoreDrop: true,
      alertOnRiskSignals: true,
      scoreDropPct: 15,
      alertOnRenewals: true,
      renewalsAheadDays: 30,
      emailFrom: 'chs@acme.com',
    },
    healthWeights: { sentiment: 0.4, engagement: 0.25, responsiveness: 0.2, recency: 0.15 },
    syncIntervalMinutes: 60,
    replySlaBusinessDays: 2,
    clientDiscovery: 'conversations',
    events: { scoreChangeMinDelta: 10 },
  },
};

export function client(id: string, name: string, score: number, extra: Partial<Answer<'/api/clients'>[number]> = {}): Answer<'/api/clients'>[number] {
  return {
    id,
    name,
    domain: `${name.toLowerCase().replace(/[^a-z]/g, '')}.com`,
    sentimentScore: score,
    lastInteraction: '2025-06-29T22:30:00.000Z',
    mrr: 1000,
    renewalDate: '2025-07-15',
    csmOwner: 'csm1@acme.com',
    isExcluded: false,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-06-01T00:00:00.000Z',
    ...extra,
  };
}

/** The summary the standard routes answer, at a risk threshold. */
export function summaryAnswer(threshold: number): Answer<'/api/metrics/summary'> {
  return {
    totals: { clients: 3, contacts: 9, interactionsWindow: 40, renewals30d: 1, openTasks: 0 },
    revenue: { mrrTotal: 15500, mrrAtRisk: 12500, renewals30dValue: 2000, avgClientValue: 5166.67 },
    health: {
      avgScore: 52.3,
      change7: -2.4,
      change7Pct: -4.4,
      threshold,
      atRiskCount: 1,
      improvingCount: 1,
      churnCalibration: {
        available: false,
        model: null,
        horizonDays: null,
        outcomes: null,
        text: 'No churn calibration yet: record renewal outcomes (chs outcomes import) and run chs health learn, which calibrates the score on them.',
      },
    },
    lists: {
      topRisks: [
        {
          clientId: 'c1',
          name: 'Brightwater',
          score: 25,
          mrr: 12500,
          reason: 'Score 25.0: 2 messages in the last 90 days say they will leave or not renew.',
          reasonCode: 'churn_intent',
          churnProbability: null,
        },
      ],
      topImproving: [{ clientId: 'c3', name: 'Vantage', score: 81, scoreChange: 12.5, mrr: 1000 }],
      renewals: [{ clientId: 'c2', name: 'Calderon', renewalDate: '2025-07-15', mrr: 2000, daysUntil: 15 }],
    },
    windowDays: 7,
    asOf: '2025-06-30T00:00:00.000Z',
  };
}

/** An error answer, in the API's shape. */
const failure = (status: number, code: string, error: string) => ({ status, body: { error, code, status } });

/** The answers every signed-in screen needs. */
export function standardRoutes(api: FakeApi): void {
  api.on('GET', '/api/settings', () => ({ body: SETTINGS }));
  api.on('GET', '/api/metrics/summary', (url) => ({ body: summaryAnswer(Number(url.searchParams.get('riskThreshold') ?? 40)) }));
  api.on('GET', '/api/clients', () => ({
    body: [
      client('c1', 'Brightwater', 25, { mrr: 12500, renewalDate: '2025-09-01' }),
      client('c2', 'Calderon', 55, { mrr: 2000, csmOwner: 'csm2@acme.com' }),
      client('c3', 'Vantage', 81, { mrr: 1000, isExcluded: true, renewalDate: null }),
    ],
  }));
  api.on('GET', '/api/metrics/trends/health', () => ({
    body: [
      { date: '2025-06-29', avgScore: 53, clientCount: 3 },
      { date: '2025-06-30', avgScore: 52.3, clientCount: 3 },
    ],
  }));
  api.on('GET', '/api/metrics/deltas', () => ({
    body: [
      {
        reason: 'churn_intent',
        totalDelta: -30,
        count: 1,
        avgDelta: -30,
        clients: [{ id: 'c1', name: 'Brightwater', delta: -30, currentScore: 25, previousScore: 55 }],
      },
    ],
  }));
  healthModelRoutes(api);
  api.on('GET', '/api/metrics/backtest', (url) => {
    const days = Number(url.searchParams.get('days') ?? 60);
    if (!Number.isInteger(days) || days < 1 || days > 365) return failure(400, 'INVALID_INPUT', `days must be an integer from 1 to 365, got ${days}`);
    return { body: backtest(days) };
  });
}

type Backtest = Answer<'/api/metrics/backtest'>;
type BacktestHorizon = Backtest['horizons'][number];

/**
 * The recorded outcomes as the backtest reads them, per horizon: the scores the churned and the
 * kept clients had that many days before, how many had no score then, and the calibration (the
 * Brier score and its reliability bins, worked out once from a real run's shape).
 */
const BACKTEST_SAMPLE: Record<
  30 | 60 | 90,
  { churned: number[]; kept: number[]; downgraded: number; withoutHistory: number; brier: number; reliability: [number, number | null, number | null][] }
> = {
  30: {
    churned: [18, 26, 36, 39, 59],
    kept: [33, 38, 46, 49, 51, 54, 57, 58, 61, 63, 65, 67, 69, 70, 72, 74, 76, 81, 85],
    downgraded: 3,
    withoutHistory: 2,
    brier: 0.1012,
    reliability: [
      [15, 0.06, 0],
      [4, 0.31, 0.25],
      [3, 0.52, 0.667],
      [2, 0.71, 1],
      [0, null, null],
    ],
  },
  60: {
    churned: [22, 31, 38, 47, 63],
    kept: [36, 39, 44, 47, 52, 55, 57, 60, 62, 64, 66, 68, 71, 73, 75, 78, 82],
    downgraded: 3,
    withoutHistory: 4,
    brier: 0.1287,
    reliability: [
      [13, 0.08, 0.077],
      [4, 0.29, 0.25],
      [3, 0.47, 0.333],
      [2, 0.68, 1],
      [0, null, null],
    ],
  },
  90: {
    churned: [33, 41, 52, 60],
    kept: [29, 35, 38, 42, 48, 50, 56, 59, 61, 63, 66, 70, 72, 77],
    downgraded: 2,
    withoutHistory: 8,
    brier: 0.1694,
    reliability: [
      [9, 0.12, 0.111],
      [6, 0.28, 0.333],
      [3, 0.44, 0.333],
      [0, null, null],
      [0, null, null],
    ],
  },
};
/** The churns: client, day, the score at each horizon (null: not tracked then), days red before. */
const BACKTEST_CHURNS: { clientId: string; date: string; scores: Record<30 | 60 | 90, number | null>; leadTimeDays: number; signals?: string[] }[] = [
  { clientId: 'c1', date: '2025-05-30', scores: { 30: 18, 60: 22, 90: 33 }, leadTimeDays: 74, signals: ['churn_intent', 'negative_tone'] },
  { clientId: 'c2', date: '2025-06-12', scores: { 30: 36, 60: 38, 90: 52 }, leadTimeDays: 51, signals: ['gone_quiet'] },
  { clientId: 'c4', date: '2025-04-02', scores: { 30: 26, 60: 31, 90: 41 }, leadTimeDays: 38 },
  { clientId: 'c5', date: '2025-03-15', scores: { 30: 39, 60: 47, 90: 60 }, leadTimeDays: 12 },
  { clientId: 'c6', date: '2025-06-20', scores: { 30: 59, 60: 63, 90: null }, leadTimeDays: 0 },
];
const BACKTEST_THRESHOLD = 40;
const round = (x: number, places = 3) => Math.round(x * 10 ** places) / 10 ** places;

function backtestHorizon(days: 30 | 60 | 90): BacktestHorizon {
  const sample = BACKTEST_SAMPLE[days];
  // Riskiest first: the lowest scores.
  const points = [...sample.churned.map((score) => ({ score, churned: true })), ...sample.kept.map((score) => ({ score, churned: false }))].sort(
    (a, b) => a.score - b.score,
  );
  const churned = sample.churned.length;
  const kept = sample.kept.length;
  const roc = [{ fpr: 0, tpr: 0 }];
  let tp = 0;
  let fp = 0;
  for (const p of points) {
    if (p.churned) tp++;
    else fp++;
    roc.push({ fpr: round(fp / kept), tpr: round(tp / churned) });
  }
  const wins = sample.churned.reduce((n, c) => n + sample.kept.reduce((m, k) => m + (c < k ? 1 : c === k ? 0.5 : 0), 0), 0);
  const flagged = points.filter((p) => p.score < BACKTEST_THRESHOLD);
  const caught = flagged.filter((p) => p.churned).length;
  const top = points.slice(0, Math.max(1, Math.ceil(points.length / 10)));
  return {
    days,
    outcomes: points.length,
    churned,
    downgraded: sample.downgraded,
    renewed: kept - sample.downgraded,
    withoutHistory: sample.withoutHistory,
    auc: round(wins / (churned * kept)),
    flagged: flagged.length,
    precision: flagged.length === 0 ? null : round(caught / flagged.length),
    recall: round(caught / churned),
    liftTopDecile: round(top.filter((p) => p.churned).length / top.length / (churned / points.length), 2),
    brier: sample.brier,
    reliability: sample.reliability.map(([outcomes, predicted, observed], i) => ({ from: i / 5, to: (i + 1) / 5, outcomes, predicted, observed })),
    roc,
  };
}

/** The backtest's answer for 30, 60 or 90 days before each outcome (another horizon reads the nearest of them), worded as the engine words it. */
export function backtest(days: number): Backtest {
  const near = ([30, 60, 90] as const).reduce((best, d) => (Math.abs(d - days) < Math.abs(best - days) ? d : best));
  const asked = { ...backtestHorizon(near), days };
  const horizons = ([30, 60, 90] as const).map(backtestHorizon);
  const churns = BACKTEST_CHURNS.map((c) => ({
    clientId: c.clientId,
    date: c.date,
    scoreBefore: c.scores[near],
    signalsBefore: c.signals ?? [],
    leadTimeDays: c.leadTimeDays,
  }));
  const early = churns.filter((c) => c.leadTimeDays >= 45).length;
  const leads = churns.map((c) => c.leadTimeDays).sort((a, b) => a - b);
  const summary = [
    `Of the ${churns.length} clients that churned, ${early} were at risk (red) at least 45 days before without a break.`,
    `${days} days before a renewal, a client that went on to churn scored lower than one that stayed ${Math.round(asked.auc! * 100)} % of the time (AUC ${asked.auc!.toFixed(2)}).`,
    `Flagged at risk then: ${Math.round(asked.recall! * 100)} % of the churns, and ${Math.round(asked.precision! * 100)} % of the flagged churned.`,
    `${asked.withoutHistory} outcome(s) had no score ${days} days before and are left out.`,
  ].join(' ');
  return {
    ...asked,
    threshold: BACKTEST_THRESHOLD,
    leadTimeDaysMedian: leads[Math.floor(leads.length / 2)]!,
    churnsRedAtLeast45Days: early,
    churns,
    horizons: days === near ? horizons : [...horizons, asked].sort((a, b) => a.days - b.days),
    summary,
  };
}

type HealthModel = Answer<'/api/health/models'>['models'][number];

/** A learned health model as the API lists it (an offered one by default: it did better than the hand-written weights). */
export function healthModel(version: number, status: HealthModel['status'], extra: Partial<HealthModel> = {}): HealthModel {
  return {
    version,
    status,
    createdAt: '2025-06-28T09:00:00.000Z',
    appliedAt: status === 'active' ? '2025-06-29T09:00:00.000Z' : null,
    previousVersion: null,
    horizonDays: 60,
    outcomes: 142,
    churned: 23,
    from: '2024-07-02',
    to: '2025-06-27',
    weights: { sentiment: 0.22, engagement: 0.18, responsiveness: 0.2, recency: 0.4 },
    intercept: -1.8423,
    coefficients: { sentiment: -0.9, engagement: -0.74, responsiveness: -0.82, recency: -1.63, churn_intent: 1.21 },
    lambda: 1,
    heldOut: { outcomes: 113, churned: 19, folds: 4, aucLearned: status === 'rejected' ? 0.7512 : 0.8112, aucDefault: 0.7634 },
    calibration: { a: -3.1, b: 4.6 },
    baseline: { weights: { sentiment: 0.4, engagement: 0.25, responsiveness: 0.2, recency: 0.15 }, calibration: { a: -3, b: 4.2 } },
    ...extra,
  };
}

/** The engine's refusal when too few outcomes were recorded (metrics/learn.ts). */
const tooFewOutcomes = (days: number) =>
  failure(
    409,
    'CONFLICT',
    `learning weights needs at least 30 renewal outcomes with a score ${days} days before them, 8 of them churns; this workspace has 0 with 0 churn(s): record more outcomes (chs outcomes import)`,
  );

/** The fake's learned models, newest first, and what the next POST /health/models answers. */
export interface HealthModelState {
  models: HealthModel[];
  learn: (days: number) => { status?: number; body: unknown };
}

/** The learned health model routes (issue 27), stateful as the engine: apply retires the model in use, revert goes back one step. */
export function healthModelRoutes(api: FakeApi, models: HealthModel[] = []): HealthModelState {
  const state: HealthModelState = { models, learn: tooFewOutcomes };
  const active = () => state.models.find((m) => m.status === 'active');
  const at = () => '2025-06-30T10:00:00.000Z';
  api.on('GET', '/api/health/models', () => ({ body: { active: active()?.version ?? null, models: state.models } }));
  api.on('POST', '/api/health/models', (_url, { body }) => state.learn((body as { days?: number } | undefined)?.days ?? 60));
  api.on('POST', '/api/health/models/:version/apply', (_url, { params }) => {
    const version = Number(params.version);
    const m = state.models.find((x) => x.version === version);
    if (!m) return failure(404, 'NOT_FOUND', `no health model ${version} in workspace acme.com`);
    if (m.status === 'rejected')
      return failure(409, 'INVALID_TRANSITION', `health model ${version} did not beat the hand-written model on the later renewals, so it cannot be applied`);
    const current = active();
    if (current && current !== m) current.status = 'retired';
    if (current !== m) Object.assign(m, { status: 'active', appliedAt: at(), previousVersion: current?.version ?? null });
    return { body: { model: m, clientsRescored: 3 } };
  });
  api.on('POST', '/api/health/models/revert', () => {
    const current = active();
    if (!current) return failure(409, 'INVALID_TRANSITION', 'the hand-written model is in use: there is no learned model to revert');
    current.status = 'retired';
    const back = state.models.find((x) => x.version === current.previousVersion) ?? null;
    if (back) Object.assign(back, { status: 'active', appliedAt: at() });
    return { body: { model: back, clientsRescored: 3 } };
  });
  return state;
}

/** The backtest of a workspace with no outcome recorded yet. */
export function emptyBacktest(days = 60): Backtest {
  const none: BacktestHorizon = {
    days,
    outcomes: 0,
    churned: 0,
    downgraded: 0,
    renewed: 0,
    withoutHistory: 0,
    auc: null,
    flagged: 0,
    precision: null,
    recall: null,
    liftTopDecile: null,
    brier: null,
    reliability: Array.from({ length: 5 }, (_, i) => ({ from: i / 5, to: (i + 1) / 5, outcomes: 0, predicted: null, observed: null })),
    roc: [],
  };
  return {
    ...none,
    threshold: BACKTEST_THRESHOLD,
    leadTimeDaysMedian: null,
    churnsRedAtLeast45Days: 0,
    churns: [],
    horizons: [...new Set([30, 60, 90, days])].sort((a, b) => a - b).map((d) => ({ ...none, days: d })),
    summary: 'No renewal outcomes recorded yet: import them (chs outcomes import) to see how well the score predicted churn.',
  };
}

type Webhook = Answer<'/api/settings/webhooks'>['webhooks'][number];
type WebhookEventType = Webhook['events'][number];
type WebhookDelivery = Answer<'/api/settings/webhooks/{webhookId}/deliveries'>['deliveries'][number];
type Body<P extends keyof paths, M extends 'post' | 'patch'> = paths[P][M] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

const EVENT_TYPES: { type: WebhookEventType; description: string; schema: unknown }[] = [
  ['client.risk_entered', 'A client’s score fell below the risk threshold (or it was first scored below it).'],
  ['client.risk_cleared', 'A client at risk is back at or above the threshold.'],
  ['client.score_changed', 'A client’s score moved by at least the workspace’s minDelta since the score last announced.'],
  ['client.churn_intent', 'A client said it may leave (a message at most 7 days old).'],
  ['client.escalation', 'A client is escalating (chasers, several people, mail left unanswered).'],
  ['client.suggested', 'Mail named a domain that did not qualify as a client: the team may accept it.'],
  ['job.completed', 'A sync, backfill or ingestion job finished.'],
  ['job.failed', 'A job failed for good (it will not be retried).'],
  ['integration.needs_reauth', 'A connected account’s credentials were refused: someone must connect it again.'],
].map(([type, description]) => ({ type: type as WebhookEventType, description: description!, schema: { type: 'object' } }));

export function webhook(id: string, url: string, extra: Partial<Webhook> = {}): Webhook {
  return {
    id,
    url,
    events: ['client.risk_entered'],
    kind: 'standard',
    enabled: true,
    disabledReason: null,
    description: null,
    failingSince: null,
    createdAt: '2025-06-01T09:00:00.000Z',
    updatedAt: '2025-06-01T09:00:00.000Z',
    ...extra,
  };
}

export function delivery(id: string, extra: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return {
    id,
    eventId: `evt_${id}`,
    eventType: 'client.risk_entered',
    state: 'succeeded',
    attempts: 1,
    nextAttemptAt: null,
    lastStatus: 200,
    lastError: null,
    lastAttemptAt: '2025-06-29T10:00:00.000Z',
    deliveredAt: '2025-06-29T10:00:00.000Z',
    createdAt: '2025-06-29T10:00:00.000Z',
    history: [{ at: '2025-06-29T10:00:00.000Z', status: 200, error: null, durationMs: 42 }],
    ...extra,
  };
}

/** The fake's webhook state, for a test to seed and read. */
export interface WebhookState {
  webhooks: Webhook[];
  /** Per endpoint id, newest first. */
  deliveries: Map<string, WebhookDelivery[]>;
}

/** The event types asked for, or why the server refuses them. */
function eventTypes(events: string[]): WebhookEventType[] | string {
  const known = events.filter((e): e is WebhookEventType => EVENT_TYPES.some((t) => t.type === e));
  if (events.length === 0) return 'events: choose at least one event type';
  if (known.length < events.length) return `events: unknown type(s) ${events.filter((e) => !(known as string[]).includes(e)).join(', ')}`;
  return known;
}

/** Why the server refuses a target URL, as the engine words it (packages/core/src/events/endpoints.ts). */
function refusedUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `url: not a URL (${raw})`;
  }
  if (url.protocol !== 'https:') return `url: must be https (got ${url.protocol.replace(':', '')})`;
  const host = url.hostname;
  const range = /^127\.|^localhost$/.test(host) ? 'loopback' : /^10\.|^192\.168\./.test(host) ? 'private' : /^169\.254\./.test(host) ? 'linkLocal' : null;
  return range
    ? `url: ${host} is not a public address (${host} is a ${range} address); an operator can allow private targets with CHS_WEBHOOKS_ALLOW_PRIVATE=1`
    : null;
}

/** The webhook routes of the settings (issue 26), stateful: what a test creates, it lists. */
export function webhookRoutes(api: FakeApi): WebhookState {
  const state: WebhookState = { webhooks: [], deliveries: new Map() };
  let seq = 0;
  const now = () => new Date().toISOString();
  const find = (id: string) => state.webhooks.find((w) => w.id === id);
  const notFound = (id: string) => failure(404, 'NOT_FOUND', `webhook endpoint ${id} not found`);
  const secret = () => `whsec_${btoa(`fake-secret-${++seq}-${'x'.repeat(20)}`)}`;

  api.on('GET', '/api/settings/webhooks/event-types', () => ({ body: { eventTypes: EVENT_TYPES } }));
  api.on('GET', '/api/settings/webhooks', () => ({ body: { webhooks: state.webhooks } }));
  api.on('POST', '/api/settings/webhooks', (_url, { body }) => {
    const b = body as Body<'/api/settings/webhooks', 'post'>;
    const refused = refusedUrl(b.url);
    if (refused) return failure(400, 'INVALID_INPUT', refused);
    const events = eventTypes(b.events);
    if (typeof events === 'string') return failure(400, 'INVALID_INPUT', events);
    const w = webhook(`wh_${++seq}`, b.url, {
      events,
      kind: b.kind ?? 'standard',
      description: b.description ?? null,
      createdAt: now(),
      updatedAt: now(),
    });
    state.webhooks.push(w);
    return { status: 201, body: { webhook: { ...w, secret: secret() } } };
  });
  api.on('PATCH', '/api/settings/webhooks/:webhookId', (_url, { body, params }) => {
    const w = find(params.webhookId!);
    if (!w) return notFound(params.webhookId!);
    const b = body as Body<'/api/settings/webhooks/{webhookId}', 'patch'>;
    const refused = b.url !== undefined ? refusedUrl(b.url) : null;
    if (refused) return failure(400, 'INVALID_INPUT', refused);
    const events = b.events !== undefined ? eventTypes(b.events) : undefined;
    if (typeof events === 'string') return failure(400, 'INVALID_INPUT', events);
    if (b.url !== undefined) w.url = b.url;
    if (events) w.events = events;
    if (b.description !== undefined) w.description = b.description;
    if (b.enabled === true) Object.assign(w, { enabled: true, disabledReason: null, failingSince: null });
    if (b.enabled === false) Object.assign(w, { enabled: false, disabledReason: 'user' });
    w.updatedAt = now();
    return { body: { webhook: w } };
  });
  api.on('DELETE', '/api/settings/webhooks/:webhookId', (_url, { params }) => {
    const i = state.webhooks.findIndex((w) => w.id === params.webhookId);
    if (i < 0) return notFound(params.webhookId!);
    state.webhooks.splice(i, 1);
    state.deliveries.delete(params.webhookId!);
    return { status: 204, body: null };
  });
  api.on('POST', '/api/settings/webhooks/:webhookId/test', (_url, { params }) => {
    const w = find(params.webhookId!);
    if (!w) return notFound(params.webhookId!);
    const d = delivery(`dl_${++seq}`, {
      eventType: 'webhook.test',
      state: 'pending',
      attempts: 0,
      nextAttemptAt: now(),
      lastStatus: null,
      lastAttemptAt: null,
      deliveredAt: null,
      createdAt: now(),
      history: [],
    });
    state.deliveries.set(w.id, [d, ...(state.deliveries.get(w.id) ?? [])]);
    return { status: 202, body: { eventId: d.eventId, deliveryId: d.id } };
  });
  api.on('POST', '/api/settings/webhooks/:webhookId/rotate-secret', (_url, { params }) => {
    const w = find(params.webhookId!);
    if (!w) return notFound(params.webhookId!);
    w.updatedAt = now();
    return { body: { webhook: w, secret: secret(), previousSecretValidUntil: new Date(Date.now() + 86_400_000).toISOString() } };
  });
  api.on('GET', '/api/settings/webhooks/:webhookId/deliveries', (url, { params }) => {
    if (!find(params.webhookId!)) return notFound(params.webhookId!);
    const q = url.searchParams;
    const all = (state.deliveries.get(params.webhookId!) ?? []).filter((d) => !q.get('state') || d.state === q.get('state'));
    const offset = Number(q.get('offset') ?? 0);
    return { body: { deliveries: all.slice(offset, offset + Number(q.get('limit') ?? 50)), total: all.length } };
  });
  api.on('POST', '/api/settings/webhooks/:webhookId/deliveries/:deliveryId/redeliver', (_url, { params }) => {
    const d = state.deliveries.get(params.webhookId!)?.find((x) => x.id === params.deliveryId);
    if (!d) return failure(404, 'NOT_FOUND', `delivery ${params.deliveryId} not found`);
    Object.assign(d, { state: 'pending', nextAttemptAt: now() });
    return { status: 202, body: { delivery: d } };
  });
  return state;
}
