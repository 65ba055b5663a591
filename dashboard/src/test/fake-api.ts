/**
 * Test support: a fake of the API behind `fetch`, answering by method and path with the shapes
 * of the OpenAPI types (so a fixture that drifts from the document fails to compile), and
 * recording every request.
 */
import { vi } from 'vitest';
import type { Answer } from '../lib/api.js';

type Handler = (url: URL, init: { method: string; body: unknown; headers: Headers }) => { status?: number; body: unknown } | undefined;

export interface FakeApi {
  calls: { method: string; url: URL; body: unknown; auth: string | null }[];
  routes: Map<string, Handler>;
  on(method: string, path: string, handler: Handler): void;
}

/** Installs the fake as the global fetch; routes are `${METHOD} ${pathname}`. Unknown: a JSON 404. */
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
    const handler = api.routes.get(`${req.method} ${url.pathname}`);
    const answer = handler?.(url, { method: req.method, body, headers: req.headers }) ?? {
      status: 404,
      body: { error: `Route ${req.method} ${url.pathname} not found`, code: 'NOT_FOUND', status: 404 },
    };
    return new Response(JSON.stringify(answer.body), { status: answer.status ?? 200, headers: { 'content-type': 'application/json' } });
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

function summary(threshold: number): Answer<'/api/metrics/summary'> {
  return {
    totals: { clients: 3, contacts: 9, interactionsWindow: 40, renewals30d: 1, openTasks: 0 },
    revenue: { mrrTotal: 15500, mrrAtRisk: 12500, renewals30dValue: 2000, avgClientValue: 5166.67 },
    health: { avgScore: 52.3, change7: -2.4, change7Pct: -4.4, threshold, atRiskCount: 1, improvingCount: 1 },
    lists: {
      topRisks: [
        {
          clientId: 'c1',
          name: 'Brightwater',
          score: 25,
          mrr: 12500,
          reason: 'Score 25.0: 2 messages in the last 30 days say they will leave or not renew.',
          reasonCode: 'churn_intent',
        },
      ],
      topImproving: [{ clientId: 'c3', name: 'Vantage', score: 81, scoreChange: 12.5, mrr: 1000 }],
      renewals: [{ clientId: 'c2', name: 'Calderon', renewalDate: '2025-07-15', mrr: 2000, daysUntil: 15 }],
    },
    windowDays: 7,
    asOf: '2025-06-30T00:00:00.000Z',
  };
}

/** The answers every signed-in screen needs. */
export function standardRoutes(api: FakeApi): void {
  api.on('GET', '/api/settings', () => ({ body: SETTINGS }));
  api.on('GET', '/api/metrics/summary', (url) => ({ body: summary(Number(url.searchParams.get('riskThreshold') ?? 40)) }));
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
}
