/**
 * Renewal deals: what a pipeline stage means (stageVerdict), what a deal says (mapDeal), one table
 * of real cases each; then the connector's deals stream against the fake HubSpot (HubSpot's wire
 * shapes over a socket): what it asks for, and how its cursor follows the mapped pipeline.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../util/time.js';
import type { Cursor, OutcomeRecord, ProviderRecord, SyncBatch } from '../types.js';
import { createHubSpotConnector } from './hubspot-connector.js';
import { mapDeal, stageVerdict, type DealContext } from './hubspot-mapping.js';
import { startFakeHubSpotServer, type FakeHubSpotServer } from './fake-hubspot-server.js';

describe('stageVerdict: what a stage of the renewal pipeline means', () => {
  it.each([
    ['closed won (isClosed, probability 1.0)', { isClosed: 'true', probability: '1.0' }, 'won'],
    ['closed lost (isClosed, probability 0.0)', { isClosed: 'true', probability: '0.0' }, 'lost'],
    ['an open stage', { isClosed: 'false', probability: '0.6' }, 'open'],
    ['an open "at risk" stage forecasting 0 %: open, not lost', { isClosed: 'false', probability: '0.0' }, 'open'],
    ['an open stage forecasting 100 %: open, not won', { isClosed: 'false', probability: '1.0' }, 'open'],
    ['closed at a probability HubSpot does not allow: cannot tell', { isClosed: 'true', probability: '0.5' }, undefined],
    ['no isClosed (the deal itself must say)', { probability: '1.0' }, undefined],
    ['no metadata', {}, undefined],
  ])('%s', (_, metadata: Record<string, string>, verdict) => {
    expect(stageVerdict(metadata)).toBe(verdict);
  });
});

describe('mapDeal: what a renewal deal says', () => {
  const ctx = (over: Partial<DealContext> = {}): DealContext => ({
    pipelineId: '31415926',
    stages: new Map([
      ['due', 'open'],
      ['won', 'won'],
      ['lost', 'lost'],
      ['odd', undefined],
    ]),
    companies: { primary: '101', all: ['101'] },
    today: '2025-06-30',
    ...over,
  });
  const deal = (p: Record<string, string | null>) => ({ pipeline: '31415926', dealstage: 'won', closedate: '2025-05-31T16:00:00.000Z', ...p });

  it.each<[string, Record<string, string | null>, Partial<DealContext>, OutcomeRecord | string]>([
    [
      'closed won: renewed on its close day',
      {},
      {},
      { kind: 'outcome', providerId: 'deals:9', outcome: 'renewed', date: '2025-05-31', companyProviderId: '101' },
    ],
    [
      'closed lost late in the evening UTC: churned on that UTC day',
      { dealstage: 'lost', closedate: '2025-06-14T23:30:00.000Z' },
      {},
      { kind: 'outcome', providerId: 'deals:9', outcome: 'churned', date: '2025-06-14', companyProviderId: '101' },
    ],
    [
      'a close date in epoch ms, as some portals store it',
      { closedate: String(Date.parse('2025-06-01T08:00:00Z')) },
      {},
      { kind: 'outcome', providerId: 'deals:9', outcome: 'renewed', date: '2025-06-01', companyProviderId: '101' },
    ],
    ['open: no outcome (one it recorded before is taken back)', { dealstage: 'due' }, {}, { kind: 'outcome', providerId: 'deals:9', outcome: null }],
    [
      'closed won on a day still to come: not an outcome yet',
      { closedate: '2025-07-02T09:00:00.000Z' },
      {},
      { kind: 'outcome', providerId: 'deals:9', outcome: null },
    ],
    [
      'a deal of another pipeline is no renewal',
      { pipeline: 'default', dealstage: 'closedwon' },
      {},
      { kind: 'outcome', providerId: 'deals:9', outcome: null },
    ],
    [
      'a stage the pipeline did not list (added since): the deal’s own hs_is_closed_won says',
      { dealstage: 'new-stage', hs_is_closed: 'true', hs_is_closed_won: 'false' },
      {},
      { kind: 'outcome', providerId: 'deals:9', outcome: 'churned', date: '2025-05-31', companyProviderId: '101' },
    ],
    [
      'a stage whose metadata cannot tell falls back to the deal too',
      { dealstage: 'odd', hs_is_closed: 'true', hs_is_closed_won: 'true' },
      {},
      { kind: 'outcome', providerId: 'deals:9', outcome: 'renewed', date: '2025-05-31', companyProviderId: '101' },
    ],
    [
      'neither the stage nor the deal can tell',
      { dealstage: 'new-stage' },
      {},
      'stage "new-stage" is neither open nor closed won/lost in the pipeline\'s metadata',
    ],
    ['closed without a close date', { closedate: null }, {}, 'closed won deal without a closedate'],
    ['closed with no company', {}, { companies: { all: [] } }, 'closed won deal without an associated company'],
    [
      'several companies, one primary: the primary one',
      {},
      { companies: { primary: '102', all: ['102', '101'] } },
      { kind: 'outcome', providerId: 'deals:9', outcome: 'renewed', date: '2025-05-31', companyProviderId: '102' },
    ],
    [
      'a single company that is not marked primary',
      {},
      { companies: { all: ['103'] } },
      { kind: 'outcome', providerId: 'deals:9', outcome: 'renewed', date: '2025-05-31', companyProviderId: '103' },
    ],
    ['several companies and none primary: nothing is guessed', {}, { companies: { all: ['101', '102'] } }, 'closed won deal with 2 companies and none primary'],
  ])('%s', (_, props, over, expected) => {
    expect(mapDeal('9', deal(props), ctx(over))).toEqual(expected);
  });
});

describe('hubspot connector: the renewal deals stream (fake HubSpot)', () => {
  const NOW = '2025-06-30T12:00:00.000Z';
  const open: FakeHubSpotServer[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });

  async function fake(): Promise<FakeHubSpotServer> {
    const server = await startFakeHubSpotServer({
      accessTokens: ['pat'],
      companies: [{ id: '101', name: 'Globex', domain: 'globex.com', updatedAt: '2025-01-01T00:00:00.000Z' }],
      pipelines: [
        {
          id: 'renewals',
          label: 'Renewals',
          stages: [
            { id: 'due', label: 'Due', isClosed: false, probability: 0.5 },
            { id: 'won', label: 'Renewed', isClosed: true, probability: 1 },
          ],
        },
        {
          id: 'upsell',
          label: 'Upsell',
          stages: [{ id: 'upsell-won', label: 'Won', isClosed: true, probability: 1 }],
        },
      ],
      deals: [
        {
          id: '1',
          pipeline: 'renewals',
          stage: 'won',
          closeDate: '2025-05-31T16:00:00.000Z',
          updatedAt: '2025-05-31T16:00:00.000Z',
          companyIds: ['101'],
          primaryCompanyId: '101',
        },
        { id: '2', pipeline: 'upsell', stage: 'upsell-won', closeDate: '2025-06-02T10:00:00.000Z', updatedAt: '2025-06-02T10:00:00.000Z', companyIds: ['101'] },
      ],
    });
    open.push(server);
    return server;
  }
  const connector = (server: FakeHubSpotServer, renewalPipelineId?: string) =>
    createHubSpotConnector({ credentials: { accessToken: 'pat' }, apiUrl: server.apiUrl, clock: fixedClock(NOW), renewalPipelineId });
  async function run(c: ReturnType<typeof connector>, cursor?: Cursor): Promise<{ items: ProviderRecord[]; cursor: Cursor | undefined }> {
    const batches: Array<SyncBatch<ProviderRecord>> = [];
    for await (const b of c.sync({ mode: 'quick', ...(cursor ? { cursor } : {}) })) batches.push(b);
    return { items: batches.flatMap((b) => b.items), cursor: batches.at(-1)?.cursor };
  }

  it('reads only the mapped pipeline’s deals, each with its primary company, and keeps the pipeline in the cursor', async () => {
    const server = await fake();
    const { items, cursor } = await run(connector(server, 'renewals'));
    expect(items.filter((i) => i.kind === 'outcome')).toEqual([
      { kind: 'outcome', providerId: 'deals:1', outcome: 'renewed', date: '2025-05-31', companyProviderId: '101' },
    ]);
    expect(server.stats.byRoute['GET /crm/v3/pipelines/{objectType}/{pipelineId}']).toBe(1);
    expect(cursor).toMatchObject({ dealsPipeline: 'renewals', done: { deals: Date.parse(NOW) } });
  });

  it('another pipeline mapped later is read from the start, though the cursor says deals are done', async () => {
    const server = await fake();
    const first = await run(connector(server, 'renewals'));
    // The same pipeline again: nothing new.
    expect((await run(connector(server, 'renewals'), first.cursor)).items.filter((i) => i.kind === 'outcome')).toEqual([]);
    const other = await run(connector(server, 'upsell'), first.cursor);
    expect(other.items.filter((i) => i.kind === 'outcome')).toEqual([
      { kind: 'outcome', providerId: 'deals:2', outcome: 'renewed', date: '2025-06-02', companyProviderId: '101' },
    ]);
    expect(other.cursor).toMatchObject({ dealsPipeline: 'upsell' });
  });

  it('without a pipeline no deal is asked for, even when the deals stream is listed', async () => {
    const server = await fake();
    const c = createHubSpotConnector({ credentials: { accessToken: 'pat' }, apiUrl: server.apiUrl, clock: fixedClock(NOW), streams: ['companies', 'deals'] });
    const { items } = await run(c);
    expect(items.map((i) => i.kind)).toEqual(['company']);
    expect(server.stats.searches['deals']).toBeUndefined();
  });
});
